"""A find bar for read-only text views: Ctrl+F opens it, F3 / Shift+F3 step, Esc closes.

objectNames: ``findBar``, ``findEdit``, ``findCountLabel`` ("3 of 12"), ``findNextButton``,
``findPreviousButton``, ``findCloseButton``.

The bar searches the view its host says is current (:class:`FindBar` takes a callable), so
one bar serves the tabs of a response view. Matches are found in the view's plain text with
Python's string search (a 5 MB body takes milliseconds, where stepping
``QTextDocument.find`` through it takes seconds) and mapped to document positions, which
count UTF-16 code units.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QKeySequence, QShortcut, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QToolButton,
    QWidget,
)

from app.ui.response.json_tree import JsonTreePage

Target = QPlainTextEdit | JsonTreePage | None
"""What a find bar searches: a text view, a JSON tree page, or nothing."""

MAX_MATCHES = 10_000
"""Counting stops here ("1 of 10,000+"): enough to step through, cheap to find."""

MAX_HIGHLIGHTS = 2_000
"""Matches marked in the view at once (each extra selection is laid out by Qt)."""


def find_matches(text: str, needle: str, limit: int = MAX_MATCHES) -> list[int]:
    """Start offsets (in UTF-16 code units, as ``QTextCursor`` counts) of the
    case-insensitive occurrences of ``needle`` in ``text``, at most ``limit``."""
    if not needle:
        return []
    hay, sought = text.casefold(), needle.casefold()
    if len(hay) != len(text):  # casefold changed lengths (ß → ss): fall back to lower()
        hay, sought = text.lower(), needle.lower()
        if len(hay) != len(text):
            hay, sought = text, needle
    starts: list[int] = []
    pos = hay.find(sought)
    while pos >= 0 and len(starts) < limit:
        starts.append(pos)
        pos = hay.find(sought, pos + max(len(sought), 1))
    if text.isascii() or not any(ord(c) > 0xFFFF for c in text):
        return starts
    # Characters outside the BMP take two UTF-16 units: shift each start by those before it.
    out: list[int] = []
    extra, last = 0, 0
    for start in starts:
        extra += sum(1 for c in text[last:start] if ord(c) > 0xFFFF)
        last = start
        out.append(start + extra)
    return out


def utf16_len(text: str) -> int:
    """The length of ``text`` in UTF-16 code units."""
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


class FindBar(QWidget):
    """Find in the view ``target()`` returns (None: nothing to search in): a text view, or
    a JSON tree page (keys and scalar values; each match selects its row).

    Hidden until :meth:`open_bar`; the host installs the shortcuts with :meth:`install`.
    """

    def __init__(self, target: Callable[[], Target], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("findBar")
        self._target = target
        self._matches: list[Any] = []  # text offsets, or tree row paths
        self._current = -1
        self._searched: tuple[int, str, int] | None = None  # (view id, needle, revision)
        self._host_escape: QShortcut | None = None

        self.edit = QLineEdit()
        self.edit.setObjectName("findEdit")
        self.edit.setPlaceholderText("Find (F3 next, Shift+F3 previous, Esc closes)")
        self.edit.setClearButtonEnabled(True)
        self.count_label = QLabel("")
        self.count_label.setObjectName("findCountLabel")
        self.count_label.setMinimumWidth(self.fontMetrics().horizontalAdvance("10,000+ of 10,000+"))
        self.prev_button = _tool("findPreviousButton", "▲", "Previous match (Shift+F3)")
        self.next_button = _tool("findNextButton", "▼", "Next match (F3)")
        self.close_button = _tool("findCloseButton", "✕", "Close the find bar (Esc)")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        layout.addWidget(QLabel("Find"))
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.count_label)
        layout.addWidget(self.prev_button)
        layout.addWidget(self.next_button)
        layout.addWidget(self.close_button)

        self.edit.textChanged.connect(self._on_text_changed)
        self.edit.returnPressed.connect(self.find_next)
        self.next_button.clicked.connect(self.find_next)
        self.prev_button.clicked.connect(self.find_previous)
        self.close_button.clicked.connect(self.close_bar)
        self.hide()

    def install(self, host: QWidget) -> None:
        """Ctrl+F, F3 and Shift+F3 while the focus is inside ``host``."""
        for keys, slot in (
            (QKeySequence.StandardKey.Find, self.open_bar),
            (QKeySequence.StandardKey.FindNext, self.find_next),
            (QKeySequence.StandardKey.FindPrevious, self.find_previous),
        ):
            shortcut = QShortcut(QKeySequence(keys), host)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)
        # Esc anywhere in the host closes an open bar (and only then takes the key).
        self._host_escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), host)
        self._host_escape.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self._host_escape.setEnabled(False)
        self._host_escape.activated.connect(self.close_bar)
        host.setProperty("findBar", True)

    # --- actions ----------------------------------------------------------------------

    def open_bar(self) -> None:
        """Show the bar with the view's selection (when short) as the text, focus the edit."""
        view = self._target()
        if isinstance(view, QPlainTextEdit):
            selected = view.textCursor().selectedText()
            if selected and len(selected) <= 200 and "\u2029" not in selected:
                self.edit.setText(selected)
        self.show()
        if self._host_escape is not None:
            self._host_escape.setEnabled(True)
        self.edit.setFocus()
        self.edit.selectAll()
        self.refresh()

    def close_bar(self) -> None:
        """Hide the bar, clear the marks and give the focus back to the view."""
        self.hide()
        if self._host_escape is not None:
            self._host_escape.setEnabled(False)
        view = self._target()
        if isinstance(view, QPlainTextEdit):
            view.setExtraSelections([])
        if view is not None:
            view.setFocus()
        self._searched = None

    def find_next(self) -> None:
        """Select the next match (wrapping); opens the bar when it is closed."""
        self._step(1)

    def find_previous(self) -> None:
        """Select the previous match (wrapping)."""
        self._step(-1)

    @property
    def match_count(self) -> int:
        """Matches found in the current view (at most :data:`MAX_MATCHES`)."""
        return len(self._matches)

    def refresh(self) -> None:
        """Search again (the view or its text changed); keeps the position near the cursor."""
        self._searched = None
        self._search()
        view = self._target()
        if self._matches and isinstance(view, QPlainTextEdit):
            cursor_at = view.textCursor().selectionStart()
            self._current = next((i for i, m in enumerate(self._matches) if m >= cursor_at), 0)
            self._show_current()
        elif self._matches:  # a tree: from its first match
            self._current = 0
            self._show_current()
        else:
            self._update_label()

    # --- internals --------------------------------------------------------------------

    def _on_text_changed(self, _text: str) -> None:
        self._searched = None
        self._search()
        self._current = 0 if self._matches else -1
        self._show_current()

    def _search(self) -> None:
        view = self._target()
        needle = self.edit.text()
        if view is None:
            self._matches = []
            self._update_label()
            return
        if isinstance(view, JsonTreePage):
            key = (id(view.model.root_value), needle, 0)
            if key != self._searched:
                self._searched = key
                self._matches = view.model.search(needle, MAX_MATCHES)
            return
        key = (id(view), needle, view.document().revision())
        if key == self._searched:
            return
        self._searched = key
        self._matches = find_matches(view.toPlainText(), needle)
        self._mark_all(view, needle)

    def _mark_all(self, view: QPlainTextEdit, needle: str) -> None:
        # A translucent highlight colour reads on light and dark palettes alike.
        colour = QColor(view.palette().highlight().color())
        colour.setAlpha(70)
        fmt = QTextCharFormat()
        fmt.setBackground(colour)
        width = utf16_len(needle)
        marks: list[QTextEdit.ExtraSelection] = []
        for start in self._matches[:MAX_HIGHLIGHTS]:
            mark = QTextEdit.ExtraSelection()
            cursor = QTextCursor(view.document())
            cursor.setPosition(start)
            cursor.setPosition(start + width, QTextCursor.MoveMode.KeepAnchor)
            mark.cursor = cursor
            mark.format = fmt
            marks.append(mark)
        view.setExtraSelections(marks)

    def _step(self, direction: int) -> None:
        if self.isHidden():
            self.open_bar()
            if direction > 0:
                return
        self._search()
        if not self._matches:
            self._update_label()
            QApplication.beep()
            return
        self._current = (self._current + direction) % len(self._matches)
        self._show_current()

    def _show_current(self) -> None:
        view = self._target()
        found = 0 <= self._current < len(self._matches)
        if isinstance(view, JsonTreePage) and found:
            view.select_rows(self._matches[self._current])
        elif isinstance(view, QPlainTextEdit) and found:
            start = self._matches[self._current]
            cursor = view.textCursor()
            cursor.setPosition(start)
            cursor.setPosition(start + utf16_len(self.edit.text()), QTextCursor.MoveMode.KeepAnchor)
            view.setTextCursor(cursor)
            view.centerCursor()
        elif isinstance(view, QPlainTextEdit):  # no match: drop the last one's selection
            cursor = view.textCursor()
            cursor.clearSelection()
            view.setTextCursor(cursor)
        self._update_label()

    def _update_label(self) -> None:
        needle = self.edit.text()
        n = len(self._matches)
        more = "+" if n >= MAX_MATCHES else ""
        if not needle:
            text = ""
        elif self._target() is None:
            text = "nothing to search"
        elif n == 0:
            text = "no matches"
        else:
            text = f"{self._current + 1:,} of {n:,}{more}"
        self.count_label.setText(text)
        self.prev_button.setEnabled(n > 0)
        self.next_button.setEnabled(n > 0)


def open_find_near_focus() -> bool:
    """Open the find bar of the find host holding the focus; False when there is none.

    For an Edit → Find menu action: the hosts' own Ctrl+F shortcuts only fire while the focus
    is inside them."""
    widget = QApplication.focusWidget()
    while widget is not None:
        if widget.property("findBar"):
            bar = widget.findChild(FindBar)
            if bar is not None:
                bar.open_bar()
                return True
        widget = widget.parentWidget()
    return False


def _tool(name: str, text: str, tip: str) -> QToolButton:
    button = QToolButton()
    button.setObjectName(name)
    button.setText(text)
    button.setToolTip(tip)
    button.setAutoRaise(True)
    return button
