"""``a2a-workbench mcp``: serve the workbench's tools to a coding agent over MCP.

    a2a-workbench mcp [--http HOST:PORT [--allow-remote --tls-cert FILE --tls-key FILE]]
        [--allow-host PATTERN]... [--max-body BYTES]

Without ``--http`` the server speaks MCP on stdin/stdout (how Claude Code, VS Code and
Cursor start it; nothing else is written to stdout). With ``--http`` it serves the
Streamable HTTP transport at ``/mcp`` (:mod:`app.commands.mcp.http_transport`): loopback
only unless ``--allow-remote`` with TLS, and a bearer token per run, printed once.
``--allow-host`` replaces the default allow-list (loopback and the hosts your collections
and history name; :mod:`app.commands.mcp.allow_list`).

Exit statuses: 0 the client closed the session (or SIGINT/SIGTERM), 1 the address cannot be
bound, 3 usage error. docs/MCP.md describes the tools.
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Coroutine
from typing import Any

import anyio

from app.commands.cli import CliUsageError, parser, usage_exit
from app.commands.mcp.allow_list import HostPolicy
from app.commands.mcp.http_transport import (
    HttpOptions,
    check_options,
    new_token,
    parse_listen,
    serve_http,
)
from app.commands.mcp.mcp_app import build_server
from app.commands.mcp.mcp_state import Limits, ServerState
from app.commands.printer import EXIT_OK, EXIT_RPC

PROG = "a2a-workbench mcp"


def build_parser() -> argparse.ArgumentParser:
    p = parser(PROG, "Serve A2A Workbench's tools to coding agents (Model Context Protocol).")
    p.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve Streamable HTTP on HOST:PORT (port 0: a free one) instead of stdio",
    )
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="with --http: allow a host beyond loopback (needs --tls-cert and --tls-key)",
    )
    p.add_argument("--tls-cert", default="", metavar="FILE", help="with --http: PEM certificate")
    p.add_argument("--tls-key", default="", metavar="FILE", help="with --http: PEM private key")
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="PATTERN",
        help="hosts the tools may call (wildcards: *.example.com; repeatable); default: "
        "loopback and the hosts your collections and history name",
    )
    p.add_argument(
        "--max-body",
        type=int,
        default=Limits().max_body_bytes,
        metavar="BYTES",
        help="bodies and stream items larger than this come back as their size and "
        "History id (default %(default)s)",
    )
    return p


async def _until_signal(serving: Coroutine[Any, Any, None]) -> None:
    """Run ``serving`` until it ends or SIGTERM/SIGINT arrives: either way the caller's
    cleanup runs (the replays it started are child processes)."""
    async with anyio.create_task_group() as group:

        async def watch() -> None:
            with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
                async for _ in signals:
                    group.cancel_scope.cancel()

        async def run() -> None:
            await serving
            group.cancel_scope.cancel()

        if sys.platform != "win32":  # no signal receiver there; Ctrl+C ends the process
            group.start_soon(watch)
        group.start_soon(run)


def main(argv: list[str]) -> int:
    """Run ``mcp``; returns the exit status (module docstring)."""
    try:
        args = build_parser().parse_args(argv)
        if args.max_body < 1024:
            raise CliUsageError("--max-body must be at least 1024 bytes")
        http: HttpOptions | None = None
        if args.http:
            host, port = parse_listen(args.http)
            http = HttpOptions(host, port, args.allow_remote, args.tls_cert, args.tls_key)
            check_options(http)
        elif args.allow_remote or args.tls_cert or args.tls_key:
            raise CliUsageError("--allow-remote, --tls-cert and --tls-key go with --http")
    except CliUsageError as exc:
        return usage_exit(str(exc))
    state = ServerState(
        hosts=HostPolicy(tuple(args.allow_host)), limits=Limits(max_body_bytes=args.max_body)
    )
    if "*" in args.allow_host:
        print(f"{PROG}: warning: --allow-host '*' lets the tools call any host", file=sys.stderr)
    server = build_server(state)

    async def serve() -> None:
        try:
            if http is None:
                await _until_signal(server.run_stdio_async())
            else:
                token = new_token()
                state.ledger.add([token])
                await serve_http(server, http, token)
        finally:
            await state.replays.stop_all()

    try:
        anyio.run(serve)
    except OSError as exc:
        print(f"{PROG}: cannot listen on {args.http}: {exc}", file=sys.stderr)
        return EXIT_RPC
    except KeyboardInterrupt:
        return EXIT_OK
    return EXIT_OK
