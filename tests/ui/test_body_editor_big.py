"""A big request body opens read-only in the big view (bodyBigView) with *Edit anyway*
(editAnywayButton), which brings the normal editor back (app/ui/request/body_editor.py)."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
from PySide6.QtCore import SIGNAL, Qt
from PySide6.QtGui import QGuiApplication, QTextCursor
from PySide6.QtTest import QSignalSpy
from PySide6.QtWidgets import QWidget

from app.ui.response import pretty_buffer
from app.ui.response.big_text_view import BigTextView
from app.ui.response.pretty_buffer import PrettyBuffer
from app.ui.shell.main_window import MainWindow
from tests.helpers.screenshots import SHOTS
from tests.ui.test_response_tools import child, click
from tests.ui.test_responsiveness import StallMeter

pytestmark = pytest.mark.gui


def _compact_body(size: int) -> str:
    """A SendMessage envelope of about ``size`` characters on one line."""
    text = "lorem ipsum dolor sit amet " * (size // 27)
    message = {"role": "ROLE_USER", "messageId": "m1", "parts": [{"text": text}]}
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
                       "params": {"message": message}})  # fmt: skip


def _paste(qtbot: Any, editor: QWidget) -> None:
    editor.setFocus()
    qtbot.keyClick(editor, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(editor, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)


def test_a_pasted_20_mb_line_opens_read_only_and_scrolls_without_a_stall(
    qtbot: Any, window: MainWindow
) -> None:
    tab = window.new_a2a_tab()
    body = _compact_body(20_000_000)
    QGuiApplication.clipboard().setText(body)
    with StallMeter() as meter:
        _paste(qtbot, tab.body_editor)
        view: BigTextView = child(tab, BigTextView, "bodyBigView")
        page = child(tab, QWidget, "bodyBigPage")
        qtbot.waitUntil(lambda: tab.body_stack.ready, timeout=10_000)
        assert page.isVisible() and not tab.body_editor.isVisible()
        assert view.visible_lines()[0] == body[:2000]  # one long line, folded
        view.setFocus()
        for _ in range(5):
            qtbot.keyClick(view, Qt.Key.Key_PageDown)
        qtbot.keyClick(view, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
        assert view.visible_lines()[-1] == body[-len(view.visible_lines()[-1]) :]
        qtbot.wait(20)
    assert tab.body_editor.toPlainText() == body  # what is sent and saved
    assert tab.dirty and tab.title().endswith("*")
    assert "MiB: shown read-only" in child(tab, QWidget, "bodyBigNote").text()
    print(f"20 MB line pasted, opened and scrolled: longest stall {meter.longest * 1000:.0f} ms")
    assert meter.longest < 0.25, f"the window froze for {meter.longest * 1000:.0f} ms"


def test_edit_anyway_brings_the_editor_back_with_the_text_and_typing_edits_it(
    qtbot: Any, window: MainWindow
) -> None:
    tab = window.new_a2a_tab()
    window.resize(1100, 800)
    body = _compact_body(1_500_000)  # over a MiB on one line: held too
    QGuiApplication.clipboard().setText(body)
    _paste(qtbot, tab.body_editor)
    view: BigTextView = child(tab, BigTextView, "bodyBigView")
    qtbot.waitUntil(lambda: tab.body_stack.ready, timeout=10_000)
    window.grab().save(str(SHOTS / "body_editor_big_view.png"))
    click(qtbot, tab, "editAnywayButton")
    editor = tab.body_editor
    assert editor.isVisible() and not view.isVisible()
    assert editor.toPlainText() == body and editor.held is None
    editor.moveCursor(QTextCursor.MoveOperation.End)
    started = time.perf_counter()
    qtbot.keyClicks(editor, " ")
    assert time.perf_counter() - started < 1.0
    assert editor.toPlainText() == body + " "
    assert tab.dirty
    # A small body set later goes straight to the editor; a big one to the view again.
    editor.setPlainText('{"jsonrpc": "2.0"}')
    assert editor.isVisible() and editor.toPlainText() == '{"jsonrpc": "2.0"}'
    editor.setPlainText(body)
    assert view.isVisible() and editor.toPlainText() == body


def test_a_saved_big_body_round_trips_and_the_unsaved_marker_follows(
    qtbot: Any, window: MainWindow
) -> None:
    tab = window.new_a2a_tab()
    body = _compact_body(2_000_000)
    tab.body_editor.setPlainText(body)
    tab.mark_saved(tab.to_saved())
    assert not tab.dirty
    assert tab.to_saved().body == body
    tab.body_editor.setPlainText(body[:-1] + " }")
    assert tab.dirty
    tab.body_editor.setPlainText(body)
    assert not tab.dirty


def test_closing_the_tab_while_the_big_view_is_prepared_raises_nothing(
    qtbot: Any, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    failures: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: failures.append(args.exc_value))
    started, built = threading.Event(), threading.Event()
    slow_build = pretty_buffer.build

    def build(data: bytes) -> PrettyBuffer:
        started.set()
        time.sleep(0.3)  # the tab is closed meanwhile
        try:
            return slow_build(data)
        finally:
            built.set()

    monkeypatch.setattr(pretty_buffer, "build", build)
    tab = window.new_a2a_tab()
    QGuiApplication.clipboard().setText(_compact_body(1_500_000))
    _paste(qtbot, tab.body_editor)
    qtbot.waitUntil(started.is_set, timeout=5_000)  # the worker starts after a paint
    assert not tab.body_stack.ready
    gone = QSignalSpy(tab, SIGNAL("destroyed()"))
    qtbot.keyClick(window, Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: gone.count() == 1, timeout=5_000)
    assert built.wait(5)
    qtbot.wait(50)
    assert failures == []


def test_a_big_paste_with_characters_outside_ascii_is_held_whole_and_its_length_counted(
    qtbot: Any, window: MainWindow
) -> None:
    tab = window.new_a2a_tab()
    tab.mark_saved(tab.to_saved())
    template = tab.body_editor.toPlainText()
    body = '{"text": "' + "é😀 lorem ipsum dolor sit amet " * 320_000 + '"}'  # ~9.6 MB of UTF-8
    QGuiApplication.clipboard().setText(body)
    _paste(qtbot, tab.body_editor)
    qtbot.waitUntil(lambda: tab.body_stack.ready, timeout=10_000)
    editor = tab.body_editor
    view: BigTextView = child(tab, BigTextView, "bodyBigView")
    assert editor.held == body and editor.toPlainText() == body
    assert editor.text_units() == len(body.encode("utf-16-le")) // 2
    assert view.character_count() == len(body)
    assert view.visible_lines()[0] == body[: len(view.visible_lines()[0])]
    assert tab.dirty and tab.title().endswith("*")
    # Back to the saved body: the marker goes.
    editor.setPlainText(template)
    assert editor.isVisible() and editor.toPlainText() == template
    assert not tab.dirty and not tab.title().endswith("*")


def test_a_big_paste_read_before_its_view_is_ready_is_the_pasted_text(
    qtbot: Any, window: MainWindow
) -> None:
    tab = window.new_a2a_tab()
    body = _compact_body(9_000_000)
    QGuiApplication.clipboard().setText(body)
    _paste(qtbot, tab.body_editor)
    assert tab.body_editor.toPlainText() == body  # decoded on the spot
    assert tab.dirty
    qtbot.waitUntil(lambda: tab.body_stack.ready, timeout=10_000)
    assert tab.body_editor.toPlainText() == body and tab.dirty
    assert child(tab, QWidget, "bodyBigPage").isVisible()


def test_a_big_paste_of_the_saved_body_leaves_the_tab_clean(qtbot: Any, window: MainWindow) -> None:
    tab = window.new_a2a_tab()
    body = _compact_body(9_000_000)
    tab.body_editor.setPlainText(body)
    tab.mark_saved(tab.to_saved())
    tab.body_editor.setPlainText('{"jsonrpc": "2.0"}')
    assert tab.dirty
    QGuiApplication.clipboard().setText(body)
    _paste(qtbot, tab.body_editor)
    qtbot.waitUntil(lambda: tab.body_stack.ready, timeout=10_000)
    assert not tab.dirty and not tab.title().endswith("*")


def test_a_small_paste_goes_into_the_editor_and_undo_takes_it_back(
    qtbot: Any, window: MainWindow
) -> None:
    tab = window.new_a2a_tab()
    tab.mark_saved(tab.to_saved())
    editor = tab.body_editor
    template = editor.toPlainText()
    body = _compact_body(200_000)  # long, but not big: the editor lays it out
    QGuiApplication.clipboard().setText(body)
    _paste(qtbot, editor)
    assert editor.isVisible() and editor.held is None and not editor.holding
    assert editor.toPlainText() == body
    assert tab.dirty and tab.title().endswith("*")
    qtbot.keyClick(editor, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert editor.toPlainText() == template
    assert not tab.dirty and not tab.title().endswith("*")
    # A short paste into the middle, as ever.
    cursor = editor.textCursor()
    cursor.setPosition(1)
    editor.setTextCursor(cursor)
    QGuiApplication.clipboard().setText(" ")
    qtbot.keyClick(editor, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert editor.toPlainText() == template[:1] + " " + template[1:]
    assert tab.dirty


@pytest.mark.parametrize("size", [1_500_000, 9_000_000])
def test_undo_after_a_big_paste_brings_the_body_before_it_back(
    qtbot: Any, window: MainWindow, size: int
) -> None:
    # Held (1.5 MB of long lines, 9 MB whole) or Edit anyway: Ctrl+Z still undoes the paste.
    tab = window.new_a2a_tab()
    before = tab.body_editor.toPlainText()
    tab.mark_saved(tab.to_saved())
    pasted = _compact_body(size)
    for edit_first in (False, True):
        QGuiApplication.clipboard().setText(pasted)
        _paste(qtbot, tab.body_editor)
        qtbot.waitUntil(lambda: tab.body_stack.ready, timeout=10_000)
        assert tab.body_editor.toPlainText() == pasted and tab.dirty
        if edit_first:
            click(qtbot, tab, "editAnywayButton")
            assert tab.body_stack.currentWidget() is tab.body_editor
            tab.body_editor.setFocus()
            qtbot.keyClick(tab.body_editor, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
        else:
            view = child(tab, BigTextView, "bodyBigView")
            view.setFocus()
            qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
        assert tab.body_stack.currentWidget() is tab.body_editor
        assert tab.body_editor.toPlainText() == before
        assert not tab.dirty
