"""The Welcome tab (issue 27, *First run and help*): Help → Getting started brings it back,
its five steps do what they say on the real demo agent, and the first start keeps it in front
when the demo agent's tab opens."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QFileDialog, QLabel, QPushButton, QTabBar

from app.paths import session_path
from app.ui.card.signature_dialog import SignatureDialog
from app.ui.help.welcome_page import WelcomePage
from app.ui.shell.main_window import MainWindow
from app.ui.shell.tab_session import SessionController

pytestmark = [pytest.mark.gui]


def _getting_started(window: MainWindow) -> WelcomePage:
    action = window.findChild(QAction, "gettingStartedAction")
    assert action is not None and action in window.menus.help.actions()
    action.trigger()
    page = window.tabs.currentWidget()
    assert isinstance(page, WelcomePage) and page.objectName() == "welcomeTab"
    return page


def _button(page: WelcomePage, name: str) -> QPushButton:
    button = page.findChild(QPushButton, name)
    assert button is not None, name
    return button


def test_getting_started_opens_one_welcome_tab_first_and_it_closes(
    qtbot: Any, window: MainWindow
) -> None:
    window.new_a2a_tab("http://127.0.0.1:9/")
    page = _getting_started(window)
    assert window.tabs.indexOf(page) == 0 and window.tabs.tabText(0) == "Welcome"
    window.tabs.setCurrentIndex(1)
    assert _getting_started(window) is page  # brought back, not a second one
    assert window.tabs.count() == 2

    close = window.tabs.tabBar().tabButton(0, QTabBar.ButtonPosition.RightSide)
    qtbot.mouseClick(close, Qt.MouseButton.LeftButton)
    assert window.tabs.count() == 1 and window.current_tab() is not None
    assert not window.reopen_closed_action.isEnabled()  # not a request: nothing to reopen
    assert _getting_started(window) is not page and window.tabs.count() == 2


def test_the_steps_wait_for_the_demo_agent(window: MainWindow, sdk_peer: dict[str, Any]) -> None:
    page = _getting_started(window)
    demo = page.findChild(QLabel, "welcomeDemoLabel")
    assert demo is not None and "not running" in demo.text()
    for name in ("Send", "Stream", "Card", "Check"):
        button = _button(page, f"welcome{name}Button")
        assert not button.isEnabled() and "demo agent" in button.toolTip()
    assert _button(page, "welcomeSaveButton").isEnabled()  # saves whatever tab is in front

    window.on_demo_ready(sdk_peer)
    assert demo.text() == f"●  Demo agent ready at {sdk_peer['base_url']}"
    assert all(button.isEnabled() for button in page.buttons.values())


def test_the_first_start_keeps_the_welcome_tab_in_front(
    window: MainWindow, sdk_peer: dict[str, Any]
) -> None:
    assert window.session.first_start  # a fresh home: no session file
    window.show_welcome()  # as app/ui/shell/application.py does on the first start
    window.on_demo_ready(sdk_peer)  # the demo agent's tab opens behind it
    assert window.tabs.currentWidget().objectName() == "welcomeTab"
    (demo_tab,) = window.request_tabs()
    assert demo_tab.endpoint_edit.text() == sdk_peer["jsonrpc_url"]


def test_a_saved_session_is_not_a_first_start(
    window: MainWindow, qloop: Any, tmp_path: Any
) -> None:
    qloop.run_until_complete(window.session.flush())
    assert session_path().exists()
    again = SessionController(window, session_path(), parent=window)
    again.restore()
    assert not again.first_start
    fresh = SessionController(window, tmp_path / "session.json", parent=window)
    fresh.restore()
    assert fresh.first_start


def test_send_and_stream_steps_show_their_answer(
    window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    window.on_demo_ready(sdk_peer)
    page = _getting_started(window)
    _button(page, "welcomeSendButton").click()
    tab = window.current_tab()
    assert tab is not None and tab.method == "SendMessage"
    assert tab.result_tabs.currentWidget() is tab.response_view
    wait_until(lambda: not tab.busy and tab.response_view.outcome is not None)
    assert "Sum: 42" in tab.response_view.pretty_view.toPlainText()
    assert page.badges["send"].text() == "✓"
    assert "look at the Response" in window.statusBar().currentMessage()
    count = window.tabs.count()
    window.show_welcome()
    _button(page, "welcomeSendButton").click()  # the same tab again, not another one
    assert window.current_tab() is tab and window.tabs.count() == count
    wait_until(lambda: not tab.busy)

    window.show_welcome()
    _button(page, "welcomeStreamButton").click()
    stream = window.current_tab()
    assert stream is not None and stream is not tab
    assert stream.method == "SendStreamingMessage"
    # Nothing was typed: not marked modified ("SendStreamingMessage *", newcomer point 10).
    assert window.tabs.tabText(window.tabs.indexOf(stream)) == "SendStreamingMessage"
    assert stream.message_text_edit.text() == "stream 5"
    assert stream.result_tabs.currentWidget() is stream.timeline
    wait_until(lambda: not stream.busy and stream.response_view.outcome is not None)
    assert stream.timeline.view.model().rowCount() >= 6  # the Task and its five steps


def test_the_card_step_fetches_and_verifies_the_signature(
    window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    window.on_demo_ready(sdk_peer)
    page = _getting_started(window)
    _button(page, "welcomeCardButton").click()
    tab = window.current_tab()
    assert tab is not None and tab.result_tabs.currentWidget() is tab.card_panel
    wait_until(lambda: tab.card_panel.verify_dialog is not None, timeout=15)
    dialog = tab.card_panel.verify_dialog
    assert isinstance(dialog, SignatureDialog) and dialog.isVisible()
    status = dialog.findChild(QLabel, "verifyStatusLabel")
    assert status is not None
    wait_until(lambda: status.text() == "valid", timeout=15)
    dialog.close()


def test_the_save_step_asks_where_with_the_spec_dock_in_view(
    window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    window.on_demo_ready(sdk_peer)
    page = _getting_started(window)
    dock = window.findChild(QDockWidget, "specDock")
    assert dock is not None
    dock.hide()
    _button(page, "welcomeSaveButton").click()
    assert dock.isVisible()
    wait_until(lambda: any(d.isVisible() for d in window.findChildren(QFileDialog)))
    for dialog in window.findChildren(QFileDialog):
        dialog.reject()


def test_the_check_step_checks_the_demo_agent(
    window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    window.on_demo_ready(sdk_peer)
    wait_until(lambda: window.history.store is not None)
    page = _getting_started(window)
    _button(page, "welcomeCheckButton").click()
    view = window.check.view
    assert view.running and view.isVisible()
    view.stop()
    wait_until(lambda: not view.running)


def test_the_welcome_tab_says_starting_and_ctrl_enter_there_is_send_it(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    """Newcomer point 2: while the demo agent started the Welcome tab said "not running";
    once it ran the status bar said "press Send (Ctrl+Enter)", which did nothing there."""
    page = window.show_welcome()
    assert isinstance(page, WelcomePage)
    window.on_demo_starting()  # as app/ui/shell/application.py does
    demo = page.findChild(QLabel, "welcomeDemoLabel")
    assert demo is not None and "starting…" in demo.text() and "not running" not in demo.text()
    assert _button(page, "welcomeSendButton").toolTip() == "Needs the demo agent, starting…"
    window.on_demo_ready(sdk_peer)
    assert window.tabs.currentWidget() is page
    hint = window.statusBar().currentMessage()
    assert "Ctrl+Enter" in hint and "Welcome tab" in hint
    assert _button(page, "welcomeSendButton").toolTip() == "Send it (Ctrl+Enter)"

    qtbot.keyClick(page, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    wait_until(lambda: window.current_tab() is not None)  # a shortcut's click is animated
    tab = window.current_tab()
    assert tab is not None and tab.method == "SendMessage"
    wait_until(lambda: not tab.busy and tab.response_view.outcome is not None)
    assert "Sum: 42" in tab.response_view.pretty_view.toPlainText()
    assert page.badges["send"].text() == "✓"
    assert "Ctrl+Enter" not in window.statusBar().currentMessage()  # withdrawn by the send
