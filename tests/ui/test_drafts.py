"""Unsaved drafts survive: closing a tab (Reopen closed tab) and closing the window (the
session file, restored by the next window). The session file holds no credential."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLineEdit

from app.paths import session_path
from app.protocol.net.auth import AuthKind
from app.spec.document import SpecDocument
from app.ui.request.request_tab import RequestTab
from app.ui.shell.main_window import MainWindow

pytestmark = pytest.mark.gui

TOKEN = "s3cr3t-bearer-0123456789"
DRAFT = (
    '{\n  "jsonrpc": "2.0",\n  "id": 7,\n  "method": "SendMessage",\n'
    '  "params": {"x": "draft ✓"}\n}'
)


@pytest.fixture
def windows(qtbot: Any, qloop: Any) -> Iterator[Callable[[], MainWindow]]:
    """Make main windows (same data directory); each is shut down as the app does."""
    made: list[MainWindow] = []

    def make() -> MainWindow:
        win = MainWindow()
        win.show()
        made.append(win)
        return win

    yield make
    for win in made:
        if win.isVisible():
            qloop.run_until_complete(win.shutdown())
            win.close_now()
        # Closed ones too: a closed window left alive keeps its status-bar timer running.
        win.deleteLater()


def close_window(qloop: Any, win: MainWindow) -> None:
    """What the application does on close: shutdown() (saves the session), then close."""
    qloop.run_until_complete(win.shutdown())
    win.close_now()


def edit_tab(win: MainWindow, body: str, endpoint: str = "http://127.0.0.1:9/") -> RequestTab:
    tab = win.new_a2a_tab()
    tab.endpoint_edit.setText(endpoint)
    tab.body_editor.setPlainText(body)
    assert tab.dirty
    return tab


def test_closing_a_dirty_tab_keeps_the_draft_and_ctrl_shift_t_reopens_it(
    qtbot: Any, windows: Callable[[], MainWindow]
) -> None:
    win = windows()
    tab = edit_tab(win, DRAFT)
    tab.auth_panel.set_kind(AuthKind.BEARER)
    tab.auth_panel.bearer_token.edit.setText(TOKEN)
    count = win.tabs.count()
    action = win.findChild(QAction, "reopenClosedTabAction")
    assert action is not None and action.shortcut().toString() == "Ctrl+Shift+T"
    assert not action.isEnabled()

    win.tabs.tabCloseRequested.emit(win.tabs.indexOf(tab))  # the tab's close button

    assert win.tabs.count() == count - 1
    assert win.statusBar().currentMessage() == (
        "Closed 'SendMessage' — unsaved draft kept; Ctrl+Shift+T reopens it"
    )
    assert action.isEnabled()
    action.trigger()
    reopened = win.current_tab()
    assert reopened is not None and reopened is not tab
    assert win.tabs.count() == count
    assert reopened.body_editor.toPlainText() == DRAFT
    assert reopened.endpoint_edit.text() == "http://127.0.0.1:9/"
    assert reopened.dirty and win.tabs.tabText(win.tabs.currentIndex()).endswith("*")
    # Within the session the credential comes back too (it was only in memory).
    assert reopened.auth_panel.bearer_token.edit.text() == TOKEN
    assert not action.isEnabled()


def test_the_last_twenty_closed_tabs_are_kept_newest_first(
    qtbot: Any, windows: Callable[[], MainWindow]
) -> None:
    win = windows()
    for i in range(23):
        tab = edit_tab(win, f'{{"n": {i}}}')
        win.tabs.tabCloseRequested.emit(win.tabs.indexOf(tab))
    bodies = []
    while (tab := win.reopen_closed_tab()) is not None:
        bodies.append(tab.body_editor.toPlainText())
    assert bodies == [f'{{"n": {i}}}' for i in reversed(range(3, 23))]


def test_a_new_window_restores_the_drafts_of_the_last_one(
    qtbot: Any, qloop: Any, windows: Callable[[], MainWindow], tmp_path: Path
) -> None:
    first = windows()
    assert first.request_tabs() == []  # a fresh session opens nothing by itself
    one = edit_tab(first, DRAFT)
    one.tenant_edit.setText("acme")
    one.headers_panel.add_header("X-Trace", "on")
    # A tab saved to a spec and then edited: its file and unsaved marker come back.
    spec = tmp_path / "requests.a2a.yaml"
    SpecDocument.new(path=spec).save(spec)
    two = first.new_a2a_tab("http://127.0.0.1:9/", "saved one")
    assert first.spec.save_tab(two, spec) == []
    assert not two.dirty
    saved_body = two.body_editor.toPlainText()
    clean = first.new_a2a_tab("http://127.0.0.1:9/")  # saved too, and left unchanged
    assert first.spec.save_tab(clean, spec) == []
    two.body_editor.setPlainText(saved_body.replace("saved one", "edited after saving"))
    assert two.dirty
    closed = edit_tab(first, '{"closed": true}')
    first.tabs.tabCloseRequested.emit(first.tabs.indexOf(closed))
    first.tabs.setCurrentWidget(two)
    close_window(qloop, first)

    second = windows()
    tabs = second.request_tabs()
    assert [t.body_editor.toPlainText() for t in tabs] == [
        DRAFT,
        saved_body.replace("saved one", "edited after saving"),
        clean.body_editor.toPlainText(),
    ]
    restored_one, restored_two, restored_clean = tabs
    assert restored_one.dirty and restored_one.tenant_edit.text() == "acme"
    assert tuple(restored_one.headers_panel.headers()) == (("X-Trace", "on"),)
    assert restored_two.dirty and getattr(restored_two, "spec_path", None) == spec
    assert restored_two.title().endswith(" *")
    assert not restored_clean.dirty and getattr(restored_clean, "spec_path", None) == spec
    assert second.current_tab() is restored_two
    assert "Restored 3 tab(s)" in second.statusBar().currentMessage()
    # The closed draft is still one Ctrl+Shift+T away.
    reopened = second.reopen_closed_tab()
    assert reopened is not None and reopened.body_editor.toPlainText() == '{"closed": true}'


def test_the_session_file_is_private_atomic_and_holds_no_secret(
    qtbot: Any, qloop: Any, windows: Callable[[], MainWindow]
) -> None:
    win = windows()
    tab = edit_tab(win, DRAFT, endpoint=f"http://alice:{TOKEN}-url@127.0.0.1:9/")
    # The Auth page, as a person fills it in.
    tab.editor_tabs.setCurrentWidget(tab.auth_panel)
    tab.auth_panel.set_kind(AuthKind.BEARER)
    token_edit = tab.auth_panel.bearer_token.edit
    assert isinstance(token_edit, QLineEdit)
    qtbot.keyClicks(token_edit, TOKEN)
    tab.headers_panel.add_header("Authorization", f"Bearer {TOKEN}-header")
    other = edit_tab(win, '{"other": 1}')
    other.auth_panel.set_kind(AuthKind.BASIC)
    other.auth_panel.basic_user.setText("alice")
    other.auth_panel.basic_password.edit.setText(TOKEN + "-password")
    win.tabs.tabCloseRequested.emit(win.tabs.indexOf(other))  # closed tabs are kept too
    close_window(qloop, win)

    path = session_path()
    raw = path.read_bytes()
    assert TOKEN.encode() not in raw
    assert b"draft \\u2713" in raw or "draft ✓".encode() in raw
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    names = [p.name for p in path.parent.iterdir() if not p.name.startswith("history.sqlite3")]
    assert names == [path.name]  # no temp file left (the history store lives beside it)
    data = json.loads(raw)
    assert data["tabs"][0]["dropped"] == ["auth token", "header Authorization", "endpoint"]
    assert data["tabs"][0]["draft"]["endpoint"].startswith("http://alice:{{")
    assert data["closed"][0]["draft"]["auth"]["params"] == [["username", "alice"], ["password", ""]]

    again = windows()
    restored = again.request_tabs()[0]
    assert restored.body_editor.toPlainText() == DRAFT
    assert restored.auth_panel.config().kind is AuthKind.BEARER
    assert restored.auth_panel.bearer_token.edit.text() == ""  # re-entered by the user
    assert "re-enter" in again.statusBar().currentMessage()


def test_autosave_writes_the_draft_without_closing_the_window(
    qtbot: Any, windows: Callable[[], MainWindow], wait_until: Callable[..., None]
) -> None:
    win = windows()
    tab = edit_tab(win, DRAFT)
    path = session_path()
    wait_until(lambda: path.exists() and b"draft" in path.read_bytes(), timeout=10)
    tab.body_editor.setPlainText('{"typed": "later"}')
    wait_until(lambda: b"later" in path.read_bytes(), timeout=10)


def test_an_unreadable_session_is_kept_aside_and_the_window_still_opens(
    qtbot: Any, windows: Callable[[], MainWindow]
) -> None:
    path = session_path()
    path.parent.mkdir(parents=True)
    path.write_text('{"schema_version": 1, "tabs": [', encoding="utf-8")
    win = windows()
    assert win.request_tabs() == []
    assert "kept as" in win.statusBar().currentMessage()
    kept = [p for p in path.parent.iterdir() if p.name.startswith("session.json.bad-")]
    assert len(kept) == 1 and kept[0].read_text(encoding="utf-8").startswith('{"schema')


def test_the_demo_tab_does_not_overwrite_a_restored_draft(
    qtbot: Any, qloop: Any, windows: Callable[[], MainWindow]
) -> None:
    first = windows()
    draft = first.new_a2a_tab()
    draft.body_editor.setPlainText(DRAFT)  # no endpoint: the demo would have reused it
    close_window(qloop, first)
    second = windows()
    info = {"jsonrpc_url": "http://127.0.0.1:9/", "base_url": "http://127.0.0.1:9"}
    second.on_demo_ready(info)
    bodies = [t.body_editor.toPlainText() for t in second.request_tabs()]
    assert bodies[0] == DRAFT and len(bodies) == 2
    # The untouched demo tab is not kept: the next start makes a fresh one.
    close_window(qloop, second)
    third = windows()
    assert [t.body_editor.toPlainText() for t in third.request_tabs()] == [DRAFT]


def test_restored_tabs_follow_the_demo_agent_to_its_new_ports(
    qtbot: Any, qloop: Any, windows: Callable[[], MainWindow]
) -> None:
    first = windows()
    old = {"jsonrpc_url": "http://127.0.0.1:1111/", "base_url": "http://127.0.0.1:1111",
           "grpc_target": "127.0.0.1:2222"}  # fmt: skip
    first.on_demo_ready(old)
    demo = first.current_tab()
    assert demo is not None
    demo.send_button.click()  # sending alone does not make the demo tab worth keeping
    qloop.run_until_complete(demo.shutdown())
    rest = edit_tab(first, DRAFT)
    rest.endpoint_edit.setText("http://127.0.0.1:1111/rest")
    grpc = edit_tab(first, DRAFT)
    grpc.endpoint_edit.setText("127.0.0.1:2222")
    close_window(qloop, first)

    second = windows()
    assert [t.endpoint_edit.text() for t in second.request_tabs()] == [
        "http://127.0.0.1:1111/rest",
        "127.0.0.1:2222",
    ]
    new = {"jsonrpc_url": "http://127.0.0.1:3333/", "base_url": "http://127.0.0.1:3333",
           "grpc_target": "127.0.0.1:4444"}  # fmt: skip
    second.on_demo_ready(new)
    assert [t.endpoint_edit.text() for t in second.request_tabs()] == [
        "http://127.0.0.1:3333/rest",
        "127.0.0.1:4444",
        "http://127.0.0.1:3333/",
    ]
