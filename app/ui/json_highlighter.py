"""JSON syntax highlighting for editors and viewers (keys, strings, numbers, literals)."""

from __future__ import annotations

from PySide6.QtCore import QRegularExpression
from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument

# Highlighting is per block, but a multi-megabyte document still costs seconds on the GUI
# thread; above this size the text is shown plain.
MAX_HIGHLIGHT_CHARS = 2 * 1024 * 1024


def _fmt(color: str, bold: bool = False) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(QColor(color))
    if bold:
        fmt.setFontWeight(QFont.Weight.DemiBold)
    return fmt


class JsonHighlighter(QSyntaxHighlighter):
    """Colours JSON tokens; a key is a string followed by a colon."""

    _RULES = (
        (QRegularExpression(r"-?\b\d+(\.\d+)?([eE][+-]?\d+)?\b"), _fmt("#b5651d")),
        (QRegularExpression(r"\b(true|false|null)\b"), _fmt("#7c4dff", bold=True)),
        (QRegularExpression(r'"(?:[^"\\]|\\.)*"'), _fmt("#2e7d32")),
        (QRegularExpression(r'"(?:[^"\\]|\\.)*"(?=\s*:)'), _fmt("#1565c0", bold=True)),
    )

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)

    def highlightBlock(self, text: str) -> None:
        for pattern, fmt in self._RULES:
            it = pattern.globalMatch(text)
            while it.hasNext():
                match = it.next()
                self.setFormat(match.capturedStart(), match.capturedLength(), fmt)
