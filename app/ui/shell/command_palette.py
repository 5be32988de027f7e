"""The command palette (View → Command palette, Ctrl+Shift+P): type part of an action's
name, Enter runs it. Lists every menu action, so anything added to a menu is in it."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFrame,
    QHeaderView,
    QLineEdit,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.ui.shell.help_dialogs import shortcut_text
from app.ui.shell.menus import menu_actions, plain

VISIBLE_ROWS = 12


def score(query: str, name: str, path: str = "") -> int | None:
    """How well ``query`` matches the action ``name`` in menu ``path`` (lower is better),
    None for no match.

    Every word of the query must occur (any case) in the name, or else in path and name:
    a name starting with the first word is best, then words at word starts in the name,
    then anywhere in it, then matches that need the menu path. A query without such a
    match may still match as a subsequence of letters ("rplrq" → "Replace request body"),
    ranked after every substring match.
    """
    words = query.casefold().split()
    n = name.casefold()
    if not words:
        return 0
    if all(w in n for w in words):
        if n.startswith(words[0]):
            return 0
        return 1 if all(n.startswith(w) or f" {w}" in n for w in words) else 2
    full = f"{path} {name}".casefold()
    if all(w in full for w in words):
        return 3
    letters = iter(n)
    if all(ch in letters for ch in "".join(words)):
        return 4
    return None


class CommandPalette(QDialog):
    """A filter line over the matching actions: ``Menu › Action`` and its shortcut."""

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
        self.list = QTreeWidget()
        self.list.setObjectName("commandPaletteList")
        self.list.setColumnCount(2)
        self.list.setHeaderHidden(True)
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.list.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        frame = QFrame()  # a frameless window still needs an edge against the one below
        frame.setFrameShape(QFrame.Shape.StyledPanel)
        inner = QVBoxLayout(frame)
        inner.setContentsMargins(6, 6, 6, 6)
        inner.addWidget(self.edit)
        inner.addWidget(self.list)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(frame)
        self._actions: list[tuple[str, str, QAction]] = [
            (path, plain(a.text()), a)
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
        width = 560 if parent is None else min(640, max(420, parent.width() // 2))
        row = self.list.sizeHintForRow(0) if self.list.topLevelItemCount() else 22
        height = self.edit.sizeHint().height() + row * VISIBLE_ROWS + 24
        self.resize(width, height)
        if parent is not None:
            top = parent.mapToGlobal(parent.rect().topLeft())
            self.move(top.x() + (parent.width() - width) // 2, top.y() + 40)
        self.show()
        self.activateWindow()
        self.edit.setFocus()

    def filter(self, query: str) -> None:
        """List the actions matching ``query``, best first; the first enabled one selected."""
        self.list.clear()
        matches = [
            (rank, i, path, name, action)
            for i, (path, name, action) in enumerate(self._actions)
            if (rank := score(query, name, path)) is not None
        ]
        first: QTreeWidgetItem | None = None
        for _rank, _i, path, name, action in sorted(matches, key=lambda m: (m[0], m[1])):
            item = QTreeWidgetItem([f"{path} › {name}" if path else name])
            item.setText(1, shortcut_text(action.shortcuts()))
            item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            item.setData(0, Qt.ItemDataRole.UserRole, action)
            item.setToolTip(0, action.toolTip())
            if not action.isEnabled():
                item.setDisabled(True)
            elif first is None:
                first = item
            self.list.addTopLevelItem(item)
        if first is not None:
            self.list.setCurrentItem(first)

    def names(self) -> list[str]:
        """The listed entries (``Menu › Action``), in order."""
        return [
            item.text(0)
            for i in range(self.list.topLevelItemCount())
            if (item := self.list.topLevelItem(i)) is not None
        ]

    def run_current(self) -> bool:
        """Run the selected action (closing the palette first); False when none is."""
        item = self.list.currentItem()
        if item is None or item.isDisabled():
            return False
        self._run_item(item)
        return True

    def _run_item(self, item: QTreeWidgetItem) -> None:
        action = item.data(0, Qt.ItemDataRole.UserRole)
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
