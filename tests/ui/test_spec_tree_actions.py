"""Managing saved requests from the spec tree as a person does: right-click, F2, Ctrl+D,
Delete, Ctrl+Z, double-click; then the file is read back to see what it holds."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from openapi_spec_validator import validate
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QContextMenuEvent, QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QInputDialog, QLineEdit, QMenu, QTreeView

from app.spec.document import load
from app.ui.collections.spec_dock import EXAMPLE_SPEC
from app.ui.request.request_tab import RequestTab
from app.ui.shell.main_window import MainWindow

# Menus grab the keyboard when they pop up; the offscreen platform cannot, and says so.
pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("^This plugin does not support grabbing")]
SHOTS_ENV = "A2A_WB_SCREENSHOTS"


def tree(window: MainWindow) -> QTreeView:
    view = window.findChild(QTreeView, "specTree")
    assert view is not None
    return view


def row_of(window: MainWindow, operation_id: str) -> Any:
    index = window.spec.tree_actions.select(operation_id)
    assert index is not None, operation_id
    return index


def with_menu(window: MainWindow, menu: QMenu) -> QPixmap:
    """The window as a person sees it: the popped-up menu painted where it is."""
    picture = window.grab()
    painter = QPainter(picture)
    painter.drawPixmap(window.mapFromGlobal(menu.pos()), menu.grab())
    painter.end()
    return picture


def focus(qtbot: Any, widget: Any) -> None:
    """Give ``widget`` the keyboard focus in an active window (shortcuts need both)."""
    window = widget.window()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    widget.setFocus()
    qtbot.waitUntil(widget.hasFocus, timeout=3000)


def right_click(window: MainWindow, operation_id: str) -> QMenu:
    """What a right-click on the row does: a context-menu event at its position."""
    view = tree(window)
    index = row_of(window, operation_id)
    view.scrollTo(index)
    pos = view.visualRect(index).center()
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos, view.viewport().mapToGlobal(pos))
    QApplication.sendEvent(view.viewport(), event)
    menu = window.spec.tree_actions.menu
    assert menu is not None and menu.isVisible()
    return menu


def double_click(qtbot: Any, view: QTreeView, index: Any) -> None:
    # A real double-click is press, release, then the double-click event.
    pos = view.visualRect(index).center()
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pos)


def labels(menu: QMenu) -> list[str]:
    return [a.text().replace("&", "") for a in menu.actions() if not a.isSeparator()]


def dialog(window: MainWindow, name: str) -> QInputDialog:
    found = window.findChild(QInputDialog, name)
    assert found is not None and found.isVisible()
    return found


def saved_spec(window: MainWindow, tmp_path: Path, *names: str) -> Path:
    """A spec file holding one request per name (saved from tabs, as Ctrl+S does)."""
    path = tmp_path / "mine.a2a.yaml"
    for i, name in enumerate(names):
        tab = window.new_a2a_tab(f"http://127.0.0.1:{9 + i}/")
        tab.message_text_edit.setText(name)
        assert window.spec.save_tab(tab, path) == []
        window.tabs.removeTab(window.tabs.indexOf(tab))
        tab.close_later()
    window.spec.open_spec(path)
    return path


def summaries(path: Path) -> list[tuple[str, str, list[str]]]:
    data = yaml.safe_load(path.read_bytes())
    validate(data)
    return [
        (op["operationId"], op["summary"], op["tags"])
        for item in data["paths"].values()
        for op in item.values()
    ]


def test_rename_duplicate_move_delete_and_undo_are_what_the_file_holds(
    qtbot: Any, window: MainWindow, tmp_path: Path, wait_until: Any
) -> None:
    path = saved_spec(window, tmp_path, "first", "second")
    window.new_a2a_tab("http://127.0.0.1:9/")
    assert summaries(path) == [
        ("sendmessage", "SendMessage", ["SendMessage"]),
        ("sendmessage-2", "SendMessage", ["SendMessage"]),
    ]
    actions = window.spec.tree_actions
    view = tree(window)
    focus(qtbot, view)

    # Right-click → Rename…: the dialog asks, typing a name and Enter renames.
    menu = right_click(window, "sendmessage")
    assert labels(menu) == ["Reveal in tab", "Rename…", "Duplicate", "Move to tag",
                            "Delete", "Undo", "Redo", "Close collection"]  # fmt: skip
    shot = Path(os.environ.get(SHOTS_ENV) or tmp_path)
    with_menu(window, menu).save(str(shot / "tree-context-menu-window.png"))
    menu.grab().save(str(shot / "tree-context-menu.png"))
    qtbot.keyClick(menu, Qt.Key.Key_R)  # the &Rename mnemonic
    ask = dialog(window, "renameOperationDialog")
    assert ask.textValue() == "SendMessage"
    edit = ask.findChild(QLineEdit)
    assert edit is not None
    edit.selectAll()  # typing replaces the old name, as in any text field
    qtbot.keyClicks(edit, "Sum first")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    wait_until(lambda: not actions.busy)
    assert summaries(path)[0] == ("sendmessage", "Sum first", ["SendMessage"])
    assert row_of(window, "sendmessage").data() == "Sum first"

    # F2 on the second row opens the same dialog.
    row_of(window, "sendmessage-2")
    focus(qtbot, view)
    qtbot.keyClick(view, Qt.Key.Key_F2)
    ask = dialog(window, "renameOperationDialog")
    ask.setTextValue("Sum second")
    ask.accept()
    wait_until(lambda: not actions.busy)

    # Ctrl+D duplicates the current row right below it.
    row_of(window, "sendmessage")
    focus(qtbot, view)
    qtbot.keyClick(view, Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier)
    wait_until(lambda: not actions.busy)
    assert [s[:2] for s in summaries(path)] == [
        ("sendmessage", "Sum first"),
        ("sum-first-copy", "Sum first copy"),
        ("sendmessage-2", "Sum second"),
    ]

    # Move to tag ▸ New tag…: the copy goes to its own group.
    menu = right_click(window, "sum-first-copy")
    actions.move_menu.popup(QPoint(0, 0))
    new_tag = next(a for a in actions.move_menu.actions() if a.objectName() == "moveToNewTagAction")
    menu.close()
    actions.move_menu.close()
    new_tag.trigger()
    ask = dialog(window, "moveOperationDialog")
    ask.setTextValue("Drafts")
    ask.accept()
    wait_until(lambda: not actions.busy)
    assert summaries(path)[1] == ("sum-first-copy", "Sum first copy", ["Drafts"])
    model = window.spec.dock.model
    top = model.index(0, 0)
    assert [model.index(r, 0, top).data() for r in range(2)] == ["SendMessage", "Drafts"]
    assert {"name": "Drafts"} in yaml.safe_load(path.read_bytes())["tags"]

    # Delete removes it from the file; Ctrl+Z in the tree puts it back where it was.
    row_of(window, "sendmessage")
    focus(qtbot, view)
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    wait_until(lambda: not actions.busy)
    assert [s[0] for s in summaries(path)] == ["sum-first-copy", "sendmessage-2"]
    assert "Ctrl+Z" in window.statusBar().currentMessage()
    focus(qtbot, view)
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    wait_until(lambda: not actions.busy)
    assert [s[0] for s in summaries(path)] == ["sendmessage", "sum-first-copy", "sendmessage-2"]
    assert load(path).find("sendmessage") is not None
    # Undo again: the move is undone too.
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    wait_until(lambda: not actions.busy)
    assert summaries(path)[1][2] == ["SendMessage"]


def test_open_tabs_follow_rename_and_delete_and_saving_never_duplicates(
    qtbot: Any, window: MainWindow, tmp_path: Path, wait_until: Any
) -> None:
    path = saved_spec(window, tmp_path, "only")
    actions = window.spec.tree_actions
    view = tree(window)
    double_click(qtbot, view, row_of(window, "sendmessage"))
    tab = window.current_tab()
    assert isinstance(tab, RequestTab) and tab.draft.operation_id == "sendmessage"
    other = window.new_a2a_tab()
    assert window.current_tab() is other
    # Double-clicking a request that is already open focuses its tab: no second tab.
    double_click(qtbot, view, row_of(window, "sendmessage"))
    assert window.current_tab() is tab and len(window.request_tabs()) == 2
    # Reveal in tab does the same from the menu.
    window.tabs.setCurrentWidget(other)
    right_click(window, "sendmessage")
    actions.reveal_action.trigger()
    assert window.current_tab() is tab

    # Rename in the tree: the tab's title follows, and its next save keeps the new name.
    actions.rename_to(window.spec.dock.model.operation(row_of(window, "sendmessage")), "Renamed")
    wait_until(lambda: not actions.busy)
    assert window.tabs.tabText(window.tabs.indexOf(tab)) == "Renamed"
    tab.body_editor.setPlainText(tab.body_editor.toPlainText().replace("only", "again"))
    assert window.spec.save_tab(tab) == []
    assert window.spec.save_tab(tab) == []  # saving twice: still one operation
    assert summaries(path) == [("sendmessage", "Renamed", ["SendMessage"])]

    # Delete in the tree: the tab is detached and says so; its save adds the request anew.
    row_of(window, "sendmessage")
    actions.delete_action.trigger()
    wait_until(lambda: not actions.busy)
    assert summaries(path) == []
    assert "saves it as a new request" in window.statusBar().currentMessage()
    assert tab.draft.operation_id == ""
    assert window.spec.save_tab(tab) == []
    assert [s[1] for s in summaries(path)] == ["Renamed"]


def test_the_bundled_example_cannot_be_edited_from_the_tree(qtbot: Any, window: MainWindow) -> None:
    window.spec.open_spec(EXAMPLE_SPEC)
    before = EXAMPLE_SPEC.read_bytes()
    menu = right_click(window, "sum-numbers-1-0-json-rpc")
    enabled = {a.objectName(): a.isEnabled() for a in menu.actions() if a.objectName()}
    assert enabled["renameOperationAction"] is False
    assert enabled["deleteOperationAction"] is False
    assert enabled["duplicateOperationAction"] is False
    assert enabled["revealOperationAction"] is True
    assert labels(menu)[0].startswith("Read-only here: save a request into your own spec")
    menu.close()
    view = tree(window)
    focus(qtbot, view)
    qtbot.keyClick(view, Qt.Key.Key_F2)  # disabled: no dialog
    assert window.findChild(QInputDialog, "renameOperationDialog") is None
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    assert window.spec.dock.operation_count() == 12
    assert EXAMPLE_SPEC.read_bytes() == before
