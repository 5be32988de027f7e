"""A recorded session for the replay tests: real exchanges with the demo agent (a2a-sdk
server, bearer token), stored in a history, exported to a fixture by our CLI, and a
``replay`` process serving it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from app.history.store import HistoryStore
from app.protocol import exchange
from app.protocol.events import ExchangeEvent, RequestSent
from app.protocol.methods.catalog import TemplateContext, find_method
from app.protocol.net.auth import AuthConfig, apply_auth, secret_header_names
from app.protocol.request import A2ARequest, render_body
from app.protocol.types import Binding, ProtocolVersion

REPO = Path(__file__).resolve().parents[2]
V1 = ProtocolVersion.V1_0
MARKED = "acme-customer-7781"
"""A value the user marks for redaction (sent in a header and in a message)."""


@dataclass
class Recorded:
    """One recorded exchange: the request as sent and the peer's events."""

    key: str
    request: A2ARequest
    events: list[ExchangeEvent]
    entry_id: int


@dataclass
class Session:
    home: Path
    fixture: Path
    recorded: dict[str, Recorded] = field(default_factory=dict)

    def env(self) -> dict[str, str]:
        """The environment of a CLI child that sees this session's history."""
        return {**os.environ, "XDG_DATA_HOME": str(self.home / "data"),
                "XDG_CONFIG_HOME": str(self.home / "config"), "PYTHONPATH": str(REPO)}  # fmt: skip


def request_for(
    endpoint: str, method: str, binding: Binding, ctx: TemplateContext, token: str,
    version: ProtocolVersion = V1,
) -> A2ARequest:  # fmt: skip
    spec = find_method(version, method)
    assert spec is not None
    body = render_body(spec, binding, ctx)
    request = A2ARequest(endpoint, method, body, version, binding,
                         headers=(("X-Customer", MARKED),), timeout=30.0)  # fmt: skip
    return apply_auth(request, AuthConfig.bearer(token), ())


async def record(store: HistoryStore, key: str, request: A2ARequest) -> Recorded:
    names = secret_header_names(AuthConfig.bearer("x"))
    recorder = store.recorder(request, secret_headers=names, source="test")
    events = [event async for event in _fed(recorder, request)]
    assert recorder.close(30)
    assert recorder.exchange_id is not None
    return Recorded(key, request, events, recorder.exchange_id)


async def _fed(recorder: Any, request: A2ARequest) -> Any:
    async for event in exchange.run(request):
        recorder.feed(event)
        yield event


def stream_task_id(events: list[ExchangeEvent]) -> str:
    for event in events:
        value = getattr(event, "json", None)
        if isinstance(value, dict):
            task = value.get("result", value).get("task")
            if isinstance(task, dict):
                return str(task["id"])
    raise AssertionError("no task in the stream")


async def record_session(peer: dict[str, Any], home: Path) -> Session:
    """Record the exchanges every replay test compares against, then export them."""
    token = peer["token"]
    rpc, rest, grpc_target = peer["jsonrpc_url"], peer["rest_url"], peer["grpc_target"]
    store = HistoryStore.open(home / "data" / "a2a-workbench" / "history.sqlite3")
    session = Session(home, home / "session.yaml")
    plan = [
        ("rpc-send", rpc, "SendMessage", Binding.JSONRPC, TemplateContext(text="12 30")),
        ("rpc-stream", rpc, "SendStreamingMessage", Binding.JSONRPC,
         TemplateContext(text="stream 3 10")),
        ("rest-send", rest, "SendMessage", Binding.HTTP_JSON,
         TemplateContext(text=f"5 5 {MARKED}")),
        ("rest-stream", rest, "SendStreamingMessage", Binding.HTTP_JSON,
         TemplateContext(text="stream 2 10")),
        ("grpc-send", grpc_target, "SendMessage", Binding.GRPC, TemplateContext(text="2 2")),
        ("grpc-stream", grpc_target, "SendStreamingMessage", Binding.GRPC,
         TemplateContext(text="stream 2 10")),
        ("grpc-missing", grpc_target, "GetTask", Binding.GRPC, TemplateContext(task_id="nope")),
    ]  # fmt: skip
    try:
        for key, endpoint, method, binding, ctx in plan:
            request = request_for(endpoint, method, binding, ctx, token)
            session.recorded[key] = await record(store, key, request)
        for key, endpoint, method, binding in (
            ("rpc03-send", rpc, "message/send", Binding.JSONRPC),
            ("grpc03-send", grpc_target, "message/send", Binding.GRPC),
        ):
            ctx = TemplateContext(text="7 7")
            request = request_for(endpoint, method, binding, ctx, token, ProtocolVersion.V0_3)
            session.recorded[key] = await record(store, key, request)
        task_id = stream_task_id(session.recorded["rpc-stream"].events)
        get_task = request_for(
            rest, "GetTask", Binding.HTTP_JSON, TemplateContext(task_id=task_id), token
        )
        session.recorded["rest-get"] = await record(store, "rest-get", get_task)
    finally:
        store.close()
    async with httpx.AsyncClient() as client:
        card = (await client.get(peer["card_url"])).json()
    (home / "card.json").write_text(json.dumps(card))
    ids = [str(r.entry_id) for r in session.recorded.values()]
    export = subprocess.run(
        [sys.executable, "-m", "app", "history", "export", *ids, "--format", "fixture",
         "--out", str(session.fixture), "--card", str(home / "card.json"), "--redact", MARKED],
        env=session.env(), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert export.returncode == 0, export.stderr
    return session


def sent(recorded: Recorded) -> RequestSent:
    first = recorded.events[0]
    assert isinstance(first, RequestSent)
    return first


class ReplayProcess:
    """``a2a-workbench replay FIXTURE`` in a child process; ``info`` is its listening line."""

    def __init__(self, fixture: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "app", "replay", str(fixture), *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO, env=env,
        )  # fmt: skip
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            _, err = self.proc.communicate(timeout=10)
            raise AssertionError(f"replay exited {self.proc.returncode}: {err}")
        self.info: dict[str, Any] = json.loads(line)
        assert self.info["event"] == "listening"

    @property
    def base_url(self) -> str:
        return str(self.info["base_url"])

    def stop(self) -> tuple[int, list[dict[str, Any]], str]:
        """SIGTERM; returns the exit status, the records printed after ``listening``, stderr."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            out, err = self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
        return self.proc.returncode, [json.loads(line) for line in out.splitlines() if line], err
