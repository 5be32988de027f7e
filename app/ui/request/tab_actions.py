"""The request tabs' own actions: the tab-bar context menu and keys that cycle tabs.

Right-click on a tab (menu ``requestTabMenu``):

- *Save to spec* (``saveTabAction``): what Ctrl+S does, for that tab;
- *Duplicate tab* (``duplicateTabAction``): a copy of the tab as it is now, a new request
  of the same spec (saving it adds an operation, never overwrites the original's);
- *Close tab* (``closeTabAction``), *Close other tabs* (``closeOtherTabsAction``).

Ctrl+Tab / Ctrl+PgDown (``nextTabAction``) and Ctrl+Shift+Tab / Ctrl+PgUp
(``previousTabAction``) move to the next / previous request tab, wrapping around.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPoint, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QWidget

if TYPE_CHECKING:
    from app.ui.collections.spec_dock import SpecController
    from app.ui.request.request_tab import RequestTab
    from app.ui.shell.host import TabHost


class TabActions(QObject):
    """The tab-bar menu and the tab-cycling shortcuts of one window of request tabs."""

    def __init__(self, host: TabHost, spec: SpecController, window: QWidget) -> None:
        super().__init__(window)
        self.host = host
        self.spec = spec
        self.menu: QMenu | None = None
        self.next_action = self._cycle_action(
            "&Next tab", "nextTabAction", ("Ctrl+Tab", "Ctrl+PgDown"), 1, window
        )
        self.previous_action = self._cycle_action(
            "&Previous tab", "previousTabAction", ("Ctrl+Shift+Tab", "Ctrl+PgUp"), -1, window
        )
        bar = host.tabs.tabBar()
        bar.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        bar.customContextMenuRequested.connect(self._on_context_menu)

    def _cycle_action(
        self, text: str, name: str, keys: tuple[str, ...], step: int, window: QWidget
    ) -> QAction:
        action = QAction(text, window)
        action.setObjectName(name)
        action.setShortcuts([QKeySequence(k) for k in keys])
        # Window-wide: the body editor would otherwise take Ctrl+Tab as a key press.
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(lambda _checked=False: self.cycle(step))
        window.addAction(action)
        return action

    def cycle(self, step: int) -> None:
        """Focus the request tab ``step`` places away (wrapping around)."""
        tabs = self.host.tabs
        count = tabs.count()
        if count > 1:
            tabs.setCurrentIndex((tabs.currentIndex() + step) % count)

    # --- the context menu --------------------------------------------------------------

    def _on_context_menu(self, pos: QPoint) -> None:
        bar = self.host.tabs.tabBar()
        index = bar.tabAt(pos)
        if index < 0:
            return
        menu = self.menu_for(index)
        menu.popup(bar.mapToGlobal(pos))

    def menu_for(self, index: int) -> QMenu:
        """The context menu of the tab at ``index`` (kept in :attr:`menu`)."""
        tabs = self.host.tabs
        menu = QMenu(tabs)
        menu.setObjectName("requestTabMenu")
        tab = self._tab(index)
        entries = (
            ("&Save to spec", "saveTabAction", "Ctrl+S", lambda: self.save(index)),
            ("D&uplicate tab", "duplicateTabAction", "", lambda: self.duplicate(index)),
            None,
            ("&Close tab", "closeTabAction", "Ctrl+W", lambda: tabs.tabCloseRequested.emit(index)),
            ("Close &other tabs", "closeOtherTabsAction", "", lambda: self.close_others(index)),
        )
        for entry in entries:
            if entry is None:
                menu.addSeparator()
                continue
            text, name, keys, slot = entry
            action = menu.addAction(text)
            action.setObjectName(name)
            if keys:  # shown as a reminder; the window's own actions own these keys
                action.setShortcut(QKeySequence(keys))
                action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
            action.triggered.connect(lambda _checked=False, s=slot: s())
            if name in ("saveTabAction", "duplicateTabAction") and tab is None:
                action.setEnabled(False)
            if name == "closeOtherTabsAction" and tabs.count() < 2:
                action.setEnabled(False)
        self.menu = menu
        return menu

    def _tab(self, index: int) -> RequestTab | None:
        widget = self.host.tabs.widget(index)
        return next((t for t in self.host.request_tabs() if t is widget), None)

    def save(self, index: int) -> None:
        """*Save to spec* for the tab at ``index`` (focused first, as Ctrl+S saves the
        focused tab)."""
        if self._tab(index) is None:
            return
        self.host.tabs.setCurrentIndex(index)
        self.spec.save_action.trigger()

    def close_others(self, index: int) -> None:
        """Close every tab but the one at ``index`` (each kept for *Reopen closed tab*)."""
        keep = self.host.tabs.widget(index)
        tabs = self.host.tabs
        for i in reversed(range(tabs.count())):
            if tabs.widget(i) is not keep:
                tabs.tabCloseRequested.emit(i)

    def duplicate(self, index: int) -> RequestTab | None:
        """Open a copy of the tab at ``index``: same request and spec, no operation yet."""
        tab = self._tab(index)
        if tab is None:
            return None
        saved = tab.to_saved()
        copy = dataclasses.replace(saved, operation_id="", name=f"{saved.name} copy")
        new = self.host.new_a2a_tab()
        new.load_saved(copy)
        new.draft.spec_path = tab.draft.spec_path
        new.variables = tab.variables
        new.refresh_card_url()
        if (collection := self.spec.collection_of(tab)) is not None:
            self.spec.adopt(new, collection)  # one without a file yet, too
        self.host.messages.show(f"Duplicated '{tab.title()}': Ctrl+S saves the copy", 8000)
        return new
