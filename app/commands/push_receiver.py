"""``a2a-workbench push-receiver``: a local webhook that prints the push notifications it gets.

Usage::

    a2a-workbench push-receiver [--port N] [--host 127.0.0.1] [--public-url URL]

Prints JSON lines on stdout: first ``{"event": "listening", "url", "local_url", "token",
"note"}`` (put ``url`` and ``token`` in a push config: ``CreateTaskPushNotificationConfig``,
``tasks/pushNotificationConfig/set``), then one ``{"event": "delivery", ...}`` record per
request received (:meth:`app.push.receiver.PushDelivery.as_record`: headers and any echo of
a credential masked), and ``{"event": "end", "deliveries": N}`` when stopped. Every record
also carries its kind as ``"type"`` for one more release (:func:`app.protocol.records.record`).

Listens on loopback; an agent on another machine cannot reach it, and a strict agent refuses
a loopback callback URL (iac-code: docs/PEERS.md Q29). ``--public-url`` is the address the
agent should call instead — a tunnel or reverse proxy the user runs to ``local_url`` — and
becomes ``url`` (``/push`` added when it has no path). A non-loopback ``--host`` is taken
only as given and warned about on stderr.

Exit status: 0 after SIGINT/SIGTERM; 1 the port cannot be bound; 3 usage error.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import signal
import sys
from typing import Any
from urllib.parse import urlsplit

from app.commands import cli
from app.commands.cli import CliUsageError
from app.commands.printer import for_terminal
from app.protocol.records import line, record
from app.push.receiver import LOOPBACK_NOTE, PushDelivery, PushReceiver

PROG = "a2a-workbench push-receiver"


def build_parser() -> argparse.ArgumentParser:
    """The ``push-receiver`` argument parser (errors raise ``CliUsageError``)."""
    parser = cli.parser(PROG, "Receive A2A push notifications on loopback; print them as jsonl.")
    parser.add_argument("--port", type=int, default=0, help="port to listen on; 0 picks one")
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="interface to bind (default %(default)s; anything else only when given)",
    )
    parser.add_argument(
        "--public-url",
        default="",
        metavar="URL",
        help="the address agents should call (a tunnel you run to this receiver); "
        "the receiver still listens locally",
    )
    return parser


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine's loopback interface only."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def main(argv: list[str]) -> int:
    """Run the receiver until SIGINT/SIGTERM; returns the exit status (module docstring)."""
    try:
        args = build_parser().parse_args(argv)
        if not 0 <= args.port <= 65535:
            raise CliUsageError(f"--port {args.port} is not a port number (0-65535)")
        if args.public_url and urlsplit(args.public_url).scheme not in ("http", "https"):
            raise CliUsageError(f"--public-url {args.public_url!r} is not an http(s) URL")
    except CliUsageError as exc:
        return cli.usage_exit(f"{PROG}: error: {exc.detail}")
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    if not is_loopback(args.host):
        print(
            f"{PROG}: warning: listening on {args.host}, beyond loopback: anyone who can "
            "reach this machine can post to it; agents elsewhere must reach it by an address "
            "of this machine they can route to",
            file=sys.stderr,
        )
    return asyncio.run(_serve(args.host, args.port, args.public_url))


def _emit(value: dict[str, Any]) -> None:
    # A delivery is anyone's text: spelt so that it cannot drive a terminal.
    sys.stdout.write(for_terminal(line(value), sys.stdout) + "\n")
    sys.stdout.flush()


async def _serve(host: str, port: int, public_url: str = "") -> int:
    receiver = PushReceiver(host, port, public_url=public_url)
    try:
        await receiver.start()
    except OSError as exc:
        print(f"{PROG}: cannot listen on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)

    def show(delivery: PushDelivery) -> None:
        _emit(delivery.as_record())

    receiver.add_listener(show)
    note = LOOPBACK_NOTE if is_loopback(host) else f"Listening on {host}: beyond loopback"
    if public_url:
        note = f"Agents call {receiver.url}; it must lead to {receiver.local_url}"
    # The token is printed once, here: the user copies it into the push config.
    listening = {"url": receiver.url, "local_url": receiver.local_url,
                 "token": receiver.new_token(), "note": note}  # fmt: skip
    _emit(record("listening", listening, with_type=True))
    try:
        await stop.wait()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        await receiver.stop()
    _emit(record("end", {"deliveries": len(receiver.deliveries)}, with_type=True))
    return 0
