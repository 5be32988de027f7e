"""``a2a-workbench replay``: serve a recorded fixture as a mock A2A agent on loopback.

    a2a-workbench replay FIXTURE [--port N] [--grpc-port N] [--speed X]
        [--match method|method+text|method+params] [--host 127.0.0.1]

Prints one ``listening`` JSON line (``base_url``, ``card_url``, ``grpc_target``, …), then one
line per request: ``served`` (the exchange index and name), ``unmatched`` (the closest
recorded request and the differences) or ``card``. ``--speed`` scales the recorded timing
(2 twice as fast, 0 no delays). The fixture format and matching: docs/FIXTURES.md.

Exit statuses: 0 stopped by SIGTERM/SIGINT, 1 a port cannot be bound, 3 usage error
(bad flags, a fixture that cannot be read).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from app.commands.cli import CliUsageError, parser, usage_exit
from app.commands.printer import EXIT_OK, EXIT_RPC, for_terminal
from app.replay.fixture import FixtureError, load
from app.replay.grpc_codec import check_messages
from app.replay.matching import DEFAULT_MATCH, MATCH_MODES


def _speed(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError("must be 0 (no delays) or a positive factor")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = parser("a2a-workbench replay", "Serve a recorded fixture as a mock A2A agent.")
    p.add_argument("fixture", metavar="FIXTURE", help="a fixture file (YAML or .json)")
    p.add_argument("--host", default="127.0.0.1", help="interface to listen on")
    p.add_argument("--port", type=int, default=0, help="HTTP port (0: any free one)")
    p.add_argument("--grpc-port", type=int, default=None, help="gRPC port (0: any free one)")
    p.add_argument("--speed", type=_speed, default=1.0, help="timing factor; 0 = no delays")
    p.add_argument("--match", default=DEFAULT_MATCH, choices=MATCH_MODES,
                   help="which parts of a request must equal the recorded one")  # fmt: skip
    return p


def _emit(record: dict[str, Any]) -> None:
    text = json.dumps(record, ensure_ascii=False, default=str)
    sys.stdout.write(for_terminal(text, sys.stdout) + "\n")  # what clients sent: any text
    sys.stdout.flush()


def main(argv: list[str]) -> int:
    """Run ``replay``; returns the exit status (see module docstring)."""
    try:
        args = build_parser().parse_args(argv)
        fixture = load(Path(args.fixture))
        check_messages(fixture)
    except (CliUsageError, FixtureError) as exc:
        return usage_exit(str(exc))
    from app.replay.replay_server import ListenError, serve

    try:
        return asyncio.run(
            serve(
                fixture,
                _emit,
                host=args.host,
                port=args.port,
                grpc_port=args.grpc_port,
                speed=args.speed,
                match=args.match,
            )
        )
    except ListenError as exc:
        print(f"replay: {exc}", file=sys.stderr)
        return EXIT_RPC
    except KeyboardInterrupt:
        return EXIT_OK
