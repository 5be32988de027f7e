"""Tabs that wrap onto a second row instead of hiding behind scroll arrows.

A :class:`WrappingTabs` is a ``QTabWidget`` (its pages, ``tabText``, ``setCurrentIndex``,
``currentChanged`` as usual) whose own tab bar is hidden: :attr:`WrappingTabs.bar` shows a
checkable button per page in a :class:`~app.ui.shell.flow_layout.FlowLayout`, placed above
the pages. Eight sections of an Agent Card fit a 500 px pane that way, each title whole.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QButtonGroup, QTabWidget, QToolButton, QVBoxLayout, QWidget

from app.ui.shell import spacing
from app.ui.shell.flow_layout import FlowLayout

_BAR_STYLE = (
    "QToolButton { border: none; border-bottom: 2px solid transparent; padding: 3px 8px; }"
    " QToolButton:hover { background: palette(midlight); }"
    " QToolButton:checked { border-bottom: 2px solid palette(highlight); }"
)


class WrappingTabs(QTabWidget):
    """A tab widget shown as a wrapping row of buttons (:attr:`bar`) above its pages.

    :meth:`widget_with_bar` gives the bar and the pages together, for a layout.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tabBar().hide()
        self.setDocumentMode(True)  # no frame of its own: the bar above is its head
        self.bar = QWidget()
        self.bar.setObjectName(f"{self.objectName() or 'wrapping'}Bar")
        self._flow = FlowLayout(self.bar, gap=spacing.TIGHT)
        # Flat titles, the current one underlined: tabs, not a row of push buttons.
        self.bar.setStyleSheet(_BAR_STYLE)
        self._group = QButtonGroup(self)
        self._group.setExclusive(True)
        self._group.idClicked.connect(self.setCurrentIndex)
        self._buttons: list[QToolButton] = []
        self.currentChanged.connect(self._check)

    def widget_with_bar(self) -> QWidget:
        """The bar above the pages, in one widget."""
        box = QWidget()
        layout = QVBoxLayout(box)
        spacing.flush(layout, gap=spacing.TIGHT)
        layout.addWidget(self.bar)
        layout.addWidget(self, 1)
        return box

    def setTabText(self, index: int, text: str) -> None:
        """Retitle page ``index``, its button too."""
        super().setTabText(index, text)
        if 0 <= index < len(self._buttons):
            self._buttons[index].setText(text)

    def setObjectName(self, name: str) -> None:
        super().setObjectName(name)
        if hasattr(self, "bar"):
            self.bar.setObjectName(f"{name}Bar")

    def tabInserted(self, index: int) -> None:
        super().tabInserted(index)
        self._rebuild()

    def tabRemoved(self, index: int) -> None:
        super().tabRemoved(index)
        self._rebuild()

    def _rebuild(self) -> None:
        if not hasattr(self, "_flow"):  # a page added during QTabWidget's own construction
            return
        for button in self._buttons:
            self._group.removeButton(button)
            self._flow.removeWidget(button)
            button.deleteLater()
        self._buttons = []
        for index in range(self.count()):
            button = QToolButton()
            button.setText(self.tabText(index))
            button.setToolTip(self.tabToolTip(index))
            button.setCheckable(True)
            button.setAutoRaise(True)
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
            self._group.addButton(button, index)
            self._flow.addWidget(button)
            self._buttons.append(button)
        self._check(self.currentIndex())

    def _check(self, index: int) -> None:
        if 0 <= index < len(self._buttons):
            self._buttons[index].setChecked(True)
