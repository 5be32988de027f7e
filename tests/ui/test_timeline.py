"""The stream timeline: the model (qtmodeltester, batching), and the panel in a request tab
driven like a person would: Send a stream, Stop, Cancel task, Resubscribe, Follow up."""

from __future__ import annotations

import gc
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLineEdit, QPushButton, QTableView

from app.protocol.events import NOT_JSON, Outcome
from app.protocol.findings import Finding
from app.protocol.stream.stream_items import ItemKind, TaskState
from app.ui.request.request_tab import RequestTab
from app.ui.shell.main_window import MainWindow
from app.ui.timeline.timeline_model import PARSE_RAW, TimelineModel, TimelineRow
from app.ui.timeline.timeline_panel import TimelinePanel
from tests.helpers.sse_server import sse_server

pytestmark = pytest.mark.gui

SCREENSHOTS = Path(os.environ.get("A2A_SCREENSHOT_DIR", "/tmp/a2a-workbench-screenshots"))


def _row(n: int, **kw: Any) -> TimelineRow:
    defaults: dict[str, Any] = {
        "t_ms": float(n),
        "kind": ItemKind.STATUS_UPDATE,
        "task_id": "t",
        "state": TaskState.WORKING,
        "summary": f"progress {n}",
        "raw": b"data: {}\n\n",
        "data": {},
    }
    return TimelineRow(**{**defaults, **kw})


def test_model_passes_qtmodeltester(qtmodeltester: Any, qapp: Any) -> None:
    model = TimelineModel()
    qtmodeltester.check(model)
    for n in range(5):
        model.append(_row(n))
    model.append(_row(5, kind=ItemKind.ERROR, state=None, data=NOT_JSON))
    model.append(_row(6, findings=[Finding("after-terminal", "late")]))
    model.append(_row(7, kind=ItemKind.COMMENT, marker=True, state=None))
    model.flush()
    qtmodeltester.check(model)
    model.refresh(model.row_at(3))
    model.clear()
    qtmodeltester.check(model)


def test_twenty_thousand_rows_in_are_twenty_thousand_rows(qtbot: Any) -> None:
    model = TimelineModel(interval_ms=30)
    inserts: list[int] = []
    model.rowsInserted.connect(lambda _p, first, last: inserts.append(last - first + 1))
    for n in range(20_000):
        model.append(_row(n))
    assert model.rowCount() == 0 and model.pending_count == 20_000
    qtbot.waitUntil(lambda: model.rowCount() == 20_000, timeout=2000)
    assert sum(inserts) == 20_000 and len(inserts) == 1  # one batch, nothing merged
    assert [model.row_at(n).summary for n in (0, 19_999)] == ["progress 0", "progress 19999"]


def test_rows_keep_raw_bytes_and_parse_their_json_when_asked(qapp: Any) -> None:
    model = TimelineModel()
    frame = b'data: {"result":\r\ndata: {"n": 1}}\r\n\r\n'
    model.add(0.0, ItemKind.STATUS_UPDATE, "t", TaskState.WORKING, "s", frame, PARSE_RAW)
    model.add(1.0, ItemKind.STATUS_UPDATE, "t", None, "s", b'{"statusUpdate": {}}', PARSE_RAW)
    model.add(2.0, ItemKind.ERROR, "t", None, "bad", b"data: {oops\n\n", NOT_JSON)
    model.add(3.0, ItemKind.TASK, "t", None, "body", b"{}", {"kept": True})
    model.flush()
    assert [model.row_at(n).data for n in range(4)] == [
        {"result": {"n": 1}}, {"statusUpdate": {}}, NOT_JSON, {"kept": True},
    ]  # fmt: skip
    # Rows are numbers in arrays and bytes, which the collector does not track: a
    # 20 000-row timeline must not lengthen full collections (they froze the window for
    # 100+ ms).
    gc.collect()
    tracked = len(gc.get_objects())
    for n in range(1000):
        model.add_frame(float(n), ItemKind.STATUS_UPDATE, "t", TaskState.WORKING, frame,
                        PARSE_RAW, 1, n + 1)  # fmt: skip
    model.flush()
    gc.collect()
    assert len(gc.get_objects()) - tracked < 20


def test_a_changed_row_copy_is_stored_queued_or_shown(qapp: Any) -> None:
    model = TimelineModel()
    first = model.add(0.0, ItemKind.STATUS_UPDATE, "t", TaskState.WORKING, "one")
    model.flush()
    second = model.add(1.0, ItemKind.STATUS_UPDATE, "t", TaskState.WORKING, "two")
    for index in (first, second):
        row = model.get(index)
        row.kind, row.summary = ItemKind.ERROR, f"bad {index}"
        model.refresh(row)
    model.flush()
    assert [(r.kind, r.summary) for r in model.rows()] == [
        (ItemKind.ERROR, "bad 0"), (ItemKind.ERROR, "bad 1"),
    ]  # fmt: skip


# --- the panel inside a request tab -------------------------------------------------------


def new_tab(window: MainWindow, endpoint: str, method: str, text: str) -> RequestTab:
    action = window.findChild(QAction, "newA2ARequestAction")
    action.trigger()
    tab = window.current_tab()
    assert tab is not None
    tab.endpoint_edit.setText(endpoint)
    tab.method_combo.setCurrentIndex(tab.method_combo.findData(method))
    tab.message_text_edit.setText(text)
    tab.generate_preview()
    tab.replace_body()
    return tab


def click(qtbot: Any, tab: RequestTab, name: str) -> None:
    button = tab.findChild(QPushButton, name)
    assert button is not None and button.isEnabled(), name
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def panel_of(tab: RequestTab) -> TimelinePanel:
    panel = tab.findChild(TimelinePanel, "timelinePanel")
    assert panel is not None
    return panel


def rows(panel: TimelinePanel) -> list[TimelineRow]:
    return panel.model.rows()


def screenshot(widget: Any, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / name
    assert widget.grab().save(str(path))
    return path


def test_stream_stop_cancel_and_resubscribe(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = new_tab(window, sdk_peer["jsonrpc_url"], "SendStreamingMessage", "stream 100 100")
    panel = panel_of(tab)
    click(qtbot, tab, "sendButton")
    assert tab.result_tabs.currentWidget() is panel
    view = panel.findChild(QTableView, "timelineView")
    assert view is not None and view.model() is panel.model
    wait_until(lambda: panel.model.rowCount() >= 3)
    task_id = panel.task_id
    assert task_id and panel.findChild(QLineEdit, "timelineTaskIdEdit").text() == task_id
    assert panel.state is TaskState.WORKING

    click(qtbot, tab, "stopButton")  # local only
    wait_until(lambda: not tab.busy and not panel.running)
    assert "stopped locally" in panel.ending_label.text()
    assert rows(panel)[-1].kind is ItemKind.END

    click(qtbot, tab, "resubscribeButton")
    wait_until(lambda: any(r.marker for r in rows(panel)) and panel.running)
    wait_until(lambda: sum(r.connection == 2 and r.item_seq is not None for r in rows(panel)) >= 2)
    second = [r for r in rows(panel) if r.connection == 2]
    assert second[0].marker and "new connection" in second[0].summary
    assert second[1].kind is ItemKind.TASK and second[1].state is TaskState.WORKING

    click(qtbot, tab, "cancelTaskButton")
    wait_until(lambda: not tab.busy and panel.ending is not None, timeout=15)
    wait_until(lambda: any("CancelTask result" in r.summary for r in rows(panel)))
    result = next(r for r in rows(panel) if "CancelTask result" in r.summary)
    assert result.state is TaskState.CANCELED
    assert panel.state is TaskState.CANCELED
    assert panel.state_label.text() == "canceled"
    assert "terminal state" in panel.ending_label.text()
    assert tab.response_view.outcome is Outcome.OK
    # The CancelTask result and the stream's own end race each other: pick the row by content.
    view.selectRow(next(i for i, r in enumerate(rows(panel)) if "CancelTask result" in r.summary))
    wait_until(lambda: bool(panel.json_view.toPlainText()))
    assert "TASK_STATE_CANCELED" in panel.json_view.toPlainText()
    view.selectRow(panel.model.rowCount() - 2)
    qtbot.wait(50)
    screenshot(window, "timeline-cancelled.png")


def test_follow_up_completes_an_ask_task(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], js_peer: dict[str, Any]
) -> None:
    tab = new_tab(window, js_peer["jsonrpc_url"], "SendStreamingMessage", "ask")
    panel = panel_of(tab)
    click(qtbot, tab, "sendButton")
    wait_until(lambda: not tab.busy and panel.ending is not None)
    assert panel.state is TaskState.INPUT_REQUIRED
    draft = tab.body_editor.toPlainText()

    click(qtbot, tab, "followUpButton")
    tab.message_text_edit.setText("Ada")
    preview = json.loads(tab.preview.toPlainText())
    message = preview["params"]["message"]
    assert message["contextId"] == panel.context_id and message["taskId"] == panel.task_id
    # The untouched draft follows the next turn's template, with a fresh messageId.
    assert tab.body_editor.toPlainText() == tab.preview.toPlainText()
    assert message["messageId"] != json.loads(draft)["params"]["message"]["messageId"]
    click(qtbot, tab, "sendButton")
    wait_until(lambda: not tab.busy and panel.ending is not None)
    assert panel.state is TaskState.COMPLETED
    assert any("Hello, Ada!" in r.summary for r in rows(panel))


def test_lint_warnings_and_bad_rows_are_visible(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    def frame(result: dict[str, Any]) -> bytes:
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "result": result})
        return b"data: " + body.replace('"id": 1', '"id": @ID@').encode() + b"\r\n\r\n"

    task = {"id": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_SUBMITTED"}}
    done = {"taskId": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_COMPLETED"}}
    late = {"taskId": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_WORKING"}}
    artifact = {"artifactId": "a-1", "name": "late", "parts": [{"text": "x"}]}
    append = {"taskId": "t-1", "contextId": "c-1", "append": True, "artifact": artifact}
    script = [
        frame({"task": task}),
        b": ping - keep-alive\r\n\r\n",
        b"data: {oops\r\n\r\n",
        frame({"statusUpdate": done}),
        frame({"statusUpdate": late}),
        frame({"artifactUpdate": append}),
    ]
    with sse_server(script) as server:
        tab = new_tab(window, server.url, "SendStreamingMessage", "hi")
        panel = panel_of(tab)
        click(qtbot, tab, "sendButton")
        wait_until(lambda: not tab.busy and panel.ending is not None)
    got = rows(panel)
    assert [r.kind for r in got] == [
        ItemKind.TASK, ItemKind.COMMENT, ItemKind.ERROR, ItemKind.STATUS_UPDATE,
        ItemKind.STATUS_UPDATE, ItemKind.ARTIFACT_UPDATE, ItemKind.END,
    ]  # fmt: skip
    assert "not valid JSON" in got[2].summary
    assert [f.rule for f in got[4].findings] == ["leaves-terminal"]
    assert {f.rule for f in got[5].findings} == {"after-terminal", "append-without-chunk"}
    model = panel.model
    index = model.index(4, 5)
    assert "⚠" in model.data(index)
    assert model.data(index, Qt.ItemDataRole.BackgroundRole) is not None
    assert "Transition out" in model.data(index, Qt.ItemDataRole.ToolTipRole)
    panel.view.selectRow(4)
    assert panel.findings_label.isVisible() and "Transition out" in panel.findings_label.text()
    assert '"TASK_STATE_WORKING"' in panel.json_view.toPlainText()
    assert panel.raw_view.toPlainText().startswith("data: ")
    qtbot.wait(50)
    screenshot(window, "timeline-lint-warning.png")
