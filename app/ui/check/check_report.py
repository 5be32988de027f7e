"""The *Check this agent* report, a tab of the main area: a run's progress, its results worst
first, and one result in full with its exchanges.

``objectName`` ``checkReportView``; inside: ``checkAgentLabel`` (agent and card URL),
``checkInterfacesLabel``, ``checkRerunButton``, ``checkStopButton``, ``checkProgressBar``,
``checkCurrentLabel`` (the check running), ``checkSummaryLabel`` (end, time, counts),
``checkProblemsOnlyCheck``, and the ``checkReportSplitter`` of ``checkResultsTree`` over the
``checkDetailPane`` (:mod:`app.ui.check.check_detail`, shown once a row is picked).

The view consumes any stream of :data:`app.check.check_model.CheckEvent` (:meth:`run`) on the
qasync loop, so the window stays responsive; *Stop* cancels the consuming task, which
closes the stream and stops the run at once. A result row expands to the exchanges that
show it; clicking a row shows the result and an exchange below, read-only.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSplitter,
    QStyle,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from app.check.check_model import (
    CheckEnded,
    CheckEvent,
    CheckProgress,
    CheckResult,
    CheckStarted,
    CheckStatus,
    EndReason,
)
from app.ui.check.check_detail import CheckDetailPane, StoreProvider
from app.ui.check.check_report_model import (
    COLUMNS,
    STATUS,
    WORST_FIRST,
    CheckReportModel,
    ReportOrder,
)
from app.ui.shell import theme
from app.ui.shell.elided import ElidedLabel
from app.ui.shell.plain_text import plain_tip
from app.ui.shell.tasks import OwnedTask

Source = Callable[[], AsyncIterator[CheckEvent]]
"""Starts a run: ``lambda: run_check(options)``."""

_ENDED = {
    EndReason.COMPLETED: "Completed",
    EndReason.UNREACHABLE: "The agent could not be reached",
    EndReason.BUDGET: "Stopped: the run's time budget ran out (the remaining checks skipped)",
    EndReason.CANCELLED: "Stopped",
}
_DETAIL_LEAST = 40
"""The Detail column's least width, in characters, when the others grow."""
_RESULTS_SHARE = 0.4
"""The results' share of the height when the detail pane first opens below them."""


def _no_store() -> None:
    return None


class CheckReportView(QWidget):
    """Header (agent, Run again, Stop, progress, summary), the results, the detail pane.

    Signals:
        exchange_requested: open this history entry in the History dock (arg: its id).
        finished: a run ended (arg: the :class:`CheckEnded`, made up when it was stopped).
    """

    exchange_requested = Signal(int)
    finished = Signal(object)

    def __init__(self, parent: QWidget | None = None, store: StoreProvider = _no_store) -> None:
        super().__init__(parent)
        self.setObjectName("checkReportView")
        self._task = OwnedTask()
        self._source: Source | None = None
        self._started_at = 0.0
        self.ended: CheckEnded | None = None
        self._counted = dict.fromkeys(CheckStatus, 0)  # the results shown, by status

        self.agent_label = ElidedLabel("checkAgentLabel")
        self.agent_label.setTextFormat(Qt.TextFormat.PlainText)  # the card's name
        font = self.agent_label.font()
        font.setBold(True)
        self.agent_label.setFont(font)
        self.agent_label.set_text("No check run yet: Request → Check this agent…")
        self.interfaces_label = ElidedLabel("checkInterfacesLabel")
        self.interfaces_label.setTextFormat(Qt.TextFormat.PlainText)
        self.rerun_button = QPushButton("Run again")
        self.rerun_button.setObjectName("checkRerunButton")
        self.rerun_button.setEnabled(False)
        self.rerun_button.setToolTip("Check the same agent again with the same settings")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setObjectName("checkStopButton")
        self.stop_button.setToolTip("Stop the run (the checks done so far stay listed)")
        self.stop_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setObjectName("checkProgressBar")
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setFormat("%v of %m checks")
        self.current_label = ElidedLabel("checkCurrentLabel")
        self.current_label.setTextFormat(Qt.TextFormat.PlainText)
        self.summary = QLabel("")
        self.summary.setObjectName("checkSummaryLabel")
        self.summary.setTextFormat(Qt.TextFormat.PlainText)  # the end message may quote the agent
        self.summary.setWordWrap(True)
        self.problems_check = QCheckBox("Only failures and warnings")
        self.problems_check.setObjectName("checkProblemsOnlyCheck")

        self.model = CheckReportModel(self)
        self.shown = ReportOrder(self)  # what the tree shows: its order, all or the problems
        self.shown.setSourceModel(self.model)
        self.tree = QTreeView()
        self.tree.setObjectName("checkResultsTree")
        self.tree.setModel(self.shown)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSortingEnabled(True)
        self.tree.sortByColumn(STATUS, Qt.SortOrder.AscendingOrder)  # worst first
        header = self.tree.header()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self._sizing = False
        self._user_sized = False
        self._size_columns()
        header.sectionResized.connect(self._on_section_resized)
        self.tree.viewport().installEventFilter(self)
        self.detail = CheckDetailPane(store)
        self.detail.hide()
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("checkReportSplitter")
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.tree)
        self.splitter.addWidget(self.detail)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 1)

        top = QHBoxLayout()
        names = QVBoxLayout()
        names.setSpacing(0)
        names.addWidget(self.agent_label)
        names.addWidget(self.interfaces_label)
        top.addLayout(names, 1)
        top.addWidget(self.rerun_button)
        top.addWidget(self.stop_button)
        bar = QHBoxLayout()
        bar.addWidget(self.progress, 2)
        bar.addWidget(self.current_label, 3)
        ends = QHBoxLayout()
        ends.addWidget(self.summary, 1)
        ends.addWidget(self.problems_check)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(top)
        layout.addLayout(bar)
        layout.addLayout(ends)
        layout.addWidget(self.splitter, 1)

        self.stop_button.clicked.connect(self.stop)
        self.rerun_button.clicked.connect(self._rerun)
        self.tree.clicked.connect(self._pick)
        self.tree.activated.connect(self._pick)
        self.tree.selectionModel().currentChanged.connect(self._follow)
        self.problems_check.toggled.connect(self.shown.set_only_problems)
        self.detail.close_requested.connect(self.detail.hide)
        self.detail.open_in_history.connect(self.exchange_requested)

    def _size_columns(self) -> None:
        """Widths from the font (not from the rows, which keep arriving); a wide window
        widens the columns that may grow, up to their ``most``, keeping the last column,
        Detail, at least :data:`_DETAIL_LEAST` characters. Until the user drags a column
        edge; every column stays user-resizable."""
        char = self.tree.fontMetrics().averageCharWidth()
        pad = 2 * self.tree.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin) + 12
        widths = [spec.chars * char + pad if spec.chars else 0 for spec in COLUMNS]
        widths[0] += self.tree.indentation()  # the expand arrow
        spare = self.tree.viewport().width() - sum(widths) - _DETAIL_LEAST * char
        for column, spec in enumerate(COLUMNS):
            grow = min(max(spare, 0), (spec.most - spec.chars) * char) if spec.most else 0
            widths[column] += grow
            spare -= grow
        header = self.tree.header()
        self._sizing = True
        for column, width in enumerate(widths):
            if width:
                header.resizeSection(column, width)
        self._sizing = False

    def _on_section_resized(self, column: int, _old: int, _new: int) -> None:
        if not self._sizing and column != len(COLUMNS) - 1:  # the last one only follows
            self._user_sized = True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # The results' viewport resized (the window, a dock, the splitter): columns follow.
        if event.type() is QEvent.Type.Resize and not self._user_sized:
            self._size_columns()
        return super().eventFilter(watched, event)

    # --- running ---------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._task.running

    @property
    def source(self) -> Source | None:
        """What the last run was started from (*Run again* starts it again)."""
        return self._source

    def run(self, source: Source, agent: str = "") -> None:
        """Start a run (a running one is stopped first); ``agent`` names it until the card
        is read."""
        self._source = source
        self.model.clear_results()
        self._counted = dict.fromkeys(CheckStatus, 0)
        self.detail.show_result(None)
        self.ended = None
        self._started_at = time.monotonic()
        self.agent_label.set_text(f"Checking {agent}…" if agent else "Checking…")
        self.interfaces_label.set_text("")
        self.progress.setRange(0, 0)  # busy until the plan is known
        self.current_label.set_text("Reading the Agent Card…")
        self.summary.setText("")
        theme.style(self.summary, "plain")
        self.stop_button.setEnabled(True)
        self.rerun_button.setEnabled(False)
        self._task.start(self._consume(source()))

    def stop(self) -> None:
        """Stop the run: the task is cancelled, which closes the stream."""
        if self.running:
            self._task.cancel()

    async def shutdown(self) -> None:
        await self._task.shutdown()
        await self.detail.shutdown()

    def closeEvent(self, event: QCloseEvent) -> None:
        """The report's tab was closed: a run nobody watches is stopped."""
        self.stop()
        event.accept()

    async def _consume(self, events: AsyncIterator[CheckEvent]) -> None:
        ended: CheckEnded | None = None
        try:
            async for event in events:
                self.show_event(event)
                if isinstance(event, CheckEnded):
                    ended = event
        except asyncio.CancelledError:
            ended = CheckEnded(EndReason.CANCELLED, self._counts(), self._elapsed_ms())
            self._end(ended)
            raise
        finally:
            close = getattr(events, "aclose", None)
            if close is not None:
                await close()
        self._end(ended or CheckEnded(EndReason.COMPLETED, self._counts(), self._elapsed_ms()))

    def show_event(self, event: CheckEvent) -> None:
        """Show one record of the run."""
        if isinstance(event, CheckStarted):
            agent = event.agent_name or event.card_url
            self.agent_label.set_text(f"{agent} — {event.card_url}")
            self.agent_label.setToolTip(plain_tip(self.agent_label.text()))
            self.interfaces_label.set_text(_interfaces(event.interfaces))
            self.interfaces_label.setToolTip(plain_tip("\n".join(event.interfaces)))
            self.progress.setRange(0, max(event.planned, 1))
            self.progress.setValue(0)
        elif isinstance(event, CheckProgress):
            self.progress.setRange(0, max(event.total, 1))
            self.progress.setValue(min(event.done, event.total))
            self.current_label.set_text(event.current)
        elif isinstance(event, CheckResult):
            self.model.add_result(event)
            self._counted[event.status] += 1
            self._summarise("So far", self._counted)

    def _end(self, ended: CheckEnded) -> None:
        self.ended = ended
        self.stop_button.setEnabled(False)
        self.rerun_button.setEnabled(self._source is not None)
        if self.progress.maximum() == 0:
            self.progress.setRange(0, 1)
        if ended.reason is EndReason.COMPLETED:
            self.progress.setValue(self.progress.maximum())
        self.current_label.set_text("")
        seconds = (ended.elapsed_ms or self._elapsed_ms()) / 1000
        self._summarise(
            f"{_ENDED[ended.reason]} in {seconds:.1f} s",
            ended.counts or self._counts(),
            ended.message,
            unreachable=ended.reason is EndReason.UNREACHABLE,
        )
        self.finished.emit(ended)

    def _summarise(
        self, head: str, counts: dict[CheckStatus, int], message: str = "", *,
        unreachable: bool = False,
    ) -> None:  # fmt: skip
        """``head — 1 fail · 0 warn · …`` (and ``message`` below), coloured by the worst."""
        line = f"{head} — " + " · ".join(f"{counts.get(s, 0)} {s.value}" for s in WORST_FIRST)
        self.summary.setText(f"{line}\n{message}" if message else line)
        failed = counts.get(CheckStatus.FAIL, 0) or unreachable
        role = "text-error" if failed else "text-warn" if counts.get(CheckStatus.WARN) else "plain"
        theme.style(self.summary, role)

    def _counts(self) -> dict[CheckStatus, int]:
        return dict(self._counted)

    def _elapsed_ms(self) -> float:
        return (time.monotonic() - self._started_at) * 1000

    def _rerun(self) -> None:
        if self._source is not None and not self.running:
            self.run(self._source)

    # --- the detail pane -------------------------------------------------------------

    def _pick(self, index: QModelIndex) -> None:
        """A row clicked or activated: show it in the detail pane (opened if closed)."""
        if not self.detail.isVisibleTo(self):
            total = sum(self.splitter.sizes()) or self.splitter.height()
            self.detail.show()
            top = int(total * _RESULTS_SHARE)
            self.splitter.setSizes([top, total - top])
            self.tree.scrollTo(index)  # the row picked stays in sight above the pane
        self._follow(index)

    def _follow(self, index: QModelIndex) -> None:
        """The current row changed (keys, a click): the open pane follows it."""
        if not index.isValid() or not self.detail.isVisibleTo(self):
            return
        result = self.shown.result_at(index)
        if result is not None:
            self.detail.show_result(result, self.shown.exchange_at(index))


def _interfaces(labels: tuple[str, ...]) -> str:
    """``6 interfaces: JSONRPC 1.0 · HTTP+JSON 1.0 · …`` (each URL is in the tooltip)."""
    if not labels:
        return "The card lists no interface this app speaks"
    kinds = " · ".join(" ".join(label.split()[:2]) for label in labels)
    return f"{len(labels)} interface{'s' if len(labels) > 1 else ''}: {kinds}"
