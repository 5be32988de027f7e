"""Issue 29 kinds 4, 6 and 7 as the commands say them: duplicate member names (send, card,
verify, check), a card URL or an answer that is an HTML page, and network failures worded
exactly (a TLS handshake the server closes, an answer that is not HTTP)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.bad_server import Canned, bad_server
from tests.helpers.raw_server import hang_up, raw_server, ssh
from tests.helpers.sse_server import sse_server

REPO = Path(__file__).resolve().parents[2]
CARD_PATH = "GET /.well-known/agent-card.json"
SPA = b"<!doctype html><html><head><title>Shop</title></head><body><div id=app></div></html>"
HTML = {"Content-Type": "text/html; charset=utf-8"}


def cli(*args: str) -> tuple[int, list[dict[str, Any]], str]:
    proc = subprocess.run(
        [sys.executable, "-m", "app", *args],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return proc.returncode, records, proc.stdout + proc.stderr


def of(records: list[dict[str, Any]], key: str, value: str) -> list[dict[str, Any]]:
    return [r for r in records if r.get(key) == value]


def _card_text(url: str) -> bytes:
    card = {
        "name": "Good",
        "version": "1",
        "description": "d",
        "supportedInterfaces": [
            {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "s", "description": "d", "tags": ["t"]}],
    }
    text = json.dumps(card, indent=2)
    return text.replace('"name": "Good"', '"name": "Evil",\n  "name": "Good"', 1).encode()


# --- kind 4: duplicate member names -------------------------------------------------------


def test_send_reports_a_duplicate_member_of_the_answer_and_strict_fails_on_it() -> None:
    message = {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "x"}]}
    body = b'{"jsonrpc": "2.0",\n "id": @ID@,\n "id": @ID@,\n "result": {"message": '
    body += json.dumps(message).encode() + b"}}"
    with sse_server([body], content_type="application/json") as srv:
        code, records, _ = cli("send", srv.url, "--method", "SendMessage", "--text", "hi",
                               "--no-history")  # fmt: skip
        strict, _, _ = cli("send", srv.url, "--method", "SendMessage", "--text", "hi",
                           "--no-history", "--strict")  # fmt: skip
    (found,) = [r for r in records if r["event"] == "finding"]
    assert found["rule"] == "duplicate-member" and found["path"] == "$.id"
    assert found["severity"] == "error" and "lines 2 and 3" in found["message"]
    assert (code, strict) == (0, 2)


def test_card_and_check_name_the_duplicate_by_path_and_lines() -> None:
    canned = Canned()
    with bad_server(canned) as url:
        canned.paths[CARD_PATH] = Canned(body=_card_text(url))
        code, records, _ = cli("card", url)
        _, checked, _ = cli("check", url, "--no-history", "--budget", "20", "--timeout", "3")
    (problem,) = of(records, "path", "name")
    assert problem["severity"] == "error" and "lines 2 and 3" in problem["message"]
    assert code == 1  # problems
    (valid,) = of(checked, "id", "card.valid")
    assert valid["status"] == "fail" and "name" in valid["detail"]
    assert "lines 2 and 3" in valid["detail"]


# --- kind 7: an HTML page where a card or an answer was due -------------------------------


def test_card_verify_and_check_say_the_card_url_returned_html(tmp_path: Path) -> None:
    jwks = tmp_path / "jwks.json"
    jwks.write_text('{"keys": [{"kty": "oct", "k": "AAAA", "kid": "k"}]}')
    with bad_server(Canned(headers=HTML, body=SPA)) as url:
        card_code, _, card_text = cli("card", url, "--output", "pretty")
        verify_code, _, verify_text = cli("verify", url, "--jwks", str(jwks))
        _, checked, _ = cli("check", url, "--no-history", "--budget", "20")
    wanted = "returned HTML (status 200), not an Agent Card"
    assert card_code == 2 and wanted in card_text and "Expecting value" not in card_text
    assert verify_code == 2 and wanted in verify_text  # no card where it should be: exit 2
    (available,) = of(checked, "id", "card.available")
    assert wanted in available["detail"]


@pytest.mark.parametrize("binding", ["JSONRPC", "HTTP+JSON"])
def test_send_says_the_answer_is_an_html_page_status_and_media_type_first(binding: str) -> None:
    with bad_server(Canned(headers=HTML, body=SPA)) as url:
        code, records, _ = cli("send", url, "--method", "SendMessage", "--text", "hi",
                               "--binding", binding, "--no-history")  # fmt: skip
    (error,) = of(records, "event", "error")
    assert code == 2 and error["message"].startswith(
        "HTTP 200 OK, text/html: the server returned an HTML page (“Shop”), not "
    )


# --- kind 6: network failures worded exactly ----------------------------------------------


def test_send_and_card_say_the_server_closed_the_tls_handshake() -> None:
    with raw_server(hang_up) as port:
        _, records, _ = cli("send", f"https://127.0.0.1:{port}/", "--method", "SendMessage",
                            "--text", "hi", "--no-history")  # fmt: skip
        _, card, _ = cli("card", f"https://127.0.0.1:{port}/")
    wanted = "the server closed the connection during the TLS handshake"
    assert wanted in of(records, "event", "error")[0]["message"]
    assert wanted in card[-1]["message"]


def test_send_and_card_say_the_answer_is_not_http() -> None:
    with raw_server(ssh) as port:
        _, records, _ = cli("send", f"http://127.0.0.1:{port}/", "--method", "SendMessage",
                            "--text", "hi", "--no-history")  # fmt: skip
        _, card, _ = cli("card", f"http://127.0.0.1:{port}/")
    wanted = 'the server\'s answer is not HTTP (it begins "SSH-2.0-OpenSSH_9.6")'
    assert wanted in of(records, "event", "error")[0]["message"]
    assert wanted in card[-1]["message"]
