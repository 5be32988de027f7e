"""Headless subcommands. Each module exposes ``main(argv: list[str]) -> int``.

The table below is the public CLI surface (documented in README.md); adding a command is
one import and one entry.
"""

from __future__ import annotations

from collections.abc import Callable


def _card(argv: list[str]) -> int:
    from app.commands.card import main

    return main(argv)


def _demo_agent(argv: list[str]) -> int:
    from app.demo.server import main

    return main(argv)


def _send(argv: list[str]) -> int:
    from app.commands.send import main

    return main(argv)


def _run(argv: list[str]) -> int:
    from app.commands.run import main

    return main(argv)


def _verify(argv: list[str]) -> int:
    from app.commands.verify import main

    return main(argv)


SUBCOMMANDS: dict[str, Callable[[list[str]], int]] = {
    "card": _card,
    "demo-agent": _demo_agent,
    "run": _run,
    "send": _send,
    "verify": _verify,
}
