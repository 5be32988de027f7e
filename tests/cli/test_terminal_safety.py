"""Agent-supplied text cannot drive the user's terminal: control characters printed to a
TTY are shown as escapes (``--output pretty`` and ``jsonl`` alike); pipes get exact text."""

from __future__ import annotations

import io
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from app.commands.printer import Printer, neutralise_controls
from app.protocol.events import ErrorKind, ExchangeError
from tests.helpers.bad_server import Canned, bad_server

REPO = Path(__file__).resolve().parents[2]
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\r\u202eevil\x9b31m\x00"


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _printed(fmt: str, out: io.StringIO) -> str:
    Printer(fmt, out).emit(ExchangeError(0.0, ErrorKind.RPC, HOSTILE, code=-32603))
    return out.getvalue()


@pytest.mark.parametrize("fmt", ["pretty", "jsonl"])
def test_a_terminal_never_receives_control_characters(fmt: str) -> None:
    text = _printed(fmt, FakeTty())
    assert not any((ord(c) < 32 and c != "\n") or 0x7F <= ord(c) <= 0x9F for c in text)
    assert "\u202e" not in text
    assert "\\u001b]0;pwned" in text
    if fmt == "jsonl":
        assert json.loads(text)["message"] == HOSTILE  # still the same JSON value


def test_a_pipe_gets_the_exact_text() -> None:
    assert HOSTILE in _printed("pretty", io.StringIO())


def test_neutralise_keeps_newlines_tabs_and_ordinary_unicode() -> None:
    assert neutralise_controls("a\tb\nç✓ 日本") == "a\tb\nç✓ 日本"


def test_send_pretty_on_a_real_terminal() -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": HOSTILE}})
    with bad_server(Canned(body=body.encode())) as url:
        primary, secondary = pty.openpty()
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "app", "send", url, "--method", "SendMessage",
                 "--output", "pretty"],
                stdout=secondary, stderr=subprocess.DEVNULL, cwd=REPO, timeout=60,
            )  # fmt: skip
            os.close(secondary)
            data = b""
            while True:
                try:
                    chunk = os.read(primary, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                data += chunk
        finally:
            os.close(primary)
    assert proc.returncode == 1
    assert b"\x1b" not in data and b"\x07" not in data
    assert b"\\u001b]0;pwned" in data
