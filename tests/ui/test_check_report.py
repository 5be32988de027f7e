"""The check report view as a person uses it: a run's progress, groups, Stop, exchanges.

The runs here are recorded streams of CheckEvents (the view's input); the run against the
real demo agent is in tests/ui/test_check_action.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QLabel, QProgressBar, QPushButton, QTreeView

from app.check.check_model import (
    CheckArea,
    CheckEnded,
    CheckEvent,
    CheckProgress,
    CheckResult,
    CheckStarted,
    CheckStatus,
    EndReason,
)
from app.ui.check.check_report import CheckReportView
from app.ui.check.check_report_model import CHECK, EXCHANGE_ROLE, STATUS
from app.ui.shell.theme import brushes
from tests.helpers.screenshots import SHOTS

pytestmark = pytest.mark.gui
JSONRPC = "JSONRPC 1.0 http://127.0.0.1:8000/"
REST = "HTTP+JSON 1.0 http://127.0.0.1:8000/rest"

RESULTS = [
    CheckResult("card.valid", CheckArea.CARD, "the card validates", CheckStatus.PASS,
                "A2A 1.0 §8.2"),
    CheckResult("errors.task-not-found", CheckArea.ERRORS, "unknown task id gets TaskNotFound",
                CheckStatus.FAIL, "A2A 1.0 §3.3.2",
                "expected -32001 TaskNotFoundError\ngot -32603 Internal error", JSONRPC, (7, 8),
                tck=("CORE-GET-002", "JSONRPC-SSE-002")),
    CheckResult("core.send", CheckArea.CORE, "SendMessage returns a Task or Message",
                CheckStatus.PASS, "A2A 1.0 §3.1.1", "", JSONRPC, (5,)),
    CheckResult("core.send", CheckArea.CORE, "SendMessage returns a Task or Message",
                CheckStatus.PASS, "A2A 1.0 §3.1.1", "", REST, (6,)),
    CheckResult("streaming.starts-with-task", CheckArea.STREAMING,
                "a stream starts with a Task", CheckStatus.WARN, "A2A 1.0 §3.1.2",
                "the first item was a status update", REST),
    CheckResult("push.lifecycle", CheckArea.PUSH, "push config create, list, deliver, delete",
                CheckStatus.SKIP, "A2A 1.0 §3.5", "the card says pushNotifications: false"),
]  # fmt: skip


def recorded(
    events: list[CheckEvent], pause: float = 0.0, gate: asyncio.Event | None = None
) -> Callable[[], AsyncIterator[CheckEvent]]:
    """A source replaying ``events``; before the end it waits for ``gate`` when given."""

    async def replay() -> AsyncIterator[CheckEvent]:
        for event in events:
            if isinstance(event, CheckEnded) and gate is not None:
                await gate.wait()
            await asyncio.sleep(pause)
            yield event

    return replay


def a_run() -> list[CheckEvent]:
    events: list[CheckEvent] = [
        CheckStarted("http://127.0.0.1:8000/.well-known/agent-card.json", "Demo agent",
                     (JSONRPC, REST), len(RESULTS)),
    ]  # fmt: skip
    for done, result in enumerate(RESULTS):
        events += [CheckProgress(done, len(RESULTS), result.title), result]
    counts = {s: sum(r.status is s for r in RESULTS) for s in CheckStatus}
    return [*events, CheckEnded(EndReason.COMPLETED, counts, 1234.0)]


@pytest.fixture
def view(qtbot: Any, qloop: Any) -> Any:
    widget = CheckReportView()
    widget.resize(1100, 460)
    widget.show()
    yield widget
    qloop.run_until_complete(widget.shutdown())
    widget.deleteLater()


def child(view: CheckReportView, kind: type, name: str) -> Any:
    found = view.findChild(kind, name)
    assert found is not None, name
    return found


def test_results_are_grouped_by_area_in_order_with_status_colours(
    view: CheckReportView, wait_until: Callable[..., None]
) -> None:
    view.run(recorded(a_run()), agent="http://127.0.0.1:8000/")
    assert child(view, QPushButton, "checkStopButton").isEnabled()
    wait_until(lambda: view.ended is not None)
    model = view.model
    assert model.group_titles() == [
        "Agent Card (1 pass)",
        "Core methods (2 pass)",
        "Errors (1 fail)",
        "Streaming (1 warn)",
        "Push notifications (1 skip)",
    ]
    errors = model.item(2, CHECK)
    assert model.item(2, STATUS).text() == "✗ fail"
    failed = errors.child(0, CHECK)
    assert failed.text() == "unknown task id gets TaskNotFound"
    assert [errors.child(0, c).text() for c in range(1, 6)] == [
        "✗ fail", JSONRPC, "A2A 1.0 §3.3.2", "CORE-GET-002, JSONRPC-SSE-002",
        "expected -32001 TaskNotFoundError …",
    ]  # fmt: skip
    assert errors.child(0, STATUS).foreground() == brushes().error_text
    assert model.item(0, STATUS).foreground() == brushes().ok_text
    assert model.item(4, STATUS).foreground() == brushes().muted_text
    tree = child(view, QTreeView, "checkResultsTree")
    assert tree.isExpanded(view.shown.mapFromSource(errors.index()))  # a failure is shown open
    assert [failed.child(r, CHECK).text() for r in range(failed.rowCount())] == [
        "exchange #7 — open in History", "exchange #8 — open in History",
    ]  # fmt: skip
    bar = child(view, QProgressBar, "checkProgressBar")
    assert (bar.value(), bar.maximum()) == (len(RESULTS), len(RESULTS))
    assert "Demo agent" in child(view, QLabel, "checkAgentLabel").text()
    summary = child(view, QLabel, "checkSummaryLabel").text()
    assert summary == "Completed in 1.2 s — 3 pass · 1 fail · 1 warn · 1 skip · 0 n/a"
    assert not child(view, QPushButton, "checkStopButton").isEnabled()
    tree.expandAll()
    SHOTS.mkdir(parents=True, exist_ok=True)
    view.grab().save(str(SHOTS / "assert-check-report.png"))


def test_stop_ends_the_run_and_keeps_what_was_done(
    view: CheckReportView, qtbot: Any, wait_until: Callable[..., None]
) -> None:
    gate = asyncio.Event()  # never set: the run would wait for ever
    view.run(recorded(a_run(), gate=gate))
    wait_until(lambda: len(view.model.results) == len(RESULTS))
    bar = child(view, QProgressBar, "checkProgressBar")
    assert bar.value() == len(RESULTS) - 1
    assert child(view, QLabel, "checkCurrentLabel").text() == RESULTS[-1].title
    qtbot.mouseClick(child(view, QPushButton, "checkStopButton"), Qt.MouseButton.LeftButton)
    wait_until(lambda: view.ended is not None)
    assert view.ended is not None and view.ended.reason is EndReason.CANCELLED
    assert not view.running
    assert child(view, QLabel, "checkSummaryLabel").text().startswith("Stopped in ")
    assert len(view.model.results) == len(RESULTS)
    rerun = child(view, QPushButton, "checkRerunButton")
    assert rerun.isEnabled()
    gate.set()
    qtbot.mouseClick(rerun, Qt.MouseButton.LeftButton)
    wait_until(lambda: view.ended is not None and view.ended.reason is EndReason.COMPLETED)
    assert len(view.model.results) == len(RESULTS)  # the rerun starts a fresh report


def test_an_unreachable_agent_is_said_plainly(
    view: CheckReportView, wait_until: Callable[..., None]
) -> None:
    message = "http://127.0.0.1:9/.well-known/agent-card.json: connection refused"
    view.run(recorded([CheckEnded(EndReason.UNREACHABLE, {}, 12.0, message)]))
    wait_until(lambda: view.ended is not None)
    text = child(view, QLabel, "checkSummaryLabel").text()
    assert text.startswith("The agent could not be reached in 0.0 s")
    assert message in text


def test_activating_an_exchange_asks_for_it_in_history(
    view: CheckReportView, qtbot: Any, wait_until: Callable[..., None]
) -> None:
    view.run(recorded(a_run()))
    wait_until(lambda: view.ended is not None)
    tree = child(view, QTreeView, "checkResultsTree")
    failed = view.model.item(2, CHECK).child(0, CHECK)
    tree.expand(view.shown.mapFromSource(failed.index()))
    link = failed.child(1, CHECK)
    assert link.data(EXCHANGE_ROLE) == 8
    tree.scrollTo(view.shown.mapFromSource(link.index()))
    qtbot.wait(20)
    rect = tree.visualRect(view.shown.mapFromSource(link.index()))
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    with qtbot.waitSignal(view.exchange_requested, timeout=2000) as opened:
        qtbot.mouseDClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert opened.args == [8]
    tree.setCurrentIndex(view.shown.mapFromSource(failed.child(0, CHECK).index()))
    with qtbot.waitSignal(view.exchange_requested, timeout=2000) as opened:
        qtbot.keyClick(tree, Qt.Key.Key_Return)
    assert opened.args == [7]


def test_only_failures_and_warnings(
    view: CheckReportView, qtbot: Any, wait_until: Callable[..., None]
) -> None:
    view.run(recorded(a_run()))
    wait_until(lambda: view.ended is not None)
    tree = child(view, QTreeView, "checkResultsTree")
    shown = tree.model()
    assert shown.rowCount() == 5
    child(view, QCheckBox, "checkProblemsOnlyCheck").setChecked(True)
    titles = [shown.index(r, CHECK).data() for r in range(shown.rowCount())]
    assert titles == ["Errors (1 fail)", "Streaming (1 warn)"]
    errors = shown.index(0, CHECK)
    assert tree.isExpanded(errors)
    failed = shown.index(0, CHECK, errors)
    assert shown.rowCount(failed) == 2  # its exchanges stay
    child(view, QCheckBox, "checkProblemsOnlyCheck").setChecked(False)
    assert shown.rowCount() == 5
