"""Agent-supplied text cannot drive the user's terminal (issue 29, kind 1).

Pretty output is for people: every command shows control characters as escapes wherever
it goes (a terminal now, a log or a pager later). JSON lines stay the exact JSON value: to a
pipe as encoded, on a terminal with the characters JSON leaves raw spelled ``\\uNNNN``.
Messages on stderr that quote a server (OAuth errors, usage errors) are escaped too.
"""

from __future__ import annotations

import base64
import io
import json
import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jwcrypto import jwk

from app.commands.printer import Printer
from app.protocol.events import ErrorKind, ExchangeError
from tests.helpers.bad_server import Canned, bad_server

REPO = Path(__file__).resolve().parents[2]
HOSTILE = "\x1b]2;pwned\x07\x1b[2J\r\u202eevil\x9b31m\x00"
CARD_PATH = "GET /.well-known/agent-card.json"


def raw_controls(text: str) -> list[str]:
    """Control characters a terminal would act on (newlines and tabs are fine)."""
    return [
        c
        for c in text
        if (ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F or c in "\u202e\u2066"
    ]


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _printed(fmt: str, out: io.StringIO) -> str:
    Printer(fmt, out).emit(ExchangeError(0.0, ErrorKind.RPC, HOSTILE, code=-32603))
    return out.getvalue()


@pytest.mark.parametrize("out", [FakeTty(), io.StringIO()], ids=["terminal", "pipe"])
def test_pretty_output_escapes_control_characters_wherever_it_goes(out: io.StringIO) -> None:
    text = _printed("pretty", out)
    assert raw_controls(text) == []
    assert "\\x1b]2;pwned\\x07\\x1b[2J\\r\\u202eevil\\x9b31m\\x00" in text


def test_jsonl_on_a_terminal_is_the_same_json_without_raw_controls() -> None:
    text = _printed("jsonl", FakeTty())
    assert raw_controls(text) == []
    assert json.loads(text)["message"] == HOSTILE


def test_jsonl_to_a_pipe_is_exact_json() -> None:
    assert json.loads(_printed("jsonl", io.StringIO()))["message"] == HOSTILE


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        capture_output=True, text=True, cwd=REPO, timeout=120, env=env,
    )  # fmt: skip


@pytest.mark.peer
@pytest.mark.parametrize("peer", ["sdk_peer", "js_peer"])
@pytest.mark.parametrize("method", ["SendMessage", "SendStreamingMessage"])
def test_send_pretty_shows_a_real_agents_echo_escaped(
    peer: str, method: str, request: pytest.FixtureRequest
) -> None:
    # Both SDK agents echo what they are sent: the hostile text comes back from a real peer.
    info = request.getfixturevalue(peer)
    text = HOSTILE.replace("\x00", "")  # a command line holds no NUL
    proc = cli("send", info["jsonrpc_url"], "--method", method, "--text", text,
               "--output", "pretty", "--no-history")  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert raw_controls(proc.stdout) == []
    assert "\\u202eevil" in proc.stdout


def on_terminal(*args: str) -> tuple[int, str]:
    """Run a command with stdout on a pseudo-terminal; its exit status and what it printed
    (the line discipline's CRLF line ends read back as LF)."""
    primary, secondary = pty.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "app", *args],
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
    return proc.returncode, data.decode("utf-8", "replace").replace("\r\n", "\n")


def test_send_pretty_on_a_real_terminal() -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": HOSTILE}})
    with bad_server(Canned(body=body.encode())) as url:
        code, text = on_terminal("send", url, "--method", "SendMessage", "--output", "pretty",
                                 "--no-history")  # fmt: skip
    assert code == 1
    assert raw_controls(text) == [] and "\\x1b]2;pwned" in text


def _hostile_card(url: str) -> dict[str, Any]:
    return {
        "name": f"<b>Evil</b>{HOSTILE}",
        "description": HOSTILE,
        "version": "1",
        "supportedInterfaces": [
            {"url": f"{url}{HOSTILE}", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": HOSTILE, "description": "d", "tags": ["t"]}],
    }


def _agent(card: dict[str, Any] | None = None) -> Canned:
    """An agent whose every answer carries ``HOSTILE``: a JSON-RPC error to every call."""
    error = {"jsonrpc": "2.0", "id": None, "error": {"code": -32603, "message": HOSTILE}}
    canned = Canned(body=json.dumps(error).encode())
    if card is not None:
        canned.paths[CARD_PATH] = Canned(body=json.dumps(card).encode())
    return canned


def test_card_pretty_escapes_the_cards_text() -> None:
    canned = _agent()
    with bad_server(canned) as url:
        canned.paths[CARD_PATH] = Canned(body=json.dumps(_hostile_card(url)).encode())
        proc = cli("card", url, "--output", "pretty")
    assert raw_controls(proc.stdout) == [], proc.stdout
    assert "\\x1b]2;pwned" in proc.stdout


def test_check_pretty_escapes_the_agents_errors() -> None:
    canned = _agent()
    with bad_server(canned) as url:
        canned.paths[CARD_PATH] = Canned(body=json.dumps(_hostile_card(url)).encode())
        proc = cli("check", url, "--output", "pretty", "--timeout", "5", "--budget", "30",
                   "--no-history")  # fmt: skip
    assert raw_controls(proc.stdout + proc.stderr) == [], proc.stdout
    assert "\\x1b]2;pwned" in proc.stdout


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@pytest.mark.parametrize("fmt", ["pretty", "jsonl"])
def test_verify_escapes_the_signers_text(fmt: str, tmp_path: Path) -> None:
    header = {"alg": "ES256", "kid": HOSTILE, "jku": f"https://example.invalid/{HOSTILE}"}
    card = _hostile_card("http://127.0.0.1:1/")
    card["signatures"] = [{"protected": _b64(json.dumps(header).encode()), "signature": "AAAA"}]
    card_file = tmp_path / "card.json"
    card_file.write_text(json.dumps(card))
    jwks = tmp_path / "jwks.json"
    key = jwk.JWK.generate(kty="EC", crv="P-256", kid="another")
    jwks.write_text(json.dumps({"keys": [json.loads(key.export_public())]}))
    # jsonl is escaped on a terminal only
    code, text = on_terminal("verify", str(card_file), "--jwks", str(jwks), "--output", fmt)
    assert code == 4  # no key with that kid: no trusted key
    assert raw_controls(text) == [] and "pwned" in text


def test_history_show_pretty_escapes_what_was_recorded() -> None:
    with bad_server(_agent()) as url:
        sent = cli("send", url, "--method", "SendMessage", "--text", "hi")
    assert sent.returncode == 1, sent.stderr
    listed = [json.loads(line) for line in cli("history", "list").stdout.splitlines()]
    shown = cli("history", "show", str(listed[0]["id"]), "--output", "pretty")
    assert shown.returncode == 0, shown.stderr
    assert raw_controls(shown.stdout) == [] and "\\x1b]2;pwned" in shown.stdout


def test_oauth_errors_on_stderr_are_escaped() -> None:
    refusal = {"error": "invalid_client", "error_description": HOSTILE}
    server = Canned(status=400, body=json.dumps(refusal).encode())
    with bad_server(server) as url:
        proc = cli("send", url, "--method", "SendMessage", "--text", "hi", "--no-history",
                   "--oauth2", "client-credentials", "--token-url", f"{url}token",
                   "--client-id", "c", "--client-secret", "s")  # fmt: skip
    assert proc.returncode == 2
    assert "pwned" in proc.stderr and raw_controls(proc.stderr) == []
