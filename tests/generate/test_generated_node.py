"""A generated Node.js project, for real: installed from the npm registry, started, and
driven with our own ``send`` and ``verify`` on every binding; then its own ``npm test``.

Slow (an ``npm install``, about 10 s, once per session): marker ``generated``.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from jwcrypto import jwk

from app.commands.verify import main as verify_main
from app.generate.node_project import write_project
from tests.generate.plans import demo_plan
from tests.peers.launch import PeerProcess, start_peer

pytestmark = [pytest.mark.generated, pytest.mark.peer, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]
TOKEN = secrets.token_urlsafe(32)
ALLOWED_ORIGIN = "https://app.example.com"


@pytest.fixture(scope="session")
def node_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    npm = shutil.which("npm")
    if shutil.which("node") is None or npm is None:
        pytest.skip("node/npm are not installed")
    project = tmp_path_factory.mktemp("node-agent")
    write_project(demo_plan(), project, force=True)
    subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=project,
        check=True,
        timeout=300,
        capture_output=True,
    )
    return project


def _start(project: Path, **env: str) -> PeerProcess:
    full = {
        **os.environ,
        "A2A_TOKEN": TOKEN,
        "HOST": "127.0.0.1",
        "PORT": "0",
        "GRPC_PORT": "0",
        **env,
    }
    return start_peer(["node", "src/main.mjs"], env=full, cwd=str(project), timeout=30)


@pytest.fixture(scope="module")
def signing_key(tmp_path_factory: pytest.TempPathFactory) -> Path:
    key = jwk.JWK.generate(kty="EC", crv="P-256", kid="generated-test")
    path = tmp_path_factory.mktemp("key") / "signing.jwk.json"
    path.write_text(key.export_private())
    return path


@pytest.fixture(scope="module")
def server(node_project: Path, signing_key: Path) -> Iterator[dict[str, Any]]:
    peer = _start(
        node_project,
        SIGNING_JWK_FILE=str(signing_key),
        CORS_ORIGINS=ALLOWED_ORIGIN,
        MAX_BODY_BYTES="20000",
    )
    yield peer.info
    assert peer.stop() == 0, peer.stderr_text()


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # The server gave up on the handler (deadline, shutdown): a broken pipe is expected.
        pass


class _SlowHandler:
    """The user's HTTP handler, answering only after ``delay`` seconds (or at teardown)."""

    def __init__(self, delay: float) -> None:
        release = self.release = threading.Event()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                release.wait(delay)
                body = json.dumps({"parts": [{"text": "late"}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


@pytest.fixture
def slow_handler() -> Iterator[_SlowHandler]:
    handler = _SlowHandler(delay=30)
    yield handler
    handler.close()


def _send(*args: str) -> tuple[int, list[dict[str, Any]]]:
    proc = subprocess.run(
        [sys.executable, "-m", "app", "send", *args, "--no-history", "--output", "jsonl"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    return proc.returncode, lines


def _final_task(lines: list[dict[str, Any]]) -> dict[str, Any]:
    body = next(line for line in lines if line["event"] == "response")["body"]
    result = body.get("result", body)
    return result["task"]


@pytest.mark.parametrize(
    ("binding", "where"),
    [("JSONRPC", "/"), ("HTTP+JSON", "/rest"), ("GRPC", None)],
)
def test_every_binding_answers_our_send(
    server: dict[str, Any], binding: str, where: str | None
) -> None:
    url = server["grpcTarget"] if where is None else server["baseUrl"] + where
    args = [url, "--binding", binding, "--method", "SendMessage", "--text", "hello"]
    code, lines = _send(*args, f"--bearer={TOKEN}")
    assert code == 0, lines
    task = _final_task(lines)
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    assert task["artifacts"][0]["parts"] == [{"text": "hello"}]
    # Without the token: refused on every binding.
    code, lines = _send(*args)
    assert code != 0
    assert lines[-1]["outcome"] != "ok"


@pytest.mark.parametrize(
    ("binding", "where"),
    [("JSONRPC", "/"), ("HTTP+JSON", "/rest"), ("GRPC", None)],
)
def test_streaming_on_every_binding(
    server: dict[str, Any], binding: str, where: str | None
) -> None:
    url = server["grpcTarget"] if where is None else server["baseUrl"] + where
    code, lines = _send(
        url,
        "--binding",
        binding,
        "--method",
        "SendStreamingMessage",
        "--text",
        "stream me",
        f"--bearer={TOKEN}",  # "=": a token may begin with "-"
    )
    assert code == 0, lines
    items = [line for line in lines if line["event"] == "item"]
    assert [item["kind"] for item in items] == [
        "task",
        "status-update",
        "artifact-update",
        "status-update",
    ]
    assert [item["state"] for item in items] == ["submitted", "working", None, "completed"]


def _verify(
    card_url: str, jwks_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jwks = httpx.get(jwks_url).json()
    assert "d" not in jwks["keys"][0]  # only the public key is published
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps(jwks))
    assert verify_main([card_url, "--jwks", str(path)]) == 0, capsys.readouterr().out


def test_the_signed_card_verifies_against_the_published_jwks(
    server: dict[str, Any], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _verify(server["cardUrl"], server["jwksUrl"], tmp_path, capsys)


@pytest.mark.parametrize(
    "key",
    [{"kty": "RSA", "size": 2048}, {"kty": "OKP", "crv": "Ed25519"}],
    ids=["RS256", "EdDSA"],
)
def test_rs256_and_eddsa_cards_verify_too(
    node_project: Path, key: dict[str, Any], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "signing.jwk.json"
    path.write_text(jwk.JWK.generate(**key).export_private())
    peer = _start(node_project, SIGNING_JWK_FILE=str(path))
    try:
        _verify(peer.info["cardUrl"], peer.info["jwksUrl"], tmp_path, capsys)
    finally:
        assert peer.stop() == 0


@pytest.fixture(scope="module")
def compat_server(
    node_project: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """A project generated with 0.3 compatibility; it shares the installed packages."""
    project = tmp_path_factory.mktemp("node-agent-compat")
    write_project(demo_plan(compat_v03=True), project, force=True)
    (project / "node_modules").symlink_to(node_project / "node_modules", target_is_directory=True)
    peer = _start(project)
    yield peer.info
    assert peer.stop() == 0, peer.stderr_text()


@pytest.mark.parametrize(
    ("binding", "where"),
    [("JSONRPC", "/"), ("HTTP+JSON", "/rest"), ("GRPC", None)],
)
def test_0_3_clients_on_every_binding(
    compat_server: dict[str, Any], binding: str, where: str | None
) -> None:
    url = compat_server["grpcTarget"] if where is None else compat_server["baseUrl"] + where
    code, lines = _send(
        url, "--binding", binding, "--version", "0.3", "--method", "message/send",
        "--text", "old client", f"--bearer={TOKEN}",
    )  # fmt: skip
    assert code == 0, lines
    body = next(line for line in lines if line["event"] == "response")["body"]
    task = body.get("result", body)
    task = task.get("task", task)
    assert task["status"]["state"] in ("completed", "TASK_STATE_COMPLETED")


def test_cors_only_for_the_listed_origin(server: dict[str, Any]) -> None:
    def preflight(origin: str) -> httpx.Response:
        return httpx.options(
            server["baseUrl"] + "/",
            headers={"Origin": origin, "Access-Control-Request-Method": "POST"},
        )

    allowed = preflight(ALLOWED_ORIGIN)
    assert allowed.status_code == 204
    assert allowed.headers["access-control-allow-origin"] == ALLOWED_ORIGIN
    other = preflight("https://elsewhere.example")
    assert not [h for h in other.headers if h.lower().startswith("access-control-")]


def test_an_oversized_body_gets_413(server: dict[str, Any]) -> None:
    message = {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x" * 30000}]}
    response = httpx.post(
        server["baseUrl"] + "/",
        json={"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}},
        headers={"Authorization": f"Bearer {TOKEN}", "A2A-Version": "1.0"},
    )
    assert response.status_code == 413


def test_a_short_token_refuses_to_start(node_project: Path) -> None:
    env = {**os.environ, "A2A_TOKEN": "short-token", "PORT": "0", "GRPC_PORT": "0"}
    proc = subprocess.run(
        ["node", "src/main.mjs"],
        cwd=node_project,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 2
    assert "A2A_TOKEN has 11 characters" in proc.stderr
    assert proc.stdout == ""


def test_a_slow_handler_hits_the_deadline(node_project: Path, slow_handler: _SlowHandler) -> None:
    peer = _start(node_project, HANDLER_URL=slow_handler.url, HANDLER_TIMEOUT_S="0.5")
    try:
        _, lines = _send(
            peer.info["baseUrl"] + "/",
            "--method",
            "SendMessage",
            "--text",
            "hi",
            "--bearer",
            TOKEN,
        )
        assert lines[-1]["elapsed_ms"] < 4000  # the handler would have taken 30 s
        task = _final_task(lines)
        assert task["status"]["state"] == "TASK_STATE_FAILED"
        text = task["status"]["message"]["parts"][0]["text"]
        assert "did not answer within 0.5 s" in text
    finally:
        assert peer.stop() == 0


def test_sigterm_with_a_stream_open_exits_cleanly(
    node_project: Path, slow_handler: _SlowHandler
) -> None:
    peer = _start(node_project, HANDLER_URL=slow_handler.url)
    message = {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "wait"}]}
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SendStreamingMessage",
        "params": {"message": message},
    }
    headers = {"Authorization": f"Bearer {TOKEN}", "A2A-Version": "1.0"}
    with httpx.stream("POST", peer.info["baseUrl"] + "/", json=request, headers=headers) as stream:
        lines = stream.iter_lines()
        assert next(line for line in lines if line.startswith("data:"))  # the task is open
        started = time.monotonic()
        peer.proc.terminate()
        rest = [line for line in lines if line.startswith("data:")]
        assert peer.proc.wait(10) == 0
        assert time.monotonic() - started < 5
    assert "shutting down" in rest[-1]
    peer.stop()


def test_its_own_test_suite_passes(node_project: Path) -> None:
    npm = shutil.which("npm")
    assert npm is not None
    proc = subprocess.run(
        [npm, "test"], cwd=node_project, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout


@pytest.mark.parametrize("which", ["server", "compat_server"])
def test_check_finds_nothing_to_fail_or_warn(request: pytest.FixtureRequest, which: str) -> None:
    """Our own `check` on the generated server (1.0, and 0.3 too): no failure, no warning;
    its errors follow one table, v1.0.1 (the README says so)."""
    server: dict[str, Any] = request.getfixturevalue(which)
    proc = subprocess.run(
        [sys.executable, "-m", "app", "check", server["cardUrl"], f"--bearer={TOKEN}",
         "--no-history", "--timeout", "5"],
        capture_output=True, text=True, cwd=REPO, timeout=300,
    )  # fmt: skip
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    findings = [r for r in records if r["event"] == "finding"]
    problems = [
        (r["id"], r["interface"], r["detail"]) for r in findings if r["status"] in ("fail", "warn")
    ]
    assert problems == [], proc.stdout + proc.stderr
    assert proc.returncode == 0, proc.stderr
    (table,) = (r for r in findings if r["id"] == "errors.table")
    assert table["detail"].startswith("the agent follows the A2A v1.0.1 error table"), table
    passed = {r["id"] for r in findings if r["status"] == "pass"}
    assert {
        "card.caching",
        "core.content-type",
        "errors.content-type",
        "errors.list-filter",
        "errors.invalid-request",
        "push.not-supported",
        "core.history-length",
    } <= passed
