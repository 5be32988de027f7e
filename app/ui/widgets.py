"""Small shared widget helpers."""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from app.ui.json_highlighter import MAX_HIGHLIGHT_CHARS, JsonHighlighter


def monospace_font() -> QFont:
    """The system fixed-width font."""
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)


class CodeView(QPlainTextEdit):
    """A monospace text view/editor with optional JSON highlighting.

    Large texts are shown without highlighting so that setting them stays fast.
    """

    def __init__(
        self, object_name: str, *, read_only: bool, json: bool = True, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName(object_name)
        self.setReadOnly(read_only)
        self.setFont(monospace_font())
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 2)
        self._json = json
        self._highlighter: JsonHighlighter | None = None
        if json:
            self._highlighter = JsonHighlighter(self.document())

    def set_text(self, text: str) -> None:
        """Replace the content, highlighting only when the text is small enough."""
        self.set_highlighting(len(text) <= MAX_HIGHLIGHT_CHARS)
        self.setPlainText(text)

    def set_highlighting(self, on: bool) -> None:
        """Switch JSON highlighting on or off (no effect on non-JSON views)."""
        if not self._json:
            return
        if on and self._highlighter is None:
            self._highlighter = JsonHighlighter(self.document())
        elif not on and self._highlighter is not None:
            self._highlighter.setDocument(None)
            self._highlighter = None
