"""``--card-auth``: send the request's credentials to a card behind them (``card``,
``verify``, ``check``; docs/CLI.md). ``card`` and ``verify`` take the credential flags here;
``check`` has its own (``send``'s) and adds only ``--card-auth``.
"""

from __future__ import annotations

import argparse

from app.commands.cli import CliUsageError
from app.commands.send import parse_auth, parse_header
from app.protocol.card.card_auth import CardAuth


def add_card_auth_options(p: argparse.ArgumentParser, *, credentials: bool) -> None:
    """``--card-auth`` and, with ``credentials``, ``--header``, ``--bearer``, ``--basic`` and
    ``--api-key`` (for commands that have no credential flags of their own)."""
    p.add_argument(
        "--card-auth",
        action="store_true",
        help="send the credentials to the card URL too, only on the origin they are for "
        "(a card behind credentials; by default a card is fetched without any)",
    )
    if not credentials:
        return
    p.add_argument(
        "--header", action="append", default=[], metavar="'Name: value'", help="repeatable"
    )
    auth = p.add_mutually_exclusive_group()
    auth.add_argument("--bearer", metavar="TOKEN", help="Authorization: Bearer TOKEN")
    auth.add_argument("--basic", metavar="USER:PASS", help="HTTP Basic credentials")
    auth.add_argument("--api-key", metavar="NAME=VALUE[@header|query|cookie]", help="an API key")


def card_auth_from_args(args: argparse.Namespace, url: str) -> CardAuth | None:
    """The credentials ``--card-auth`` sends to the card of ``url`` (None without it).

    Raises:
        CliUsageError: ``--card-auth`` without a credential, or a malformed one.
    """
    if not args.card_auth:
        return None
    headers = tuple(parse_header(h) for h in args.header)
    auth = CardAuth.for_endpoint(url, parse_auth(args), headers)
    if auth is None:
        raise CliUsageError(
            "--card-auth needs a credential to send (--bearer, --basic, --api-key or an "
            "Authorization header) and an http(s) URL"
        )
    return auth
