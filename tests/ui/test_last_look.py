"""What a person saw in the screenshots of issue 27 (docs/screenshots/take.py), fixed and kept
so: the status bar stops saying *press Send* once something was sent; a tab closes with a
plain cross, not a red square; the collections get most of the left column; a long line of
the body wraps; a recorded stream's timeline has no buttons that would do nothing; a
``{{variable}}`` in the endpoint stays readable after a switch to the dark theme."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage, QPalette
from PySide6.QtWidgets import QApplication, QLineEdit, QPlainTextEdit, QTabBar, QToolButton

from app.protocol.events import Outcome
from app.settings import ThemeChoice
from app.ui.collections.spec_dock import EXAMPLE_SPEC
from app.ui.shell import theme
from app.ui.shell.main_window import MainWindow
from app.ui.shell.widgets import EDIT_HIGHLIGHT_CHARS
from app.ui.timeline.timeline_panel import TimelinePanel
from tests.ui.test_history_dock import click, open_dock, select_rows, wait_rows
from tests.ui.test_request_tab import find, send_and_wait

pytestmark = pytest.mark.gui

Wait = Callable[..., None]


@pytest.fixture(autouse=True)
def _theme_afterwards(qapp: Any) -> Iterator[None]:
    """The theme is application-wide: later tests start with the default one."""
    yield
    theme.manager().apply(ThemeChoice.SYSTEM)


def _pixels(image: QImage) -> list[QColor]:
    return [image.pixelColor(x, y) for y in range(image.height()) for x in range(image.width())]


def test_the_status_bar_stops_saying_press_send_once_something_was_sent(
    qtbot: Any, window: MainWindow, wait_until: Wait, sdk_peer: dict[str, Any]
) -> None:
    window.on_demo_ready(sdk_peer)
    assert "press Send" in window.statusBar().currentMessage()
    tab = window.current_tab()
    assert tab is not None
    assert send_and_wait(qtbot, tab, wait_until).outcome is Outcome.OK
    assert "press Send" not in window.statusBar().currentMessage()


def test_a_tab_closes_with_a_plain_cross_in_the_text_colour(qtbot: Any, window: MainWindow) -> None:
    first = window.new_a2a_tab("http://127.0.0.1:9/")
    current = window.new_a2a_tab("http://127.0.0.1:9/")
    bar = window.tabs.tabBar()
    index = window.tabs.indexOf(current)
    button = bar.tabButton(index, QTabBar.ButtonPosition.RightSide)
    assert isinstance(button, QToolButton) and button.objectName() == "tabCloseButton"
    assert "Close" in button.toolTip()
    for choice in (ThemeChoice.LIGHT, ThemeChoice.DARK):
        theme.manager().apply(choice)
        text = QApplication.palette().color(QPalette.ColorRole.WindowText)
        pixels = _pixels(button.grab().toImage())
        # Qt's own button is a red square: no pixel here is that red.
        assert not [p for p in pixels if p.red() - max(p.green(), p.blue()) > 80], choice
        # The cross is drawn in the theme's text colour, so it shows on either tab bar.
        assert any(abs(p.lightness() - text.lightness()) < 40 for p in pixels), choice
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert window.request_tabs() == [first]


def test_the_collections_get_most_of_the_left_column(qtbot: Any, window: MainWindow) -> None:
    window.spec.open_spec(EXAMPLE_SPEC, remember=False)
    qtbot.waitExposed(window)
    collections, docs = window.spec.dock, window.spec.doc_dock
    assert collections.isVisible() and docs.isVisible()
    # "Select a request in the spec tree" took half of it.
    assert collections.height() >= 2 * docs.height()
    assert "Select a request in Collections" in window.spec.doc_view.browser.toPlainText()


def test_a_long_line_of_the_body_wraps_instead_of_scrolling_sideways(
    qtbot: Any, window: MainWindow, wait_until: Wait
) -> None:
    tab = window.new_a2a_tab("http://127.0.0.1:9/", "a message as long as a paragraph " * 6)
    editor = find(tab, QPlainTextEdit, "bodyEditor")
    preview = find(tab, QPlainTextEdit, "bodyPreview")
    qtbot.waitExposed(window)
    for view in (editor, preview):
        block = view.document().find("a message as long").block()
        wait_until(lambda block=block: block.layout().lineCount() > 1)  # laid out, wrapped
        assert view.horizontalScrollBar().maximum() == 0
    # A body of megabytes does not wrap: each new width would lay all of it out again.
    editor.setPlainText('{"text": "' + "x" * EDIT_HIGHLIGHT_CHARS + '"}')
    wait_until(lambda: editor.lineWrapMode() is QPlainTextEdit.LineWrapMode.NoWrap)


def test_a_recorded_stream_has_no_buttons_that_would_do_nothing(
    qtbot: Any, window: MainWindow, wait_until: Wait, sdk_peer: dict[str, Any]
) -> None:
    panel = open_dock(window)
    wait_until(lambda: panel.model.store is not None)
    tab = window.new_a2a_tab(sdk_peer["jsonrpc_url"], "stream 2 10")
    tab.method_combo.setCurrentIndex(tab.method_combo.findData("SendStreamingMessage"))
    send_and_wait(qtbot, tab, wait_until)
    live = tab.timeline
    assert live.resubscribe_button.isVisible() and live.resubscribe_button.isEnabled()

    view = wait_rows(wait_until, panel, 1)
    select_rows(qtbot, view, 0)
    click(qtbot, panel, "historyOpenButton")
    recorded = panel.findChild(TimelinePanel, "historyTimeline")
    assert recorded is not None
    wait_until(lambda: recorded.isVisible() and recorded.model.rowCount() > 0)
    buttons = (
        recorded.stop_button,
        recorded.resubscribe_button,
        recorded.cancel_button,
        recorded.follow_up_button,
    )
    assert not any(button.isVisible() for button in buttons)
    assert recorded.task_edit.isVisible() and recorded.task_edit.text() == live.task_id


def test_a_variable_in_the_endpoint_stays_readable_in_the_dark_theme(
    qtbot: Any, window: MainWindow, sdk_peer: dict[str, Any]
) -> None:
    window.spec.set_demo_info(sdk_peer)  # {{baseUrl}} resolves: drawn in the link colour
    tab = window.new_a2a_tab("{{baseUrl}}/")
    edit = find(tab, QLineEdit, "endpointEdit")
    qtbot.waitExposed(window)
    theme.manager().apply(ThemeChoice.DARK)
    qtbot.wait(50)  # the field repaints
    link = QApplication.palette().color(QPalette.ColorRole.Link)

    def near(p: QColor) -> bool:
        return abs(p.red() - link.red()) + abs(p.green() - link.green()) < 60 and (
            abs(p.blue() - link.blue()) < 40
        )

    assert any(near(p) for p in _pixels(edit.grab().toImage()))
