"""Agent text in Qt widgets: shown as text, never read as HTML, its control characters
visible (:mod:`app.protocol.visible_text`).

Qt reads a label's, a tooltip's or a message box's text as rich text whenever it "looks
like" HTML (``Qt::AutoText``, ``Qt::mightBeRichText``): a card named ``<img src=…>`` would
load an image, ``<a href=…>`` would draw a link. Every widget that shows text from the wire
is a :class:`PlainLabel`, a :func:`plain_tip` tooltip or a :func:`plain_box` message box.
"""

from __future__ import annotations

from typing import overload

from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget

from app.protocol.visible_text import escape_controls

__all__ = ["PlainLabel", "plain_box", "plain_tip", "shown"]


def shown(text: str, *, multiline: bool = True) -> str:
    """``text`` with its control characters escaped (a multi-line view keeps newlines)."""
    return escape_controls(text, multiline=multiline)


class PlainLabel(QLabel):
    """A label whose text is always plain text with visible control characters.

    Args:
        text: the first text.
        multiline: keep line breaks (a banner); a one-line label shows them as ``\\n``.
        parent: parent widget.
    """

    def __init__(self, text: str = "", parent: QWidget | None = None, *, multiline: bool = True):
        super().__init__(parent)
        self._multiline = multiline
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setText(text)

    def setText(self, text: str) -> None:
        super().setText(escape_controls(text, multiline=self._multiline))


@overload
def plain_tip(text: str) -> str: ...


@overload
def plain_tip(text: None) -> None: ...


def plain_tip(text: str | None) -> str | None:
    """A tooltip that shows ``text`` literally: control characters escaped, and text that
    Qt would take for HTML turned into the HTML that shows it as written."""
    if not text:
        return text
    text = escape_controls(text, multiline=True)
    if GuiQt.mightBeRichText(text):
        return GuiQt.convertFromPlainText(text, Qt.WhiteSpaceMode.WhiteSpaceNormal)
    return text


def plain_box(box: QMessageBox) -> QMessageBox:
    """``box`` with its texts plain: what it quotes (a file name, a server's words) is never
    read as HTML."""
    box.setTextFormat(Qt.TextFormat.PlainText)
    return box
