"""The main area's tabs (``requestTabs``): closable, movable, and each close button a plain
cross in the text colour.

Qt's own tab close button (``QStyle.SP_TabCloseButton``) is, in Qt 6's Fusion and Windows
styles, a red square on the current tab: it reads as an error badge, not as "close". Postman,
Insomnia and Bruno draw a small grey cross. Each tab here gets a flat button with the app's
close glyph (:func:`app.ui.shell.icons.icon`, redrawn when the theme changes, so it shows on a
dark tab bar too); clicking it asks to close its tab through ``tabCloseRequested``, as Qt's
button does. objectName of each button: ``tabCloseButton``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QTabWidget, QToolButton, QWidget

# The window's frame paints before the rest loads (app/ui/shell/main_window.py): the icons,
# the theme and the QStyle/QTabBar enums are imported with the first tab, after that paint.
if TYPE_CHECKING:
    from PySide6.QtWidgets import QTabBar

CLOSE_TIP = "Close this tab (Ctrl+W)"


class DocumentTabs(QTabWidget):
    """A document-mode tab widget whose tabs close with a plain cross."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTabsClosable(True)
        self.setMovable(True)
        self.setDocumentMode(True)
        self._following_theme = False

    @property
    def close_side(self) -> QTabBar.ButtonPosition:
        """The side of a tab its close button is on (the style's: right, left on macOS)."""
        from PySide6.QtWidgets import QStyle, QTabBar

        hint = QStyle.StyleHint.SH_TabBar_CloseButtonPosition
        side = self.style().styleHint(hint, None, self.tabBar())
        return QTabBar.ButtonPosition(side)

    def tabInserted(self, index: int) -> None:
        super().tabInserted(index)
        from PySide6.QtCore import QSize

        from app.ui.shell import icons, theme

        if not self._following_theme:
            self._following_theme = True
            theme.manager().changed.connect(self._restyle)
        bar, side = self.tabBar(), self.close_side
        old = bar.tabButton(index, side)
        button = QToolButton(bar)
        button.setObjectName("tabCloseButton")
        button.setAutoRaise(True)
        button.setIcon(icons.icon("close"))
        # The tab's text height: the cross sits on its line, the tab no taller for it.
        edge = bar.fontMetrics().height()
        button.setIconSize(QSize(edge - 4, edge - 4))
        button.setFixedSize(edge + 2, edge + 2)
        button.setToolTip(CLOSE_TIP)
        button.setAccessibleName("Close tab")
        button.clicked.connect(lambda: self._close(button))
        bar.setTabButton(index, side, button)
        if old is not None:  # Qt's own, no longer shown: not kept until the window goes
            old.deleteLater()

    def _close(self, button: QToolButton) -> None:
        bar, side = self.tabBar(), self.close_side
        for index in range(bar.count()):
            if bar.tabButton(index, side) is button:
                self.tabCloseRequested.emit(index)
                return

    def _restyle(self, _dark: bool) -> None:
        from app.ui.shell import icons

        bar, side = self.tabBar(), self.close_side
        cross = icons.icon("close")
        for index in range(bar.count()):
            button = bar.tabButton(index, side)
            if isinstance(button, QToolButton):
                button.setIcon(cross)
