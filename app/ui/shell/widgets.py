"""Small shared widget helpers."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QTimer
from PySide6.QtGui import QFont, QFontDatabase, QTextOption
from PySide6.QtWidgets import QApplication, QComboBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from app.protocol.visible_text import json_escape_controls
from app.ui.response.json_highlighter import MAX_HIGHLIGHT_CHARS, JsonHighlighter
from app.ui.shell.plain_text import shown

# An editor stops highlighting once its document grows past this many characters: the
# highlighter re-colours pasted text on the GUI thread (~0.4 s per MB on a 2-core box), so a
# pasted megabyte would freeze typing. It comes back when the text shrinks below half of it
# (the hysteresis keeps it from flapping around the limit; re-highlighting that much costs
# about 0.1 s once). Read-only views keep the larger MAX_HIGHLIGHT_CHARS limit of set_text().
EDIT_HIGHLIGHT_CHARS = 512 * 1024


_editor_font: QFont | None = None  # Settings → Appearance; None: the system's


def monospace_font() -> QFont:
    """The editor font: the one chosen in Settings, else the system fixed-width font."""
    if _editor_font is not None:
        return QFont(_editor_font)
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)


def set_editor_font(font: QFont | None) -> None:
    """Use ``font`` (None: the system fixed-width font) in every code view, open or new."""
    global _editor_font
    _editor_font = None if font is None else QFont(font)
    for widget in QApplication.allWidgets():
        if isinstance(widget, CodeView):
            widget.use_font(monospace_font())


class CodeView(QPlainTextEdit):
    """A monospace text view/editor with optional JSON highlighting.

    Large texts are shown without highlighting so that setting, pasting or undoing them
    stays fast: highlighting is switched off as soon as the document grows past the size
    limit, whatever changed it, and back on once it shrinks below half the limit.
    """

    def __init__(
        self,
        object_name: str,
        *,
        read_only: bool,
        json: bool = True,
        wrap: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName(object_name)
        self.setReadOnly(read_only)
        self.use_font(monospace_font())
        # ``wrap``: a long line wraps at the view's width, as Postman's body editor does,
        # rather than scrolling the whole body sideways — while the text is small enough to
        # be highlighted: a new width lays every line out again, which a text of megabytes
        # would feel on each splitter drag.
        self._wrap = wrap
        if wrap:  # a long id or string breaks where it must, not only at spaces
            self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        wrapping = QPlainTextEdit.LineWrapMode.WidgetWidth
        self.setLineWrapMode(wrapping if wrap else QPlainTextEdit.LineWrapMode.NoWrap)
        self._json = json
        self._wanted = json  # highlighting asked for (set_highlighting / set_text)
        self._too_big = False  # suppressed because of the document's size
        self.highlight_limit = MAX_HIGHLIGHT_CHARS if read_only else EDIT_HIGHLIGHT_CHARS
        self._highlighter: JsonHighlighter | None = None
        if json:
            # Connected before any highlighter exists, so this slot runs before the
            # highlighter's own contentsChange slot and can detach it from a huge change.
            self.document().contentsChange.connect(self._on_document_contents_change)
            self._highlighter = JsonHighlighter(self.document())

    def use_font(self, font: QFont) -> None:
        """Show the text in ``font`` (tab stops: two spaces of it)."""
        self.setFont(font)
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 2)

    @property
    def highlighting(self) -> bool:
        """Whether JSON highlighting is active right now."""
        return self._highlighter is not None

    def set_text(self, text: str) -> None:
        """Replace the content, highlighting only when the text is small enough.

        A read-only view shows what came from the wire: its control characters are shown
        as escapes (in a JSON view as JSON escapes, the same JSON value)."""
        if self.isReadOnly():
            text = json_escape_controls(text) if self._json else shown(text)
        self.set_highlighting(len(text) <= MAX_HIGHLIGHT_CHARS)
        self._too_big = len(text) > self.highlight_limit
        self._apply_highlighting()
        self.setPlainText(text)

    def set_highlighting(self, on: bool) -> None:
        """Switch JSON highlighting on or off (no effect on non-JSON views).

        While the text is over the size limit it stays off and comes on when it shrinks.
        """
        if not self._json:
            return
        self._wanted = on
        self._apply_highlighting()

    def insertFromMimeData(self, source: QMimeData) -> None:
        """Paste and drop: a text that will exceed the limit turns highlighting off first
        (detaching afterwards would walk every block of the grown document once more)."""
        if self._json and not self._too_big and source.hasText():
            cursor = self.textCursor()
            selected = cursor.selectionEnd() - cursor.selectionStart()
            grown = self.document().characterCount() - selected + len(source.text())
            if grown > self.highlight_limit:
                self._too_big = True
                self._apply_highlighting()
        super().insertFromMimeData(source)

    def _on_document_contents_change(self, _position: int, _removed: int, _added: int) -> None:
        # characterCount() is O(1): cheap enough for every keystroke.
        count = self.document().characterCount()
        if not self._too_big and count > self.highlight_limit:
            self._too_big = True
            self._apply_highlighting()
        elif self._too_big and count < self.highlight_limit // 2:
            # Not at once: setPlainText() empties the document before inserting the new text.
            QTimer.singleShot(0, self, self._recheck_size)

    def _recheck_size(self) -> None:
        if self._too_big and self.document().characterCount() < self.highlight_limit // 2:
            self._too_big = False
            self._apply_highlighting()

    def _apply_highlighting(self) -> None:
        if self._wrap and self.lineWrapMode() != self._wrap_mode():
            # Not inside the document's change signal (the layout has not seen the change
            # yet): once it is over.
            QTimer.singleShot(0, self, self._fit_wrap)
        on = self._wanted and not self._too_big
        if on and self._highlighter is None:
            self._highlighter = JsonHighlighter(self.document())
        elif not on and self._highlighter is not None:
            self._highlighter.setDocument(None)
            self._highlighter.deleteLater()
            self._highlighter = None

    def _wrap_mode(self) -> QPlainTextEdit.LineWrapMode:
        mode = QPlainTextEdit.LineWrapMode
        return mode.WidgetWidth if self._wrap and not self._too_big else mode.NoWrap

    def _fit_wrap(self) -> None:
        if self.lineWrapMode() != self._wrap_mode():
            self.setLineWrapMode(self._wrap_mode())


def select_data(combo: QComboBox, value: object) -> None:
    """Select the item whose data equals ``value`` (str-enum data compares by value)."""
    for i in range(combo.count()):
        if combo.itemData(i) == value:
            combo.setCurrentIndex(i)
            return


def titled(title: str, widget: QWidget) -> QWidget:
    """``widget`` under a bold ``title`` label."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    label = QLabel(f"<b>{title}</b>")
    layout.addWidget(label)
    layout.addWidget(widget, 1)
    return box
