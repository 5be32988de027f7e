"""Desktop conventions as a person uses them: the menus, View bringing panels back, Settings,
the remembered layout, About, the shortcut list and the command palette."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt, qVersion
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QToolBar,
    QWidget,
)

from app.paths import settings_path
from app.settings import ThemeChoice
from app.ui.request.request_tab import RequestTab
from app.ui.shell.command_palette import CommandPalette
from app.ui.shell.main_window import MainWindow

pytestmark = pytest.mark.gui


@pytest.fixture(autouse=True)
def _light_afterwards(qapp: Any) -> Iterator[None]:
    """The theme is application-wide: later tests start with the default one."""
    yield
    from app.ui.shell.theme import manager

    manager().apply(ThemeChoice.SYSTEM)


MENUS = ("menuFile", "menuEdit", "menuView", "menuRequest", "menuHelp")


def menu(window: MainWindow, name: str) -> QMenu:
    found = window.menuBar().findChild(QMenu, name)
    assert found is not None, name
    return found


def action(window: MainWindow, name: str) -> QAction:
    found = window.findChild(QAction, name)
    assert found is not None, name
    return found


def dialog(window: MainWindow, name: str) -> Any:
    found = window.findChild(QDialog, name)
    assert found is not None and found.isVisible(), name
    return found


def click_ok(box: QDialog) -> None:
    buttons = box.findChild(QDialogButtonBox)
    assert buttons is not None
    ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert ok is not None
    ok.click()


def form_label(field: QWidget) -> str:
    """The text of the label a form layout shows beside ``field``."""
    form = field.parentWidget().layout()
    assert isinstance(form, QFormLayout)
    label = form.labelForField(field)
    assert isinstance(label, QLabel)
    return label.text()


def test_menu_bar_lists_file_edit_view_request_help(window: MainWindow) -> None:
    titles = [a.text() for a in window.menuBar().actions()]
    assert titles == ["&File", "&Edit", "&View", "&Request", "&Help"]
    for name in MENUS:
        assert menu(window, name).actions()
    # The actions that were there keep their names and keys; Quit stays last in File.
    file_actions = menu(window, "menuFile").actions()
    assert file_actions[-1].objectName() == "quitAction"
    assert action(window, "newA2ARequestAction").shortcut().toString() == "Ctrl+N"
    assert action(window, "reopenClosedTabAction").shortcut().toString() == "Ctrl+Shift+T"
    assert action(window, "saveToSpecAction") in file_actions
    assert action(window, "historyDockAction").shortcut().toString() == "Ctrl+H"


def test_a_deferred_window_paints_the_menu_titles_then_gets_the_same_menus(
    window: MainWindow, qloop: Any
) -> None:
    # The app's start (app/ui/shell/application.py): the first frame shows the titles, the
    # actions come in complete_setup(); then nothing may differ from an eager window.
    from app.ui.shell.menus import menu_actions

    def listing(win: MainWindow) -> list[tuple[str, str, str]]:
        return [(path, a.objectName(), a.shortcut().toString()) for path, a in menu_actions(win)]

    later = MainWindow(deferred=True)
    try:
        assert [a.text() for a in later.menuBar().actions()] == [
            a.text() for a in window.menuBar().actions()
        ]
        assert not any(menu(later, name).actions() for name in MENUS)
        later.complete_setup()
        assert listing(later) == listing(window)
    finally:
        qloop.run_until_complete(later.shutdown())
        later.close_now()
        later.deleteLater()


def test_view_menu_brings_back_every_closed_dock(qtbot: Any, window: MainWindow) -> None:
    view = menu(window, "menuView")
    docks = window.findChildren(QDockWidget)
    assert {d.objectName() for d in docks} >= {"specDock", "docDock", "historyDock"}
    for dock in docks:
        assert dock.toggleViewAction() in view.actions(), dock.objectName()
        dock.show()
        dock.close()  # the dock's own close button
        assert not dock.isVisible()
        dock.toggleViewAction().trigger()  # View → <dock>
        assert dock.isVisible(), dock.objectName()
    status = action(window, "statusBarAction")
    status.trigger()
    assert not window.statusBar().isVisible()
    status.trigger()
    assert window.statusBar().isVisible()


def test_request_menu_sends_the_current_tab(
    window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    action(window, "newA2ARequestAction").trigger()
    tab = window.current_tab()
    assert isinstance(tab, RequestTab)
    tab.endpoint_edit.setText(sdk_peer["jsonrpc_url"])
    request = menu(window, "menuRequest")
    request.aboutToShow.emit()  # what opening the menu does: enable what applies
    assert action(window, "sendRequestAction").isEnabled()
    assert not action(window, "cancelRequestAction").isEnabled()
    assert not action(window, "replaceBodyAction").isEnabled()  # nothing new to replace
    tab.message_text_edit.setText("12 30")  # the preview follows the text
    action(window, "generateBodyAction").trigger()
    request.aboutToShow.emit()
    action(window, "replaceBodyAction").trigger()
    assert '"12 30"' in tab.body_editor.toPlainText()
    send = action(window, "sendRequestAction")
    assert send.shortcut().toString() == "Ctrl+Return"  # the Send button's key, shown here
    send.trigger()
    wait_until(lambda: tab.response_view.outcome is not None and not tab.busy, timeout=20)
    assert "Sum: 42" in tab.response_view.pretty_view.toPlainText()
    action(window, "fetchCardAction").trigger()  # Request → Fetch Agent Card
    assert tab.result_tabs.currentWidget() is tab.card_panel
    wait_until(lambda: tab.card_panel.card is not None and not tab.card_panel.busy, timeout=20)
    names = [a.objectName() for a in request.actions()]
    assert {"verifyCardAction", "extendedCardAction", "newA2ARequestAction"} <= set(names)


def test_settings_dialog_sets_theme_timeout_and_retention(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    wait_until(lambda: window.history.store is not None)
    action(window, "settingsAction").trigger()
    box = dialog(window, "settingsDialog")
    pages = box.findChild(QWidget, "settingsPageList")
    assert [pages.item(i).text() for i in range(pages.count())] == [
        "Appearance",
        "Requests",
        "History",
        "Proxy",
    ]
    assert box.findChild(QWidget, "proxySettingsPage") is not None
    theme = box.findChild(QComboBox, "themeCombo")
    assert [theme.itemText(i) for i in range(theme.count())] == ["Follow system", "Light", "Dark"]
    theme.setCurrentIndex(theme.findText("Dark"))
    pages.setCurrentRow(1)
    # Both bounds, named as beside Send: the timeout sets the timeout, the deadline the deadline.
    timeout = box.findChild(QDoubleSpinBox, "defaultTimeoutSpin")
    assert timeout.isVisible() and timeout.value() == 30.0
    assert form_label(timeout) == "Default network timeout"
    timeout.lineEdit().selectAll()
    qtbot.keyClicks(timeout.lineEdit(), "12.5")
    deadline = box.findChild(QDoubleSpinBox, "defaultDeadlineSpin")
    assert deadline.value() == 0.0 and deadline.text() == "no deadline"
    assert form_label(deadline) == "Default deadline"
    deadline.lineEdit().selectAll()
    qtbot.keyClicks(deadline.lineEdit(), "90")
    pages.setCurrentRow(2)
    days = box.findChild(QSpinBox, "historyDaysSpin")
    assert days.value() == 90 and days.isEnabled()
    days.setValue(30)
    pages.setCurrentRow(0)
    size = box.findChild(QSpinBox, "editorFontSizeSpin")
    size.setValue(17)
    click_ok(box)

    qtbot.waitUntil(lambda: window.palette().color(window.backgroundRole()).lightness() < 128)
    saved = json.loads(settings_path().read_text(encoding="utf-8"))["settings"]
    assert saved["theme"] == "dark" and saved["default_timeout"] == 12.5
    assert saved["default_deadline"] == 90.0
    assert window.history.store is not None
    assert window.history.store.retention.max_age_days == 30.0
    action(window, "newA2ARequestAction").trigger()
    tab = window.current_tab()
    assert tab is not None and tab.timeout_spin.value() == 12.5
    assert tab.timeout_spin.text() == "timeout 12.5 s"
    assert tab.deadline_spin.value() == 90.0 and tab.deadline_spin.text() == "deadline 90.0 s"
    assert tab.build_request().timeout == 12.5 and tab.build_request().deadline == 90.0
    assert tab.body_editor.font().pointSize() == 17  # new and open editors alike
    assert tab.response_view.pretty_view.font().pointSize() == 17
    assert window.history.store.retention.max_bytes == 500 * 1024 * 1024  # not edited

    # The choice is kept: a new window starts dark with the same default.
    action(window, "themeSystemAction").trigger()  # View → Theme → Follow system
    qtbot.waitUntil(lambda: window.palette().color(window.backgroundRole()).lightness() >= 128)
    assert json.loads(settings_path().read_text(encoding="utf-8"))["settings"]["theme"] == "system"


def test_the_theme_menu_checks_the_theme_in_force(qtbot: Any, window: MainWindow) -> None:
    themes = menu(window, "menuTheme").actions()
    names = ["themeSystemAction", "themeLightAction", "themeDarkAction"]
    assert [a.objectName() for a in themes] == names
    assert all(a.isCheckable() for a in themes)

    def checked() -> list[str]:
        return [a.objectName() for a in themes if a.isChecked()]

    assert checked() == ["themeSystemAction"]  # the first start follows the system
    action(window, "themeDarkAction").trigger()
    assert checked() == ["themeDarkAction"]
    action(window, "themeLightAction").trigger()
    assert checked() == ["themeLightAction"]
    # Chosen in Settings, the menu shows it too.
    window.desktop.apply_settings(window.desktop.settings._replace(theme=ThemeChoice.DARK))
    assert checked() == ["themeDarkAction"]


def test_every_panel_in_view_has_its_real_title(window: MainWindow) -> None:
    toggles = [a.text() for a in menu(window, "menuView").actions() if a.isCheckable()]
    assert "Main" not in toggles
    bar = window.findChild(QToolBar, "mainToolBar")
    assert bar is not None and bar.windowTitle() == "Environment toolbar"
    assert bar.toggleViewAction().text() in toggles
    for dock in window.findChildren(QDockWidget):
        assert dock.windowTitle() and dock.toggleViewAction().text() in toggles


def test_added_settings_page_is_listed_and_applied(window: MainWindow) -> None:
    applied: list[str] = []

    class ProxyPage(QWidget):
        def apply(self) -> None:
            applied.append("proxy")

    window.desktop.add_settings_page("Proxy", ProxyPage)
    box = window.desktop.open_settings()
    box.show_page("Proxy")
    assert isinstance(box.stack.currentWidget(), ProxyPage)
    click_ok(box)
    assert applied == ["proxy"]


def test_geometry_and_docks_are_remembered(qtbot: Any, qloop: Any) -> None:
    first = MainWindow()
    first.show()
    first.resize(720, 560)  # inside the offscreen 800×600 screen, above the minimum size
    first.history_dock.show()
    first.spec.doc_dock.close()
    qtbot.waitUntil(lambda: (first.width(), first.height()) == (720, 560))
    qloop.run_until_complete(first.shutdown())
    first.close_now()
    first.deleteLater()

    second = MainWindow()
    try:
        second.show()
        assert (second.width(), second.height()) == (720, 560)
        assert second.history_dock.isVisible()
        assert not second.spec.doc_dock.isVisible()
        tab = second.new_a2a_tab()
        splitter = tab.findChild(QSplitter, "requestSplitter")
        assert splitter is not None
        splitter.setSizes([600, 0])  # the response pane dragged shut
        action(second, "resetLayoutAction").trigger()  # View → Reset layout
        assert second.spec.doc_dock.isVisible() and not second.history_dock.isVisible()
        assert min(splitter.sizes()) > 0
    finally:
        qloop.run_until_complete(second.shutdown())
        second.close_now()
        second.deleteLater()


def test_about_dialog_shows_the_versions(window: MainWindow) -> None:
    action(window, "aboutAction").trigger()
    box = dialog(window, "aboutDialog")
    text = box.findChild(QLabel, "aboutText").text()
    from importlib.metadata import version

    import PySide6

    from app import __version__

    for expected in (__version__, qVersion(), PySide6.__version__, version("a2a-sdk")):
        assert expected in text
    assert "lf.a2a.v1" in text and "a2a_v0_3.proto" in text  # the 1.0 and 0.3 descriptors
    assert window.statusBar().currentMessage() == ""  # no flashing status message
    box.copy_versions()
    from PySide6.QtGui import QGuiApplication

    assert f"Qt (runtime): {qVersion()}" in QGuiApplication.clipboard().text()
    box.reject()


def test_shortcut_list_is_made_from_the_actions(window: MainWindow) -> None:
    extra = QAction("Frobnicate", window)
    extra.setShortcut(QKeySequence("Ctrl+Alt+F"))
    menu(window, "menuRequest").addAction(extra)
    action(window, "keyboardShortcutsAction").trigger()
    box = dialog(window, "shortcutsDialog")
    rows = box.rows()
    native = QKeySequence.SequenceFormat.NativeText
    assert ("Settings", "Edit", QKeySequence("Ctrl+,").toString(native)) in rows
    assert ("Command palette", "View", QKeySequence("Ctrl+Shift+P").toString(native)) in rows
    assert ("History", "View", QKeySequence("Ctrl+H").toString(native)) in rows
    new = ("New request › New A2A request", "File", QKeySequence("Ctrl+N").toString(native))
    assert new in rows
    assert ("Frobnicate", "Request", QKeySequence("Ctrl+Alt+F").toString(native)) in rows
    assert box.findChild(QTableWidget, "shortcutsTable").rowCount() == len(rows)
    listed = {r[0] for r in rows}
    assert "About A2A Workbench" not in listed  # no shortcut, not listed
    box.reject()


def test_command_palette_runs_an_action_by_name(qtbot: Any, window: MainWindow) -> None:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    assert not window.history_dock.isVisible()
    qtbot.keyClick(
        window.tabs,
        Qt.Key.Key_P,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    palette = window.findChild(CommandPalette, "commandPalette")
    assert palette is not None and palette.isVisible()
    edit = palette.findChild(QLineEdit, "commandPaletteEdit")
    assert edit is not None
    qtbot.waitUntil(edit.hasFocus)
    qtbot.keyClicks(edit, "histo")
    assert palette.names()[0].startswith("View › History")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert window.history_dock.isVisible()
    assert not palette.isVisible()

    # Names first, then menu paths, then letters in order; Down moves, Enter runs.
    palette = window.desktop.open_command_palette()
    edit = palette.findChild(QLineEdit, "commandPaletteEdit")
    assert edit is not None
    qtbot.keyClicks(edit, "re")
    names = palette.names()
    assert names[:2] == ["File › Reopen closed tab", "Edit › Redo"]
    assert names.index("View › Reset layout") < names.index("Request › Send")  # path-only
    edit.clear()
    qtbot.keyClicks(edit, "rplrq")
    assert palette.names() == ["Request › Replace request body"]
    edit.clear()
    qtbot.keyClicks(edit, "keyboard")
    assert palette.names() and "Keyboard shortcuts" in palette.names()[0]
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    dialog(window, "shortcutsDialog").reject()
