"""The *Check this agent* report: a run's progress and results, grouped by area.

``objectName`` ``checkReportView`` (in the dock ``checkReportDock``); inside:
``checkAgentLabel``, ``checkProgressBar``, ``checkCurrentLabel``, ``checkStopButton``,
``checkRerunButton``, ``checkProblemsOnlyCheck``, ``checkResultsTree``, ``checkSummaryLabel``.

The view consumes any stream of :data:`app.check.check_model.CheckEvent` (:meth:`run`) on the
qasync loop, so the window stays responsive; *Stop* cancels the consuming task, which
closes the stream and stops the run at once. A result row expands to the exchanges that
show it; activating one asks for it in History (:attr:`exchange_requested`).
"""

from __future__ import annotations

import asyncio
import html
import time
from collections.abc import AsyncIterator, Callable

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDockWidget,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
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
from app.ui.check.check_report_model import (
    CHECK,
    EXCHANGE_ROLE,
    INTERFACE,
    SECTION,
    STATUS,
    CheckReportModel,
    ProblemsFilter,
)
from app.ui.shell import theme
from app.ui.shell.plain_text import PlainLabel, shown
from app.ui.shell.tasks import OwnedTask

Source = Callable[[], AsyncIterator[CheckEvent]]
"""Starts a run: ``lambda: run_check(options)``."""

_ENDED = {
    EndReason.COMPLETED: "Completed",
    EndReason.UNREACHABLE: "The agent could not be reached",
    EndReason.BUDGET: "Stopped: the run's time budget ran out (the remaining checks skipped)",
    EndReason.CANCELLED: "Stopped",
}


class CheckReportView(QWidget):
    """Header (agent, progress, Stop), the results tree, and a summary line.

    Signals:
        exchange_requested: open this history entry (arg: its id).
        finished: a run ended (arg: the :class:`CheckEnded`, made up when it was stopped).
    """

    exchange_requested = Signal(int)
    finished = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("checkReportView")
        self._task = OwnedTask()
        self._source: Source | None = None
        self._started_at = 0.0
        self.ended: CheckEnded | None = None

        self.agent_label = QLabel("No check run yet")
        self.agent_label.setObjectName("checkAgentLabel")
        self.agent_label.setTextFormat(Qt.TextFormat.RichText)  # the card's words: _escape()
        self.agent_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.agent_label.setWordWrap(True)
        self.progress = QProgressBar()
        self.progress.setObjectName("checkProgressBar")
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setFormat("%v of %m checks")
        self.current_label = PlainLabel(multiline=False)
        self.current_label.setObjectName("checkCurrentLabel")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setObjectName("checkStopButton")
        self.stop_button.setToolTip("Stop the run (the checks done so far stay listed)")
        self.stop_button.setEnabled(False)
        self.rerun_button = QPushButton("Run again")
        self.rerun_button.setObjectName("checkRerunButton")
        self.rerun_button.setEnabled(False)
        self.problems_check = QCheckBox("Only failures and warnings")
        self.problems_check.setObjectName("checkProblemsOnlyCheck")

        self.model = CheckReportModel(self)
        self.shown = ProblemsFilter(self)  # what the tree shows: all, or the problems
        self.shown.setSourceModel(self.model)
        self.tree = QTreeView()
        self.tree.setObjectName("checkResultsTree")
        self.tree.setModel(self.shown)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        header = self.tree.header()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for column, width in ((CHECK, 380), (STATUS, 70), (INTERFACE, 260), (SECTION, 130)):
            self.tree.setColumnWidth(column, width)
        header.setStretchLastSection(True)
        self.summary = PlainLabel()
        self.summary.setObjectName("checkSummaryLabel")
        self.summary.setWordWrap(True)

        top = QHBoxLayout()
        top.addWidget(self.agent_label, 1)
        top.addWidget(self.rerun_button)
        top.addWidget(self.stop_button)
        bar = QHBoxLayout()
        bar.addWidget(self.progress, 1)
        bar.addWidget(self.current_label, 2)
        bar.addWidget(self.problems_check)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addLayout(bar)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.summary)

        self.stop_button.clicked.connect(self.stop)
        self.rerun_button.clicked.connect(self._rerun)
        self.tree.activated.connect(self._on_activated)
        self.problems_check.toggled.connect(self._on_problems_toggled)

    # --- running ---------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._task.running

    def run(self, source: Source, agent: str = "") -> None:
        """Start a run (a running one is stopped first); ``agent`` names it until the card
        is read."""
        self._source = source
        self.model.clear_results()
        self.ended = None
        self._started_at = time.monotonic()
        self.agent_label.setText(f"Checking <b>{_escape(agent)}</b>…" if agent else "Checking…")
        self.progress.setRange(0, 0)  # busy until the plan is known
        self.current_label.setText("Reading the Agent Card…")
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
            interfaces = ", ".join(event.interfaces) or "no interface"
            self.agent_label.setText(
                f"<b>{_escape(event.agent_name or event.card_url)}</b> — "
                f"{_escape(event.card_url)}<br>{_escape(interfaces)}"
            )
            self.progress.setRange(0, max(event.planned, 1))
            self.progress.setValue(0)
        elif isinstance(event, CheckProgress):
            self.progress.setRange(0, max(event.total, 1))
            self.progress.setValue(min(event.done, event.total))
            self.current_label.setText(event.current)
        elif isinstance(event, CheckResult):
            item = self.model.add_result(event)
            # Results show; their exchanges fold.
            self.tree.expand(self.shown.mapFromSource(item.parent().index()))

    def _end(self, ended: CheckEnded) -> None:
        self.ended = ended
        counts = ended.counts or self._counts()
        self.stop_button.setEnabled(False)
        self.rerun_button.setEnabled(self._source is not None)
        if self.progress.maximum() == 0:
            self.progress.setRange(0, 1)
        if ended.reason is EndReason.COMPLETED:
            self.progress.setValue(self.progress.maximum())
        self.current_label.setText("")
        parts = [f"{counts.get(s, 0)} {s.value}" for s in CheckStatus]
        seconds = (ended.elapsed_ms or self._elapsed_ms()) / 1000
        line = f"{_ENDED[ended.reason]} in {seconds:.1f} s — " + " · ".join(parts)
        if ended.message:
            line += f"\n{ended.message}"
        self.summary.setText(line)
        failed = counts.get(CheckStatus.FAIL, 0) or ended.reason is EndReason.UNREACHABLE
        role = "text-error" if failed else "text-warn" if counts.get(CheckStatus.WARN) else "plain"
        theme.style(self.summary, role)
        self.finished.emit(ended)

    def _counts(self) -> dict[CheckStatus, int]:
        counts = dict.fromkeys(CheckStatus, 0)
        for result in self.model.results:
            counts[result.status] += 1
        return counts

    def _elapsed_ms(self) -> float:
        return (time.monotonic() - self._started_at) * 1000

    def _rerun(self) -> None:
        if self._source is not None and not self.running:
            self.run(self._source)

    def _on_problems_toggled(self, only: bool) -> None:
        self.shown.set_only_problems(only)
        self.tree.expandToDepth(0)

    def _on_activated(self, index: QModelIndex) -> None:
        entry_id = index.siblingAtColumn(CHECK).data(EXCHANGE_ROLE)
        if isinstance(entry_id, int):
            self.exchange_requested.emit(entry_id)


def _escape(text: str) -> str:
    """The card's ``text`` for a rich-text label: shown as written, control characters too."""
    return html.escape(shown(text, multiline=False), quote=False)


class CheckReportDock(QDockWidget):
    """The dock holding the report (View → Check report); beside History at the bottom."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Check report", parent)
        self.setObjectName("checkReportDock")
        self.view = CheckReportView(self)
        self.setWidget(self.view)
        self.toggleViewAction().setObjectName("checkReportDockAction")
