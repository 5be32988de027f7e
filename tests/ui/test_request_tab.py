"""The request tab as a person uses it: click, type, read what the panels show."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QComboBox, QLineEdit, QPlainTextEdit, QPushButton

from app.protocol.events import Outcome
from app.protocol.types import Binding
from app.ui.request.request_tab import RequestTab
from app.ui.response.response_view import ResponseView
from app.ui.shell.main_window import MainWindow
from tests.helpers.bad_server import Canned, bad_server
from tests.helpers.grpc_server import a2a_service, reader_threads

pytestmark = pytest.mark.gui


def new_tab(qtbot: Any, window: MainWindow) -> RequestTab:
    """File → New request → A2A, through its action."""
    action = window.findChild(QAction, "newA2ARequestAction")
    assert action is not None and action.shortcut().toString() == "Ctrl+N"
    action.trigger()
    tab = window.current_tab()
    assert tab is not None
    return tab


def find(tab: RequestTab, kind: type, name: str) -> Any:
    widget = tab.findChild(kind, name)
    assert widget is not None, name
    return widget


def type_into(qtbot: Any, edit: QLineEdit, text: str) -> None:
    edit.clear()
    qtbot.keyClicks(edit, text)


def send_and_wait(qtbot: Any, tab: RequestTab, wait_until: Callable[..., None]) -> ResponseView:
    view = find(tab, ResponseView, "responseView")
    qtbot.mouseClick(find(tab, QPushButton, "sendButton"), Qt.MouseButton.LeftButton)
    wait_until(lambda: view.outcome is not None and not tab.busy, timeout=20)
    return view


def test_new_request_sums_numbers_on_the_demo_agent(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = new_tab(qtbot, window)
    assert find(tab, QComboBox, "versionCombo").currentText() == "1.0"
    assert find(tab, QComboBox, "bindingCombo").currentText() == "JSONRPC"
    assert find(tab, QComboBox, "methodCombo").currentText() == "SendMessage"

    type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), sdk_peer["jsonrpc_url"])
    type_into(qtbot, find(tab, QLineEdit, "messageTextEdit"), "12 30")
    qtbot.mouseClick(find(tab, QPushButton, "generateBodyButton"), Qt.MouseButton.LeftButton)
    qtbot.mouseClick(find(tab, QPushButton, "replaceBodyButton"), Qt.MouseButton.LeftButton)
    assert '"12 30"' in find(tab, QPlainTextEdit, "bodyEditor").toPlainText()

    view = send_and_wait(qtbot, tab, wait_until)

    assert view.outcome is Outcome.OK
    assert "Sum: 42" in view.pretty_view.toPlainText()
    assert view.status_label.text() == "200 OK"
    assert view.error_label.isHidden()
    sent = view.request_view.toPlainText()
    assert "A2A-Version: 1.0" in sent and "SendMessage" in sent
    assert "content-type: application/json" in view.headers_view.toPlainText().lower()


def test_the_0_3_tab_sends_message_send(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = new_tab(qtbot, window)
    find(tab, QComboBox, "versionCombo").setCurrentText("0.3")
    assert find(tab, QComboBox, "methodCombo").currentText() == "message/send"
    type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), sdk_peer["jsonrpc_url"])
    type_into(qtbot, find(tab, QLineEdit, "messageTextEdit"), "1 2")
    qtbot.mouseClick(find(tab, QPushButton, "generateBodyButton"), Qt.MouseButton.LeftButton)
    qtbot.mouseClick(find(tab, QPushButton, "replaceBodyButton"), Qt.MouseButton.LeftButton)
    view = send_and_wait(qtbot, tab, wait_until)
    assert view.outcome is Outcome.OK
    assert '"kind": "message"' in view.pretty_view.toPlainText()
    assert "Sum: 3" in view.pretty_view.toPlainText()
    assert "A2A-Version" not in view.request_view.toPlainText()


def test_changing_the_method_keeps_an_edited_draft(qtbot: Any, window: MainWindow) -> None:
    tab = new_tab(qtbot, window)
    editor = find(tab, QPlainTextEdit, "bodyEditor")
    editor.setPlainText('{"my": "draft"}')
    methods = find(tab, QComboBox, "methodCombo")
    methods.setCurrentIndex(methods.findData("GetTask"))
    find(tab, QComboBox, "versionCombo").setCurrentText("0.3")
    assert methods.currentData() == "tasks/get"  # the same job in 0.3
    qtbot.mouseClick(find(tab, QPushButton, "generateBodyButton"), Qt.MouseButton.LeftButton)
    assert editor.toPlainText() == '{"my": "draft"}'
    assert "tasks/get" in tab.preview.toPlainText()
    qtbot.mouseClick(find(tab, QPushButton, "replaceBodyButton"), Qt.MouseButton.LeftButton)
    assert "tasks/get" in editor.toPlainText()


def test_a_jsonrpc_error_inside_http_200_is_shown_as_an_error(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    canned = Canned(
        body=json.dumps(
            {"jsonrpc": "2.0", "id": None, "error": {"code": -32001, "message": "Task not found"}}
        ).encode()
    )
    with bad_server(canned) as url:
        tab = new_tab(qtbot, window)
        type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), url)
        view = send_and_wait(qtbot, tab, wait_until)
    assert view.outcome is Outcome.RPC_ERROR
    assert view.error_label.isVisible()
    assert "-32001 TaskNotFoundError: Task not found" in view.error_label.text()
    assert view.status_label.text().startswith("Error")
    assert "#c62828" in view.status_label.styleSheet()


def test_connection_refused_is_a_clear_transport_error(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    tab = new_tab(qtbot, window)
    type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), f"http://127.0.0.1:{port}/")
    view = send_and_wait(qtbot, tab, wait_until)
    assert view.outcome is Outcome.TRANSPORT_ERROR
    assert "Connection refused" in view.error_label.text()


def test_a_non_json_500_page_is_shown_as_text_with_its_status(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    page = b"<html><body><h1>500 Internal Server Error</h1>upstream down</body></html>"
    canned = Canned(status=500, headers={"Content-Type": "text/html"}, body=page)
    with bad_server(canned) as url:
        tab = new_tab(qtbot, window)
        type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), url)
        view = send_and_wait(qtbot, tab, wait_until)
    assert view.outcome is Outcome.RPC_ERROR
    assert "HTTP 500" in view.error_label.text()
    assert "upstream down" in view.raw_view.toPlainText()
    assert "500" in view.status_label.text()


def test_a_5_mib_error_page_is_shown_and_the_app_keeps_running(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    page = b"<p>" + b"x" * (5 * 1024 * 1024) + b"</p>"
    canned = Canned(status=502, headers={"Content-Type": "text/html"}, body=page)
    with bad_server(canned) as url:
        tab = new_tab(qtbot, window)
        type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), url)
        view = send_and_wait(qtbot, tab, wait_until)
    assert view.outcome is Outcome.RPC_ERROR
    assert "5.0 MiB" in view.size_label.text()
    assert "showing the first" in view.raw_view.toPlainText()
    # The app still works: the next request succeeds.
    type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), sdk_peer["jsonrpc_url"])
    tab.generate_preview()
    tab.replace_body()
    assert send_and_wait(qtbot, tab, wait_until).outcome is Outcome.OK


def test_malformed_json_in_the_editor_is_not_sent(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    canned = Canned()
    with bad_server(canned) as url:
        tab = new_tab(qtbot, window)
        type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), url)
        find(tab, QPlainTextEdit, "bodyEditor").setPlainText('{"jsonrpc": "2.0",\n  "id": 1,,\n}')
        view = send_and_wait(qtbot, tab, wait_until)
    assert view.outcome is Outcome.USAGE_ERROR
    assert "not valid JSON (line 2, column" in view.error_label.text()
    assert canned.received == []
    assert find(tab, QPlainTextEdit, "bodyEditor").toPlainText().startswith('{"jsonrpc"')


@pytest.fixture
def silent_server() -> Iterator[str]:
    """Accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/"
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


@pytest.fixture
def silent_grpc() -> Iterator[str]:
    """A gRPC server that takes a stream call and sends nothing, not even its headers."""
    release = threading.Event()

    def hold(request: bytes, context: Any) -> Iterator[bytes]:
        release.wait(30)
        yield from ()

    handlers = {"SendStreamingMessage": grpc.unary_stream_rpc_method_handler(hold)}
    server = grpc.server(ThreadPoolExecutor(max_workers=2))
    server.add_generic_rpc_handlers(a2a_service(handlers))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield f"127.0.0.1:{port}"
    release.set()
    server.stop(0)


def test_cancel_ends_a_grpc_stream_whose_server_sends_nothing(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], silent_grpc: str
) -> None:
    """Once, Cancel froze the window until the server sent something (here: 30 s)."""
    tab = new_tab(qtbot, window)
    type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), silent_grpc)
    bindings = find(tab, QComboBox, "bindingCombo")
    bindings.setCurrentIndex(bindings.findData(Binding.GRPC))
    methods = find(tab, QComboBox, "methodCombo")
    methods.setCurrentIndex(methods.findData("SendStreamingMessage"))
    qtbot.mouseClick(find(tab, QPushButton, "replaceBodyButton"), Qt.MouseButton.LeftButton)
    send = find(tab, QPushButton, "sendButton")
    qtbot.mouseClick(send, Qt.MouseButton.LeftButton)
    wait_until(lambda: bool(reader_threads()))  # the call is out, waiting for headers
    started = time.perf_counter()
    qtbot.mouseClick(send, Qt.MouseButton.LeftButton)
    wait_until(lambda: not tab.busy, timeout=5)
    assert time.perf_counter() - started < 2
    assert tab.response_view.outcome is Outcome.CANCELLED


def test_cancel_and_window_shutdown_stop_running_requests(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], qloop: Any, silent_server: str
) -> None:
    tab = new_tab(qtbot, window)
    type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), silent_server)
    send = find(tab, QPushButton, "sendButton")
    qtbot.mouseClick(send, Qt.MouseButton.LeftButton)
    wait_until(lambda: send.text() == "Cancel")
    qtbot.mouseClick(send, Qt.MouseButton.LeftButton)
    wait_until(lambda: not tab.busy)
    assert tab.response_view.outcome is Outcome.CANCELLED

    qtbot.mouseClick(send, Qt.MouseButton.LeftButton)
    wait_until(lambda: tab.busy)
    started = time.perf_counter()
    qloop.run_until_complete(window.shutdown())
    assert time.perf_counter() - started < 2
    assert not tab.busy


def test_a_new_tab_has_no_endpoint_so_send_is_off_and_says_what_to_type(
    qtbot: Any, window: MainWindow
) -> None:
    """Newcomer points 10 and 11: the Request menu listed a bare "A2A"; Send on a new tab
    showed httpx's "Invalid URL ''" beside "sent 1 ms"."""
    action = window.findChild(QAction, "newA2ARequestAction")
    assert action is not None and action.text().replace("&", "") == "New A2A request"
    tab = new_tab(qtbot, window)
    send = find(tab, QPushButton, "sendButton")
    assert tab.endpoint_edit.text() == "" and not send.isEnabled()
    no_endpoint = "No endpoint: type the agent's URL (or pick a saved request)"
    assert send.toolTip() == no_endpoint
    window.menus.refresh()  # as the Request menu does when it opens
    assert not window.menus.send.isEnabled()

    # Replace and send (its own key) is refused with the same words, nothing sent.
    qtbot.keyClick(
        tab.message_text_edit,
        Qt.Key.Key_Return,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    view = tab.response_view
    assert view.outcome is Outcome.USAGE_ERROR and not tab.busy
    assert no_endpoint in view.error_label.text() and "Invalid URL" not in view.error_label.text()

    type_into(qtbot, tab.endpoint_edit, "http://127.0.0.1:9/")
    assert send.isEnabled() and send.toolTip() == "Send the request (Ctrl+Enter)"
    window.menus.refresh()
    assert window.menus.send.isEnabled()
