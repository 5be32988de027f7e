"""The request body editor, which shows a big body in the read-only big view until asked.

objectNames: ``bodyEditor`` (the editor), ``bodyBigPage`` with ``bodyBigNote``,
``editAnywayButton`` and ``bodyBigView`` (:mod:`app.ui.big_text_view`).

A text document of a 20 MB body costs seconds of layout (a single 20 MB line even more)
and several times the text in memory. Above :data:`BIG_EDIT_CHARS` the editor holds the
text as a string instead (also a body over a MiB of long lines: compact JSON,
:func:`is_big`) and the big view shows it (long lines folded); everything that
reads or sets the body (:meth:`BodyEditor.toPlainText`, :meth:`BodyEditor.setPlainText`)
works on that string. *Edit anyway* puts it into the editor.
"""

from __future__ import annotations

import contextlib
import threading

from PySide6.QtCore import QMimeData, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QStackedWidget, QVBoxLayout, QWidget

from app.ui import pretty_buffer
from app.ui.big_text_view import BigTextView
from app.ui.formatting import size_text
from app.ui.pretty_buffer import PrettyBuffer
from app.ui.widgets import CodeView

BIG_EDIT_CHARS = 8 * 1024 * 1024
"""Bodies longer than this (characters) open in the read-only big view."""
LONG_LINES_CHARS = 1024 * 1024
"""Bodies longer than this whose lines average :data:`LONG_LINE_CHARS` or more (compact
JSON) open there too: the editor lays out a line of a few MB for seconds."""
LONG_LINE_CHARS = 10_000


def is_big(text: str) -> bool:
    """Whether ``text`` opens in the big view rather than the editor."""
    if len(text) > BIG_EDIT_CHARS:
        return True
    return len(text) > LONG_LINES_CHARS and len(text) > (text.count("\n") + 1) * LONG_LINE_CHARS


class BodyEditor(CodeView):
    """A :class:`CodeView` that holds a big text aside (see the module)."""

    held_changed = Signal(bool)
    """True: a big text is held (shown read-only); False: the editor has the text."""

    def __init__(self) -> None:
        super().__init__("bodyEditor", read_only=False)
        self._held: str | None = None
        self._held_units = 0

    @property
    def held(self) -> str | None:
        """The big text held aside, None while the editor has the text."""
        return self._held

    def setPlainText(self, text: str) -> None:
        was_held = self._held is not None
        if is_big(text):
            # Held before the editor empties: its textChanged listeners read the new body.
            self._held, self._held_units = text, utf16_units(text)
            super().setPlainText("")
            self.held_changed.emit(True)
            return
        self._held = None
        super().setPlainText(text)
        if was_held:
            self.held_changed.emit(False)

    def insertFromMimeData(self, source: QMimeData) -> None:
        """A paste or drop that makes the body big is held too (not laid out first)."""
        pasted = source.text() if source.hasText() else ""  # one copy of a big text
        if len(pasted) > LONG_LINE_CHARS:
            cursor = self.textCursor()
            text = super().toPlainText()
            start, end = cursor.selectionStart(), cursor.selectionEnd()
            # Positions count UTF-16 units; slicing needs characters: only for BMP text.
            if utf16_units(text) == len(text):
                whole = start == 0 and end == len(text)  # Ctrl+A, Ctrl+V: no copy of it
                grown = pasted if whole else text[:start] + pasted + text[end:]
                if is_big(grown):
                    self.setPlainText(grown)
                    return
        super().insertFromMimeData(source)

    def toPlainText(self) -> str:
        return self._held if self._held is not None else super().toPlainText()

    def text_units(self) -> int:
        """The text's length in UTF-16 code units (as the document counts), O(1)."""
        if self._held is not None:
            return self._held_units
        return self.document().characterCount() - 1

    def edit_anyway(self) -> None:
        """Put the held text into the editor (slow for a big text: the user asked)."""
        text = self._held
        if text is None:
            return
        self._held = None
        self.blockSignals(True)  # the body is the same: no change to report
        try:
            super().setPlainText(text)
        finally:
            self.blockSignals(False)
        self.held_changed.emit(False)


def utf16_units(text: str) -> int:
    """``len(text.encode("utf-16-le")) // 2`` without the copy for ASCII text."""
    return len(text) if text.isascii() else len(text.encode("utf-16-le")) // 2


class BodyEditorStack(QStackedWidget):
    """The editor, or the big view of the held text with *Edit anyway*."""

    _built = Signal(object, int)  # from the worker thread: the buffer and its token

    def __init__(self, editor: BodyEditor, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.editor = editor
        self.page = QWidget()
        self.page.setObjectName("bodyBigPage")
        self.note = QLabel()
        self.note.setObjectName("bodyBigNote")
        self.note.setWordWrap(True)
        self.edit_button = QPushButton("Edit anyway")
        self.edit_button.setObjectName("editAnywayButton")
        self.edit_button.setToolTip(
            "Open the body in the editor: laying out a text this big takes a while"
        )
        self.view = BigTextView("bodyBigView")
        bar = QHBoxLayout()
        bar.addWidget(self.note, 1)
        bar.addWidget(self.edit_button)
        layout = QVBoxLayout(self.page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.view, 1)
        self.addWidget(editor)
        self.addWidget(self.page)
        self._token = 0  # which held text a build in a worker thread is for
        self._built.connect(self._show_built)
        self.edit_button.clicked.connect(self._edit_anyway)
        editor.held_changed.connect(self._on_held_changed)

    def _on_held_changed(self, held: bool) -> None:
        text = self.editor.held
        self._token += 1
        if held and text is not None:
            # Encoding and indexing 20 MB take ~50 ms: a worker thread does it, in C calls
            # of ~20 ms at most, and the view shows the text when it is ready.
            self.view.set_buffer(None, "Preparing the view…")
            self.note.setText("This body is big: shown read-only (long lines folded).")
            self.setCurrentWidget(self.page)
            token = self._token
            threading.Thread(target=self._build, args=(text, token), daemon=True).start()
        else:
            self.view.set_buffer(None)
            self.setCurrentWidget(self.editor)

    def _build(self, text: str, token: int) -> None:
        data = text.encode("utf-8", "surrogatepass")
        buffer = pretty_buffer.build(data)
        # "Signal source has been deleted": the tab was closed meanwhile.
        with contextlib.suppress(RuntimeError):
            self._built.emit(buffer, token)

    def _show_built(self, buffer: PrettyBuffer, token: int) -> None:
        if token != self._token:
            return  # the body changed meanwhile
        self.view.set_buffer(buffer)
        self.note.setText(
            f"This body is {size_text(len(buffer.data))}: shown read-only (long lines"
            " folded), it is sent as it is."
        )

    @property
    def ready(self) -> bool:
        """Whether the big view shows the held text (built off the GUI thread)."""
        return self.view.buffer is not None

    def _edit_anyway(self) -> None:
        self.editor.edit_anyway()
        self.editor.setFocus()
