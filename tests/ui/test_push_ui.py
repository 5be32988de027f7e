"""The request tab's local push receiver, clicked as a person against the demo agent
(pushNotifications: true): the button fills the push config, the agent delivers, the
delivery is a timeline row with its token check."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QLabel, QPushButton

from app.protocol.stream.stream_items import ItemKind
from app.push.receiver import LOOPBACK_NOTE
from app.ui.shell.main_window import MainWindow
from tests.helpers.screenshots import SHOTS
from tests.helpers.sse_server import HANG, sse_server
from tests.ui.test_timeline import new_tab, panel_of, rows

pytestmark = [pytest.mark.gui]


def _click(qtbot: Any, widget: Any, name: str) -> None:
    button = widget.findChild(QPushButton, name)
    assert button is not None and button.isEnabled() and button.isVisible(), name
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


@pytest.mark.peer
@pytest.mark.parametrize("token", ["ours", "wrong"])
def test_use_local_receiver_then_the_delivery_row(
    qtbot: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    sdk_peer: dict[str, Any],
    token: str,
) -> None:
    tab = new_tab(window, sdk_peer["jsonrpc_url"], "SendMessage", "ask")
    _click(qtbot, tab, "sendButton")
    wait_until(lambda: not tab.busy and bool(tab.last_task_id))
    task_id = tab.last_task_id

    tab.method_combo.setCurrentIndex(tab.method_combo.findData("CreateTaskPushNotificationConfig"))
    note = tab.findChild(QLabel, "pushReceiverNote")
    assert note is not None and note.isVisible() and note.text() == LOOPBACK_NOTE
    _click(qtbot, tab, "pushReceiverButton")
    wait_until(lambda: "127.0.0.1" in tab.body_editor.toPlainText())
    params = json.loads(tab.body_editor.toPlainText())["params"]
    status = tab.findChild(QLabel, "pushReceiverStatus")
    assert status is not None and status.isVisible() and params["url"] in status.text()
    assert params["taskId"] == task_id and params["url"].startswith("http://127.0.0.1:")
    assert len(params["token"]) >= 20 and params["token"] != "webhook-token"
    # The history's copy of the tab (Open as new request) keeps the token masked.
    from app.ui.history.history_recording import tab_context

    assert params["token"] not in json.dumps(tab_context(tab))
    if token == "wrong":  # the person edits the token: the agent sends what it was given
        text = tab.body_editor.toPlainText().replace(params["token"], "not-the-token-we-set")
        tab.body_editor.setPlainText(text)
    _click(qtbot, tab, "sendButton")
    wait_until(lambda: not tab.busy)
    sent = tab.response_view.request_view.toPlainText()  # the request as sent, masked
    assert params["url"] in sent and params["token"] not in sent
    assert token == "wrong" or "****" in sent

    _click(qtbot, tab, "resultFollowUpButton")  # answer the question: the task completes
    tab.message_text_edit.setText("Ada")
    tab.replace_body()
    _click(qtbot, tab, "sendButton")
    panel = panel_of(tab)

    def deliveries() -> list[Any]:
        return [r for r in rows(panel) if r.kind is ItemKind.PUSH_DELIVERY]

    wait_until(lambda: bool(deliveries()), timeout=15)
    row = deliveries()[0]
    assert row.task_id == task_id and row.state is not None
    expected = "matches the token we set" if token == "ours" else "wrong"
    assert f"token {expected}" in row.summary and row.data["tokenCheck"] == expected
    assert row.data["authentication"] == "X-A2A-Notification-Token"
    assert params["token"] not in json.dumps(row.data) and params["token"].encode() not in row.raw
    assert bool(row.findings) is (token == "wrong")

    tab.result_tabs.setCurrentWidget(panel)
    panel.view.selectRow(row.index or 0)
    wait_until(lambda: "tokenCheck" in panel.json_view.toPlainText())
    shown = [False]  # a pause on the loop (qtbot.wait would step its tasks outside it)
    QTimer.singleShot(150, lambda: shown.__setitem__(0, True))
    wait_until(lambda: shown[0])
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert window.grab().save(str(SHOTS / f"push-delivery-{token}.png"))


# --- the gap detector ------------------------------------------------------------------


def _sse(obj: Any) -> bytes:
    return b"data: " + json.dumps(obj).replace('"@ID@"', "@ID@").encode() + b"\n\n"


def test_resubscribe_then_getTask_finds_what_was_missed(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    # A hostile agent: its resubscription skips the Task it should start with, and the
    # artifact and the input-required status it emitted meanwhile.
    task = {"id": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_WORKING"}}
    working = {
        "statusUpdate": {
            "taskId": "t-1",
            "contextId": "c-1",
            "status": {"state": "TASK_STATE_WORKING", "timestamp": "2026-01-01T00:00:01Z"},
        }
    }
    snapshot = {
        **task,
        "status": {"state": "TASK_STATE_INPUT_REQUIRED"},
        "artifacts": [{"artifactId": "a-1", "name": "report", "parts": [{"text": "r"}]}],
    }
    envelope = {"jsonrpc": "2.0", "id": "@ID@"}

    def script(n: int) -> list[Any]:
        if n == 1:  # the first stream: the Task, then it is dropped
            return [_sse({**envelope, "result": {"task": task}}), HANG]
        if n == 2:  # the resubscription: one status, then the server ends it
            return [_sse({**envelope, "result": working})]
        server.content_type = "application/json"  # the GetTask snapshot
        return [json.dumps({**envelope, "result": snapshot}).replace('"@ID@"', "@ID@").encode()]

    with sse_server(script) as server:
        tab = new_tab(window, server.url, "SendStreamingMessage", "hi")
        panel = panel_of(tab)
        _click(qtbot, tab, "sendButton")
        wait_until(lambda: panel.task_id == "t-1")
        _click(qtbot, tab, "stopButton")
        wait_until(lambda: not tab.busy)
        _click(qtbot, tab, "resubscribeButton")
        wait_until(lambda: any(r.kind is ItemKind.FINDING for r in rows(panel)), timeout=15)
    finding = next(r for r in rows(panel) if r.kind is ItemKind.FINDING)
    assert finding.summary == "missed: artifact `report`, working → input-required"
    assert [f.rule for f in finding.findings] == ["missed-updates"]
    assert any("GetTask snapshot" in r.summary for r in rows(panel))
    tab.result_tabs.setCurrentWidget(panel)
    panel.view.selectRow(finding.index or 0)
    wait_until(lambda: "working → input-required" in panel.json_view.toPlainText())
    assert window.grab().save(str(SHOTS / "push-gap-finding.png"))


def test_delivery_and_finding_rows_pass_the_model_tester(qtmodeltester: Any, qapp: Any) -> None:
    from app.protocol.events import NOT_JSON as _NOT_JSON
    from app.push.receiver import PushDelivery
    from app.ui.request.push_wiring import delivery_row
    from app.ui.timeline.timeline_model import TimelineModel, TimelineRow

    body = {"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_WORKING"}}}
    raw = json.dumps(body).encode()
    delivery = PushDelivery(1, 10.0, "POST", "/push", (("x-a2a-notification-token", "secret-1"),),
                            raw, body, "secret-1", False, "", "t")  # fmt: skip
    model = TimelineModel()
    row = delivery_row(delivery, 9.5)
    assert row.t_ms == 500.0 and row.kind is ItemKind.PUSH_DELIVERY and "token wrong" in row.summary
    assert b"secret-1" not in row.raw and "secret-1" not in json.dumps(row.data)
    model.append(row)
    model.append(TimelineRow(0.0, ItemKind.FINDING, "t", summary="no gaps", marker=True,
                             data=_NOT_JSON))  # fmt: skip
    model.flush()
    qtmodeltester.check(model)
    assert [model.row_at(n).kind for n in range(2)] == [ItemKind.PUSH_DELIVERY, ItemKind.FINDING]
