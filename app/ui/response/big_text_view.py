"""A read-only view of a :class:`~app.ui.response.pretty_buffer.PrettyBuffer` that paints only the
lines in sight.

objectNames: ``prettyBigView`` and ``rawBigView`` in the response view
(app/ui/response/response_view.py).
Nothing is laid out ahead: a 60 MiB body opens as fast as a small one and scrolling costs
one decoded line per visible row. Keys: the arrows, Page Up/Down, Home/End (Ctrl: top/end);
Ctrl+C copies the whole text.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import (
    QFontMetricsF,
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QPainter,
    QPaintEvent,
    QResizeEvent,
)
from PySide6.QtWidgets import QAbstractScrollArea, QWidget

from app.protocol.visible_text import escape_controls
from app.ui.response.pretty_buffer import PrettyBuffer
from app.ui.shell.widgets import monospace_font

_MARGIN = 4
_TAB_COLUMNS = 8


class BigTextView(QAbstractScrollArea):
    """Shows a big text line by line; :meth:`set_buffer` replaces it."""

    undo_requested = Signal()
    """Undo was asked for here (Ctrl+Z, Edit → Undo): the view has nothing to undo, the
    editor whose text it shows may."""

    def __init__(self, object_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(object_name)
        self.setFont(monospace_font())
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.buffer: PrettyBuffer | None = None
        self.note = ""  # a line above the text (what was changed for display)
        # The first viewport() of the process makes PySide build the Python types of every
        # QWidget subclass while it resolves the widget's type (~5 ms): here, with the tab,
        # rather than when a big body is first shown.
        self.viewport()

    def set_buffer(self, buffer: PrettyBuffer | None, note: str = "") -> None:
        self.buffer = buffer
        self.note = note
        self.verticalScrollBar().setValue(0)
        self.horizontalScrollBar().setValue(0)
        self._update_ranges()
        self.viewport().update()

    def character_count(self) -> int:
        """Characters of the text shown (as ``QTextDocument.characterCount() - 1``)."""
        return self.buffer.chars if self.buffer is not None else 0

    def visible_lines(self) -> list[str]:
        """The display lines in sight, top to bottom."""
        if self.buffer is None:
            return []
        first = self.verticalScrollBar().value()
        last = min(self.buffer.line_count, first + self._rows() + 1)
        # Shown, never obeyed: a line's control characters as escapes (only those in sight).
        return [escape_controls(self.buffer.line(i), multiline=True) for i in range(first, last)]

    # --- Qt ------------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self.viewport())
        painter.fillRect(event.rect(), self.palette().base())
        painter.setPen(self.palette().text().color())
        painter.setFont(self.font())
        metrics = self.fontMetrics()
        height = metrics.lineSpacing()
        scrolled = self.horizontalScrollBar().value()
        x = _MARGIN - scrolled
        y = metrics.ascent() + _MARGIN
        if self.note:
            painter.drawText(x, y, self.note)
            y += height
        # Only the columns in sight: laying out 2 000-character lines whole cost ~18 ms a
        # paint. Columns are counted in the monospace font's advance, a fraction of a pixel
        # as the text is laid out (the whole pixels fell behind it by ~0.2 px a column),
        # a wide character before the cut shifts the rest of its line a little.
        advance = self._advance()
        first = max(0, int(scrolled / advance) - 1)
        columns = int(self.viewport().width() / advance) + 3
        for line in self.visible_lines():
            if "\t" in line:
                # Qt's tab stops count from where a piece is drawn: expanded first, a tab
                # before the cut still moves what follows, as unscrolled.
                line = line.expandtabs(_TAB_COLUMNS)
            painter.drawText(QPointF(x + first * advance, y), line[first : first + columns])
            y += height
        painter.end()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._update_ranges()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        bar = self.verticalScrollBar()
        ctrl = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
        if event.matches(QKeySequence.StandardKey.Copy):
            if self.buffer is not None:
                QGuiApplication.clipboard().setText(self.buffer.text())
        elif event.matches(QKeySequence.StandardKey.Undo):
            self.undo()
        elif event.key() == Qt.Key.Key_Home and ctrl:
            bar.setValue(0)
        elif event.key() == Qt.Key.Key_End and ctrl:
            bar.setValue(bar.maximum())
        else:
            super().keyPressEvent(event)

    def undo(self) -> None:
        self.undo_requested.emit()

    # --- internals ------------------------------------------------------------------------

    def _rows(self) -> int:
        return max(1, (self.viewport().height() - _MARGIN) // self.fontMetrics().lineSpacing())

    def _update_ranges(self) -> None:
        lines = self.buffer.line_count if self.buffer is not None else 0
        extra = 1 if self.note else 0
        vbar = self.verticalScrollBar()
        vbar.setRange(0, max(0, lines + extra - self._rows()))
        vbar.setPageStep(self._rows())
        vbar.setSingleStep(1)
        longest = self.buffer.longest if self.buffer is not None else 0
        width = math.ceil(self._advance() * max(longest, len(self.note)))
        hbar = self.horizontalScrollBar()
        hbar.setRange(0, max(0, width + 2 * _MARGIN - self.viewport().width()))
        hbar.setPageStep(self.viewport().width())
        hbar.setSingleStep(round(self._advance() * 4))

    def _advance(self) -> float:
        """The width of a column: the monospace font's advance, unrounded."""
        return max(1.0, QFontMetricsF(self.font()).horizontalAdvance("x"))
