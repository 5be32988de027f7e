"""An OpenAI-compatible chat-completions stub on loopback: the LLM behind the iac-code peer.

iac-code's agent (provider "OpenAI Compatible") calls ``POST {base}/chat/completions`` through
the ``openai`` client, streaming (``"stream": true``, SSE chunks ending in ``[DONE]``) and
sometimes not. The stub answers either way with a deterministic reply and never a tool call,
so each agent turn is one call and ends with the task ``input-required``. Hand-made on
purpose: it stands in for the LLM, not for the A2A peer under test.

- The reply is ``REPLY_PREFIX + <the last user text>``.
- A user text ``slow SECONDS`` (``slow`` alone: ``SLOW_DEFAULT_S``) holds its streamed reply
  back that long (empty deltas ``SLOW_INTERVAL_S`` apart), so the task stays ``working``
  long enough to be cancelled or subscribed to.
- ``GET {base}/models`` lists the one model.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "stub-model"
API_KEY = "dummy-llm-key"
REPLY_PREFIX = "iac stub reply to: "
SLOW_DEFAULT_S = 6.0
SLOW_INTERVAL_S = 0.2


@dataclass(frozen=True)
class LlmCall:
    """One request the stub answered."""

    path: str
    authorization: str
    body: dict[str, Any]


@dataclass
class LlmStub:
    """The running stub: ``base_url`` is what iac-code's provider config points at."""

    base_url: str
    calls: list[LlmCall] = field(default_factory=list)


def user_text(body: dict[str, Any]) -> str:
    """The text of the last user message of a chat-completions request ('' when none)."""
    for message in reversed(body.get("messages") or []):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def slow_seconds(text: str) -> float | None:
    """How long to take over the reply to ``text``: None for at once."""
    words = text.split()
    if not words or words[0] != "slow":
        return None
    try:
        return float(words[1]) if len(words) > 1 else SLOW_DEFAULT_S
    except ValueError:
        return SLOW_DEFAULT_S


def _chunk(model: str, delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {"id": "stub", "object": "chat.completion.chunk", "created": 0, "model": model,
            "choices": [choice]}  # fmt: skip


class _Handler(BaseHTTPRequestHandler):
    stub: LlmStub  # set on the subclass start() makes

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._json(200, {"object": "list", "data": [{"id": MODEL, "object": "model"}]})
        else:
            self._json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self._json(400, {"error": {"message": "body is not JSON"}})
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._json(404, {"error": {"message": f"no route {self.path}"}})
            return
        auth = self.headers.get("Authorization", "")
        self.stub.calls.append(LlmCall(self.path, auth, body))
        text = user_text(body)
        reply = REPLY_PREFIX + text
        model = str(body.get("model") or MODEL)
        # A client that gives up mid-stream (a cancelled task) closes the socket: not an error.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            if body.get("stream"):
                self._stream(model, reply, slow_seconds(text))
            else:
                message = {"role": "assistant", "content": reply}
                self._json(200, {
                    "id": "stub", "object": "chat.completion", "created": 0, "model": model,
                    "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                })  # fmt: skip

    def _stream(self, model: str, reply: str, slow: float | None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()  # HTTP/1.0: the body ends when the connection closes
        self._event(_chunk(model, {"role": "assistant", "content": ""}, None))
        if slow is not None:
            # Empty deltas keep the stream (and the task) going; a cancelled task's client
            # hangs up, and the next write ends this thread.
            for _ in range(round(slow / SLOW_INTERVAL_S)):
                time.sleep(SLOW_INTERVAL_S)
                self._event(_chunk(model, {"content": ""}, None))
        self._event(_chunk(model, {"content": reply}, None))
        self._event(_chunk(model, {}, "stop"))
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        self._event({"id": "stub", "object": "chat.completion.chunk", "created": 0,
                     "model": model, "choices": [], "usage": usage})  # fmt: skip
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()

    def _event(self, data: dict[str, Any]) -> None:
        self.wfile.write(b"data: " + json.dumps(data).encode() + b"\n\n")
        self.wfile.flush()

    def _json(self, status: int, data: dict[str, Any]) -> None:
        payload = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@contextlib.contextmanager
def running_llm_stub() -> Iterator[LlmStub]:
    """Serves the stub on a free 127.0.0.1 port in daemon threads; yields the ``LlmStub``."""
    stub = LlmStub(base_url="")
    handler = type("Handler", (_Handler,), {"stub": stub})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    stub.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, name="iac-llm-stub", daemon=True)
    thread.start()
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()
