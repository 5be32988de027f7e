"""``a2a-workbench card``: discovery rules, shape, picked interfaces, problems, exit codes."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]

Route = tuple[int, dict[str, str], bytes]


def card_cli(*args: str) -> tuple[int, list[dict[str, Any]], str]:
    proc = subprocess.run(
        [sys.executable, "-m", "app", "card", *args],
        capture_output=True, text=True, cwd=REPO, timeout=60,
    )  # fmt: skip
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return proc.returncode, lines, proc.stdout + proc.stderr


@contextmanager
def stub(routes: dict[str, Route]) -> Iterator[tuple[str, list[tuple[str, dict[str, str]]]]]:
    """A loopback server answering ``routes`` by path (404 otherwise); records requests."""
    seen: list[tuple[str, dict[str, str]]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append((self.path, dict(self.headers)))
            status, headers, body = routes.get(self.path, (404, {}, b"not found"))
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


CARD_03 = {
    "name": "legacy", "description": "d", "version": "1", "url": "http://127.0.0.1:1/a2a",
    "preferredTransport": "JSONRPC", "protocolVersion": "0.3.0", "capabilities": {},
    "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": [],
}  # fmt: skip
JSON = {"Content-Type": "application/json"}


@pytest.mark.peer
@pytest.mark.parametrize("peer", ["sdk_peer", "js_peer"])
def test_a_peer_card_is_valid_with_picks(peer: str, request: pytest.FixtureRequest) -> None:
    info = request.getfixturevalue(peer)
    code, lines, text = card_cli(info["base_url"])
    assert code == 0, text
    card = lines[0]
    assert card["event"] == "card" and card["status"] == 200
    assert card["url"].endswith("/.well-known/agent-card.json")
    assert card["shape"] in ("pure 1.0", "hybrid", "pure 0.3")
    assert card["picked"]["1.0"] is not None or card["picked"]["0.3"] is not None
    assert lines[-1]["event"] == "end" and lines[-1]["outcome"] == "valid"
    assert not [line for line in lines if line.get("severity") == "error"]
    code, _, pretty = card_cli(info["base_url"], "--output", "pretty")
    assert code == 0 and "shape:" in pretty and "client's pick" in pretty


def test_sdk_peer_card_is_hybrid_with_both_picks(sdk_peer: dict[str, Any]) -> None:
    code, lines, text = card_cli(sdk_peer["card_url"])
    assert code == 0, text
    card = lines[0]
    picked = card["picked"]
    assert card["interfaces"][picked["1.0"]]["protocol_version"].startswith("1.0")
    if card["shape"] == "hybrid":
        assert card["interfaces"][picked["0.3"]]["protocol_version"].startswith("0.3")


def test_a_redirect_is_reported_not_followed() -> None:
    routes = {"/.well-known/agent-card.json": (302, {"Location": "/elsewhere.json"}, b""),
              "/elsewhere.json": (200, JSON, json.dumps(CARD_03).encode())}  # fmt: skip
    with stub(routes) as (base, seen):
        code, lines, text = card_cli(base + "/")
    assert code == 2, text
    assert lines[-1]["location"] == f"{base}/elsewhere.json"
    assert [path for path, _ in seen] == ["/.well-known/agent-card.json"]


def test_the_legacy_path_only_after_a_404() -> None:
    routes = {"/.well-known/agent.json": (200, JSON, json.dumps(CARD_03).encode())}
    with stub(routes) as (base, seen):
        code, lines, text = card_cli(base, "--a2a-version", "none")
    assert code == 0, text
    assert [p for p, _ in seen] == ["/.well-known/agent-card.json", "/.well-known/agent.json"]
    assert lines[0]["shape"] == "pure 0.3" and lines[0]["picked"] == {"1.0": None, "0.3": 0}
    assert all("a2a-version" not in {k.lower() for k in h} for _, h in seen)


def test_no_legacy_try_after_another_error() -> None:
    routes = {"/.well-known/agent-card.json": (500, {}, b"boom")}
    with stub(routes) as (base, seen):
        code, lines, _ = card_cli(base)
    assert code == 2 and lines[-1]["status"] == 500
    assert [p for p, _ in seen] == ["/.well-known/agent-card.json"]


def test_a_full_card_url_is_fetched_as_given_with_its_etag() -> None:
    routes = {"/cards/x.json?v=2": (200, {**JSON, "ETag": '"abc"'}, json.dumps(CARD_03).encode())}
    with stub(routes) as (base, seen):
        code, _, text = card_cli(base + "/cards/x.json?v=2", "--output", "pretty")
    assert code == 0, text
    assert [p for p, _ in seen] == ["/cards/x.json?v=2"]
    assert 'ETag: "abc"' in text


@pytest.mark.parametrize("encoding", ["identity", "gzip"])
def test_an_oversized_card_is_not_read(encoding: str) -> None:
    big = json.dumps({**CARD_03, "description": "x" * (2 * 1024 * 1024)}).encode()
    headers = dict(JSON)
    if encoding == "gzip":
        big, headers["Content-Encoding"] = gzip.compress(big), "gzip"
    with stub({"/c.json": (200, headers, big)}) as (base, _):
        code, lines, text = card_cli(base + "/c.json")
    assert code == 2, text
    assert lines[-1]["outcome"] == "not_fetched"


def test_no_credentials_are_sent() -> None:
    with stub({"/c.json": (200, JSON, json.dumps(CARD_03).encode())}) as (base, seen):
        code, lines, text = card_cli(base.replace("http://", "http://u:pw-9988@") + "/c.json")
        card_cli(base + "/c.json")
    assert code == 2 and "user info" in lines[-1]["message"]
    assert "pw-9988" not in text
    assert len(seen) == 1 and all("authorization" not in {k.lower() for k in h} for _, h in seen)


def test_files_relative_urls_problems_and_not_a_card(tmp_path: Path) -> None:
    card = {
        **CARD_03,
        "url": "/a2a",
        "additionalInterfaces": [{"url": "/x", "transport": "JSONRPC"}],
    }
    path = tmp_path / "c.json"
    path.write_text(json.dumps(card), encoding="utf-8")
    code, lines, _ = card_cli(str(path))
    assert code == 1
    assert all(i["relative"] for i in lines[0]["interfaces"])
    assert {"url"} <= {line["path"] for line in lines if line["event"] == "problem"}
    path.write_text("[1, 2]", encoding="utf-8")
    assert card_cli(str(path))[0] == 2
    path.write_text("{oops", encoding="utf-8")
    assert card_cli(str(path))[0] == 2
    # No such file (or a typo for a URL): the command line is wrong, not the agent.
    assert card_cli(str(tmp_path / "missing.json"))[0] == 3
    assert card_cli("not a url")[0] == 3
    assert card_cli()[0] == 3
    assert card_cli(str(path), "--a2a-version", "2.0")[0] == 3


def test_an_unknown_field_is_a_note_and_the_card_stays_valid(tmp_path: Path) -> None:
    # A2A 1.0 §5.7: implementations SHOULD ignore unrecognized fields (it was an error, exit 1).
    card = {
        "name": "n", "description": "d", "version": "1",
        "supportedInterfaces": [
            {"url": "http://127.0.0.1:1/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "capabilities": {"streaming": True}, "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "s", "description": "s", "tags": ["t"]}],
        "vendorExtra": {"anything": 1},
    }  # fmt: skip
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card), encoding="utf-8")
    code, lines, _ = card_cli(str(path))
    assert code == 0
    (note,) = [line for line in lines if line["event"] == "problem"]
    assert (note["path"], note["severity"]) == ("vendorExtra", "info")
    assert lines[-1]["outcome"] == "valid"
