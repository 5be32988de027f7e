"""Binding switch help as a person meets it: switch binding, read the offer, send, read why."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QComboBox, QFrame, QLabel, QLineEdit, QPushButton, QWidget

from app.protocol.events import Outcome
from app.ui.request.request_tab import RequestTab
from app.ui.shell.main_window import MainWindow

pytestmark = pytest.mark.gui

SCREENSHOTS = Path(os.environ.get("A2A_SCREENSHOT_DIR", "/tmp/a2a-workbench-screenshots"))


def screenshot(widget: QWidget, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    assert widget.grab().save(str(SCREENSHOTS / name))


def find(tab: RequestTab, kind: type, name: str) -> Any:
    widget = tab.findChild(kind, name)
    assert widget is not None, name
    return widget


def click(qtbot: Any, tab: RequestTab, name: str) -> None:
    button = find(tab, QPushButton, name)
    assert button.isEnabled() and button.isVisible(), name
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def tab_with_card(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], endpoint: str
) -> RequestTab:
    action = window.findChild(QAction, "newA2ARequestAction")
    assert action is not None
    action.trigger()
    tab = window.current_tab()
    assert tab is not None
    tab.endpoint_edit.setText(endpoint)
    tab.result_tabs.setCurrentWidget(tab.card_panel)
    click(qtbot, tab, "fetchCardButton")
    wait_until(lambda: tab.card_panel.view is not None and not tab.card_panel.busy, timeout=20)
    return tab


def send(qtbot: Any, tab: RequestTab, wait_until: Callable[..., None]) -> str:
    qtbot.keyClick(find(tab, QLineEdit, "messageTextEdit"), Qt.Key.Key_Return)  # replace
    click(qtbot, tab, "sendButton")
    wait_until(lambda: tab.response_view.outcome is not None and not tab.busy, timeout=20)
    label = tab.response_view.error_label
    return "" if label.isHidden() else str(label.text())


def outcome(tab: RequestTab) -> Outcome | None:
    return tab.response_view.outcome


def test_switching_to_grpc_takes_the_cards_grpc_interface_with_undo(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = tab_with_card(qtbot, window, wait_until, sdk_peer["jsonrpc_url"])
    bar = find(tab, QFrame, "bindingOfferBar")
    assert not bar.isVisible()  # the endpoint is the card's JSON-RPC interface
    find(tab, QComboBox, "bindingCombo").setCurrentText("GRPC")
    assert bar.isVisible()
    grpc = f"http://{sdk_peer['grpc_target']}"  # as the card writes it
    assert tab.endpoint_edit.text() == grpc
    assert find(tab, QLabel, "bindingOfferLabel").text() == (
        f"Endpoint set to {grpc}: the gRPC 1.0 interface on the card fetched on the Agent"
        " Card page."
    )
    screenshot(window, "flow-binding-offer.png")

    # Undo: the JSON-RPC URL again; sent there, the error says why, in words, and where.
    click(qtbot, tab, "undoCardInterfaceButton")
    assert tab.endpoint_edit.text() == sdk_peer["jsonrpc_url"] and not bar.isVisible()
    error = send(qtbot, tab, wait_until)
    assert outcome(tab) is Outcome.TRANSPORT_ERROR
    assert f"this port answers HTTP/1.1; gRPC needs HTTP/2 — the card lists gRPC at {grpc}" in (
        error
    )
    assert "SETTINGS frame" not in error
    screenshot(window, "flow-grpc-error.png")

    assert find(tab, QLabel, "bindingOfferLabel").text() == (
        f"The Agent Card lists gRPC (1.0) at {grpc}"
    )
    click(qtbot, tab, "useCardInterfaceButton")
    assert tab.endpoint_edit.text() == grpc and not bar.isVisible()
    assert send(qtbot, tab, wait_until) == ""
    assert outcome(tab) is Outcome.OK

    # "Endpoint set to …" is news: it goes with the next send, as a notification would.
    find(tab, QComboBox, "bindingCombo").setCurrentText("JSONRPC")
    assert tab.endpoint_edit.text() == sdk_peer["jsonrpc_url"] and bar.isVisible()
    assert find(tab, QLabel, "bindingOfferLabel").text().startswith("Endpoint set to ")
    assert send(qtbot, tab, wait_until) == ""
    assert outcome(tab) is Outcome.OK and not bar.isVisible()


def test_a_redirected_jsonrpc_post_says_so_and_names_the_cards_url(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = tab_with_card(qtbot, window, wait_until, sdk_peer["rest_url"])
    bar = find(tab, QFrame, "bindingOfferBar")
    assert bar.isVisible()  # /rest is not the card's JSON-RPC URL
    error = send(qtbot, tab, wait_until)
    assert outcome(tab) is Outcome.RPC_ERROR
    assert error.startswith("Error response 307 Temporary Redirect: The server answered with")
    assert f"a redirect to {sdk_peer['rest_url']}/;" in error
    assert "the JSON-RPC binding does not follow redirects" in error
    assert error.endswith(f"— the card lists JSON-RPC at {sdk_peer['jsonrpc_url']}")
    tab.result_tabs.setCurrentWidget(tab.response_view)
    screenshot(window, "flow-redirect-error.png")
    find(tab, QComboBox, "bindingCombo").setCurrentText("HTTP+JSON")
    assert not bar.isVisible()  # /rest is the card's HTTP+JSON base


def test_use_this_interface_takes_an_untouched_draft_along(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = tab_with_card(qtbot, window, wait_until, sdk_peer["jsonrpc_url"])
    tab.card_panel.use_interface(tab.card_panel.interface_row("HTTP+JSON", "0.3"))
    assert tab.endpoint_edit.text() == sdk_peer["rest_url"]
    assert (tab.version.value, tab.method) == ("0.3", "message/send")
    body = json.loads(tab.body_editor.toPlainText())
    assert "jsonrpc" not in body and "content" in body["message"]  # the 0.3 REST object
    assert send(qtbot, tab, wait_until) == ""
    assert outcome(tab) is Outcome.OK
