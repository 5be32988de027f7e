"""The window's desktop conventions: settings applied and saved, the theme, the remembered
geometry and dock layout, and the dialogs of the Edit, View and Help menus.

Adding a Settings page: :meth:`Desktop.add_settings_page` with a title and a factory; the
factory builds the page each time the dialog opens, and a page with an ``apply()`` method
has it called on OK/Apply (:mod:`app.ui.shell.settings_dialog`).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QByteArray, QObject
from PySide6.QtWidgets import QMainWindow, QWidget

from app.settings import Settings, SettingsFile, ThemeChoice, WindowLayout

if TYPE_CHECKING:
    from PySide6.QtGui import QFont
    from PySide6.QtWidgets import QDockWidget

    from app.history.store import HistoryStore
    from app.ui.help.docs_viewer import DocsViewer
    from app.ui.request.request_tab import RequestTab
    from app.ui.shell.command_palette import CommandPalette
    from app.ui.shell.help_dialogs import AboutDialog, ShortcutsDialog
    from app.ui.shell.menus import WindowMenus
    from app.ui.shell.messages import MessageBridge
    from app.ui.shell.settings_dialog import SettingsDialog
    from app.ui.shell.theme import ThemeManager


_SIZED = "firstShownSized"  # dock property: given its first height this session
_FIRST_SIZES = "firstSizes"  # splitter property: its state as the tab was made


class DesktopHost(Protocol):
    """What the desktop uses of the main window besides its QMainWindow self
    (``MainWindow``, which creates it: typed here, not imported)."""

    @property
    def messages(self) -> MessageBridge:
        """Where status messages go."""
        ...

    @property
    def menus(self) -> WindowMenus:
        """The menu bar's actions (refreshed before a dialog lists them)."""
        ...

    def request_tabs(self) -> list[RequestTab]:
        """All request tabs, in tab order."""
        ...


class Desktop(QObject):
    """Owns ``window``'s settings file; applies the settings at start and on change.

    ``host`` is the same main window as ``window``, seen as the holder of tabs and menus.
    """

    def __init__(self, window: QMainWindow, host: DesktopHost) -> None:
        super().__init__(window)
        self.window = window
        self.host = host
        self.file = SettingsFile.load()
        self._pages: list[tuple[str, Callable[[], QWidget]]] = []
        self._default_state: QByteArray | None = None
        self._theme: ThemeManager | None = None
        # Before the first paint only what changes it: a theme or font other than the
        # system's, the geometry. Following the OS scheme starts in complete_setup().
        # Another window of this process (tests) may have changed the theme or the font.
        if self.settings.theme is not ThemeChoice.SYSTEM or "app.ui.shell.theme" in sys.modules:
            self.theme.apply(self.settings.theme)
        if editor_font(self.settings) is not None or "app.ui.shell.widgets" in sys.modules:
            self._apply_font()
        if self.file.layout.geometry:
            window.restoreGeometry(QByteArray(self.file.layout.geometry))

    @property
    def theme(self) -> ThemeManager:
        """The application's theme manager (created on first use)."""
        if self._theme is None:
            from app.ui.shell import theme

            self._theme = theme.manager()
        return self._theme

    def complete_setup(self) -> None:
        """Follow the OS colour scheme from now on (when the theme says so)."""
        if self.theme.choice is not self.settings.theme or self.theme.resolved_dark():
            self.theme.apply(self.settings.theme)

    def _apply_font(self) -> None:
        from app.ui.shell.widgets import set_editor_font

        set_editor_font(editor_font(self.settings))

    @property
    def settings(self) -> Settings:
        """The settings in force."""
        return self.file.settings

    # --- applying --------------------------------------------------------------------

    def apply_settings(self, new: Settings) -> None:
        """Use and save ``new``; tabs still at the old default timeout or deadline get the
        new one."""
        old = self.file.settings
        self.file.settings = new
        self._save()
        if new.theme != old.theme:
            self.theme.apply(new.theme)
            self.host.menus.show_theme(new.theme)
        if (new.editor_font, new.editor_font_size) != (old.editor_font, old.editor_font_size):
            self._apply_font()
        for tab in self.host.request_tabs():
            tab.set_default_timeout(new.default_timeout)  # a tab's own timeout stays
            if tab.deadline_spin.value() == old.default_deadline:
                tab.deadline_spin.setValue(new.default_deadline)

    def set_theme(self, choice: ThemeChoice) -> None:
        """View → Theme: use ``choice`` from now on."""
        self.apply_settings(self.settings._replace(theme=choice))

    def prepare_tab(self, tab: RequestTab) -> None:
        """A new tab starts with the default timeout and deadline; its panes' first sizes
        are noted for *Reset layout*."""
        from PySide6.QtWidgets import QSplitter

        for splitter in tab.findChildren(QSplitter):
            splitter.setProperty(_FIRST_SIZES, splitter.saveState())
        tab.set_default_timeout(self.settings.default_timeout)
        tab.deadline_spin.setValue(self.settings.default_deadline)

    # --- window layout ---------------------------------------------------------------

    def restore_layout(self) -> None:
        """Bring the docks back where they were (once they all exist), after noting the
        first-start layout for *Reset layout*."""
        from PySide6.QtCore import Qt
        from PySide6.QtWidgets import QDockWidget, QToolBar

        # A dock or toolbar added to a window already shown is shown by Qt a moment later:
        # show it now, so that the first-start layout says it is there (it said hidden, and
        # Reset layout hid every one of them).
        explicit = Qt.WidgetAttribute.WA_WState_ExplicitShowHide
        parts = [*self.window.findChildren(QDockWidget), *self.window.findChildren(QToolBar)]
        for part in parts:
            if not (part.isHidden() and part.testAttribute(explicit)):
                part.setVisible(True)
        self._default_state = self.window.saveState()
        if self.file.layout.state:
            self.window.restoreState(QByteArray(self.file.layout.state))
        for dock in self.window.findChildren(QDockWidget):
            if dock.isHidden():  # its first height, when opened, leaves the tab most room
                dock.visibilityChanged.connect(functools.partial(self._first_shown, dock))

    def _first_shown(self, dock: QDockWidget, visible: bool) -> None:
        from PySide6.QtCore import Qt

        if not visible or dock.property(_SIZED) or dock.isFloating():
            return
        dock.setProperty(_SIZED, True)
        area = self.window.dockWidgetArea(dock)
        if area in (Qt.DockWidgetArea.BottomDockWidgetArea, Qt.DockWidgetArea.TopDockWidgetArea):
            # A fifth of the window: a table's filter, a few rows and its buttons.
            height = max(dock.minimumSizeHint().height(), self.window.height() // 5)
            self.window.resizeDocks([dock], [height], Qt.Orientation.Vertical)

    def reset_layout(self) -> None:
        """View → Reset layout: the docks, toolbar and every tab's panes (request and
        response, body and preview, timeline and detail…) as a first start shows them."""
        from PySide6.QtWidgets import QSplitter

        if self._default_state is not None:
            self.window.restoreState(self._default_state)
        for tab in self.host.request_tabs():
            for splitter in tab.findChildren(QSplitter):
                state = splitter.property(_FIRST_SIZES)
                if isinstance(state, QByteArray):
                    splitter.restoreState(state)

    def save_layout(self) -> None:
        """Remember the geometry and dock layout (at shutdown)."""
        self.file.layout = WindowLayout(
            bytes(self.window.saveGeometry().data()), bytes(self.window.saveState().data())
        )
        self._save()

    def _save(self) -> None:
        try:
            self.file.save()
        except OSError as exc:
            self.host.messages.show(f"Cannot save settings: {exc}", 10000)

    # --- dialogs ---------------------------------------------------------------------

    def add_settings_page(self, title: str, factory: Callable[[], QWidget]) -> None:
        """Show ``factory()`` as the page ``title`` of every Settings dialog opened later."""
        self._pages.append((title, factory))

    def open_settings(self) -> SettingsDialog:
        """Edit → Settings… (window-modal; OK or Apply applies)."""
        from app.ui.shell.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.settings, self._history_store(), self.window)
        for title, factory in self._pages:
            dialog.add_page(title, factory())
        dialog.applied.connect(self.apply_settings)
        dialog.open()
        return dialog

    def _history_store(self) -> HistoryStore | None:
        recording = getattr(self.host, "history", None)
        return getattr(recording, "store", None)

    def open_about(self) -> AboutDialog:
        """Help → About: the versions of the app, Qt, PySide6 and the A2A descriptors."""
        from app.ui.shell.help_dialogs import AboutDialog

        dialog = AboutDialog(self.window)
        dialog.open()
        return dialog

    def open_documentation(self) -> DocsViewer:
        """Help → Documentation (F1): the manual shipped with the app, offline."""
        from app.ui.help.docs_viewer import show_documentation

        return show_documentation(self.window)

    def open_shortcuts(self) -> ShortcutsDialog:
        """Help → Keyboard shortcuts: a table made from the menu actions' shortcuts."""
        from app.ui.shell.help_dialogs import ShortcutsDialog

        self.host.menus.refresh()
        dialog = ShortcutsDialog(self.window.menuBar(), self.window)
        dialog.open()
        return dialog

    def open_command_palette(self) -> CommandPalette:
        """View → Command palette (Ctrl+Shift+P): run any menu action by name."""
        from app.ui.shell.command_palette import CommandPalette

        self.host.menus.refresh()
        palette = CommandPalette(self.window.menuBar(), self.window)
        palette.popup()
        return palette


def editor_font(settings: Settings) -> QFont | None:
    """The editor font ``settings`` ask for; None for the system fixed-width font."""
    if not settings.editor_font and not settings.editor_font_size:
        return None
    # Imported here: importing a PySide6 class builds all its enums, a cost before the first
    # paint (bench/startup.py) that only a custom editor font needs.
    from PySide6.QtGui import QFontDatabase

    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    if settings.editor_font:
        font.setFamily(settings.editor_font)
    if settings.editor_font_size:
        font.setPointSize(settings.editor_font_size)
    return font
