"""A loopback HTTP server of our own that answers with exact, misbehaving responses.

Used for bad-input tests (non-JSON 500 pages, huge bodies, JSON-RPC errors in HTTP 200)
that a well-behaved SDK server never produces. Runs in a thread; 127.0.0.1 only.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Canned:
    """What the server answers to every request, and what it received."""

    status: int = 200
    reason: str | None = None
    """The status line's reason phrase (None: the usual one)."""
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "application/json"})
    body: bytes = b"{}"
    received: list[tuple[str, str, dict[str, str], bytes]] = field(default_factory=list)
    paths: dict[str, Canned] = field(default_factory=dict)
    """Other answers by ``METHOD /path`` (``"GET /.well-known/agent-card.json"``)."""


@contextmanager
def bad_server(canned: Canned) -> Iterator[str]:
    """Serve ``canned`` on a free loopback port; yields the base URL (``http://127.0.0.1:N/``)."""

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            canned.received.append((self.command, self.path, dict(self.headers), body))
            answer = canned.paths.get(f"{self.command} {self.path}", canned)
            self.send_response(answer.status, answer.reason)
            for name, value in answer.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(answer.body)))
            self.end_headers()
            self.wfile.write(answer.body)

        do_GET = do_POST = do_PUT = do_DELETE = _answer

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
