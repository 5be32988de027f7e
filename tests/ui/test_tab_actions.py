"""The request tabs as a person uses them: the tab-bar menu, Ctrl+Tab and friends, names
that follow the request, and launches that do not pile up demo tabs."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from PySide6.QtCore import Qt
from PySide6.QtGui import QContextMenuEvent, QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QMenu

from app.protocol.types import Binding, ProtocolVersion
from app.spec.document import load
from app.ui.collections.spec_dock import EXAMPLE_SPEC
from app.ui.request.request_tab import RequestTab
from app.ui.shell.main_window import MainWindow
from app.ui.shell.widgets import select_data

# Menus grab the keyboard when they pop up; the offscreen platform cannot, and says so.
pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("^This plugin does not support grabbing")]
SHOTS_ENV = "A2A_WB_SCREENSHOTS"


def with_menu(window: MainWindow, menu: QMenu) -> QPixmap:
    """The window as a person sees it: the popped-up menu painted where it is."""
    picture = window.grab()
    painter = QPainter(picture)
    painter.drawPixmap(window.mapFromGlobal(menu.pos()), menu.grab())
    painter.end()
    return picture


def focus(qtbot: Any, widget: Any) -> None:
    window = widget.window()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    widget.setFocus()
    qtbot.waitUntil(widget.hasFocus, timeout=3000)


def right_click_tab(window: MainWindow, index: int) -> QMenu:
    bar = window.tabs.tabBar()
    pos = bar.tabRect(index).center()
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos, bar.mapToGlobal(pos))
    QApplication.sendEvent(bar, event)
    menu = window.tab_actions.menu
    assert menu is not None and menu.isVisible()
    return menu


def action(menu: QMenu, name: str) -> Any:
    found = next((a for a in menu.actions() if a.objectName() == name), None)
    assert found is not None, name
    return found


def titles(window: MainWindow) -> list[str]:
    return [window.tabs.tabText(i) for i in range(window.tabs.count())]


def test_tab_menu_duplicates_saves_and_closes_others(
    qtbot: Any, window: MainWindow, tmp_path: Path, wait_until: Any
) -> None:
    path = tmp_path / "mine.a2a.yaml"
    first = window.new_a2a_tab("http://127.0.0.1:9/")
    assert window.spec.save_tab(first, path) == []
    window.new_a2a_tab("http://127.0.0.1:10/")
    menu = right_click_tab(window, 0)
    texts = [a.text().replace("&", "") for a in menu.actions() if not a.isSeparator()]
    assert texts == ["Save to spec", "Duplicate tab", "Close tab", "Close other tabs"]
    shot = Path(os.environ.get(SHOTS_ENV) or tmp_path)
    menu.grab().save(str(shot / "tree-tab-context-menu.png"))
    with_menu(window, menu).save(str(shot / "tree-tab-context-menu-window.png"))
    qtbot.keyClick(menu, Qt.Key.Key_U)  # D&uplicate tab
    copy = window.current_tab()
    assert isinstance(copy, RequestTab) and copy is not first
    assert titles(window) == ["SendMessage", "SendMessage", "SendMessage copy"]
    assert copy.to_saved().endpoint == "http://127.0.0.1:9/"

    # Save to spec from the copy's menu: a second operation, the original untouched.
    copy.body_editor.setPlainText(copy.body_editor.toPlainText().replace("hello", "copy"))
    menu = right_click_tab(window, 2)
    action(menu, "saveTabAction").trigger()
    wait_until(lambda: not copy.dirty)
    ops = load(path).operations()
    assert [o.request.name for o in ops] == ["SendMessage", "SendMessage copy"]
    assert "hello" in ops[0].request.body and "copy" in ops[1].request.body

    menu = right_click_tab(window, 2)
    action(menu, "closeOtherTabsAction").trigger()
    assert window.request_tabs() == [copy]
    assert window.reopen_closed_action.isEnabled()  # the closed ones can come back


def test_ctrl_tab_and_ctrl_page_keys_cycle_the_tabs(qtbot: Any, window: MainWindow) -> None:
    tabs = [window.new_a2a_tab(f"http://127.0.0.1:{9 + i}/") for i in range(3)]
    assert window.current_tab() is tabs[2]
    editor = tabs[2].body_editor  # even from inside the body editor
    focus(qtbot, editor)
    ctrl, shift = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(editor, Qt.Key.Key_Tab, ctrl)
    assert window.current_tab() is tabs[0]  # wraps around
    qtbot.keyClick(window.tabs, Qt.Key.Key_PageDown, ctrl)
    assert window.current_tab() is tabs[1]
    qtbot.keyClick(window.tabs, Qt.Key.Key_PageUp, ctrl)
    assert window.current_tab() is tabs[0]
    qtbot.keyClick(window.tabs, Qt.Key.Key_Backtab, ctrl | shift)
    assert window.current_tab() is tabs[2]
    assert tabs[2].body_editor.toPlainText() == editor.toPlainText()  # no tab typed


def test_name_and_tags_follow_binding_version_and_method(
    qtbot: Any, window: MainWindow, tmp_path: Path
) -> None:
    window.spec.open_spec(EXAMPLE_SPEC)
    op = load(EXAMPLE_SPEC).find("sum-numbers-1-0-json-rpc")
    assert op is not None
    tab = window.spec.open_operation(op)
    select_data(tab.binding_combo, Binding.HTTP_JSON)
    path = tmp_path / "mine.a2a.yaml"
    assert window.spec.save_tab(tab, path) == []
    data = yaml.safe_load(path.read_bytes())
    (saved,) = (o for item in data["paths"].values() for o in item.values())
    assert saved["summary"] == "Sum numbers (1.0 HTTP+JSON)"
    assert saved["tags"] == ["A2A 1.0"]
    assert window.tabs.tabText(window.tabs.indexOf(tab)) == "Sum numbers (1.0 HTTP+JSON)"
    select_data(tab.version_combo, ProtocolVersion.V0_3)
    assert window.spec.save_tab(tab) == []  # the same operation, renamed and retagged
    ops = load(path).operations()
    assert [(o.request.name, o.request.tags) for o in ops] == [
        ("Sum numbers (0.3 HTTP+JSON)", ("A2A 0.3",))
    ]
    # A request named after its method follows the method.
    fresh = window.new_a2a_tab("http://127.0.0.1:9/")
    assert window.spec.save_tab(fresh, path) == []
    select_data(fresh.method_combo, "GetTask")
    assert window.spec.save_tab(fresh) == []
    names = [(o.request.name, o.request.tags) for o in load(path).operations()]
    assert names[1] == ("GetTask", ("GetTask",))


@pytest.fixture
def windows(qtbot: Any, qloop: Any) -> Iterator[Callable[[], MainWindow]]:
    """Main windows sharing one data directory: successive launches of the app."""
    made: list[MainWindow] = []

    def make() -> MainWindow:
        win = MainWindow()
        win.show()
        made.append(win)
        return win

    yield make
    for win in made:
        if win.isVisible():
            qloop.run_until_complete(win.shutdown())
            win.close_now()
        win.deleteLater()


def test_launches_do_not_pile_up_demo_tabs(
    qtbot: Any, qloop: Any, windows: Callable[[], MainWindow]
) -> None:
    def launch(port: int) -> MainWindow:
        win = windows()
        win.on_demo_ready({"jsonrpc_url": f"http://127.0.0.1:{port}/",
                           "base_url": f"http://127.0.0.1:{port}"})  # fmt: skip
        return win

    def close(win: MainWindow) -> None:
        qloop.run_until_complete(win.shutdown())
        win.close_now()

    first = launch(1111)
    demo = first.current_tab()
    assert demo is not None
    demo.message_text_edit.setText("1 2 3")  # the user makes the demo tab their own
    demo.generate_preview()
    demo.replace_body()
    close(first)
    for port in (2222, 3333):  # same session file, new demo ports each launch
        win = launch(port)
        assert [t.endpoint_edit.text() for t in win.request_tabs()] == [f"http://127.0.0.1:{port}/"]
        current = win.current_tab()
        assert current is not None and '"1 2 3"' in current.body_editor.toPlainText()
        close(win)
