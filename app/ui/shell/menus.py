"""The main window's menu bar: File, Edit, View, Request, Help.

Adding an action: build it with an objectName and add it to the menu it belongs to
(``window.menus.file`` / ``edit`` / ``view`` / ``request`` / ``help``); give it a shortcut
with :meth:`WindowMenus.add_shortcut` before :meth:`WindowMenus.complete` runs (or
``setShortcut`` after). The Keyboard shortcuts list and the command palette walk the menu
bar, so they show it with no further step. A dock or toolbar needs nothing: View lists
every one the window has when :meth:`WindowMenus.complete` runs, and
:meth:`WindowMenus.add_view_toggle` adds one made later.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QApplication, QDockWidget, QMainWindow, QMenu, QToolBar, QWidget

from app.ui.shell.host import TabHost

if TYPE_CHECKING:
    from app.settings import Settings, ThemeChoice
    from app.ui.collections.generate_server_dialog import GenerateServerDialog
    from app.ui.request.request_tab import RequestTab


class MenuHost(TabHost, Protocol):
    """What the menus use of the main window besides its QMainWindow self (``MainWindow``,
    which builds them: typed here, not imported)."""

    generate_server_dialog: GenerateServerDialog | None
    """*Request → Generate server…* while it is open (one at a time)."""

    def close_tab(self, index: int) -> None:
        """Close the request tab at ``index`` (kept for *Reopen closed tab*)."""
        ...

    def reopen_closed_tab(self) -> RequestTab | None:
        """Bring back the tab closed last."""
        ...

    def show_welcome(self) -> object:
        """Help → Getting started: the Welcome tab in front."""
        ...


class DesktopActions(Protocol):
    """The Edit, View and Help menus' dialogs and settings (``app.ui.shell.desktop.Desktop``:
    typed here, not imported, since the desktop opens dialogs that list these menus)."""

    @property
    def settings(self) -> Settings: ...
    def open_settings(self) -> object: ...
    def open_command_palette(self) -> object: ...
    def set_theme(self, choice: ThemeChoice) -> None: ...
    def reset_layout(self) -> None: ...
    def open_shortcuts(self) -> object: ...
    def open_about(self) -> object: ...
    def open_documentation(self) -> object: ...


class WindowMenus:
    """Builds the menus of ``window``; request actions act on ``host``'s current tab.

    Shortcuts are attached in :meth:`complete`: the first QKeySequence makes PySide build
    ~100 enum classes (~80 ms), and no key can be pressed before the event loop runs.
    """

    def __init__(
        self, window: QMainWindow, host: MenuHost, desktop: DesktopActions, titled: Sequence[QMenu]
    ) -> None:
        """Fill ``titled``: the bar's File, Edit, View, Request and Help menus, empty (the
        window adds them before its first paint, :data:`app.ui.shell.main_window.MENU_TITLES`).
        ``host`` is the same main window as ``window``, seen as the holder of the tabs."""
        self.window = window
        self.host = host
        self.desktop = desktop
        self.pending_shortcuts: list[tuple[QAction, str]] = []  # attached in complete()
        self._shortcuts: list[tuple[QAction, str]] | None = self.pending_shortcuts
        self._menu_only: list[QAction] = []  # shortcuts active only in their menu
        self.file, self.edit, self.view, self.request, self.help = titled
        self._build_file()
        self._build_edit()
        self._build_view()
        self._build_request()
        self._build_help()
        self._toggles: set[int] = set()

    # --- building --------------------------------------------------------------------

    def action(
        self,
        menu: QMenu,
        text: str,
        slot: Callable[[], object],
        *,
        name: str = "",
        keys: str = "",
    ) -> QAction:
        """A new action in ``menu`` running ``slot``, with ``keys`` attached in complete()."""
        action = QAction(text, self.window)
        if name:
            action.setObjectName(name)
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        if keys:
            self.add_shortcut(action, keys)
        return action

    def add_shortcut(self, action: QAction, keys: str) -> None:
        """Give ``action`` the shortcut ``keys`` (now if complete() ran, else then)."""
        if self._shortcuts is None:
            action.setShortcut(QKeySequence(keys))
        else:
            self._shortcuts.append((action, keys))

    def _build_file(self) -> None:
        w = self.host
        new_menu = self.file.addMenu("&New request")
        new_menu.setObjectName("menuNewRequest")
        # Its text reads alone too: the Request menu lists it as well ("A2A" said nothing there).
        self.new_a2a = self.action(
            new_menu,
            "New &A2A request",
            lambda: w.new_a2a_tab(),
            name="newA2ARequestAction",
            keys="Ctrl+N",
        )
        self.close_tab = self.action(
            self.file,
            "&Close tab",
            lambda: w.close_tab(w.tabs.currentIndex()),
            name="closeTabAction",
            keys="Ctrl+W",
        )
        self.reopen_closed = self.action(
            self.file,
            "&Reopen closed tab",
            lambda: w.reopen_closed_tab(),
            name="reopenClosedTabAction",
            keys="Ctrl+Shift+T",
        )
        self.reopen_closed.setEnabled(False)
        self.import_requests = self.action(
            self.file, "&Import…", lambda: _import(w, self.window), name="importAction"
        )
        self.file.addSeparator()
        self.quit = self.action(
            self.file, "&Quit", self.window.close, name="quitAction", keys="Ctrl+Q"
        )

    def _build_edit(self) -> None:
        # Text widgets handle these keys themselves (ShortcutOverride); the actions make
        # them findable and run them on the focused widget from the menu or the palette.
        for text, slot, keys in (
            ("&Undo", "undo", "Ctrl+Z"),
            ("&Redo", "redo", "Ctrl+Shift+Z"),
            ("Cu&t", "cut", "Ctrl+X"),
            ("&Copy", "copy", "Ctrl+C"),
            ("&Paste", "paste", "Ctrl+V"),
            ("Select &all", "selectAll", "Ctrl+A"),
        ):
            name = f"edit{slot[0].upper()}{slot[1:]}Action"
            action = self.action(self.edit, text, functools.partial(_on_focus, slot), name=name)
            # Only while the menu itself has focus: the widgets' own keys stay theirs.
            self._menu_only.append(action)
            self.add_shortcut(action, keys)
            if slot in ("redo", "selectAll"):
                self.edit.addSeparator()
        self.settings = self.action(
            self.edit,
            "&Settings…",
            self.desktop.open_settings,
            name="settingsAction",
            keys="Ctrl+,",
        )

    def _build_view(self) -> None:
        self.palette = self.action(
            self.view,
            "&Command palette…",
            self.desktop.open_command_palette,
            name="commandPaletteAction",
            keys="Ctrl+Shift+P",
        )
        theme_menu = self.view.addMenu("&Theme")
        theme_menu.setObjectName("menuTheme")
        from app.settings import ThemeChoice

        # One of three, checked: the menu says which theme is in force.
        group = QActionGroup(self.window)
        group.setExclusive(True)
        self.theme_actions: dict[ThemeChoice, QAction] = {}
        for choice, text in (
            (ThemeChoice.SYSTEM, "Follow &system"),
            (ThemeChoice.LIGHT, "&Light"),
            (ThemeChoice.DARK, "&Dark"),
        ):
            action = self.action(
                theme_menu,
                text,
                functools.partial(self.desktop.set_theme, choice),
                name=f"theme{choice.value.title()}Action",
            )
            action.setCheckable(True)
            group.addAction(action)
            self.theme_actions[choice] = action
        self.show_theme(self.desktop.settings.theme)
        self.status_bar = QAction("&Status bar", self.window)
        self.status_bar.setObjectName("statusBarAction")
        self.status_bar.setCheckable(True)
        self.status_bar.setChecked(True)
        self.status_bar.toggled.connect(lambda on: self.window.statusBar().setVisible(on))
        self.view.addAction(self.status_bar)
        self.reset_layout = self.action(
            self.view, "&Reset layout", self.desktop.reset_layout, name="resetLayoutAction"
        )
        self.view.addSeparator()  # the panels' toggles follow (complete())

    def show_theme(self, choice: ThemeChoice) -> None:
        """Check ``choice`` in *View → Theme* (a theme set in Settings shows there too)."""
        self.theme_actions[choice].setChecked(True)

    def _build_request(self) -> None:
        tab = self.host.current_tab
        self.send = self.action(
            self.request, "&Send", lambda: _if(tab(), _send), name="sendRequestAction"
        )
        # Ctrl+Enter is the Send button's own key in each tab; shown here, dispatched there
        # (a second window-wide binding would make the key ambiguous and do nothing).
        self._menu_only.append(self.send)
        self.add_shortcut(self.send, "Ctrl+Return")
        self.cancel = self.action(
            self.request,
            "&Cancel",
            lambda: _if(tab(), lambda t: t.cancel()),
            name="cancelRequestAction",
        )
        self.request.addSeparator()
        self.generate = self.action(
            self.request,
            "&Generate request body",
            lambda: _if(tab(), lambda t: t.regenerate()),
            name="generateBodyAction",
        )
        self.replace = self.action(
            self.request,
            "&Replace request body",
            lambda: _if(tab(), lambda t: t.replace_body()),
            name="replaceBodyAction",
        )
        self.replace_and_send = self.action(
            self.request,
            "Replace and se&nd",
            lambda: _if(tab(), lambda t: t.body_flow.replace_and_send()),
            name="replaceAndSendAction",
            keys="Ctrl+Shift+Return",
        )
        self.fetch_card = self.action(
            self.request,
            "&Fetch Agent Card",
            lambda: _if(tab(), _fetch_card),
            name="fetchCardAction",
        )
        self.verify_card = self.action(
            self.request,
            "&Verify card signature…",
            lambda: _if(tab(), _verify_card),
            name="verifyCardAction",
        )
        self.extended_card = self.action(
            self.request,
            "Get &extended Agent Card",
            lambda: _if(tab(), _extended_card),
            name="extendedCardAction",
        )
        self.generate_server = self.action(
            self.request,
            "Generate &server…",
            lambda: _generate_server(self.host, self.window),
            name="generateServerAction",
        )
        self.show_other_version = self.action(
            self.request,
            "Show in the &other version…",
            lambda: _if(tab(), lambda t: _show_other_version(self.host, t)),
            name="showOtherVersionAction",
        )
        self.request.addSeparator()
        self.request.addAction(self.new_a2a)
        self.request.aboutToShow.connect(self.refresh)

    def _build_help(self) -> None:
        self.getting_started = self.action(
            self.help, "&Getting started", self.host.show_welcome, name="gettingStartedAction"
        )
        self.documentation = self.action(
            self.help,
            "&Documentation",
            self.desktop.open_documentation,
            name="documentationAction",
            keys="F1",
        )
        self.shortcuts_list = self.action(
            self.help,
            "&Keyboard shortcuts",
            self.desktop.open_shortcuts,
            name="keyboardShortcutsAction",
            keys="Ctrl+/",
        )
        self.coding_assistant = self.action(
            self.help,
            "Use with a &coding assistant…",
            lambda: _open_assistant_dialog(self.window),
            name="codingAssistantAction",
        )
        self.help.addSeparator()
        self.about = self.action(
            self.help, "&About A2A Workbench", self.desktop.open_about, name="aboutAction"
        )
        self.about_qt = self.action(
            self.help, "About &Qt", QApplication.aboutQt, name="aboutQtAction"
        )

    # --- completing ------------------------------------------------------------------

    def complete(self) -> None:
        """Attach the shortcuts, list every dock and toolbar in View, keep Quit last."""
        if self._shortcuts is None:
            return
        # Not at module level: the Qt namespace costs ~30 ms on first access (main_window.py).
        from PySide6.QtCore import Qt

        for action, keys in self._shortcuts:
            action.setShortcut(QKeySequence(keys))
        self._shortcuts = None  # later ones attach at once
        for action in self._menu_only:
            action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        # Where macOS moves them (application menu); elsewhere no effect.
        roles = QAction.MenuRole
        for action, role in (
            (self.quit, roles.QuitRole),
            (self.settings, roles.PreferencesRole),
            (self.about, roles.AboutRole),
            (self.about_qt, roles.AboutQtRole),
        ):
            action.setMenuRole(role)
        self.file.removeAction(self.quit)
        self.file.addSeparator()
        self.file.addAction(self.quit)
        for dock in self.window.findChildren(QDockWidget):
            self.add_view_toggle(dock.toggleViewAction())
        for bar in self.window.findChildren(QToolBar):
            self.add_view_toggle(bar.toggleViewAction())
        from app.ui.shell.icons import decorate_actions

        decorate_actions(self.window)  # one icon set: Qt's standard icons

    def add_view_toggle(self, action: QAction) -> None:
        """List a dock's or toolbar's toggle action in View (once)."""
        if id(action) in self._toggles:
            return
        self._toggles.add(id(action))
        self.view.addAction(action)

    def refresh(self) -> None:
        """Enable the request actions for what the current tab can do now."""
        tab = self.host.current_tab()
        busy = tab is not None and tab.busy
        self.send.setEnabled(tab is not None and not busy and tab.send_button.isEnabled())
        # A window-wide key, refreshed only here: it stays on; without an endpoint its send
        # says "No endpoint: …" (app/ui/request/send_state.py).
        self.replace_and_send.setEnabled(tab is not None and not busy)
        self.cancel.setEnabled(busy)
        for action in (
            self.generate,
            self.replace,
            self.fetch_card,
            self.verify_card,
            self.extended_card,
            self.show_other_version,
        ):
            action.setEnabled(tab is not None)
        if tab is not None:
            self.replace.setEnabled(tab.replace_button.isEnabled())
            self.generate.setEnabled(tab.generate_button.isEnabled())


def menu_actions(menu_owner: QWidget) -> list[tuple[str, QAction]]:
    """Every action of the menu bar (or a menu), with its menu path (``View › History``),
    in menu order; submenus are walked, separators left out."""
    from PySide6.QtWidgets import QMenuBar

    found: list[tuple[str, QAction]] = []
    seen: set[int] = set()

    def walk(actions: list[QAction], path: str) -> None:
        for action in actions:
            if action.isSeparator() or id(action) in seen:
                continue
            sub = action.menu()
            label = plain(action.text())
            if isinstance(sub, QMenu):
                walk(sub.actions(), f"{path} › {label}" if path else label)
                continue
            seen.add(id(action))
            found.append((path, action))

    if isinstance(menu_owner, QMenuBar):
        walk(menu_owner.actions(), "")
    elif isinstance(menu_owner, QMenu):
        walk(menu_owner.actions(), plain(menu_owner.title()))
    return found


def plain(text: str) -> str:
    """A menu text without its mnemonic marks and trailing ellipsis."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("…").strip()


def _on_focus(slot: str) -> None:
    widget = QApplication.focusWidget()
    method = getattr(widget, slot, None)
    if callable(method):
        method()


def _if(tab: RequestTab | None, run: Callable[[RequestTab], object]) -> None:
    if tab is not None:
        run(tab)


def _send(tab: RequestTab) -> None:
    if not tab.busy:
        tab.send_or_cancel()


def _fetch_card(tab: RequestTab) -> None:
    tab.result_tabs.setCurrentWidget(tab.card_panel)
    tab.card_panel.fetch()


def _verify_card(tab: RequestTab) -> None:
    tab.result_tabs.setCurrentWidget(tab.card_panel)
    tab.card_panel.open_verify_dialog()


def _generate_server(host: MenuHost, window: QWidget) -> None:
    from app.ui.collections.generate_server_dialog import open_generate_server

    open_generate_server(host, window)


def _extended_card(tab: RequestTab) -> None:
    tab.result_tabs.setCurrentWidget(tab.card_panel)
    tab.card_panel.get_extended_card()


def _import(host: TabHost, window: QWidget) -> None:
    # The spec tree the result opens in exists from the window's complete_setup().
    spec = getattr(host, "spec", None)
    if spec is not None:
        from app.ui.collections.import_dialog import open_import

        open_import(spec, window)


def _show_other_version(host: TabHost, tab: RequestTab) -> None:
    from app.ui.request.explainer_view import open_explainer

    open_explainer(host, tab)


def _open_assistant_dialog(window: QMainWindow) -> object:
    # Imported on use: the dialog is not needed to start the window.
    from app.ui.shell.assistant_dialog import open_assistant_dialog

    return open_assistant_dialog(window)
