"""The unsaved marker follows the body editor key by key, also for a big body, without
reading the whole text per key (app/ui/request/body_dirty.py)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

from app.ui.shell.main_window import MainWindow

pytestmark = pytest.mark.gui


def test_typing_marks_the_tab_and_undoing_the_edit_clears_the_mark(
    qtbot: Any, window: MainWindow
) -> None:
    tab = window.new_a2a_tab()
    editor = tab.body_editor
    line = '  "text": "é😀 lorem ipsum dolor sit amet",\n'  # some outside the BMP
    body = "{\n" + line * 80_000 + '  "n": 1\n}'  # ~3 MB on 80 000 lines
    editor.setPlainText(body)
    tab.mark_saved(tab.to_saved())
    assert not tab.dirty and not tab.title().endswith("*")
    editor.moveCursor(QTextCursor.MoveOperation.End)
    editor.setFocus()
    started = time.perf_counter()
    for _ in range(20):
        qtbot.keyClick(editor, Qt.Key.Key_A)
    per_key = (time.perf_counter() - started) / 20
    assert tab.dirty and tab.title().endswith("*")
    for _ in range(20):
        qtbot.keyClick(editor, Qt.Key.Key_Backspace)
    assert editor.toPlainText() == body
    assert not tab.dirty and not tab.title().endswith("*")
    # Same length, another text: still unsaved.
    editor.moveCursor(QTextCursor.MoveOperation.Start)
    qtbot.keyClick(editor, Qt.Key.Key_Delete)
    qtbot.keyClick(editor, Qt.Key.Key_BracketLeft)
    assert len(editor.toPlainText()) == len(body) and tab.dirty
    print(f"typing in a {len(body) / 1e6:.1f} M character body: {per_key * 1000:.1f} ms per key")
    assert per_key < 0.05
