"""Auth, Headers and Extensions pages, the shape banner, binding shapes and card markers."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QTextCursor
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QLabel,
    QLineEdit,
    QListView,
    QPlainTextEdit,
    QPushButton,
    QTableView,
    QTabWidget,
    QToolButton,
)

from app.protocol.events import Outcome
from app.protocol.net.auth import AuthKind
from app.ui.request.headers_model import ExtensionsModel, HeaderRow, HeadersModel
from app.ui.request.request_tab import RequestTab
from app.ui.response.response_view import ResponseView
from app.ui.shell.main_window import MainWindow
from tests.helpers.bad_server import Canned, bad_server

pytestmark = pytest.mark.gui

OK_BODY = b'{"jsonrpc": "2.0", "id": null, "result": {"message": {"messageId": "m"}}}'


def new_tab(window: MainWindow) -> RequestTab:
    action = window.findChild(QAction, "newA2ARequestAction")
    assert action is not None
    action.trigger()
    tab = window.current_tab()
    assert tab is not None
    return tab


def find(tab: Any, kind: type, name: str) -> Any:
    widget = tab.findChild(kind, name)
    assert widget is not None, name
    return widget


def click(qtbot: Any, tab: Any, name: str) -> None:
    qtbot.mouseClick(find(tab, QPushButton, name), Qt.MouseButton.LeftButton)


def type_into(qtbot: Any, edit: QLineEdit, text: str) -> None:
    edit.clear()
    qtbot.keyClicks(edit, text)


def open_page(tab: RequestTab, title: str) -> None:
    tabs = find(tab, QTabWidget, "requestEditorTabs")
    titles = [tabs.tabText(i) for i in range(tabs.count())]
    tabs.setCurrentIndex(titles.index(title))


def send_and_wait(qtbot: Any, tab: RequestTab, wait_until: Callable[..., None]) -> ResponseView:
    view = find(tab, ResponseView, "responseView")
    click(qtbot, tab, "sendButton")
    wait_until(lambda: view.outcome is not None and not tab.busy, timeout=20)
    return view


def pick(combo: QComboBox, text: str) -> None:
    index = combo.findText(text)
    assert index >= 0, text
    combo.setCurrentIndex(index)


def test_bearer_auth_reaches_the_token_peer_and_is_masked(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer_token: dict[str, Any]
) -> None:
    tab = new_tab(window)
    type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), sdk_peer_token["jsonrpc_url"])
    type_into(qtbot, find(tab, QLineEdit, "messageTextEdit"), "12 30")  # the draft follows

    view = send_and_wait(qtbot, tab, wait_until)
    assert view.outcome is Outcome.RPC_ERROR
    assert "401" in view.status_label.text()

    open_page(tab, "Auth")
    pick(find(tab, QComboBox, "authKindCombo"), "Bearer token")
    token_edit = find(tab, QLineEdit, "bearerTokenEdit")
    assert token_edit.isVisible()
    assert token_edit.echoMode() is QLineEdit.EchoMode.Password
    qtbot.keyClicks(token_edit, sdk_peer_token["token"])
    reveal = find(tab, QToolButton, "bearerTokenEditReveal")
    qtbot.mouseClick(reveal, Qt.MouseButton.LeftButton)
    assert token_edit.echoMode() is QLineEdit.EchoMode.Normal
    qtbot.mouseClick(reveal, Qt.MouseButton.LeftButton)
    assert token_edit.echoMode() is QLineEdit.EchoMode.Password

    view = send_and_wait(qtbot, tab, wait_until)
    assert view.outcome is Outcome.OK, view.error_label.text()
    assert "Sum: 42" in view.pretty_view.toPlainText()
    sent = view.request_view.toPlainText()
    assert "Authorization: Bearer ****" in sent
    assert sdk_peer_token["token"] not in sent


def test_ticked_header_rows_are_sent_and_unticked_ones_are_not(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    canned = Canned(body=OK_BODY)
    with bad_server(canned) as url:
        tab = new_tab(window)
        type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), url)
        open_page(tab, "Headers")
        table = find(tab, QTableView, "headersTable")
        model = table.model()
        for name, value in (("X-On", "1"), ("X-Off", "2"), ("A2A-Version", "1.0.0")):
            click(qtbot, tab, "addHeaderButton")
            row = model.rowCount() - 1
            model.setData(model.index(row, 0), name)
            model.setData(model.index(row, 1), value)
        # The user unticks the second row's checkbox.
        model.setData(
            model.index(1, 0), Qt.CheckState.Unchecked.value, Qt.ItemDataRole.CheckStateRole
        )
        view = send_and_wait(qtbot, tab, wait_until)
    assert view.outcome is not Outcome.USAGE_ERROR
    ((_, _, headers, _),) = canned.received
    assert headers.get("X-On") == "1"
    assert "X-Off" not in headers
    assert headers.get("A2A-Version") == "1.0.0"  # a row overrides the default
    sent = view.request_view.toPlainText()
    assert "X-On: 1" in sent and "X-Off" not in sent


def test_extensions_and_api_key_in_query(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    canned = Canned(body=OK_BODY)
    with bad_server(canned) as url:
        tab = new_tab(window)
        type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), url)
        open_page(tab, "Extensions")
        tab.set_available_extensions(["https://ext.example/a/v1", "https://ext.example/b/v1"])
        type_into(qtbot, find(tab, QLineEdit, "extensionUriEdit"), "urn:mine")
        click(qtbot, tab, "addExtensionButton")
        ext_model = find(tab, QListView, "extensionsList").model()
        assert ext_model.rowCount() == 3
        ext_model.setData(
            ext_model.index(1), Qt.CheckState.Checked.value, Qt.ItemDataRole.CheckStateRole
        )

        open_page(tab, "Auth")
        pick(find(tab, QComboBox, "authKindCombo"), "API key")
        pick(find(tab, QComboBox, "apiKeyLocationCombo"), "query")
        type_into(qtbot, find(tab, QLineEdit, "apiKeyNameEdit"), "key")
        qtbot.keyClicks(find(tab, QLineEdit, "apiKeyValueEdit"), "s3cr3t")
        view = send_and_wait(qtbot, tab, wait_until)
    ((_, path, headers, _),) = canned.received
    assert path == "/?key=s3cr3t"
    assert headers["A2A-Extensions"] == "https://ext.example/b/v1, urn:mine"
    assert "X-A2A-Extensions" not in headers  # 1.0 tab
    sent = view.request_view.toPlainText()
    assert "?key=****" in sent and "s3cr3t" not in sent


def test_api_key_without_a_name_is_not_sent(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    canned = Canned(body=OK_BODY)
    with bad_server(canned) as url:
        tab = new_tab(window)
        type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), url)
        tab.auth_panel.set_kind(AuthKind.API_KEY)
        click(qtbot, tab, "sendButton")
        view = tab.response_view
    assert view.outcome is Outcome.USAGE_ERROR
    assert "needs a name" in view.error_label.text()
    assert canned.received == []


def test_a_misfit_body_shows_the_banner_and_send_anyway_sends_it(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    canned = Canned(body=OK_BODY)
    with bad_server(canned) as url:
        tab = new_tab(window)
        type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), url)
        editor = find(tab, QPlainTextEdit, "bodyEditor")
        # A 0.3 envelope in a 1.0 JSON-RPC tab.
        draft = json.dumps(
            {"jsonrpc": "2.0", "id": 7, "method": "message/send",
             "params": {"message": {"kind": "message", "messageId": "m", "role": "user",
                                    "parts": [{"kind": "text", "text": "hi"}]}}}
        )  # fmt: skip
        editor.setPlainText(draft)
        banner = find(tab, QFrame, "shapeBanner")
        assert not banner.isVisible()
        open_page(tab, "Auth")  # Send from another page brings the banner into view
        click(qtbot, tab, "sendButton")
        assert banner.isVisible()
        text = find(tab, QLabel, "shapeBannerText").text()
        assert "JSON-RPC envelope (1.0)" in text
        assert "&quot;message/send&quot; but the picker says &quot;SendMessage&quot;" in text
        assert "ROLE_USER" in text
        assert not tab.busy and canned.received == []

        # Forced: the draft exactly as typed.
        click(qtbot, tab, "forceSendButton")
        assert not banner.isVisible()
        wait_until(lambda: tab.response_view.outcome is not None and not tab.busy)
        ((_, _, _, body),) = canned.received

        # The one-click fix: the draft converted to 1.0 (its text kept), then sent.
        click(qtbot, tab, "sendButton")
        assert banner.isVisible()
        fix = find(tab, QPushButton, "generateTemplateButton")
        assert fix.text() == "Convert to 1.0 and send"
        click(qtbot, tab, "generateTemplateButton")
        assert not banner.isVisible()
        wait_until(lambda: len(canned.received) == 2 and not tab.busy)
    assert body.decode() == draft
    sent = json.loads(canned.received[1][3])
    assert sent["method"] == "SendMessage" and sent["id"] == 7
    assert sent["params"]["message"]["parts"] == [{"text": "hi"}]
    assert json.loads(editor.toPlainText()) == sent
    editor.undo()  # one step: the draft as the user typed it
    assert editor.toPlainText() == draft


def test_malformed_json_skips_the_banner_and_is_reported(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    tab = new_tab(window)
    type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), "http://127.0.0.1:9/")
    find(tab, QPlainTextEdit, "bodyEditor").setPlainText("{,")
    view = send_and_wait(qtbot, tab, wait_until)
    assert not find(tab, QFrame, "shapeBanner").isVisible()
    assert view.outcome is Outcome.USAGE_ERROR


def test_switching_binding_shows_the_shape_and_keeps_an_edited_draft(
    qtbot: Any, window: MainWindow
) -> None:
    tab = new_tab(window)
    editor = find(tab, QPlainTextEdit, "bodyEditor")
    assert '"jsonrpc"' in editor.toPlainText()
    assert "JSON-RPC envelope" in editor.placeholderText()
    bindings = find(tab, QComboBox, "bindingCombo")

    pick(bindings, "HTTP+JSON")  # an untouched draft follows
    rest = json.loads(editor.toPlainText())
    assert "jsonrpc" not in rest and rest["message"]["role"] == "ROLE_USER"
    assert editor.placeholderText() == "HTTP+JSON request object (1.0)"
    assert "HTTP+JSON request object" in tab._draft_title.text()

    editor.setFocus()
    editor.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(editor, " ")  # the user's draft now
    draft = editor.toPlainText()
    pick(bindings, "GRPC")
    # The template follows the binding: the gRPC request object; the draft stays.
    assert "jsonrpc" not in json.loads(tab.preview.toPlainText())
    assert editor.placeholderText() == "gRPC request (ProtoJSON, 1.0)"
    find(tab, QComboBox, "versionCombo").setCurrentText("0.3")
    assert editor.placeholderText() == "gRPC request (ProtoJSON, 0.3)"
    assert "content" in json.loads(tab.preview.toPlainText())["message"]
    assert editor.toPlainText() == draft


def test_methods_the_card_lacks_are_marked_not_hidden(qtbot: Any, window: MainWindow) -> None:
    tab = new_tab(window)
    methods = find(tab, QComboBox, "methodCombo")
    count = methods.count()
    tab.set_card_capabilities({"streaming": True, "pushNotifications": False})
    assert methods.count() == count
    texts = [methods.itemText(i) for i in range(count)]
    assert "SendStreamingMessage" in texts
    assert "CreateTaskPushNotificationConfig — not in card" in texts
    assert "GetExtendedAgentCard — not in card" in texts
    assert "SendMessage" in texts
    index = methods.findData("GetExtendedAgentCard")
    assert "capabilities.extendedAgentCard" in methods.itemData(index, Qt.ItemDataRole.ToolTipRole)
    assert methods.itemData(index, Qt.ItemDataRole.ForegroundRole) is not None
    methods.setCurrentIndex(index)  # still selectable
    assert tab.method == "GetExtendedAgentCard"

    find(tab, QComboBox, "versionCombo").setCurrentText("0.3")
    texts = [methods.itemText(i) for i in range(methods.count())]
    assert "tasks/pushNotificationConfig/set — not in card" in texts
    assert "tasks/sendSubscribe (legacy)" in texts

    tab.set_card_capabilities(None)
    assert not any("not in card" in methods.itemText(i) for i in range(methods.count()))


def test_headers_model(qtmodeltester: Any) -> None:
    model = HeadersModel([HeaderRow("A", "1"), HeaderRow("B", "2", enabled=False)])
    qtmodeltester.check(model)
    model.add_row("C", "3")
    model.remove_row(0)
    model.set_enabled(0, True)
    qtmodeltester.check(model)
    assert model.headers() == (("B", "2"), ("C", "3"))


def test_extensions_model(qtmodeltester: Any) -> None:
    model = ExtensionsModel()
    model.add_uri("urn:a")
    model.add_uri("urn:b", checked=False)
    qtmodeltester.check(model)
    assert model.selected() == ["urn:a"]
    assert model.add_uri("urn:b") == 1 and model.selected() == ["urn:a", "urn:b"]
    model.remove_row(0)
    qtmodeltester.check(model)
    assert model.uris() == ["urn:b"]
