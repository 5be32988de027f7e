"""Collections side by side, as a person uses them: open, import and create collections next
to each other, save a tab into the one it belongs to, close one, quit with unsaved work,
and find them again at the next start; the tree shows whole names with method badges."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction, QColor, QContextMenuEvent, QFontMetrics
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QInputDialog,
    QMenu,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
)

from app.spec.document import load
from app.spec.environments import X_ENVIRONMENTS
from app.ui.collections.environment_combo import EnvironmentCombo
from app.ui.collections.import_dialog import ImportDialog
from app.ui.collections.method_badge import TINT_ALPHA, name_offset
from app.ui.collections.spec_dock import EXAMPLE_SPEC
from app.ui.shell import theme
from app.ui.shell.main_window import MainWindow
from tests.helpers.screenshots import SHOTS

# Menus grab the keyboard when they pop up; the offscreen platform cannot, and says so.
pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("^This plugin does not support grabbing")]
CURL = (
    "curl -X POST http://127.0.0.1:8000/ -H 'Content-Type: application/json' "
    '-d \'{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":'
    '"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"12 30"}]}}}\'\n'
)
Wait = Callable[..., None]


def spec_file(tmp_path: Path, name: str, title: str, environments: dict[str, Any]) -> Path:
    data = yaml.safe_load(EXAMPLE_SPEC.read_text())
    data["info"]["title"] = title
    data[X_ENVIRONMENTS] = environments
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def names(window: MainWindow) -> list[str]:
    model = window.spec.dock.model
    return [model.index(r, 0).data() for r in range(model.rowCount())]


def action(window: MainWindow, name: str) -> QAction:
    found = window.findChild(QAction, name)
    assert found is not None, name
    return found


def shown(window: MainWindow, kind: type, name: str) -> Any:
    """The visible ``name`` (one closed before may wait for its deferred delete)."""
    found = [w for w in window.findChildren(kind, name) if w.isVisible()]
    assert len(found) == 1, name
    return found[0]


def choose_file(window: MainWindow, name: str, path: Path) -> None:
    """Pick ``path`` in the file dialog ``name``, as a person types it and presses Enter."""
    dialog = shown(window, QFileDialog, name)
    dialog.selectFile(str(path))
    dialog.accept()


def click(box: QMessageBox, text: str) -> None:
    button = next(b for b in box.buttons() if b.text().replace("&", "") == text)
    button.click()


def combo_items(window: MainWindow) -> list[str]:
    combo = window.findChild(EnvironmentCombo, "environmentCombo")
    assert combo is not None
    return [combo.itemText(i) for i in range(combo.count())]


def import_curl(qtbot: Any, window: MainWindow, wait_until: Wait) -> None:
    action(window, "importAction").trigger()
    dialog = window.findChild(ImportDialog, "importDialog")
    assert dialog is not None
    edit = dialog.findChild(QPlainTextEdit, "importCurlEdit")
    assert edit is not None
    edit.setPlainText(CURL)
    preview = dialog.findChild(QPushButton, "importPreviewButton")
    qtbot.mouseClick(preview, Qt.MouseButton.LeftButton)
    button = dialog.findChild(QPushButton, "importButton")
    assert button is not None
    wait_until(button.isEnabled)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    wait_until(lambda: not dialog.isVisible())


def right_click_row(window: MainWindow, row: int) -> QMenu:
    view = window.spec.dock.tree
    index = window.spec.dock.model.index(row, 0)
    pos = view.visualRect(index).center()
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos, view.viewport().mapToGlobal(pos))
    QApplication.sendEvent(view.viewport(), event)
    menu = window.spec.tree_actions.menu
    assert menu is not None and menu.isVisible()
    return menu


def test_open_import_and_save_add_collections_and_unsaved_work_is_never_dropped_silently(
    qtbot: Any, window: MainWindow, wait_until: Wait, tmp_path: Path
) -> None:
    """Newcomer point 6: Open, Import and Save replaced the tree; an unsaved imported curl
    request vanished without a prompt when another spec was opened."""
    window.spec.open_spec(EXAMPLE_SPEC, remember=False)  # as at the first start
    import_curl(qtbot, window, wait_until)
    assert names(window) == ["A2A Workbench demo agent", "Imported from curl *"]
    mine = spec_file(tmp_path, "mine.a2a.yaml", "Mine", {})
    action(window, "openSpecAction").trigger()
    choose_file(window, "openSpecDialog", mine)
    wait_until(lambda: len(names(window)) == 3)
    assert names(window) == ["A2A Workbench demo agent", "Imported from curl *", "Mine"]
    keys = [c.key for c in window.spec.collections]
    assert window.spec.dock.operation_count(keys[1]) == 1  # the import is still there
    assert str(mine) in window.spec.dock.model.index(2, 0).data(Qt.ItemDataRole.ToolTipRole)
    # Saving a tab into a new file adds that file too; nothing is replaced.
    tab = window.new_a2a_tab("http://127.0.0.1:9/")
    assert window.spec.save_tab(tab, tmp_path / "new.a2a.yaml") == []
    assert names(window)[:3] == ["A2A Workbench demo agent", "Imported from curl *", "Mine"]
    assert len(names(window)) == 4
    window.grab().save(str(SHOTS / "collections-side-by-side.png"))

    # Closing the import asks first; Cancel keeps it.
    window.spec.dock.select_collection(keys[1])
    action(window, "closeSpecAction").trigger()
    box = shown(window, QMessageBox, "unsavedChangesDialog")
    assert "Imported from curl — 1 request(s), not saved to a file yet" in box.text()
    click(box, "Cancel")
    assert "Imported from curl *" in names(window)
    # Closing a clean collection asks nothing; its tabs stay open.
    window.spec.dock.select_collection(keys[2])
    action(window, "closeSpecAction").trigger()
    asked = window.findChildren(QMessageBox, "unsavedChangesDialog")
    assert not any(box.isVisible() for box in asked)
    assert "Mine" not in names(window) and tab in window.request_tabs()

    # Quitting asks once about the unsaved import; Discard quits.
    quitting: list[bool] = []
    window.close_requested.connect(lambda: quitting.append(True))
    action(window, "quitAction").trigger()
    box = shown(window, QMessageBox, "unsavedChangesDialog")
    assert "These collections hold unsaved work" in box.text()
    assert [b.text() for b in box.buttons()].count("Save all") == 1
    assert quitting == []
    click(box, "Discard and quit")
    assert quitting == [True]


def test_quit_save_all_writes_each_unsaved_collection_then_quits(
    qtbot: Any, window: MainWindow, wait_until: Wait, tmp_path: Path
) -> None:
    import_curl(qtbot, window, wait_until)
    action(window, "newSpecAction").trigger()  # empty: nothing to lose, not asked about
    assert names(window) == ["Imported from curl *", "New collection *"]
    quitting: list[bool] = []
    window.close_requested.connect(lambda: quitting.append(True))
    window.close()  # the window's close button
    box = shown(window, QMessageBox, "unsavedChangesDialog")
    assert "New collection" not in box.text()
    click(box, "Save all")
    target = tmp_path / "imported.a2a.yaml"
    choose_file(window, "saveCollectionDialog", target)
    wait_until(lambda: bool(quitting))
    assert [o.request.method for o in load(target).operations()] == ["message/send"]
    assert names(window)[0] == "Imported from curl"  # saved: no mark


def test_a_new_collection_takes_the_tab_saved_into_it(
    qtbot: Any, window: MainWindow, wait_until: Wait, tmp_path: Path
) -> None:
    mine = spec_file(tmp_path, "mine.a2a.yaml", "Mine", {})
    window.spec.open_spec(mine)
    action(window, "newSpecAction").trigger()
    assert names(window) == ["Mine", "New collection *"]
    tab = window.new_a2a_tab("http://127.0.0.1:9/")
    assert window.spec.target_for(tab) is None  # it belongs to none: Ctrl+S asks
    action(window, "saveToSpecAction").trigger()
    which = shown(window, QInputDialog, "saveTargetDialog")
    assert which.comboBoxItems() == [
        "Mine (mine.a2a.yaml)", "New collection (no file yet)", "A new spec file…",
    ]  # fmt: skip
    assert which.textValue() == "New collection (no file yet)"  # the one selected in the tree
    which.accept()
    target = tmp_path / "fresh.a2a.yaml"
    choose_file(window, "saveCollectionDialog", target)  # the new collection needs a file
    wait_until(lambda: target.exists() and bool(load(target).operations()))
    assert names(window) == ["Mine", "New collection"]
    assert [o.request.method for o in load(target).operations()] == ["SendMessage"]
    assert len(load(mine).operations()) == 12  # the other collection is untouched
    assert window.spec.target_for(tab) == target  # the tab belongs to it now
    assert window.spec.dock.operation_count(window.spec.collections[1].key) == 1

    # Right-click a collection: New request (a tab that belongs to it), Save as, Close.
    menu = right_click_row(window, 0)
    texts = [a.text().replace("&", "") for a in menu.actions() if not a.isSeparator()]
    assert texts == ["New request", "Save collection as…", "Close collection"]
    menu.close()
    window.spec.tree_actions.new_request_action.trigger()
    assert window.spec.target_for(window.current_tab()) == mine  # type: ignore[arg-type]


def test_each_tab_uses_its_own_collections_environments(
    qtbot: Any, window: MainWindow, wait_until: Wait, tmp_path: Path
) -> None:
    one = spec_file(tmp_path, "one.a2a.yaml", "One", {"local": {"baseUrl": "http://127.0.0.1:1"}})
    two = spec_file(tmp_path, "two.a2a.yaml", "Two", {"stage": {"baseUrl": "http://127.0.0.1:2"}})
    doc_one = window.spec.open_spec(one)
    doc_two = window.spec.open_spec(two)
    assert doc_one is not None and doc_two is not None
    first, second = window.spec.collections
    tab_one = window.spec.open_operation(doc_one.operations()[0], first)
    tab_two = window.spec.open_operation(doc_two.operations()[0], second)
    assert combo_items(window) == ["No environment", "stage"]
    assert tab_two.variables is not None and tab_two.variables.lookup("baseUrl").endswith(":2")
    window.tabs.setCurrentWidget(tab_one)
    assert combo_items(window) == ["No environment", "local"]
    assert tab_one.variables is not None and tab_one.variables.lookup("baseUrl").endswith(":1")
    # Save to spec writes into the tab's own collection, without asking.
    tab_one.body_editor.setPlainText(tab_one.body_editor.toPlainText().replace("12 30", "1 2"))
    action(window, "saveToSpecAction").trigger()
    wait_until(lambda: not tab_one.dirty)
    assert window.findChild(QInputDialog, "saveTargetDialog") is None
    assert "1 2" in load(one).operations()[0].request.body
    assert "1 2" not in load(two).operations()[0].request.body
    # Opening a file already open reads it again instead of adding it twice.
    window.spec.open_spec(two)
    assert names(window) == ["One", "Two"]


def test_the_open_collections_come_back_at_the_next_start(
    qtbot: Any, window: MainWindow, qloop: Any, wait_until: Wait, tmp_path: Path
) -> None:
    envs = {"a": {"baseUrl": "http://127.0.0.1:1"}, "b": {"baseUrl": "http://127.0.0.1:2"}}
    one = spec_file(tmp_path, "one.a2a.yaml", "One", envs)
    two = spec_file(tmp_path, "two.a2a.yaml", "Two", envs)
    window.spec.open_spec(one)
    window.spec.open_spec(two)
    window.spec.open_spec(EXAMPLE_SPEC, remember=False)
    combo = window.findChild(EnvironmentCombo, "environmentCombo")
    assert combo is not None
    window.spec.dock.select_collection(window.spec.collections[1].key)
    combo.choose("b")  # Two sends with b; One keeps a
    tree = window.spec.dock.tree
    model = window.spec.dock.model
    tree.collapse(model.index(0, 0, model.index(0, 0)))  # One › A2A 1.0
    tree.collapse(model.index(2, 0))  # the example, whole
    qloop.run_until_complete(window.session.flush())
    kept = json.loads(window.session.path.read_text())
    assert [c["path"] for c in kept["collections"]] == [str(one), str(two), "(bundled example)"]
    kept["collections"].insert(1, {"path": str(tmp_path / "gone.a2a.yaml")})  # deleted since
    window.session.path.write_text(json.dumps(kept))

    second = MainWindow()  # the next start
    try:
        second.resize(1280, 800)
        wait_until(lambda: len(second.spec.collections) == 3)
        assert "Reopened 3 of 4 collection(s)" in second.statusBar().currentMessage()
        assert "gone.a2a.yaml" in second.statusBar().currentMessage()
        assert names(second) == ["One", "Two", "A2A Workbench demo agent"]
        assert [c.active for c in second.spec.collections] == ["a", "b", "demo"]
        view, restored = second.spec.dock.tree, second.spec.dock.model
        top = restored.index(0, 0)
        assert view.isExpanded(top) and not view.isExpanded(restored.index(0, 0, top))
        assert view.isExpanded(restored.index(1, 0, top))
        assert not view.isExpanded(restored.index(2, 0))
    finally:
        qloop.run_until_complete(second.shutdown())
        second.close_now()
        second.deleteLater()


def test_every_saved_request_name_is_whole_at_the_default_size(
    qtbot: Any, window: MainWindow
) -> None:
    """From "a layout that holds": no "Sum numbers (1.0 JS…", no horizontal scrollbar."""
    window.spec.open_spec(EXAMPLE_SPEC, remember=False)
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.spec.dock.tree.viewport().width() > 0)
    view = window.spec.dock.tree
    qtbot.wait(50)
    metrics = QFontMetrics(view.font())
    rows = list(window.spec.dock.model.operation_indexes())
    assert len(rows) == 12
    for index in rows:
        cell = view.visualRect(index)
        needed = name_offset(view.font()) + metrics.horizontalAdvance(index.data())
        assert needed <= cell.width(), (index.data(), needed, cell.width())
        assert cell.right() <= view.viewport().width()
    assert not view.horizontalScrollBar().isVisible()
    window.spec.dock.grab().save(str(SHOTS / "collections-tree.png"))


@pytest.mark.parametrize("table", [theme.LIGHT, theme.DARK], ids=["light", "dark"])
def test_method_badges_are_readable_in_both_themes(table: theme.Colours) -> None:
    base = QColor("#ffffff" if not table.dark else theme.dark_palette().base().color().name())
    kinds = {"send", "stream", "read", "cancel", "push", "other"}
    assert set(table.method_text) == kinds
    assert len({table.method_text[k] for k in kinds}) == len(kinds)  # one colour per kind
    for colour in table.method_text.values():
        ink = QColor(colour)
        tint = QColor(  # the badge: a tint of its colour over Base, the label on top
            *(
                round(b * (1 - TINT_ALPHA) + i * TINT_ALPHA)
                for b, i in zip(base.getRgb()[:3], ink.getRgb()[:3], strict=True)
            )
        )
        assert theme.contrast_ratio(ink, tint) >= 4.5, colour


def test_context_menu_on_empty_space_offers_new_and_open(qtbot: Any, window: MainWindow) -> None:
    view = window.spec.dock.tree
    pos = QPoint(10, view.viewport().height() - 5)
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos, view.viewport().mapToGlobal(pos))
    QApplication.sendEvent(view.viewport(), event)
    menu = window.spec.tree_actions.menu
    assert menu is not None
    assert [a.objectName() for a in menu.actions()] == ["newSpecAction", "openSpecAction"]
    menu.close()
    assert not action(window, "closeSpecAction").isEnabled()  # nothing to close
    assert not window.findChild(EnvironmentCombo, "environmentCombo").isEnabled()  # type: ignore[union-attr]


def test_two_collections_of_the_same_name_show_their_files(
    qtbot: Any, window: MainWindow, tmp_path: Path
) -> None:
    window.spec.open_spec(spec_file(tmp_path, "a.a2a.yaml", "Agent", {}))
    window.spec.open_spec(spec_file(tmp_path, "b.a2a.yaml", "Agent", {}))
    assert names(window) == ["Agent — a.a2a.yaml", "Agent — b.a2a.yaml"]
    action(window, "closeSpecAction").trigger()  # b: selected since it was opened last
    assert names(window) == ["Agent"]


def test_file_dialogs_start_in_the_documents_folder_then_the_last_one_used(
    window: MainWindow, wait_until: Wait, tmp_path: Path
) -> None:
    """Newcomer point 11: *Save to spec* opened in the directory the app was started in (the
    checkout). The dialogs start in the folder used last, else the documents folder, never
    the bundled example's (the app's own)."""
    documents = Path.home() / "Documents"  # the test's home (tests/conftest.py)
    documents.mkdir()
    window.spec.open_spec(EXAMPLE_SPEC)  # remembered: its folder is still not offered

    def start(name: str) -> Path:
        dialog = shown(window, QFileDialog, name)
        folder = Path(dialog.directory().absolutePath())
        dialog.reject()
        return folder

    action(window, "openSpecAction").trigger()
    assert start("openSpecDialog") == documents
    window.new_a2a_tab("http://127.0.0.1:9/")
    action(window, "saveToSpecAction").trigger()  # the example takes none: a new file
    assert start("saveToSpecDialog") == documents
    action(window, "saveCollectionAction").trigger()  # of the example, the current one
    assert start("saveCollectionDialog") == documents

    mine = spec_file(tmp_path, "mine.a2a.yaml", "Mine", {})
    action(window, "openSpecAction").trigger()
    choose_file(window, "openSpecDialog", mine)
    wait_until(lambda: "Mine" in names(window))
    action(window, "openSpecAction").trigger()
    assert start("openSpecDialog") == tmp_path
