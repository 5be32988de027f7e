"""The body flow as a person uses it: type the text, read the preview, one key to send."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QTextCursor
from PySide6.QtWidgets import QComboBox, QLineEdit, QPlainTextEdit, QPushButton, QWidget

from app.protocol.events import Outcome
from app.ui.request.request_tab import RequestTab
from app.ui.shell.main_window import MainWindow

pytestmark = pytest.mark.gui


SCREENSHOTS = Path(os.environ.get("A2A_SCREENSHOT_DIR", "/tmp/a2a-workbench-screenshots"))


def screenshot(widget: QWidget, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    assert widget.grab().save(str(SCREENSHOTS / name))


def new_tab(window: MainWindow, endpoint: str = "") -> RequestTab:
    action = window.findChild(QAction, "newA2ARequestAction")
    assert action is not None
    action.trigger()
    tab = window.current_tab()
    assert tab is not None
    tab.endpoint_edit.setText(endpoint)
    return tab


def find(tab: RequestTab, kind: type, name: str) -> Any:
    widget = tab.findChild(kind, name)
    assert widget is not None, name
    return widget


def type_text(qtbot: Any, tab: RequestTab, text: str) -> None:
    edit = find(tab, QLineEdit, "messageTextEdit")
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClick(edit, Qt.Key.Key_Backspace)
    qtbot.keyClicks(edit, text)


def preview(tab: RequestTab) -> str:
    return str(find(tab, QPlainTextEdit, "bodyPreview").toPlainText())


def draft(tab: RequestTab) -> str:
    return str(find(tab, QPlainTextEdit, "bodyEditor").toPlainText())


def pick_method(tab: RequestTab, name: str) -> None:
    methods = find(tab, QComboBox, "methodCombo")
    methods.setCurrentIndex(methods.findData(name))


def test_the_template_follows_the_text_and_enter_replaces_an_edited_draft(
    qtbot: Any, window: MainWindow
) -> None:
    tab = new_tab(window)
    type_text(qtbot, tab, "12 30")
    assert '"text": "12 30"' in preview(tab)  # no Generate pressed
    assert draft(tab) == preview(tab)  # untouched: the draft follows
    editor = find(tab, QPlainTextEdit, "bodyEditor")
    editor.setFocus()
    editor.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClick(editor, Qt.Key.Key_Return)  # the user's draft now
    mine = draft(tab)
    find(tab, QComboBox, "versionCombo").setCurrentText("0.3")
    assert '"method": "message/send"' in preview(tab) and '"12 30"' in preview(tab)
    find(tab, QComboBox, "bindingCombo").setCurrentText("HTTP+JSON")
    assert "jsonrpc" not in json.loads(preview(tab))
    find(tab, QComboBox, "bindingCombo").setCurrentText("JSONRPC")
    assert draft(tab) == mine  # never overwritten silently
    qtbot.keyClick(find(tab, QLineEdit, "messageTextEdit"), Qt.Key.Key_Return)
    assert '"12 30"' in draft(tab) and '"message/send"' in draft(tab)


def test_unary_task_follow_up_and_ctrl_shift_enter(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = new_tab(window, sdk_peer["jsonrpc_url"])
    follow = find(tab, QPushButton, "resultFollowUpButton")
    assert not follow.isEnabled()
    type_text(qtbot, tab, "ask")
    qtbot.keyClick(
        tab.message_text_edit,
        Qt.Key.Key_Return,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    wait_until(lambda: tab.response_view.outcome is not None and not tab.busy, timeout=20)
    assert '"ask"' in draft(tab)
    result = json.loads(tab.response_view.pretty_view.toPlainText())["result"]["task"]
    assert result["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert follow.isEnabled()  # a unary Task is followed up like a stream's

    qtbot.mouseClick(follow, Qt.MouseButton.LeftButton)
    type_text(qtbot, tab, "Ada")  # typing the reply updates the preview (it used to be stale)
    message = json.loads(preview(tab))["params"]["message"]
    assert message["parts"][0]["text"] == "Ada"
    assert message["taskId"] == result["id"] and message["contextId"] == result["contextId"]
    qtbot.keyClick(
        tab.message_text_edit,
        Qt.Key.Key_Return,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    wait_until(lambda: tab.response_view.outcome is not None and not tab.busy, timeout=20)
    assert tab.response_view.outcome is Outcome.OK
    assert "Hello, Ada!" in tab.response_view.pretty_view.toPlainText()

    # GetTask and CancelTask prefill the task just seen: visible, editable, followed live.
    pick_method(tab, "GetTask")
    task_edit = find(tab, QLineEdit, "templateTaskIdEdit")
    assert task_edit.isVisible() and task_edit.text() == result["id"]
    assert f'"id": "{result["id"]}"' in preview(tab) and "<task-id>" not in preview(tab)
    task_edit.setFocus()
    task_edit.selectAll()
    qtbot.keyClicks(task_edit, "other-task")
    assert '"id": "other-task"' in preview(tab)
    screenshot(window, "flow-template-ids.png")
    pick_method(tab, "ListTasks")
    assert not task_edit.isVisible()
    context_edit = find(tab, QLineEdit, "templateContextIdEdit")
    assert context_edit.isVisible() and context_edit.text() == result["contextId"]
    assert result["contextId"] in preview(tab)
    pick_method(tab, "SendMessage")
    assert not context_edit.isVisible()


def sent_ids(body: str) -> tuple[str, str]:
    data = json.loads(body)
    return data["params"]["message"]["messageId"], data["id"]


def test_a_following_draft_gets_fresh_ids_per_send_an_edited_one_goes_as_typed(
    qtbot: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    sdk_peer: dict[str, Any],
    tmp_path: Path,
) -> None:
    """Newcomer point 4: Send again, and a reopened saved request, sent the same messageId
    and JSON-RPC id each time (an agent may de-duplicate by messageId)."""
    sent: list[str] = []

    def send(tab: RequestTab) -> None:
        qtbot.mouseClick(find(tab, QPushButton, "sendButton"), Qt.MouseButton.LeftButton)
        wait_until(lambda: tab.response_view.outcome is not None and not tab.busy, timeout=20)
        assert tab.response_view.outcome is Outcome.OK

    tab = new_tab(window, sdk_peer["jsonrpc_url"])
    tab.controller.started.connect(lambda request, _stream: sent.append(request.body))
    type_text(qtbot, tab, "12 30")
    send(tab)
    send(tab)  # Send again
    first, second = (sent_ids(body) for body in sent)
    assert first[0] != second[0] and first[1] != second[1]
    assert sent_ids(draft(tab)) == second  # the draft shows what was sent
    assert "fresh messageId" in find(tab, QPlainTextEdit, "bodyEditor").toolTip()

    path = tmp_path / "ids.a2a.yaml"
    assert window.spec.save_tab(tab, path) == []
    doc = window.spec.open_spec(path)
    assert doc is not None
    tab.close_later()
    window.tabs.removeTab(window.tabs.indexOf(tab))
    reopened = window.spec.open_operation(doc.operations()[0])
    assert sent_ids(draft(reopened)) == second
    reopened.controller.started.connect(lambda request, _stream: sent.append(request.body))
    send(reopened)
    assert sent_ids(sent[-1]) not in (first, second)
    assert not reopened.dirty and not window.tabs.tabText(window.tabs.currentIndex()).endswith("*")

    # An edited draft is the user's: sent as typed, ids too, every time.
    editor = find(reopened, QPlainTextEdit, "bodyEditor")
    typed = draft(reopened).replace('"12 30"', '"1 2"')
    editor.setPlainText(typed)
    send(reopened)
    send(reopened)
    assert sent[-2:] == [typed, typed]
