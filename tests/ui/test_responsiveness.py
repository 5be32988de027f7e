"""The window keeps repainting: a multi-megabyte paste into the body editor, and verifying
a card with hundreds of bad signatures (M6). Stalls are measured as bench/large_body.py
does: the longest gap between ticks of a 10 ms QTimer while the qasync loop runs."""

from __future__ import annotations

import asyncio
import base64
import json
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from jwcrypto import jwk
from PySide6.QtCore import QMimeData, QTimer
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton

from app.ui.card.signature_dialog import SignatureDialog
from app.ui.shell.main_window import MainWindow
from app.ui.shell.widgets import EDIT_HIGHLIGHT_CHARS, CodeView

pytestmark = pytest.mark.gui

# Generous: a 2-core box running other tests. Before the fix a 5 MB paste took ~2.5-3 s.
MAX_STALL_S = 1.5


class StallMeter:
    """The longest gap between ticks of a 10 ms timer (how long the GUI was frozen)."""

    def __init__(self) -> None:
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._tick)
        self.last = 0.0
        self.longest = 0.0

    def _tick(self) -> None:
        now = time.perf_counter()
        self.longest = max(self.longest, now - self.last)
        self.last = now

    def __enter__(self) -> StallMeter:
        self.last = time.perf_counter()
        self.timer.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._tick()
        self.timer.stop()


def big_json(chars: int) -> str:
    """Pretty-printed JSON-RPC of about ``chars`` characters, many lines (like a real paste)."""
    text = "lorem ipsum dolor sit amet, consectetur adipiscing elit " * 18
    items = [
        {"artifactId": f"a{i}", "parts": [{"text": text, "n": i, "ok": True}]}
        for i in range(chars // 1130)
    ]
    return json.dumps({"jsonrpc": "2.0", "id": 1, "params": {"items": items}}, indent=2)


def run_loop_for(qloop: asyncio.AbstractEventLoop, seconds: float) -> None:
    qloop.run_until_complete(asyncio.sleep(seconds))


def test_pasting_5_mb_into_the_body_editor_does_not_freeze_the_window(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, window: MainWindow
) -> None:
    tab = window.new_a2a_tab()
    editor = tab.body_editor
    assert editor.highlighting
    body = big_json(5 * 1024 * 1024)
    mime = QMimeData()
    mime.setText(body)
    timings: dict[str, float] = {}

    def paste() -> None:  # as Ctrl+V does, over the selected draft
        started = time.perf_counter()
        editor.selectAll()
        editor.insertFromMimeData(mime)
        timings["paste"] = time.perf_counter() - started

    with StallMeter() as meter:
        QTimer.singleShot(50, paste)
        run_loop_for(qloop, 0.6)

    print(f"5 MB paste: {timings['paste']:.2f} s, longest stall {meter.longest:.2f} s")
    assert editor.toPlainText() == body and tab.dirty
    assert not editor.highlighting, "highlighting is off past the size limit"
    assert meter.longest < MAX_STALL_S

    # Undo brings 5 MB back in one go, through the document, not a paste: still fast.
    with StallMeter() as meter:
        editor.selectAll()
        editor.textCursor().removeSelectedText()
        run_loop_for(qloop, 0.2)
        assert editor.highlighting, "back on once the text is small again"
        QTimer.singleShot(10, lambda: qtbot.keySequence(editor, QKeySequence.StandardKey.Undo))
        run_loop_for(qloop, 0.6)
    print(f"undo of a 5 MB delete: longest stall {meter.longest:.2f} s")
    assert len(editor.toPlainText()) == len(body)
    assert not editor.highlighting
    assert meter.longest < MAX_STALL_S


def test_highlighting_follows_the_size_with_hysteresis(qtbot: Any) -> None:
    view = CodeView("v", read_only=False)
    qtbot.addWidget(view)
    view.setPlainText("x" * (EDIT_HIGHLIGHT_CHARS + 10))
    assert not view.highlighting
    view.setPlainText("x" * (EDIT_HIGHLIGHT_CHARS - 10))  # under the limit, not under half
    assert not view.highlighting
    view.setPlainText('{"a": 1}')
    qtbot.waitUntil(lambda: view.highlighting, timeout=2000)  # on the next loop turn
    view.set_highlighting(False)  # an explicit "off" (streamed views) stays off
    view.setPlainText("{}")
    assert not view.highlighting
    plain = CodeView("p", read_only=True, json=False)
    qtbot.addWidget(plain)
    plain.setPlainText("x" * (EDIT_HIGHLIGHT_CHARS + 10))
    assert not plain.highlighting


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def bad_signature_card(count: int) -> tuple[dict[str, Any], str]:
    """A card with ``count`` ES256 signatures that do not verify, and a JWKS with their kid."""
    key = jwk.JWK.generate(kty="EC", crv="P-256", kid="k1")
    protected = _b64(json.dumps({"alg": "ES256", "kid": "k1", "typ": "JOSE"}).encode())
    card = {
        "name": "Many signatures",
        "description": "every signature is bad",
        "version": "1.0.0",
        "supportedInterfaces": [
            {"url": "http://127.0.0.1:9/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "capabilities": {"streaming": True},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "s", "description": "d", "tags": ["t"]}],
        "signatures": [
            {"protected": protected, "signature": _b64(i.to_bytes(4, "big") * 16)}
            for i in range(count)
        ],
    }
    jwks = json.dumps({"keys": [json.loads(key.export_public())]})
    return card, jwks


@pytest.fixture
def dialog(qtbot: Any, qloop: asyncio.AbstractEventLoop) -> Callable[[int], SignatureDialog]:
    def make(count: int) -> SignatureDialog:
        card, jwks = bad_signature_card(count)
        dlg = SignatureDialog(card, "test card")
        qtbot.addWidget(dlg)
        dlg.show()
        dlg.jwks_edit.set_text(jwks)
        return dlg

    return make


def test_verifying_many_signatures_runs_in_a_worker_and_the_dialog_stays_live(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, dialog: Callable[[int], SignatureDialog]
) -> None:
    dlg = dialog(400)
    button = dlg.findChild(QPushButton, "verifyButton")
    progress = dlg.findChild(QProgressBar, "verifyProgress")
    status = dlg.findChild(QLabel, "verifyStatusLabel")
    assert button is not None and progress is not None and status is not None
    with StallMeter() as meter:
        button.click()
        assert dlg.verifying and status.text() == "verifying…" and not progress.isHidden()
        assert button.text() == "Cancel"
        started = time.perf_counter()

        async def done() -> None:
            while dlg.verifying:
                await asyncio.sleep(0.02)

        qloop.run_until_complete(asyncio.wait_for(done(), 60))
    elapsed = time.perf_counter() - started
    print(f"400 bad signatures: {elapsed:.2f} s in the worker, longest stall {meter.longest:.2f} s")
    assert status.text() == "invalid"
    assert dlg.model.rowCount() == 400
    assert progress.isHidden() and button.text() == "Verify"
    assert meter.longest < 0.3


def test_closing_the_dialog_cancels_a_running_verification(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, dialog: Callable[[int], SignatureDialog]
) -> None:
    dlg = dialog(400)
    dlg.verify()
    run_loop_for(qloop, 0.1)
    assert dlg.verifying
    task = dlg._current
    dlg.close()
    run_loop_for(qloop, 0.05)
    assert task is not None and task.cancelled()
    assert not dlg.verifying and dlg.verification is None
    join_workers()


def join_workers() -> None:
    """Let an abandoned verification thread finish before the next test."""
    for thread in threading.enumerate():
        if thread.name.startswith("worker-"):
            thread.join(60)


def test_cancel_stops_waiting_and_verify_can_run_again(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, dialog: Callable[[int], SignatureDialog]
) -> None:
    dlg = dialog(50)
    button = dlg.findChild(QPushButton, "verifyButton")
    assert button is not None
    button.click()
    button.click()  # now "Cancel"
    run_loop_for(qloop, 0.05)
    assert not dlg.verifying
    assert "cancelled" in dlg.summary_label.text() and button.text() == "Verify"
    button.click()

    async def done() -> None:
        while dlg.verifying:
            await asyncio.sleep(0.02)

    qloop.run_until_complete(asyncio.wait_for(done(), 60))
    assert dlg.verification is not None and dlg.model.rowCount() == 50
    join_workers()
