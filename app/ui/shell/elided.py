"""Text that fits its width: ids elided in the middle, one-line notes elided at the end.

Both keep the whole text (``text()``, the tooltip) and only paint it shortened, so a
narrow window loses characters on screen, never in what is copied or tested.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QContextMenuEvent, QGuiApplication, QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QSizePolicy,
    QStyle,
    QStyleOptionFrame,
    QWidget,
)

from app.ui.shell.plain_text import plain_tip, shown

_LEFT = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
_LINE_EDIT_MARGIN = 2  # QLineEdit's own horizontal text margin (qlineedit_p.h)


class IdField(QLineEdit):
    """A read-only id (a task id, a context id): whole when it fits, else elided in the
    middle (its start and end are what people compare); the tooltip has it whole.

    Focused (clicked into), it shows the whole id to select and scroll as a line edit does.
    The context menu adds *Copy* of the whole id (:meth:`copy`).
    """

    def __init__(self, name: str, what: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.setReadOnly(True)
        self.setPlaceholderText(what)
        self._what = what
        self._id = ""  # exactly as the agent sent it; the field shows it escaped
        metrics = self.fontMetrics()
        # Room for "0123…cdef" at least: the ends of an id stay recognisable.
        self.setMinimumWidth(metrics.horizontalAdvance("01234…bcdef") + 12)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.set_id("")

    def set_id(self, value: str) -> None:
        """Show ``value`` (empty: the placeholder), its control characters escaped."""
        if value != self._id:
            self._id = value
            self.setText(shown(value, multiline=False))
            self.setCursorPosition(0)
        self.setToolTip(
            plain_tip(f"{self._what}: {value}\n(right-click or Copy to copy it whole)")
            if value
            else f"The {self._what} the stream carries (none seen yet)"
        )

    def copy_id(self) -> None:
        """Put the whole id on the clipboard, exactly as the agent sent it."""
        if self._id:
            QGuiApplication.clipboard().setText(self._id)

    def elided(self) -> str:
        """The text as painted now (the whole id when it fits)."""
        return self.fontMetrics().elidedText(
            self.text(), Qt.TextElideMode.ElideMiddle, self._text_rect().width()
        )

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        menu = self.createStandardContextMenu()
        action = menu.addAction(f"Copy {self._what}")
        action.setEnabled(bool(self.text()))
        action.triggered.connect(self.copy_id)
        menu.insertAction(menu.actions()[0], action)
        menu.insertSeparator(menu.actions()[1])
        menu.exec(event.globalPos())
        menu.deleteLater()

    def paintEvent(self, event: QPaintEvent) -> None:
        text = self.text()
        if not text or self.hasFocus() or self.elided() == text:
            super().paintEvent(event)
            return
        # The frame as QLineEdit draws it, then the elided text in its text area.
        option = QStyleOptionFrame()
        self.initStyleOption(option)
        painter = QPainter(self)
        self.style().drawPrimitive(QStyle.PrimitiveElement.PE_PanelLineEdit, option, painter, self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.drawText(self._text_rect(), _LEFT, self.elided())
        painter.end()

    def _text_rect(self) -> QRect:
        option = QStyleOptionFrame()
        self.initStyleOption(option)
        rect = self.style().subElementRect(QStyle.SubElement.SE_LineEditContents, option, self)
        margins = self.textMargins()
        return rect.adjusted(
            margins.left() + _LINE_EDIT_MARGIN,
            margins.top(),
            -margins.right() - _LINE_EDIT_MARGIN,
            -margins.bottom(),
        )


class ElidedLabel(QLabel):
    """A one-line label that ends in "…" when narrower than its text (tooltip: the text).

    It never asks for more width than it gets: a long note does not widen the window, and
    the row it sits in keeps its height whatever the text.
    """

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(self.fontMetrics().height() + 2)  # the same, empty or not
        self.setTextFormat(Qt.TextFormat.PlainText)

    def set_text(self, text: str) -> None:
        """Show ``text`` (only touching the label when it changes), control characters
        escaped: notes quote agents."""
        text = shown(text, multiline=False)
        if text != self.text():
            self.setText(text)
            self.setToolTip(plain_tip(text))

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        rect = self.contentsRect()
        text = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, rect.width())
        painter.drawText(
            rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), text
        )
        painter.end()
