"""A loopback HTTP server of our own that echoes every request back, credentials included.

Hostile on purpose: it copies the request line and headers into a response header, the
JSON-RPC error message, a result text, or an SSE event, so tests can prove the client
masks secrets wherever a server reflects them. 127.0.0.1 only; runs in a thread.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@contextmanager
def echo_server(mode: str = "error") -> Iterator[str]:
    """Serve on a free port; yields the base URL. ``mode``: ``error`` (a JSON-RPC error
    quoting the request), ``result`` (a 1.0 Message quoting it), ``sse`` (a stream whose
    one event quotes it), ``status`` (an HTTP 401 page quoting it)."""

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            text = body.decode("utf-8", "replace")
            echo = f"{self.command} {self.path} {dict(self.headers)} {text}"
            try:
                request_id = json.loads(body).get("id")
            except (ValueError, AttributeError):
                request_id = None
            content_type = "application/json"
            status = 200
            if mode == "error":
                payload = {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "error": {"code": -32001, "message": echo, "data": {"echo": echo}},
                }
            elif mode == "status":
                status, content_type, payload = 401, "text/plain", None
            else:
                message = {"messageId": "m1", "role": "ROLE_AGENT", "parts": [{"text": echo}]}
                if mode == "sse":
                    message = {
                        "statusUpdate": {
                            "taskId": "t1",
                            "contextId": "c1",
                            "status": {"state": "TASK_STATE_COMPLETED", "message": message},
                        }
                    }
                payload = {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "result": (message if mode == "sse" else {"message": message}),
                }
            text = echo if payload is None else json.dumps(payload)
            if mode == "sse":
                content_type = "text/event-stream"
                text = f"data: {text}\n\n"
            data = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("X-Echo", " ".join(echo.encode("ascii", "replace").decode().split()))
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _answer

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
