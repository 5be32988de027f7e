"""Headless subcommands. Each module exposes ``main(argv: list[str]) -> int``.

The tables below are the public CLI surface (documented in docs/CLI.md); adding a command is
one function, one entry in ``SUBCOMMANDS`` and one line in ``SUMMARIES`` (``--help``). Its
parser comes from ``app.commands.cli.parser`` so that usage errors exit 3 alike.
"""

from __future__ import annotations

from collections.abc import Callable


def _card(argv: list[str]) -> int:
    from app.commands.card import main

    return main(argv)


def _check(argv: list[str]) -> int:
    from app.commands.check import main

    return main(argv)


def _demo_agent(argv: list[str]) -> int:
    from app.commands.demo_agent import main

    return main(argv)


def _send(argv: list[str]) -> int:
    from app.commands.send import main

    return main(argv)


def _run(argv: list[str]) -> int:
    from app.commands.run import main

    return main(argv)


def _generate_server(argv: list[str]) -> int:
    from app.commands.generate_server import main

    return main(argv)


def _history(argv: list[str]) -> int:
    from app.commands.history import main

    return main(argv)


def _replay(argv: list[str]) -> int:
    from app.commands.replay import main

    return main(argv)


def _mcp(argv: list[str]) -> int:
    from app.commands.mcp.mcp_command import main

    return main(argv)


def _push_receiver(argv: list[str]) -> int:
    from app.commands.push_receiver import main

    return main(argv)


def _verify(argv: list[str]) -> int:
    from app.commands.verify import main

    return main(argv)


SUMMARIES: dict[str, str] = {
    "card": "fetch or read an Agent Card and check its shape and interfaces",
    "check": "check an agent against its card on every binding (pass/fail/warn/skip)",
    "demo-agent": "run the bundled A2A demo agent on loopback",
    "generate-server": "write a runnable A2A server project (Python or Node) from a card",
    "history": "list, show and export the recorded exchanges",
    "mcp": "serve the workbench's tools to coding agents (Model Context Protocol)",
    "push-receiver": "receive push notifications on loopback, printed as JSON lines",
    "replay": "serve a recorded fixture as a mock A2A agent on loopback",
    "run": "send the requests saved in an OpenAPI 3.2 document",
    "send": "send one A2A request, printed as JSON lines",
    "verify": "verify an Agent Card's JWS signatures against a JWKS",
}
"""One line per subcommand for ``a2a-workbench --help``."""

SUBCOMMANDS: dict[str, Callable[[list[str]], int]] = {
    "card": _card,
    "check": _check,
    "demo-agent": _demo_agent,
    "generate-server": _generate_server,
    "history": _history,
    "mcp": _mcp,
    "push-receiver": _push_receiver,
    "replay": _replay,
    "run": _run,
    "send": _send,
    "verify": _verify,
}
