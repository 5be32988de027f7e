"""The generated Python project, for real: generated from the demo agent's card (fetched
with ``generate-server --from URL --compat-0.3``), pip-installed into a fresh venv, started,
and driven with our own ``send`` (all three bindings, 1.0 and 0.3, streaming), ``verify``
(its signed card against its published JWKS) and ``run``; then its own test suite, and the
refusals: a short token, a disallowed origin, an oversized body, a slow handler past the
deadline, SIGTERM with a stream open.

Slow (one pip install from the registry, about 35 s with a warm pip cache, plus the
project's own tests; about 90 s in all): marked ``generated``.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
import venv
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from jwcrypto import jwk

from app.protocol.types import Binding, ProtocolVersion
from app.spec.document import SpecDocument
from app.spec.xa2a import SavedAuth, SavedRequest
from tests.helpers.bindings import STANDARD_BINDINGS

pytestmark = [pytest.mark.generated, pytest.mark.peer, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]
TOKEN = secrets.token_urlsafe(32)
SLOW_S = 6.0
_CLEAN = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def _run(cmd: list[str], timeout: float = 300, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kwargs)


def _cli(*args: str) -> tuple[int, list[dict[str, Any]], str]:
    """Our own CLI (``python -m app``), with its JSON records parsed; returns ``(exit status,
    records, stdout + stderr)``. A subprocess each: the commands bind ``sys.stdout`` once."""
    proc = _run([sys.executable, "-m", "app", *args], timeout=120, cwd=REPO)
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return proc.returncode, records, proc.stdout + proc.stderr


@dataclass
class Project:
    root: Path
    python: Path
    timings: dict[str, float]


@pytest.fixture(scope="session")
def project(sdk_peer: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Project:
    """The project generated from the demo agent's card, installed with its test extra."""
    base = tmp_path_factory.mktemp("generated")
    root = base / "server"
    timings: dict[str, float] = {}
    started = time.monotonic()
    code, _, output = _cli(
        "generate-server", "--from", sdk_peer["base_url"], "--lang", "python", "--out", str(root),
        "--compat-0.3",
    )  # fmt: skip
    timings["generate_s"] = time.monotonic() - started
    assert code == 0, output
    assert "python -m agent_server" in output
    started = time.monotonic()
    venv.EnvBuilder(with_pip=False, symlinks=True).create(base / "venv")
    python = base / "venv" / "bin" / "python"
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-input"]
    proc = _run([*install, "--quiet", "-e", f"{root}[test]"], env=_CLEAN)
    timings["install_s"] = time.monotonic() - started
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return Project(root, python, timings)


class Server:
    """The generated server in a subprocess; ``ready`` is its ready line."""

    def __init__(self, project: Project, **env: str) -> None:
        full = _CLEAN | {"A2A_TOKEN": TOKEN, "PORT": "0", "GRPC_PORT": "0", **env}
        self.process = subprocess.Popen(
            [str(project.python), "-m", "agent_server"],
            env=full,
            cwd=project.root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, self.stop()
        self.ready: dict[str, Any] = json.loads(line)
        self.url: str = self.ready["url"]

    def stop(self) -> str:
        if self.process.poll() is None:
            self.process.terminate()
        try:
            _, err = self.process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, err = self.process.communicate()
        return err


class _SlowHandler(BaseHTTPRequestHandler):
    """HANDLER_URL that answers after SLOW_S seconds."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        threading.Event().wait(SLOW_S)
        data = json.dumps({"parts": [{"text": "late"}]}).encode()
        try:
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass  # the server gave up waiting: that is the point

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="session")
def slow_handler() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _SlowHandler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="session")
def signed(project: Project, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The server with a signing key (ES256) and the built-in echo."""
    key = tmp_path_factory.mktemp("key") / "signing.jwk"
    key.write_text(jwk.JWK.generate(kty="EC", crv="P-256").export_private(), encoding="utf-8")
    server = Server(project, SIGNING_JWK_FILE=str(key))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def limited(project: Project, slow_handler: str) -> Iterator[Server]:
    """The server with the slow handler, a 1 s deadline, small bodies, one allowed origin."""
    server = Server(
        project,
        HANDLER_URL=slow_handler,
        HANDLER_TIMEOUT_S="1",
        MAX_BODY_BYTES="4096",
        CORS_ORIGINS="https://allowed.example",
    )
    yield server
    server.stop()


def _final_state(records: list[dict[str, Any]]) -> tuple[str, str]:
    """The last state and its summary from ``send``'s records (stream items or the body)."""
    items = [r for r in records if r["event"] == "item"]
    if items:
        return items[-1]["state"], items[-1]["summary"]
    (response,) = (r for r in records if r["event"] == "response")
    body = response["body"]
    task = body.get("result", body)["task"]
    return task["status"]["state"], task["status"]["message"]["parts"][0]["text"]


@pytest.mark.parametrize("binding", STANDARD_BINDINGS)
@pytest.mark.parametrize("method", ["SendMessage", "SendStreamingMessage"])
def test_every_binding_answers_our_send(signed: Server, binding: Binding, method: str) -> None:
    url = {
        Binding.JSONRPC: signed.url + "/",
        Binding.HTTP_JSON: signed.url + "/rest",
        Binding.GRPC: signed.ready["grpc_target"],
    }[binding]
    args = ["send", url, "--binding", binding.value, "--method", method, "--no-history"]
    code, records, output = _cli(*args, "--text", "hello there", f"--bearer={TOKEN}")
    assert code == 0, output
    state, text = _final_state(records)
    assert state in ("completed", "TASK_STATE_COMPLETED"), output
    assert "hello there" in text
    if method == "SendMessage":
        refused, records, output = _cli(*args, "--text", "hi")
        assert refused != 0, output
        assert "401" in output or "UNAUTHENTICATED" in output


@pytest.mark.parametrize("binding", STANDARD_BINDINGS)
def test_every_binding_answers_a_03_client(signed: Server, binding: Binding) -> None:
    url = {
        Binding.JSONRPC: signed.url + "/",
        Binding.HTTP_JSON: signed.url + "/rest",
        Binding.GRPC: signed.ready["grpc_target"],
    }[binding]
    code, records, output = _cli(
        "send", url, "--version", "0.3", "--binding", binding.value, "--method", "message/stream",
        "--text", "old client", f"--bearer={TOKEN}", "--no-history",
    )  # fmt: skip
    assert code == 0, output
    assert _final_state(records)[0] == "completed", output


def test_the_signed_card_verifies_against_the_published_jwks(
    signed: Server, tmp_path: Path
) -> None:
    jwks = httpx.get(signed.url + "/.well-known/jwks.json", timeout=10)
    assert jwks.status_code == 200
    path = tmp_path / "jwks.json"
    path.write_bytes(jwks.content)
    code, records, output = _cli("verify", signed.ready["card_url"], "--jwks", str(path))
    assert code == 0, output
    (signature,) = (r for r in records if r["event"] == "signature")
    assert signature["verdict"] == "valid", output
    card = httpx.get(signed.ready["card_url"], timeout=10).json()
    assert card["name"] == "A2A Workbench demo agent"
    # The one scheme the server implements (a 0.3 client also gets its 0.3 spelling).
    assert set(card["securitySchemes"]) == {"bearerAuth"}
    assert card["securitySchemes"]["bearerAuth"]["httpAuthSecurityScheme"] == {"scheme": "bearer"}


def test_run_sends_a_saved_request(signed: Server, tmp_path: Path) -> None:
    doc = SpecDocument.new()
    doc.upsert(
        SavedRequest(
            name="hello",
            version=ProtocolVersion.V1_0,
            binding=Binding.JSONRPC,
            endpoint=signed.url + "/",
            method="SendMessage",
            body=json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "SendMessage",
                    "params": {
                        "message": {
                            "messageId": "m1",
                            "role": "ROLE_USER",
                            "parts": [{"text": "run"}],
                        }
                    },
                }
            ),
            auth=SavedAuth("bearer", (("token", "{{token}}"),)),
        )
    )
    spec = doc.save(tmp_path / "spec.yaml")
    code, records, output = _cli("run", str(spec), "--var", f"token={TOKEN}", "--no-history")
    assert code == 0, output
    assert _final_state(records) == ("TASK_STATE_COMPLETED", "run")


def test_the_projects_own_tests_pass(project: Project) -> None:
    started = time.monotonic()
    proc = _run([str(project.python), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                cwd=project.root, env=_CLEAN)  # fmt: skip
    project.timings["own_tests_s"] = time.monotonic() - started
    assert proc.returncode == 0, proc.stdout + proc.stderr
    print(f"generated project timings: {project.timings}")


@pytest.mark.parametrize("token", ["too-short", "x" * 40, "abcdefghijklmnopqrstuvwxyzABCDEFGH"])
def test_a_weak_token_refuses_to_start(project: Project, token: str) -> None:
    proc = _run([str(project.python), "-m", "agent_server"], timeout=60, cwd=project.root,
                env=_CLEAN | {"A2A_TOKEN": token, "PORT": "0", "GRPC_PORT": "0"})  # fmt: skip
    assert proc.returncode == 2
    assert "configuration error: A2A_TOKEN" in proc.stderr
    assert proc.stdout == ""


def test_a_disallowed_origin_gets_no_cors_headers(limited: Server, signed: Server) -> None:
    def preflight(server: Server, origin: str) -> httpx.Headers:
        headers = {"Origin": origin, "Access-Control-Request-Method": "POST"}
        return httpx.options(server.url + "/", headers=headers, timeout=10).headers

    allowed = preflight(limited, "https://allowed.example")
    assert allowed["access-control-allow-origin"] == "https://allowed.example"
    assert "access-control-allow-origin" not in preflight(limited, "https://evil.example")
    assert "access-control-allow-origin" not in preflight(signed, "https://allowed.example")


def test_an_oversized_body_gets_413(limited: Server) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"x": "y" * 5000}}
    headers = {"Authorization": f"Bearer {TOKEN}", "A2A-Version": "1.0"}
    response = httpx.post(limited.url + "/", json=body, headers=headers, timeout=10)
    assert response.status_code == 413


def test_a_slow_handler_hits_the_deadline(limited: Server) -> None:
    started = time.monotonic()
    code, records, output = _cli(
        "send", limited.url + "/", "--method", "SendMessage", "--text", "take your time",
        f"--bearer={TOKEN}", "--no-history",
    )  # fmt: skip
    assert code == 0, output
    state, text = _final_state(records)
    assert state == "TASK_STATE_FAILED"
    assert "did not answer within 1 s" in text
    assert time.monotonic() - started < SLOW_S


def test_sigterm_with_a_stream_open_exits_cleanly(project: Project, slow_handler: str) -> None:
    server = Server(project, HANDLER_URL=slow_handler)
    send = subprocess.Popen(
        [sys.executable, "-m", "app", "send", server.url + "/", "--method",
         "SendStreamingMessage", "--text", "stream", f"--bearer={TOKEN}", "--no-history"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert send.stdout is not None
        for line in send.stdout:
            if '"state": "working"' in line:
                break
        else:
            pytest.fail(f"no working item: {send.communicate()}")
        started = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=10) == 0
        assert time.monotonic() - started < 5
        send.communicate(timeout=20)
    finally:
        if send.poll() is None:
            send.kill()
            send.communicate()
        err = server.stop()
    assert "Traceback" not in err, err


def test_check_finds_nothing_to_fail_or_warn(signed: Server) -> None:
    """Our own `check` on the generated server (1.0 and, through the compat layer, 0.3):
    no failure, no warning; its errors follow one table, v1.0.1 (the README says so)."""
    code, records, output = _cli(
        "check", signed.ready["card_url"], f"--bearer={TOKEN}", "--no-history", "--timeout", "15"
    )
    findings = [r for r in records if r["event"] == "finding"]
    problems = [
        (r["id"], r["interface"], r["detail"]) for r in findings if r["status"] in ("fail", "warn")
    ]
    assert problems == [], output
    assert code == 0, output
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
