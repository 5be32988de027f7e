"""A request that follows you, as a newcomer meets it (issue 27, points 1, 2, 3 and 8):
switch version, binding and method, type, send and save, and read what the tab shows."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QTextCursor
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
)

from app.protocol.events import Outcome
from app.spec.document import SpecDocument, load
from app.ui.collections.spec_dock import EXAMPLE_SPEC
from app.ui.request.binding_help import spelled_like
from app.ui.request.request_tab import RequestTab
from app.ui.shell.main_window import MainWindow
from tests.helpers.bad_server import Canned, bad_server

pytestmark = pytest.mark.gui


def find(tab: RequestTab, kind: type, name: str) -> Any:
    widget = tab.findChild(kind, name)
    assert widget is not None, name
    return widget


def click(qtbot: Any, tab: RequestTab, name: str) -> None:
    button = find(tab, QPushButton, name)
    assert button.isEnabled() and button.isVisible(), name
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def new_tab(window: MainWindow, endpoint: str = "") -> RequestTab:
    action = window.findChild(QAction, "newA2ARequestAction")
    assert action is not None
    action.trigger()
    tab = window.current_tab()
    assert tab is not None
    tab.endpoint_edit.setText(endpoint)
    return tab


def pick(tab: RequestTab, combo: str, value: str) -> None:
    box = find(tab, QComboBox, combo)
    index = box.findData(value)
    if index < 0:
        index = box.findText(value)
    assert index >= 0, value
    box.setCurrentIndex(index)


def draft(tab: RequestTab) -> Any:
    return json.loads(find(tab, QPlainTextEdit, "bodyEditor").toPlainText())


def type_in_draft(qtbot: Any, tab: RequestTab, text: str) -> None:
    editor = find(tab, QPlainTextEdit, "bodyEditor")
    editor.setFocus()
    editor.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(editor, text)


def demo_tab(window: MainWindow, sdk_peer: dict[str, Any]) -> RequestTab:
    """The tab the window opens when the demo agent it started says it is ready."""
    window.on_demo_ready(sdk_peer)
    tab = window.current_tab()
    assert tab is not None and tab.endpoint_edit.text() == sdk_peer["jsonrpc_url"]
    return tab


def wait_sent(tab: RequestTab, wait_until: Callable[..., None]) -> None:
    wait_until(lambda: tab.response_view.outcome is not None and not tab.busy, timeout=20)


# --- point 1: the method keeps its job across a version switch ---------------------------


def test_a_streaming_tab_stays_streaming_across_versions_both_ways(window: MainWindow) -> None:
    tab = new_tab(window)
    find(tab, QLineEdit, "messageTextEdit").setText("stream 3")
    pick(tab, "methodCombo", "SendStreamingMessage")
    pick(tab, "versionCombo", "0.3")
    assert tab.method == "message/stream"
    body = draft(tab)  # the untouched draft was converted with it
    assert body["method"] == "message/stream"
    assert body["params"]["message"]["parts"] == [{"kind": "text", "text": "stream 3"}]
    pick(tab, "versionCombo", "1.0")
    assert tab.method == "SendStreamingMessage"
    assert draft(tab)["params"]["message"]["parts"] == [{"text": "stream 3"}]
    for v1, v03 in (("GetTask", "tasks/get"), ("SubscribeToTask", "tasks/resubscribe")):
        pick(tab, "methodCombo", v1)
        pick(tab, "versionCombo", "0.3")
        assert tab.method == v03
        pick(tab, "versionCombo", "1.0")
        assert tab.method == v1


def test_list_tasks_keeps_the_tab_on_1_0_until_the_user_picks(
    qtbot: Any, window: MainWindow
) -> None:
    tab = new_tab(window)
    pick(tab, "methodCombo", "ListTasks")
    pick(tab, "versionCombo", "0.3")
    bar = find(tab, QFrame, "versionSwitchBar")
    assert bar.isVisible()
    assert tab.version.value == "1.0" and tab.method == "ListTasks"
    assert find(tab, QComboBox, "versionCombo").currentText() == "1.0"
    assert find(tab, QLabel, "versionSwitchLabel").text() == (
        "A2A 0.3 has no ListTasks, so this tab stays on 1.0. Pick the 0.3 method to switch with:"
    )
    pick(tab, "counterpartCombo", "tasks/get")
    click(qtbot, tab, "switchVersionButton")
    assert not bar.isVisible()
    assert (tab.version.value, tab.method) == ("0.3", "tasks/get")
    assert draft(tab)["method"] == "tasks/get"

    pick(tab, "versionCombo", "1.0")  # and back: tasks/get is GetTask
    assert tab.method == "GetTask"
    pick(tab, "methodCombo", "ListTasks")
    pick(tab, "versionCombo", "0.3")
    assert bar.isVisible()
    pick(tab, "methodCombo", "SendMessage")  # another method: the bar spoke of ListTasks
    assert not bar.isVisible()


# --- point 2: the endpoint follows the binding from the card the app knows ----------------


def test_switching_binding_on_the_demo_tab_takes_the_demo_cards_url(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = demo_tab(window, sdk_peer)
    assert tab.card_panel.view is None  # no card fetched by hand
    pick(tab, "bindingCombo", "HTTP+JSON")
    wait_until(lambda: tab.endpoint_edit.text() != sdk_peer["jsonrpc_url"])
    assert tab.endpoint_edit.text() == sdk_peer["rest_url"]
    label = find(tab, QLabel, "bindingOfferLabel")
    assert label.isVisible()
    assert label.text() == (
        f"Endpoint set to {sdk_peer['rest_url']}: the HTTP+JSON 1.0 interface on the demo"
        " agent's card."
    )
    assert label.toolTip() == f"From {sdk_peer['card_url']}"
    qtbot.mouseClick(find(tab, QPushButton, "sendButton"), Qt.MouseButton.LeftButton)
    wait_sent(tab, wait_until)
    assert tab.response_view.outcome is Outcome.OK
    assert "Sum: 42" in tab.response_view.pretty_view.toPlainText()
    assert not label.isVisible()  # the news went with the send

    # HTTP+JSON to the JSON-RPC URL: the error says what to do, and Pretty shows no
    # internal record.
    tab.endpoint_edit.setText(sdk_peer["jsonrpc_url"])
    qtbot.mouseClick(find(tab, QPushButton, "sendButton"), Qt.MouseButton.LeftButton)
    wait_sent(tab, wait_until)
    view = tab.response_view
    assert view.outcome is Outcome.RPC_ERROR
    error = view.error_label.text()
    assert "does not follow redirects: use the card's HTTP+JSON base URL" in error
    assert f"the card lists HTTP+JSON at {sdk_peer['rest_url']}" in error
    assert view.pretty_view.toPlainText() == ""
    assert view.pretty_view.placeholderText().startswith("No response body")

    pick(tab, "bindingCombo", "GRPC")  # known now: no lookup
    assert tab.endpoint_edit.text().endswith(sdk_peer["grpc_target"])
    pick(tab, "versionCombo", "0.3")
    assert tab.method == "message/send"
    qtbot.mouseClick(find(tab, QPushButton, "sendButton"), Qt.MouseButton.LeftButton)
    wait_sent(tab, wait_until)
    assert tab.response_view.outcome is Outcome.OK


def test_a_card_without_the_binding_says_so_before_send(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    card = {
        "name": "JSON-RPC only",
        "description": "d",
        "version": "1",
        "supportedInterfaces": [
            {"url": "http://127.0.0.1:9/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
    }
    canned = Canned(body=json.dumps(card).encode())
    with bad_server(canned) as url:
        tab = new_tab(window, url)
        pick(tab, "bindingCombo", "GRPC")
        bar = find(tab, QFrame, "bindingOfferBar")
        wait_until(bar.isVisible)
    assert [path for _, path, _, _ in canned.received] == ["/.well-known/agent-card.json"]
    assert find(tab, QLabel, "bindingOfferLabel").text() == (
        f"The card at {url.rstrip('/')} lists no gRPC interface for A2A 1.0: Send would go to"
        f" {url} as it is."
    )
    assert tab.endpoint_edit.text() == url


# --- point 3: the body follows; banners never go stale ------------------------------------


def test_a_fresh_body_follows_and_its_first_send_always_goes(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = demo_tab(window, sdk_peer)
    assert tab.preview.toPlainText() == find(tab, QPlainTextEdit, "bodyEditor").toPlainText()
    status = find(tab, QLabel, "templateStatusLabel")
    assert status.text().startswith("The draft follows it (method, version, binding, Text")
    replace = find(tab, QPushButton, "replaceBodyButton")
    assert not replace.isEnabled() and "the draft is the template" in replace.toolTip()
    pick(tab, "methodCombo", "SendStreamingMessage")  # no Replace step
    assert draft(tab)["method"] == "SendStreamingMessage"
    assert tab.preview.toPlainText()  # the template never looks empty
    find(tab, QLineEdit, "messageTextEdit").setText("stream 2 10")
    qtbot.mouseClick(find(tab, QPushButton, "sendButton"), Qt.MouseButton.LeftButton)
    assert not find(tab, QFrame, "shapeBanner").isVisible()
    assert tab.result_tabs.currentWidget() is tab.timeline
    wait_sent(tab, wait_until)
    assert tab.response_view.outcome is Outcome.OK


def test_an_edited_draft_shows_the_changes_and_the_banner_goes_after_replace(
    qtbot: Any, window: MainWindow
) -> None:
    tab = new_tab(window, "http://127.0.0.1:9/")
    type_in_draft(qtbot, tab, " ")
    mine = find(tab, QPlainTextEdit, "bodyEditor").toPlainText()
    pick(tab, "methodCombo", "SendStreamingMessage")
    assert find(tab, QPlainTextEdit, "bodyEditor").toPlainText() == mine  # never overwritten
    status = find(tab, QLabel, "templateStatusLabel").text()
    assert status.startswith("Your draft differs in 4 lines (Changes)")
    diff = find(tab, QPlainTextEdit, "templateDiffView")
    assert diff.isVisible()
    assert '-  "method": "SendMessage",' in diff.toPlainText()
    assert '+  "method": "SendStreamingMessage",' in diff.toPlainText()

    qtbot.mouseClick(find(tab, QPushButton, "sendButton"), Qt.MouseButton.LeftButton)
    banner = find(tab, QFrame, "shapeBanner")
    assert banner.isVisible() and not tab.busy
    text = find(tab, QLabel, "shapeBannerText").text()
    assert "&quot;SendMessage&quot; but the picker says &quot;SendStreamingMessage&quot;" in text
    fix = find(tab, QPushButton, "generateTemplateButton")
    assert fix.text() == "Set the method and send"
    click(qtbot, tab, "replaceBodyButton")
    assert not banner.isVisible()  # re-evaluated: the draft fits now
    assert draft(tab)["method"] == "SendStreamingMessage"
    assert not find(tab, QPushButton, "replaceBodyButton").isEnabled()


def test_the_one_click_fix_keeps_what_the_user_typed(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = demo_tab(window, sdk_peer)
    editor = find(tab, QPlainTextEdit, "bodyEditor")
    editor.setPlainText(editor.toPlainText().replace('"12 30"', '"stream 2 10"'))
    pick(tab, "methodCombo", "SendStreamingMessage")
    qtbot.mouseClick(find(tab, QPushButton, "sendButton"), Qt.MouseButton.LeftButton)
    assert find(tab, QFrame, "shapeBanner").isVisible()
    click(qtbot, tab, "generateTemplateButton")  # "Set the method and send"
    wait_sent(tab, wait_until)
    assert tab.response_view.outcome is Outcome.OK
    assert draft(tab)["method"] == "SendStreamingMessage"
    assert draft(tab)["params"]["message"]["parts"] == [{"text": "stream 2 10"}]
    assert '"stream 2 10"' in tab.response_view.request_view.toPlainText()


# --- point 8: Save refuses a misfit body; Send shows the answer ----------------------------


def test_save_refuses_a_0_3_body_in_a_1_0_grpc_tab_and_converts_it_in_one_click(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], tmp_path: Path
) -> None:
    spec = tmp_path / "requests.a2a.yaml"
    SpecDocument.new(path=spec).save(spec)
    window.spec.open_spec(spec)
    wait_until(lambda: window.spec.document is not None)
    tab = new_tab(window, "127.0.0.1:9")
    pick(tab, "bindingCombo", "GRPC")
    v03 = {"message": {"messageId": "m-1", "role": "ROLE_USER", "content": [{"text": "hi"}]}}
    find(tab, QPlainTextEdit, "bodyEditor").setPlainText(json.dumps(v03))
    save = window.findChild(QAction, "saveToSpecAction")
    assert save is not None
    save.trigger()
    banner = find(tab, QFrame, "shapeBanner")
    assert banner.isVisible()
    text = find(tab, QLabel, "shapeBannerText").text()
    assert text.startswith("<b>Not saved: the body does not look like a gRPC request")
    assert "content" in text
    assert not load(spec).operations()
    fix = find(tab, QPushButton, "generateTemplateButton")
    assert fix.text() == "Convert to 1.0 and save"
    click(qtbot, tab, "generateTemplateButton")
    # The tab belongs to no collection yet: Save asks which; the one opened above.
    wait_until(lambda: window.findChild(QInputDialog, "saveTargetDialog") is not None)
    which = window.findChild(QInputDialog, "saveTargetDialog")
    assert which is not None
    which.setTextValue(which.comboBoxItems()[0])
    which.accept()
    wait_until(lambda: not tab.dirty)
    assert len(load(spec).operations()) == 1
    assert draft(tab)["message"]["parts"] == [{"text": "hi"}]
    assert draft(tab)["message"]["messageId"] == "m-1"
    assert not banner.isVisible()
    assert "Saved" in window.statusBar().currentMessage()


def test_send_shows_the_response_whatever_page_was_in_front(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = demo_tab(window, sdk_peer)
    tab.result_tabs.setCurrentWidget(tab.card_panel)
    qtbot.mouseClick(find(tab, QPushButton, "sendButton"), Qt.MouseButton.LeftButton)
    assert tab.result_tabs.currentWidget() is tab.response_view
    wait_sent(tab, wait_until)
    assert "Sum: 42" in tab.response_view.pretty_view.toPlainText()


def test_a_saved_request_keeps_its_base_url_variable_across_a_switch(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    window.on_demo_ready(sdk_peer)
    window.spec.open_spec(EXAMPLE_SPEC, remember=False)
    window.spec.set_demo_info(sdk_peer)  # the demo environment follows the demo agent
    doc = window.spec.document
    assert doc is not None
    op = doc.find("sum-numbers-1-0-http-json")
    assert op is not None
    tab = window.spec.open_operation(op)
    assert tab.endpoint_edit.text() == "{{baseUrl}}/rest"
    pick(tab, "bindingCombo", "JSONRPC")
    wait_until(lambda: tab.endpoint_edit.text() != "{{baseUrl}}/rest")
    assert tab.endpoint_edit.text() == "{{baseUrl}}/"
    assert find(tab, QLabel, "bindingOfferLabel").text() == (
        "Endpoint set to {{baseUrl}}/: the JSON-RPC 1.0 interface on the demo agent's card."
    )
    qtbot.mouseClick(find(tab, QPushButton, "sendButton"), Qt.MouseButton.LeftButton)
    wait_sent(tab, wait_until)
    assert tab.response_view.outcome is Outcome.OK
    assert "Sum: 42" in tab.response_view.pretty_view.toPlainText()


def test_an_endpoint_url_is_spelled_with_its_leading_variable() -> None:
    values = {"baseUrl": "http://h:80", "other": "http://x"}
    assert spelled_like("{{baseUrl}}/", "http://h:80/rest", values.get) == "{{baseUrl}}/rest"
    assert spelled_like("{{ baseUrl }}/rest", "http://h:80", values.get) == "{{ baseUrl }}"
    assert spelled_like("{{baseUrl}}/", "http://h:8080/", values.get) is None  # not a prefix
    assert spelled_like("{{baseUrl}}/", "127.0.0.1:5", values.get) is None
    assert spelled_like("{{unset}}/", "http://h:80/", values.get) is None
    assert spelled_like("http://h:80/", "http://h:80/rest", values.get) == "http://h:80/rest"
