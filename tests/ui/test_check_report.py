"""The check report view as a person uses it: a run's progress, the results worst first, Stop,
the detail pane with an exchange, the filter, sorting by a column, the splitter.

The runs here are recorded streams of CheckEvents (the view's input); runs against the real
demo agent are in tests/ui/test_check_action.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtWidgets import (
    QCheckBox,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QToolButton,
    QTreeView,
    QWidget,
)

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
from app.ui.check.check_report_model import (
    CHECK,
    DETAIL,
    EXCHANGE_ROLE,
    INTERFACE,
    STATUS,
    TCK,
)
from app.ui.shell.theme import brushes
from tests.helpers.screenshots import SHOTS

pytestmark = pytest.mark.gui
JSONRPC = "JSONRPC 1.0 http://127.0.0.1:8000/"
REST = "HTTP+JSON 1.0 http://127.0.0.1:8000/rest"

RESULTS = [
    CheckResult("card.valid", CheckArea.CARD, "the card validates", CheckStatus.PASS,
                "A2A 1.0 §8.2"),
    CheckResult("core.send", CheckArea.CORE, "SendMessage returns a Task or Message",
                CheckStatus.PASS, "A2A 1.0 §3.1.1", "", JSONRPC, (5,)),
    CheckResult("errors.task-not-found", CheckArea.ERRORS, "unknown task id gets TaskNotFound",
                CheckStatus.FAIL, "A2A 1.0 §3.3.2",
                "expected -32001 TaskNotFoundError\ngot -32603 Internal error", JSONRPC, (7, 8),
                tck=("CORE-GET-002", "JSONRPC-SSE-002")),
    CheckResult("core.send", CheckArea.CORE, "SendMessage returns a Task or Message",
                CheckStatus.PASS, "A2A 1.0 §3.1.1", "", REST, (6,)),
    CheckResult("streaming.lifecycle", CheckArea.STREAMING, "a stream starts with a Task",
                CheckStatus.NA, "A2A 1.0 §3.1.2", "the card does not claim streaming", REST),
    CheckResult("streaming.starts-with-task", CheckArea.STREAMING,
                "a stream starts with a Task", CheckStatus.WARN, "A2A 1.0 §3.1.2",
                "the first item was a status update", REST),
    CheckResult("security.unauthenticated", CheckArea.SECURITY, "no credentials, refused",
                CheckStatus.SKIP, "A2A 1.0 §7", "no credentials were given", JSONRPC),
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


def a_run(results: list[CheckResult] = RESULTS) -> list[CheckEvent]:
    events: list[CheckEvent] = [
        CheckStarted("http://127.0.0.1:8000/.well-known/agent-card.json", "Demo agent",
                     (JSONRPC, REST), len(results)),
    ]  # fmt: skip
    for done, result in enumerate(results):
        events += [CheckProgress(done, len(results), result.title), result]
    counts = {s: sum(r.status is s for r in results) for s in CheckStatus}
    return [*events, CheckEnded(EndReason.COMPLETED, counts, 1234.0)]


@pytest.fixture
def view(qtbot: Any, qloop: Any) -> Any:
    widget = CheckReportView()
    widget.resize(1100, 560)
    widget.show()
    yield widget
    qloop.run_until_complete(widget.shutdown())
    widget.deleteLater()


def child(view: QWidget, kind: type, name: str) -> Any:
    found = view.findChild(kind, name)
    assert found is not None, name
    return found


def shown_column(view: CheckReportView, column: int) -> list[str]:
    """The texts of ``column``'s top-level rows, top to bottom, as the tree shows them."""
    model = child(view, QTreeView, "checkResultsTree").model()
    return [model.index(r, column).data() for r in range(model.rowCount())]


def click_row(qtbot: Any, view: CheckReportView, row: int, parent_row: int | None = None) -> None:
    tree = child(view, QTreeView, "checkResultsTree")
    model = tree.model()
    if parent_row is None:
        index = model.index(row, CHECK)
    else:
        parent = model.index(parent_row, 0)
        tree.expand(parent)
        index = model.index(row, CHECK, parent)
    tree.scrollTo(index)
    qtbot.wait(20)
    qtbot.mouseClick(
        tree.viewport(), Qt.MouseButton.LeftButton, pos=tree.visualRect(index).center()
    )


def test_failures_and_warnings_come_first_with_status_colours_and_a_summary(
    view: CheckReportView, wait_until: Callable[..., None]
) -> None:
    view.run(recorded(a_run()), agent="http://127.0.0.1:8000/")
    assert child(view, QPushButton, "checkStopButton").isEnabled()
    wait_until(lambda: view.ended is not None)
    # Worst first (fail, warn, skip, pass, n/a), in the run's order within a status.
    assert shown_column(view, STATUS) == [
        "✗ fail", "! warn", "– skip", "✓ pass", "✓ pass", "✓ pass", "○ n/a",
    ]  # fmt: skip
    assert shown_column(view, CHECK)[:3] == [
        "unknown task id gets TaskNotFound",
        "a stream starts with a Task",
        "no credentials, refused",
    ]
    assert shown_column(view, INTERFACE)[3:5] == ["card-wide", JSONRPC]
    assert shown_column(view, DETAIL)[0] == "expected -32001 TaskNotFoundError …"
    assert shown_column(view, TCK)[0] == "CORE-GET-002, JSONRPC-SSE-002"  # its a2a-tck ids
    tree = child(view, QTreeView, "checkResultsTree")
    shown = tree.model()
    assert shown.index(0, STATUS).data(Qt.ItemDataRole.ForegroundRole) == brushes().error_text
    assert shown.index(1, STATUS).data(Qt.ItemDataRole.ForegroundRole) == brushes().warn_text
    assert shown.index(3, STATUS).data(Qt.ItemDataRole.ForegroundRole) == brushes().ok_text
    assert shown.index(6, STATUS).data(Qt.ItemDataRole.ForegroundRole) == brushes().muted_text
    failed = shown.index(0, 0)
    assert not tree.isExpanded(failed)  # collapsed: many results in sight
    assert [shown.index(r, CHECK, failed).data() for r in range(shown.rowCount(failed))] == [
        "exchange #7", "exchange #8",
    ]  # fmt: skip
    bar = child(view, QProgressBar, "checkProgressBar")
    assert (bar.value(), bar.maximum()) == (len(RESULTS), len(RESULTS))
    assert "Demo agent" in child(view, QLabel, "checkAgentLabel").text()
    assert child(view, QLabel, "checkInterfacesLabel").text() == (
        "2 interfaces: JSONRPC 1.0 · HTTP+JSON 1.0"
    )
    summary = child(view, QLabel, "checkSummaryLabel").text()
    assert summary == "Completed in 1.2 s — 1 fail · 1 warn · 1 skip · 3 pass · 1 n/a"
    assert not child(view, QPushButton, "checkStopButton").isEnabled()
    SHOTS.mkdir(parents=True, exist_ok=True)
    view.grab().save(str(SHOTS / "assert-check-report.png"))


def test_agent_text_is_never_rich_text(
    view: CheckReportView, wait_until: Callable[..., None]
) -> None:
    name = "<b>Bold</b> <img src=x>"
    started = CheckStarted("http://127.0.0.1:8000/", name, (JSONRPC,), 1)
    said = RESULTS[2].detail + " <img src=x>"
    result = dataclasses.replace(RESULTS[2], detail=said)
    view.run(recorded([started, result, CheckEnded(EndReason.COMPLETED, {}, 1.0, name)]))
    wait_until(lambda: view.ended is not None)
    for label_name in ("checkAgentLabel", "checkSummaryLabel", "checkInterfacesLabel"):
        assert child(view, QLabel, label_name).textFormat() is Qt.TextFormat.PlainText
    assert name in child(view, QLabel, "checkAgentLabel").text()
    # Tooltips render what looks like HTML as HTML: theirs are escaped.
    assert "&lt;b&gt;Bold&lt;/b&gt;" in child(view, QLabel, "checkAgentLabel").toolTip()
    shown = child(view, QTreeView, "checkResultsTree").model()
    tip = shown.index(0, DETAIL).data(Qt.ItemDataRole.ToolTipRole)
    # Shown as written: escaped when Qt would read it as HTML.
    assert ("<img" not in tip or not GuiQt.mightBeRichText(tip)) and "TaskNotFoundError" in tip


def test_a_result_and_its_exchanges_open_below_in_the_detail_pane(
    view: CheckReportView, qtbot: Any, wait_until: Callable[..., None]
) -> None:
    view.run(recorded(a_run()))
    wait_until(lambda: view.ended is not None)
    pane = child(view, QWidget, "checkDetailPane")
    assert not pane.isVisible()  # the results take the whole height until one is picked
    click_row(qtbot, view, 0)
    assert pane.isVisible()
    label = child(pane, QLabel, "checkDetailLabel")
    assert label.textFormat() is Qt.TextFormat.PlainText
    assert label.text() == (
        "✗ fail — unknown task id gets TaskNotFound\n"
        f"errors.task-not-found · {JSONRPC} · A2A 1.0 §3.3.2"
    )
    assert child(pane, QPlainTextEdit, "checkDetailText").toPlainText() == RESULTS[2].detail
    # Without a history store the exchange cannot be shown; the pane says why.
    exchange = child(pane, QLabel, "checkExchangeLabel")
    assert exchange.text() == "Exchange #7 (1 of 2): History is off, so it was not recorded"
    # An exchange row, clicked: that exchange; Open in History asks the window for it.
    click_row(qtbot, view, 1, parent_row=0)
    assert exchange.text().startswith("Exchange #8 (2 of 2)")
    with qtbot.waitSignal(view.exchange_requested, timeout=2000) as opened:
        qtbot.mouseClick(
            child(pane, QPushButton, "checkOpenInHistoryButton"), Qt.MouseButton.LeftButton
        )
    assert opened.args == [8]
    # Enter on another result: the pane follows the keys.
    tree = child(view, QTreeView, "checkResultsTree")
    tree.setFocus()
    qtbot.keyClick(tree, Qt.Key.Key_Up)
    qtbot.keyClick(tree, Qt.Key.Key_Down)
    qtbot.keyClick(tree, Qt.Key.Key_Down)
    assert label.text().startswith("! warn — a stream starts with a Task")
    assert exchange.text() == "This check made no call"
    assert not child(pane, QPushButton, "checkOpenInHistoryButton").isEnabled()
    qtbot.mouseClick(child(pane, QToolButton, "checkDetailCloseButton"), Qt.MouseButton.LeftButton)
    assert not pane.isVisible()


def test_the_splitter_between_results_and_detail_moves(
    view: CheckReportView, qtbot: Any, wait_until: Callable[..., None]
) -> None:
    # Point 5 of issue 27: the report's splitter did nothing.
    view.run(recorded(a_run()))
    wait_until(lambda: view.ended is not None)
    click_row(qtbot, view, 0)
    qtbot.wait(50)  # the pane laid out below the results
    splitter = child(view, QSplitter, "checkReportSplitter")
    tree = child(view, QTreeView, "checkResultsTree")
    before = tree.height()
    handle = splitter.handle(1)
    start = handle.rect().center()
    qtbot.mousePress(handle, Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(handle, start + QPoint(0, 60))
    qtbot.mouseRelease(handle, Qt.MouseButton.LeftButton, pos=start + QPoint(0, 60))
    assert tree.height() >= before + 50
    assert child(view, QWidget, "checkDetailPane").height() > 100


def test_stop_ends_the_run_and_keeps_what_was_done(
    view: CheckReportView, qtbot: Any, wait_until: Callable[..., None]
) -> None:
    gate = asyncio.Event()  # never set: the run would wait for ever
    view.run(recorded(a_run(), gate=gate))
    wait_until(lambda: len(view.model.results) == len(RESULTS))
    bar = child(view, QProgressBar, "checkProgressBar")
    assert bar.value() == len(RESULTS) - 1
    assert child(view, QLabel, "checkCurrentLabel").text() == RESULTS[-1].title
    # While it runs, the counts so far.
    assert child(view, QLabel, "checkSummaryLabel").text() == (
        "So far — 1 fail · 1 warn · 1 skip · 3 pass · 1 n/a"
    )
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


def test_only_failures_and_warnings(
    view: CheckReportView, qtbot: Any, wait_until: Callable[..., None]
) -> None:
    view.run(recorded(a_run()))
    wait_until(lambda: view.ended is not None)
    shown = child(view, QTreeView, "checkResultsTree").model()
    assert shown.rowCount() == len(RESULTS)
    qtbot.mouseClick(child(view, QCheckBox, "checkProblemsOnlyCheck"), Qt.MouseButton.LeftButton)
    assert shown_column(view, STATUS) == ["✗ fail", "! warn"]
    assert shown.rowCount(shown.index(0, 0)) == 2  # its exchanges stay
    qtbot.mouseClick(child(view, QCheckBox, "checkProblemsOnlyCheck"), Qt.MouseButton.LeftButton)
    assert shown.rowCount() == len(RESULTS)


def test_a_column_header_sorts_and_status_brings_worst_first_back(
    view: CheckReportView, qtbot: Any, wait_until: Callable[..., None]
) -> None:
    view.run(recorded(a_run()))
    wait_until(lambda: view.ended is not None)
    tree = child(view, QTreeView, "checkResultsTree")
    header = tree.header()

    def click_header(column: int) -> None:
        x = header.sectionViewportPosition(column) + header.sectionSize(column) // 2
        qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, 5))

    click_header(INTERFACE)
    assert shown_column(view, INTERFACE) == sorted(shown_column(view, INTERFACE), key=str.casefold)
    click_header(STATUS)
    if header.sortIndicatorOrder() is Qt.SortOrder.DescendingOrder:
        click_header(STATUS)
    assert shown_column(view, STATUS)[:3] == ["✗ fail", "! warn", "– skip"]


def test_results_arriving_during_a_run_keep_worst_first(
    view: CheckReportView, wait_until: Callable[..., None]
) -> None:
    view.run(recorded(a_run(), pause=0.01))
    wait_until(lambda: len(view.model.results) >= 3)
    assert shown_column(view, STATUS)[0] == "✗ fail"  # the third result, shown first at once
    wait_until(lambda: view.ended is not None)
    assert shown_column(view, STATUS)[-1] == "○ n/a"


@pytest.mark.parametrize("count", [40])
def test_exchange_rows_and_results_agree_with_the_model(
    view: CheckReportView, wait_until: Callable[..., None], count: int
) -> None:
    many = [
        CheckResult(f"core.c{i}", CheckArea.CORE, f"check {i}", CheckStatus.PASS, "", "",
                    JSONRPC, tuple(range(i % 3)))
        for i in range(count)
    ]  # fmt: skip
    view.run(recorded(a_run(many)))
    wait_until(lambda: view.ended is not None)
    shown = child(view, QTreeView, "checkResultsTree").model()
    for row in range(shown.rowCount()):
        parent = shown.index(row, 0)
        result = view.shown.result_at(parent)
        assert result is not None
        ids = [
            shown.index(r, CHECK, parent).data(EXCHANGE_ROLE) for r in range(len(result.exchanges))
        ]
        assert ids == list(result.exchanges)
