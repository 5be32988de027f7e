"""``a2a-workbench demo-agent``: the bundled demo agent on loopback (:mod:`app.demo`).

    a2a-workbench demo-agent [--host 127.0.0.1] [--port N] [--grpc-port N]
        [--token TOKEN|@FILE|env:NAME] [--oauth-issuer URL --oauth-client ID:SECRET|@FILE|env:NAME]
        [--jwks-out FILE]
        [--tls-cert PEM [--tls-key PEM] [--tls-client-ca PEM]] [--log-level LEVEL]

Prints one ``ready`` JSON line once every port listens (:func:`app.demo.demo_server.serve`).
Exit statuses: 0 stopped by SIGTERM/SIGINT, 1 a port cannot be bound, 3 usage error.
"""

from __future__ import annotations

import argparse
import asyncio

from app.commands.cli import CliUsageError, usage_exit
from app.commands.cli import parser as cli_parser
from app.commands.secret_args import secret_value
from app.demo import demo_tls as tls
from app.demo import request_log
from app.demo.demo_server import serve


def build_parser() -> argparse.ArgumentParser:
    """Returns the ``demo-agent`` argument parser."""
    parser = cli_parser(
        "a2a-workbench demo-agent",
        "Run the bundled A2A demo agent (JSON-RPC, REST and gRPC; 1.0 and 0.3).",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="interface to bind (default %(default)s)"
    )
    parser.add_argument("--port", type=int, default=0, help="HTTP port; 0 picks a free one")
    parser.add_argument("--grpc-port", type=int, default=0, help="gRPC port; 0 picks a free one")
    parser.add_argument(
        "--token",
        metavar="TOKEN|@FILE|env:NAME",
        help="require 'Authorization: Bearer TOKEN' on A2A endpoints",
    )
    parser.add_argument(
        "--oauth-issuer",
        metavar="URL",
        help="require access tokens of this OpenID provider (checked by introspection)",
    )
    parser.add_argument(
        "--oauth-client",
        metavar="ID:SECRET|@FILE|env:NAME",
        help="the agent's own credentials at the provider's introspection endpoint",
    )
    parser.add_argument("--jwks-out", help="write the public JWKS here (default: a temp file)")
    tls.add_options(parser)
    parser.add_argument(
        "--log-level",
        default="info",
        help="stderr log level (default %(default)s: one line per request, and warnings)",
    )
    return parser


def main(argv: list[str]) -> int:
    """Runs the demo agent until SIGTERM/SIGINT; its ``ready`` line: :func:`serve`.

    Args:
        argv: the arguments after ``demo-agent``.

    Returns:
        0 after a signal-initiated shutdown; 1 when a port cannot be bound (one line on stderr);
        3 on bad arguments (one line on stderr).
    """
    try:
        args = build_parser().parse_args(argv)
        # The secrets may come from a file or the environment (app.commands.secret_args).
        if args.token is not None:
            args.token = secret_value(args.token, "--token")
        if args.oauth_client is not None:
            args.oauth_client = secret_value(args.oauth_client, "--oauth-client")
    except CliUsageError as exc:
        prog = exc.prog or "a2a-workbench demo-agent"
        return usage_exit(f"{prog}: error: {exc.detail}")
    request_log.configure(args.log_level)
    try:
        return asyncio.run(serve(args))
    except KeyboardInterrupt:
        # A second Ctrl-C during shutdown; nothing left worth waiting for.
        return 0
