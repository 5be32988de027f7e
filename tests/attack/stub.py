"""A hostile agent on loopback: serves a card it is given and records every request.

Only for hostile behaviour (a card that names hosts of its choosing); real agents are the
demo agent and the test peers. Every JSON-RPC call gets a Message, so each interface
"answers".
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Seen:
    """One request the stub received."""

    path: str
    host: str
    headers: dict[str, str]


@dataclass
class Stub:
    port: int
    seen: list[Seen] = field(default_factory=list)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def _message(request_id: Any) -> bytes:
    result = {"message": {"messageId": "m1", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}).encode()


@contextmanager
def hostile_agent(card: Callable[[int], dict[str, Any]], stall_s: float = 0.0) -> Iterator[Stub]:
    """Serve ``card(port)`` at ``/.well-known/agent-card.json`` on 127.0.0.1; every POST
    answers after ``stall_s`` seconds (an agent that never answers in time)."""
    stub = Stub(0)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _record(self) -> None:
            headers = {k.lower(): v for k, v in self.headers.items()}
            stub.seen.append(Seen(self.path, headers.get("host", ""), headers))

        def _answer(self, body: bytes) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self._record()
            self._answer(json.dumps(card(stub.port)).encode())

        def do_POST(self) -> None:
            self._record()
            time.sleep(stall_s)
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                request_id = json.loads(raw).get("id")
            except (ValueError, AttributeError):
                request_id = None
            self._answer(_message(request_id))

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    stub.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def card_with(interfaces: list[str]) -> dict[str, Any]:
    """A minimal 1.0 card listing JSON-RPC interfaces at ``interfaces``."""
    return {
        "name": "hostile",
        "description": "names hosts of its choosing",
        "version": "1.0.0",
        "supportedInterfaces": [
            {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
            for url in interfaces
        ],
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "s", "description": "s", "tags": ["t"]}],
    }
