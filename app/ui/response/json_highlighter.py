"""JSON syntax highlighting for editors and viewers (keys, strings, numbers, literals).

The colours come from the theme table (:func:`app.ui.shell.theme.colours`); a theme change
re-colours every highlighted document.
"""

from __future__ import annotations

from PySide6.QtCore import QRegularExpression
from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument

from app.ui.shell import theme

# Highlighting is per block, but a multi-megabyte document still costs seconds on the GUI
# thread; above this size the text is shown plain.
MAX_HIGHLIGHT_CHARS = 2 * 1024 * 1024


def _fmt(color: str, bold: bool = False) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(QColor(color))
    if bold:
        fmt.setFontWeight(QFont.Weight.DemiBold)
    return fmt


_PATTERNS = (
    QRegularExpression(r"-?\b\d+(\.\d+)?([eE][+-]?\d+)?\b"),
    QRegularExpression(r"\b(true|false|null)\b"),
    QRegularExpression(r'"(?:[^"\\]|\\.)*"'),
    QRegularExpression(r'"(?:[^"\\]|\\.)*"(?=\s*:)'),  # a key: a string before a colon
)
_rules: dict[bool, tuple[tuple[QRegularExpression, QTextCharFormat], ...]] = {}


def rules(table: theme.Colours) -> tuple[tuple[QRegularExpression, QTextCharFormat], ...]:
    """The patterns with their formats in ``table``'s colours (later rules win)."""
    if table.dark not in _rules:
        number, literal, string, key = _PATTERNS
        _rules[table.dark] = (
            (number, _fmt(table.json_number)),
            (literal, _fmt(table.json_literal, bold=True)),
            (string, _fmt(table.json_string)),
            (key, _fmt(table.json_key, bold=True)),
        )
    return _rules[table.dark]


class JsonHighlighter(QSyntaxHighlighter):
    """Colours JSON tokens; a key is a string followed by a colon."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self._rules = rules(theme.colours())
        theme.manager().changed.connect(self._on_theme_changed)

    def _on_theme_changed(self, _dark: bool) -> None:
        table = rules(theme.colours())
        if table is not self._rules:
            self._rules = table
            self.rehighlight()

    def highlightBlock(self, text: str) -> None:
        for pattern, fmt in self._rules:
            it = pattern.globalMatch(text)
            while it.hasNext():
                match = it.next()
                self.setFormat(match.capturedStart(), match.capturedLength(), fmt)
