"""The request body editor, which shows a big body in the read-only big view until asked.

objectNames: ``bodyEditor`` (the editor), ``bodyBigPage`` with ``bodyBigNote``,
``editAnywayButton`` and ``bodyBigView`` (:mod:`app.ui.response.big_text_view`).

A text document of a 20 MB body costs seconds of layout (a single 20 MB line even more)
and several times the text in memory. Above :data:`BIG_EDIT_CHARS` the editor holds the
text as a string instead (also a body over a MiB of long lines: compact JSON,
:func:`is_big`) and the big view shows it (long lines folded); everything that
reads or sets the body (:meth:`BodyEditor.toPlainText`, :meth:`BodyEditor.setPlainText`)
works on that string. *Edit anyway* puts it into the editor.

A paste of the whole body over :data:`BIG_EDIT_CHARS` bytes is read from the clipboard as
UTF-8 and held as those bytes: a worker thread copies, counts and indexes them, then the
editor reports the change (textChanged); the text is decoded when first read (sent,
saved), or at once when read before the worker is done.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from typing import TYPE_CHECKING, NamedTuple, cast

from PySide6.QtCore import QMimeData, QTimer, Signal
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QStackedWidget, QVBoxLayout, QWidget

from app.ui.response import pretty_buffer
from app.ui.response.big_text_view import BigTextView
from app.ui.response.formatting import size_text
from app.ui.response.pretty_buffer import PrettyBuffer
from app.ui.shell.widgets import CodeView

if TYPE_CHECKING:
    from typing_extensions import Buffer

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
        super().__init__("bodyEditor", read_only=False, wrap=True)
        self._held: str | None = None
        self._held_data: bytearray | None = None  # a held paste's UTF-8, decoded when read
        self._held_units = 0
        self._pending: memoryview | None = None  # a big paste's UTF-8, not counted yet
        self._before: str | None = None
        """The editor's text before a paste made the body big: what Undo brings back (the
        document's own undo history ends where the held text replaced it)."""

    @property
    def held(self) -> str | None:
        """The big text held aside, None while the editor has the text."""
        self._settle()
        if self._held is None and self._held_data is not None:
            self._held = self._held_data.decode("utf-8", "replace")
        return self._held

    @property
    def holding(self) -> bool:
        """Whether a big text is held aside (:attr:`held` without decoding a paste)."""
        return self._held is not None or self._held_data is not None or self._pending is not None

    def held_source(self) -> str | bytearray | memoryview | None:
        """The held text or its UTF-8; a memoryview: a big paste still to count (the
        stack's worker does it, :meth:`settle_paste`)."""
        if self._pending is not None:
            return self._pending
        return self._held if self._held is not None else self._held_data

    def setPlainText(self, text: str) -> None:
        was_held = self.holding
        self._pending = self._before = None
        if is_big(text):
            self._hold(text, None, utf16_units(text))
            self.held_changed.emit(True)
            return
        self._held = self._held_data = None
        super().setPlainText(text)
        if was_held:
            self.held_changed.emit(False)

    def insertFromMimeData(self, source: QMimeData) -> None:
        """A paste or drop that makes the body big is held too (not laid out first).

        The text is read as UTF-8: a QByteArray shared without a copy, where a 20 MB QString
        made into a Python string cost ~30 ms of the GUI thread. A paste of the whole body
        over :data:`BIG_EDIT_CHARS` bytes is held as it is; the stack's worker counts and
        indexes it, and it is decoded when read (sent, saved)."""
        data = utf8_text(source) if source.hasText() else memoryview(b"")
        if data.nbytes > LONG_LINE_CHARS:  # no fewer bytes than characters
            cursor = self.textCursor()
            start, end = cursor.selectionStart(), cursor.selectionEnd()
            units = self.document().characterCount() - 1
            whole = start == 0 and end == units  # Ctrl+A, Ctrl+V: the paste is the body
            text = super().toPlainText()
            if whole and data.nbytes > BIG_EDIT_CHARS:
                # The document empties and textChanged reports the body once it is counted.
                self._held = self._held_data = None
                self._pending, self._before = data, text
                self.held_changed.emit(True)
                return
            pasted = str(data, "utf-8", "replace")
            # Positions count UTF-16 units; slicing needs characters: only for BMP text.
            if units == len(text):
                grown = pasted if whole else text[:start] + pasted + text[end:]
                if is_big(grown):
                    self.setPlainText(grown)
                    self._before = text
                    return
        super().insertFromMimeData(source)

    def settle_paste(self, source: memoryview, data: bytearray, units: int) -> None:
        """The worker copied ``source`` (a pending paste) to ``data``, ``units`` long."""
        if source is self._pending:
            self._pending = None
            self._hold(None, data, units)

    def toPlainText(self) -> str:
        text = self.held
        return text if text is not None else super().toPlainText()

    def text_units(self) -> int:
        """The text's length in UTF-16 code units (as the document counts), O(1)."""
        self._settle()
        if self.holding:
            return self._held_units
        return self.document().characterCount() - 1

    def edit_anyway(self) -> None:
        """Put the held text into the editor (slow for a big text: the user asked); after a
        big paste, as one undoable step over the text before it."""
        text = self.held
        if text is None:
            return
        before, self._before = self._before, None
        self._held = self._held_data = None
        self.blockSignals(True)  # the body is the same: no change to report
        try:
            if before is None:
                super().setPlainText(text)
            else:
                super().setPlainText(before)
                cursor = QTextCursor(self.document())
                cursor.select(QTextCursor.SelectionType.Document)
                cursor.insertText(text)
        finally:
            self.blockSignals(False)
        self.held_changed.emit(False)

    def undo(self) -> None:
        """Undo; while a pasted big text is held: the text before the paste, in the editor."""
        if not self.holding or self._before is None:
            super().undo()
            return
        before, self._before = self._before, None
        self._held = self._held_data = self._pending = None
        super().setPlainText(before)
        self.held_changed.emit(False)

    def _hold(self, text: str | None, data: bytearray | None, units: int) -> None:
        # Held before the editor empties: its textChanged listeners read the new body.
        self._held, self._held_data, self._held_units = text, data, units
        super().setPlainText("")

    def _settle(self) -> None:
        """A pending paste read before the worker is done: decoded here (the change is
        reported now, the worker's count is then ignored)."""
        if self._pending is not None:
            source = self._pending
            text = str(source, "utf-8", "replace")
            self._pending = None
            self._hold(text, None, utf16_units(text))


def utf8_text(source: QMimeData) -> memoryview:
    """``source``'s plain text as UTF-8 (the bytes :meth:`QMimeData.text` decodes), a view
    of the QByteArray's memory (which it keeps)."""
    data = source.data("text/plain;charset=utf-8")
    if data.isEmpty():
        data = source.data("text/plain")
    return memoryview(cast("Buffer", data))  # QByteArray has the buffer protocol


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
        self.view.undo_requested.connect(editor.undo)  # Ctrl+Z in the big view: the paste

    def _on_held_changed(self, held: bool) -> None:
        source = self.editor.held_source()
        self._token += 1
        if held and source is not None:
            # Encoding and indexing 20 MB take ~50 ms (a paste's decoding as much): a worker
            # thread does it, in C calls of ~20 ms at most, and the view shows the text
            # when it is ready.
            self.view.set_buffer(None, "Preparing the view…")
            self.note.setText("This body is big: shown read-only (long lines folded).")
            self.setCurrentWidget(self.page)
            # Started after the page is painted (a timer runs after the posted paint; a
            # zero one would not): the paint would wait for the worker's GIL otherwise.
            start = functools.partial(self._start_build, source, self._token)
            QTimer.singleShot(1, self, start)
        else:
            self.view.set_buffer(None)
            self.setCurrentWidget(self.editor)

    def _start_build(self, source: str | bytearray | memoryview, token: int) -> None:
        if token == self._token:
            threading.Thread(target=self._build, args=(source, token), daemon=True).start()

    def _build(self, source: str | bytearray | memoryview, token: int) -> None:
        if isinstance(source, memoryview):
            data = pretty_buffer.gather(source)
            units = pretty_buffer.utf16_length(data)
            built = _Built(pretty_buffer.build(data), source, data, units)
        else:
            data = pretty_buffer.encode(source) if isinstance(source, str) else source
            built = _Built(pretty_buffer.build(data))
        # "Signal source has been deleted": the tab was closed meanwhile.
        with contextlib.suppress(RuntimeError):
            self._built.emit(built, token)

    def _show_built(self, built: _Built, token: int) -> None:
        if token != self._token:
            return  # the body changed meanwhile
        buffer = built.buffer
        if built.source is not None:
            self.editor.settle_paste(built.source, built.data, built.units)
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


class _Built(NamedTuple):
    """What the worker thread made of a held text: the buffer, and for a paste still to
    count (``source``) its copy and UTF-16 length."""

    buffer: PrettyBuffer
    source: memoryview | None = None
    data: bytearray = bytearray()
    units: int = 0
