"""The command palette (View → Command palette, Ctrl+Shift+P): type part of an action's
name, Enter runs it. Lists every menu action, so anything added to a menu is in it."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeyEvent
from PySide6.QtWidgets import (
    QDialog,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.ui.help_dialogs import shortcut_text
from app.ui.menus import menu_actions, plain


def score(query: str, name: str) -> int | None:
    """How well ``query`` matches ``name`` (lower is better), None for no match.

    Every word of the query must occur in the name (substring, any case): a name starting
    with the first word is best, then words at word starts, then anywhere. A query without
    such a match may still match as a subsequence of letters ("rcb" → "Replace request
    body"), ranked after all substring matches.
    """
    q = query.casefold().split()
    n = name.casefold()
    if not q:
        return 0
    if all(word in n for word in q):
        if n.startswith(q[0]):
            return 0
        if all(n.startswith(w) or f" {w}" in n or f"›{w}" in n for w in q):
            return 1
        return 2
    letters = iter(n)
    if all(ch in letters for ch in "".join(q)):
        return 3
    return None


class CommandPalette(QDialog):
    """A popup with a filter line and the matching actions (``Menu › Action  keys``)."""

    def __init__(self, menu_bar: QWidget, parent: QWidget | None = None) -> None:
        # A frameless dialog rather than a Qt.Popup: a popup grabs the keyboard and mouse,
        # which some platforms refuse; leaving the palette (Esc, another window) closes it.
        super().__init__(parent, Qt.WindowType.Dialog | Qt.WindowType.FramelessWindowHint)
        self.setObjectName("commandPalette")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.edit = QLineEdit()
        self.edit.setObjectName("commandPaletteEdit")
        self.edit.setPlaceholderText("Type a command (e.g. “history”, “send”, “dark”)")
        self.edit.setClearButtonEnabled(True)
        self.list = QListWidget()
        self.list.setObjectName("commandPaletteList")
        self.list.setUniformItemSizes(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.edit)
        layout.addWidget(self.list)
        self._actions: list[tuple[str, QAction]] = [
            (f"{path} › {plain(a.text())}" if path else plain(a.text()), a)
            for path, a in menu_actions(menu_bar)
            if a.objectName() != "commandPaletteAction"
        ]
        self.edit.textChanged.connect(self.filter)
        self.edit.installEventFilter(self)
        self.list.itemActivated.connect(self._run_item)
        self.filter("")

    def popup(self) -> None:
        """Show at the top centre of the parent window, the filter line focused."""
        parent = self.parentWidget()
        width = 560 if parent is None else min(640, max(360, parent.width() // 2))
        self.resize(width, 360)
        if parent is not None:
            top = parent.mapToGlobal(parent.rect().topLeft())
            self.move(top.x() + (parent.width() - width) // 2, top.y() + 40)
        self.show()
        self.activateWindow()
        self.edit.setFocus()

    def filter(self, query: str) -> None:
        """List the actions matching ``query``, best first; the first one selected."""
        self.list.clear()
        matches = [
            (rank, i, name, action)
            for i, (name, action) in enumerate(self._actions)
            if (rank := score(query, name)) is not None
        ]
        for _rank, _i, name, action in sorted(matches, key=lambda m: (m[0], m[1])):
            keys = shortcut_text(action.shortcuts())
            item = QListWidgetItem(f"{name}    {keys}" if keys else name)
            item.setData(Qt.ItemDataRole.UserRole, action)
            item.setToolTip(action.toolTip())
            if not action.isEnabled():
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled)
            self.list.addItem(item)
        for row in range(self.list.count()):
            item = self.list.item(row)
            if item is not None and item.flags() & Qt.ItemFlag.ItemIsEnabled:
                self.list.setCurrentRow(row)
                break

    def names(self) -> list[str]:
        """The listed entries' texts, in order."""
        return [item.text() for i in range(self.list.count()) if (item := self.list.item(i))]

    def run_current(self) -> bool:
        """Run the selected action (closing the palette first); False when none is."""
        item = self.list.currentItem()
        if item is None or not item.flags() & Qt.ItemFlag.ItemIsEnabled:
            return False
        self._run_item(item)
        return True

    def _run_item(self, item: QListWidgetItem) -> None:
        action = item.data(Qt.ItemDataRole.UserRole)
        self.close()
        if isinstance(action, QAction) and action.isEnabled():
            action.trigger()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.ActivationChange and not self.isActiveWindow():
            self.close()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # The filter line keeps the focus; Up/Down/Enter act on the list.
        if watched is self.edit and isinstance(event, QKeyEvent):
            if event.type() != QEvent.Type.KeyPress:
                return False
            key = event.key()
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.run_current()
                return True
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_PageDown, Qt.Key.Key_PageUp):
                self.list.keyPressEvent(event)
                return True
        return super().eventFilter(watched, event)
