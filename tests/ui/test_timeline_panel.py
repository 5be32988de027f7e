"""The timeline read as a person reads it at 1280×800: whole ids (elided in the middle when
narrow, copied whole), columns that fit with the Summary stretching, buttons that stay put,
counts that match the rows, Stop apart from Cancel task, a badge that says what is known,
and the Response tab's summary with its way to the Timeline."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel, QPushButton, QToolButton

from app.protocol.stream.stream_items import TaskState
from app.ui.shell.elided import IdField
from app.ui.shell.main_window import MainWindow
from app.ui.timeline.timeline_model import COL_SUMMARY, COL_TASK, COL_TIME, COLUMNS
from app.ui.timeline.timeline_panel import TimelinePanel
from tests.helpers.sse_server import HANG, sse_server
from tests.ui.test_timeline import click, new_tab, panel_of

pytestmark = pytest.mark.gui

SHOTS = Path(os.environ.get("A2A_SCREENSHOT_DIR", "/tmp/a2a-workbench-screenshots"))
_BUTTONS = ("stopButton", "resubscribeButton", "cancelTaskButton", "followUpButton")


def shot(widget: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert widget.grab().save(str(SHOTS / name))


def places(panel: TimelinePanel) -> dict[str, QRect]:
    """Where each button is, and that each is shown."""
    found = {name: panel.findChild(QPushButton, name) for name in _BUTTONS}
    assert all(b is not None and b.isVisible() for b in found.values())
    return {name: b.geometry() for name, b in found.items() if b is not None}


def settle(wait_until: Callable[..., None], seconds: float = 0.15) -> None:
    """Let the window paint for a moment (running the asyncio loop a stream needs)."""
    end = time.monotonic() + seconds
    wait_until(lambda: time.monotonic() >= end)


def label_text(panel: TimelinePanel, name: str) -> str:
    label = panel.findChild(QLabel, name)
    assert label is not None and label.isVisible(), name
    return label.text()


def test_a_stream_reads_whole_and_counts_true(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = new_tab(window, sdk_peer["jsonrpc_url"], "SendStreamingMessage", "stream 6 150")
    panel = panel_of(tab)
    click(qtbot, tab, "sendButton")
    settle(wait_until, 0.05)
    before = places(panel)  # the Timeline is in front from the start
    assert "Cancel the request being sent" in tab.send_button.toolTip()
    wait_until(lambda: panel.model.rowCount() >= 3)
    settle(wait_until)  # the asyncio loop, not qtbot.wait: the stream runs on it
    # During the stream: the badge says the state, Stop is on, nothing has moved.
    assert label_text(panel, "timelineStateLabel") in ("submitted", "working")
    assert panel.stop_button.isEnabled() and not panel.resubscribe_button.isEnabled()
    assert places(panel) == before
    # Cancel task is remote (finished, it is disabled and says why: see below).
    assert "remote" in panel.cancel_button.toolTip()
    assert "CancelTask" in panel.cancel_button.toolTip()
    shot(window, "tline-during.png")

    wait_until(lambda: not tab.busy and panel.ending is not None, timeout=15)
    settle(wait_until)
    assert places(panel) == before
    assert not panel.stop_button.isEnabled() and panel.resubscribe_button.isEnabled()
    assert label_text(panel, "timelineStateLabel") == "completed"
    # 9 events (the Task, 7 updates, the artifact) and the end row: 10 rows.
    assert panel.model.rowCount() == 10 and panel.event_count == 9
    assert label_text(panel, "timelineCountLabel") == "10 rows · 9 events"
    assert "terminal state" in label_text(panel, "timelineEndingLabel")

    # The ids: whole when they fit, elided in the middle when narrow, copied whole.
    task_edit = panel.findChild(IdField, "timelineTaskIdEdit")
    context_edit = panel.findChild(IdField, "timelineContextIdEdit")
    assert task_edit is not None and context_edit is not None
    task_id, context_id = panel.task_id, panel.context_id
    assert task_edit.text() == task_id and context_edit.text() == context_id
    assert task_id in task_edit.toolTip()
    assert task_edit.elided() == task_id and context_edit.elided() == context_id  # whole
    # Narrower than the id (a smaller window): elided in the middle, still copied whole.
    task_edit.setMaximumWidth(task_edit.minimumWidth())
    wait_until(lambda: task_edit.width() == task_edit.minimumWidth())
    shown = task_edit.elided()
    assert "…" in shown and shown[:4] == task_id[:4] and shown[-4:] == task_id[-4:]
    assert task_edit.text() == task_id
    task_edit.setMaximumWidth(16777215)
    wait_until(lambda: task_edit.elided() == task_id)
    clipboard = QGuiApplication.clipboard()
    for name, value in (("copyTaskIdButton", task_id), ("copyContextIdButton", context_id)):
        clipboard.clear()
        button = panel.findChild(QToolButton, name)
        assert button is not None and button.isEnabled()
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        assert clipboard.text() == value

    # Columns: each narrow one holds its widest cell; the Summary, last, takes the rest.
    view = panel.view
    header = view.horizontalHeader()
    assert view.isColumnHidden(COL_TASK)  # one task: the header above says which
    metrics = view.fontMetrics()
    for col in range(len(COLUMNS) - 1):
        if view.isColumnHidden(col):
            continue
        widest = max(
            metrics.horizontalAdvance(str(panel.model.index(r, col).data() or ""))
            for r in range(panel.model.rowCount())
        )
        assert widest < header.sectionSize(col), COLUMNS[col]
    used = sum(header.sectionSize(c) for c in range(len(COLUMNS)) if not view.isColumnHidden(c))
    assert abs(used - view.viewport().width()) <= 2
    assert header.sectionSize(COL_SUMMARY) > view.viewport().width() // 3

    # Stop is local, Cancel task remote, and their tooltips say so.
    assert (
        "local" in panel.stop_button.toolTip() and "Nothing is sent" in panel.stop_button.toolTip()
    )
    view.selectRow(7)  # the artifact: its JSON below
    wait_until(lambda: "artifact" in panel.json_view.toPlainText())
    shot(window, "tline-after.png")

    # The Response tab sums the stream up and leads to the Timeline.
    tab.result_tabs.setCurrentWidget(tab.response_view)
    summary = tab.response_view.findChild(QLabel, "streamSummaryLabel")
    assert summary is not None and summary.isVisible()
    assert "9 events" in summary.text() and "final state completed" in summary.text()
    assert task_id in summary.text()
    assert "Timeline" in tab.response_view.pretty_view.placeholderText()
    settle(wait_until)
    shot(window, "tline-response.png")
    link = tab.response_view.findChild(QPushButton, "showTimelineButton")
    assert link is not None
    qtbot.mouseClick(link, Qt.MouseButton.LeftButton)
    assert tab.result_tabs.currentWidget() is panel


def test_after_a_local_stop_the_badge_says_last_seen(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = new_tab(window, sdk_peer["jsonrpc_url"], "SendStreamingMessage", "stream 100 100")
    panel = panel_of(tab)
    click(qtbot, tab, "sendButton")
    wait_until(lambda: panel.state is TaskState.WORKING)
    click(qtbot, tab, "stopButton")
    wait_until(lambda: not tab.busy and not panel.running)
    settle(wait_until)
    badge = label_text(panel, "timelineStateLabel")
    assert badge == "stopped locally — task last seen working"
    assert label_text(panel, "timelineCountLabel") == (
        f"{panel.model.rowCount()} rows · {panel.event_count} events"
    )
    shot(window, "tline-stopped.png")
    summary = tab.response_view.findChild(QLabel, "streamSummaryLabel")
    assert summary is not None and badge in summary.text()


def test_a_finished_task_disables_cancel_task_and_follow_up_and_says_why(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = new_tab(window, sdk_peer["jsonrpc_url"], "SendStreamingMessage", "stream 4 150")
    panel = panel_of(tab)
    click(qtbot, tab, "sendButton")
    wait_until(panel.cancel_button.isEnabled)  # a running task can be canceled
    assert panel.state is TaskState.WORKING
    wait_until(lambda: not tab.busy and panel.ending is not None, timeout=15)
    settle(wait_until)

    assert panel.state is TaskState.COMPLETED
    for button in (panel.cancel_button, panel.follow_up_button):
        assert not button.isEnabled(), button.objectName()
        assert button.toolTip().startswith("The task is completed:"), button.toolTip()
    assert "cannot be canceled" in panel.cancel_button.toolTip()
    assert "takes no more messages" in panel.follow_up_button.toolTip()
    assert panel.resubscribe_button.isEnabled()  # still there to read the task again


def test_plus_ms_counts_from_the_first_send_across_connections(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = new_tab(window, sdk_peer["jsonrpc_url"], "SendStreamingMessage", "stream 15 100")
    panel = panel_of(tab)
    header = panel.view.model().headerData(COL_TIME, Qt.Orientation.Horizontal)
    assert header == "+ms"
    tip = panel.view.model().headerData(
        COL_TIME, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole
    )
    assert "since this exchange's first request was sent" in tip
    click(qtbot, tab, "sendButton")
    wait_until(lambda: panel.model.rowCount() >= 3)
    settle(wait_until, 0.3)
    click(qtbot, tab, "stopButton")
    wait_until(lambda: not tab.busy and not panel.running)
    settle(wait_until, 0.3)
    first = [panel.model.row_at(i) for i in range(panel.model.rowCount())]
    click(qtbot, tab, "resubscribeButton")
    wait_until(
        lambda: any(
            r.connection == 2 and r.item_seq is not None
            for r in (panel.model.row_at(i) for i in range(panel.model.rowCount()))
        )
    )
    second = [
        r
        for r in (panel.model.row_at(i) for i in range(panel.model.rowCount()))
        if r.connection == 2
    ]
    last_of_first = max(r.t_ms for r in first)
    # The resubscription's events come after everything of the first connection, on one clock.
    assert second[0].marker and second[0].t_ms >= last_of_first + 250
    assert all(r.t_ms >= second[0].t_ms for r in second[1:])
    wait_until(lambda: not tab.busy and panel.ending is not None, timeout=15)  # to its end
    settle(wait_until)


def _frame(result: dict[str, Any]) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "result": result})
    return b"data: " + body.replace('"id": 1', '"id": @ID@').encode() + b"\r\n\r\n"


def test_a_failed_resubscribe_does_not_claim_working(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    task = {"id": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_SUBMITTED"}}
    working = {"taskId": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_WORKING"}}
    other = {**working, "taskId": "t-2"}
    refused = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32001, "message": "Task not found"}}
    ).replace('"id": 1', '"id": @ID@')

    def script(n: int) -> list[Any]:
        if n == 1:
            return [
                _frame({"task": task}),
                _frame({"statusUpdate": working}),
                _frame({"statusUpdate": other}),
                HANG,
            ]
        if n == 2:
            return [b"data: " + refused.encode() + b"\r\n\r\n"]
        return []

    with sse_server(script) as server:
        tab = new_tab(window, server.url, "SendStreamingMessage", "hi")
        panel = panel_of(tab)
        click(qtbot, tab, "sendButton")
        wait_until(lambda: panel.model.rowCount() >= 3)
        assert not panel.view.isColumnHidden(COL_TASK)  # a row names another task: shown
        qtbot.keyClicks(panel.filter_edit, "working")  # the filter swaps the table's model
        panel.filter_edit.clear()
        assert panel.view.horizontalHeader().sectionSize(COL_TASK) > 0
        click(qtbot, tab, "stopButton")
        wait_until(lambda: not tab.busy and not panel.running)
        click(qtbot, tab, "resubscribeButton")
        wait_until(lambda: not tab.busy and not panel.running and panel.session.connection == 2)
        settle(wait_until)
    assert label_text(panel, "timelineStateLabel") == "resubscribe failed — task last seen working"
    assert panel.state is TaskState.WORKING  # the last state reported, kept for what it is
    shot(window, "tline-resubscribe-failed.png")
