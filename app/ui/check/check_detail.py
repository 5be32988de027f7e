"""The check report's lower pane: one result in full and one of its exchanges, read-only.

``objectName`` ``checkDetailPane``; inside: ``checkDetailLabel`` (status, title, check id,
interface, spec section), ``checkDetailText`` (the whole detail), ``checkExchangeLabel``,
``checkOpenInHistoryButton``, ``checkDetailCloseButton`` and ``checkExchangeViewer`` (the
History viewer's Response and Timeline, ``checkExchangeResponseView`` and
``checkExchangeTimeline``). The exchange is read from the history store off the GUI thread,
as the History dock reads it.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.check.check_model import CheckResult, CheckStatus
from app.history.store import HistoryStore
from app.ui.check.check_report_model import SYMBOL
from app.ui.history.history_viewer import HistoryViewer, load_entry
from app.ui.shell import theme
from app.ui.shell.tasks import OwnedTask

StoreProvider = Callable[[], HistoryStore | None]
"""The history store now (None while it is not open, or without one)."""

_ROLE = {CheckStatus.FAIL: "text-error", CheckStatus.WARN: "text-warn"}
"""The header's colour for a result that needs a look."""

_VIEWER_LINES = 9
"""The exchange viewer's least height in lines."""

_DETAIL_LINES = 6
"""The detail box's most lines; a longer detail scrolls (a long line wraps)."""


class CheckDetailPane(QWidget):
    """What one result says and the exchange picked of it.

    Signals:
        open_in_history: show this history entry in the History dock (arg: its id).
        close_requested: the user closed the pane.
    """

    open_in_history = Signal(int)
    close_requested = Signal()

    def __init__(self, store: StoreProvider, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("checkDetailPane")
        self._store = store
        self._loading = OwnedTask()
        self.result: CheckResult | None = None
        self.entry_id: int | None = None

        self.label = QLabel()
        self.label.setObjectName("checkDetailLabel")
        self.label.setTextFormat(Qt.TextFormat.PlainText)  # the agent's words end up here
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.close_button = QToolButton()
        self.close_button.setObjectName("checkDetailCloseButton")
        self.close_button.setText("×")
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip("Close this pane (the results take the whole height)")
        self.text = QPlainTextEdit()
        self.text.setObjectName("checkDetailText")
        self.text.setReadOnly(True)
        self._fit_text(1)
        self.exchange_label = QLabel()
        self.exchange_label.setObjectName("checkExchangeLabel")
        self.exchange_label.setTextFormat(Qt.TextFormat.PlainText)
        self.history_button = QPushButton("Open in History")
        self.history_button.setObjectName("checkOpenInHistoryButton")
        self.history_button.setToolTip("Show this exchange in the History dock (compare, export)")
        self.viewer = HistoryViewer()
        self.viewer.setObjectName("checkExchangeViewer")
        self.viewer.response_view.setObjectName("checkExchangeResponseView")
        self.viewer.timeline.setObjectName("checkExchangeTimeline")
        # Its pages would ask for ~330 px (the timeline's header, table and detail): the
        # results above keep most of the height unless the user drags the splitter.
        self.viewer.setMinimumHeight(self.fontMetrics().lineSpacing() * _VIEWER_LINES)

        # Few rows of its own: the exchange below gets the height (a stream's timeline
        # has a header of its own).
        head = QHBoxLayout()
        head.addWidget(self.label, 1)
        head.addWidget(self.history_button, 0, Qt.AlignmentFlag.AlignTop)
        head.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.setSpacing(4)
        layout.addLayout(head)
        layout.addWidget(self.text)
        layout.addWidget(self.exchange_label)
        layout.addWidget(self.viewer, 1)

        self.close_button.clicked.connect(self.close_requested)
        self.history_button.clicked.connect(self._open_in_history)
        self.show_result(None)

    def show_result(self, result: CheckResult | None, entry_id: int | None = None) -> None:
        """Show ``result`` and its exchange ``entry_id`` (default: its first one)."""
        self.result = result
        if result is None:
            self.label.setText("Pick a result to see it in full, with its exchanges")
            self.text.clear()
            theme.style(self.label, "plain")
            self._show_exchange(None)
            return
        where = result.interface or "card-wide"
        section = f" · {result.section}" if result.section else ""
        self.label.setText(
            f"{SYMBOL[result.status]} — {result.title}\n{result.check_id} · {where}{section}"
        )
        theme.style(self.label, _ROLE.get(result.status, "plain"))
        self.text.setPlainText(result.detail or "(no detail)")
        self._fit_text(self._wrapped_lines())
        if entry_id is None and result.exchanges:
            entry_id = result.exchanges[0]
        self._show_exchange(entry_id)

    def _wrapped_lines(self) -> int:
        """How many lines the detail takes at the box's width (a long line wraps)."""
        width = max(self.text.viewport().width(), 200)
        metrics = self.text.fontMetrics()
        return sum(
            -(-metrics.horizontalAdvance(line) // width) or 1
            for line in self.text.toPlainText().splitlines()
        )

    def _fit_text(self, lines: int) -> None:
        """As tall as the detail's lines, up to :data:`_DETAIL_LINES` (then it scrolls)."""
        shown = min(max(lines, 1), _DETAIL_LINES)
        height = self.text.fontMetrics().lineSpacing() * shown
        margins = 2 * (self.text.frameWidth() + round(self.text.document().documentMargin()))
        self.text.setFixedHeight(height + margins + 4)

    def _show_exchange(self, entry_id: int | None) -> None:
        self.history_button.setEnabled(entry_id is not None)
        if entry_id is None:
            self._loading.cancel()
            self.entry_id = None
            self.viewer.hide()
            none = self.result is not None and not self.result.exchanges
            self.exchange_label.setText("This check made no call" if none else "")
            return
        if entry_id == self.entry_id and self.viewer.isVisibleTo(self):
            return
        self.entry_id = entry_id
        exchanges = self.result.exchanges if self.result is not None else (entry_id,)
        where = (
            f" ({exchanges.index(entry_id) + 1} of {len(exchanges)})" if len(exchanges) > 1 else ""
        )
        store = self._store()
        if store is None:
            self.viewer.hide()
            self.exchange_label.setText(
                f"Exchange #{entry_id}{where}: History is off, so it was not recorded"
            )
            return
        self.exchange_label.setText(f"Exchange #{entry_id}{where} — loading…")
        self._loading.start(self._load(store, entry_id, where))

    async def _load(self, store: HistoryStore, entry_id: int, where: str) -> None:
        loaded = await load_entry(store, entry_id)
        if loaded is None:
            self.viewer.hide()
            self.exchange_label.setText(f"Exchange #{entry_id}: History no longer has it")
            return
        entry = loaded[0]
        self.exchange_label.setText(
            f"Exchange #{entry_id}{where}: {entry.rpc_method} {entry.binding} {entry.version}"
            f" → {entry.outcome or 'not finished'}"
        )
        self.viewer.show()
        self.viewer.show_exchange(*loaded)

    def _open_in_history(self) -> None:
        if self.entry_id is not None:
            self.open_in_history.emit(self.entry_id)

    async def shutdown(self) -> None:
        await self._loading.shutdown()
