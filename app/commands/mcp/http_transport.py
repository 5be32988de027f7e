"""``a2a-workbench mcp --http HOST:PORT``: the Streamable HTTP transport, guarded.

It listens on loopback only, unless ``--allow-remote`` is given *and* TLS is configured
(``--tls-cert`` / ``--tls-key``): the tools call agents with the user's credentials, so
anyone who can reach the port could too. Every request must carry the run's bearer token
(``Authorization: Bearer …``), made fresh for each run and printed once, in the
``listening`` line on stdout; requests without it get 401. On loopback the SDK also checks
``Host`` and ``Origin`` (DNS rebinding protection).
"""

from __future__ import annotations

import hmac
import json
import secrets
import socket
import sys
from dataclasses import dataclass
from typing import Any

import uvicorn
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

from app.commands.cli import CliUsageError
from app.commands.push_receiver import is_loopback

MCP_PATH = "/mcp"


@dataclass(frozen=True, slots=True)
class HttpOptions:
    """Where and how to listen: ``host``/``port`` (0: a free one), TLS files, remote."""

    host: str
    port: int
    allow_remote: bool = False
    tls_cert: str = ""
    tls_key: str = ""


def parse_listen(text: str) -> tuple[str, int]:
    """``127.0.0.1:8765`` / ``[::1]:8765`` → host and port.

    Raises:
        CliUsageError: not ``HOST:PORT`` with a port of 0-65535.
    """
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise CliUsageError(f"--http must look like HOST:PORT, e.g. 127.0.0.1:8765 (not {text!r})")
    return host, int(port)


def check_options(options: HttpOptions) -> None:
    """Refuse a host beyond loopback unless ``--allow-remote`` and TLS are both given.

    Raises:
        CliUsageError: the listening address or TLS files are not acceptable.
    """
    if bool(options.tls_cert) != bool(options.tls_key):
        raise CliUsageError("--tls-cert and --tls-key go together")
    if is_loopback(options.host):
        return
    if not options.allow_remote:
        raise CliUsageError(
            f"refusing to listen on {options.host}: the MCP server calls agents with your "
            "credentials; it listens on loopback (127.0.0.1) unless --allow-remote is given "
            "and TLS is configured (--tls-cert, --tls-key)"
        )
    if not options.tls_cert:
        raise CliUsageError(
            f"--allow-remote needs TLS: give --tls-cert and --tls-key to listen on {options.host}"
        )


class BearerGate:
    """ASGI middleware: an HTTP request without the run's bearer token gets 401."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self._expected):
                body = (
                    b"401: this MCP server needs its bearer token (Authorization: Bearer ...), "
                    b"the one `a2a-workbench mcp --http` printed when it started\n"
                )
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"www-authenticate", b'Bearer realm="a2a-workbench mcp"'),
                    (b"content-length", str(len(body)).encode()),
                ]})  # fmt: skip
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def new_token() -> str:
    """A fresh bearer token for one run (256 bits)."""
    return secrets.token_urlsafe(32)


async def serve_http(server: Any, options: HttpOptions, token: str) -> None:
    """Serve ``server`` (an ``MCPServer``) over Streamable HTTP until SIGINT/SIGTERM.

    Prints one ``listening`` JSON line (``url``, ``token``) on stdout once the port is bound.

    Raises:
        OSError: the address cannot be bound.
    """
    remote = not is_loopback(options.host)
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False) if remote else None
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH, host=options.host, transport_security=security
    )
    family = socket.AF_INET6 if ":" in options.host else socket.AF_INET
    sock = socket.create_server((options.host, options.port), family=family)
    port = sock.getsockname()[1]
    scheme = "https" if options.tls_cert else "http"
    shown = f"[{options.host}]" if ":" in options.host else options.host
    config = uvicorn.Config(
        BearerGate(app, token),
        log_level="warning",
        ssl_certfile=options.tls_cert or None,
        ssl_keyfile=options.tls_key or None,
        timeout_graceful_shutdown=2,
    )
    listening = {"event": "listening", "url": f"{scheme}://{shown}:{port}{MCP_PATH}",
                 "token": token, "transport": "streamable-http"}  # fmt: skip
    print(json.dumps(listening), flush=True)
    print(
        f"a2a-workbench mcp: Streamable HTTP on {listening['url']}; send "
        "'Authorization: Bearer <token>' with the token above (new at every start)",
        file=sys.stderr,
    )
    try:
        await uvicorn.Server(config).serve(sockets=[sock])
    finally:
        sock.close()
