"""``a2a-workbench card``: fetch or read an Agent Card and say what it is.

Usage::

    a2a-workbench card URL_OR_FILE [--a2a-version 1.0|0.3|none] [--timeout S]
                       [--output jsonl|pretty]

The same discovery rules as the GUI card panel (:func:`app.protocol.card.fetch.fetch_card`,
:func:`app.protocol.card.read.read_card`): no credentials are sent (unless ``--card-auth``
with ``--bearer`` / ``--basic`` / ``--api-key`` / ``--header``: then to the URL's origin),
redirects are reported with their ``Location`` and never followed, at most 1 MiB of
decoded body is read, a base URL gets ``/.well-known/agent-card.json`` (the legacy
``/.well-known/agent.json`` is tried only after that answered 404), and a full card URL is
fetched exactly as given.

Then: the shape (pure 1.0, pure 0.3, hybrid), every interface with the one a 1.0 client
and a 0.3 client would pick, relative URLs flagged, and every validation problem with its
JSON path.

``jsonl`` output: one ``{"event": "card", ...}`` record (when a document arrived), one
``{"event": "problem", ...}`` per problem, then ``{"event": "end", ...}``.

Exit status: 0 a valid card; 1 problems of error severity; 2 not fetched, or not a card;
3 usage error.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

from app.commands.card_auth_args import add_card_auth_options, card_auth_from_args
from app.commands.cli import CliUsageError, card_source, parser, usage_exit
from app.commands.network_args import add_network_options, network_from_args
from app.commands.printer import for_terminal
from app.protocol.bindings import traits
from app.protocol.card.card_auth import CARD_AUTH_HINT, CardAuth
from app.protocol.card.card_shape import CardProblem, CardShape, Severity
from app.protocol.card.fetch import CardFetchResult, fetch_card
from app.protocol.card.read import CardRead, ReadOutcome, examine, read_card
from app.protocol.card.view import CardView, InterfaceView
from app.protocol.net.network import NetworkOptions
from app.protocol.records import line
from app.protocol.secrets import mask_url_query
from app.protocol.wire.html_page import is_html, page_words

EXIT_VALID, EXIT_PROBLEMS, EXIT_NO_CARD, EXIT_USAGE = 0, 1, 2, 3

# Which interfaces each client generation reads (docs/PROTOCOL.md, Agent Card): a 1.0
# client reads supportedInterfaces (first entry it can speak = preferred); a 0.3 client
# reads the top-level url/preferredTransport, then additionalInterfaces.
_SOURCES = {"1.0": ("supportedInterfaces",), "0.3": ("url", "additionalInterfaces")}


def build_parser() -> argparse.ArgumentParser:
    """The ``card`` argument parser (errors raise ``CliUsageError`` instead of exiting)."""
    p = parser("a2a-workbench card", "Fetch or read an Agent Card and check it.")
    p.add_argument("source", metavar="URL_OR_FILE", help="base URL, card URL or card file")
    p.add_argument(
        "--a2a-version",
        default="1.0",
        choices=["1.0", "0.3", "none"],
        help="A2A-Version header of the fetch (default 1.0; 'none' sends none)",
    )
    p.add_argument("--timeout", type=float, default=10.0, help="fetch timeout, seconds")
    p.add_argument("--output", choices=["jsonl", "pretty"], default="jsonl")
    add_card_auth_options(p, credentials=True)
    add_network_options(p, grpc=False)
    return p


async def fetch(
    source: str,
    a2a_version: str | None,
    timeout: float,
    network: NetworkOptions | None = None,
    auth: CardAuth | None = None,
) -> CardFetchResult:
    """The card fetch, with the legacy path tried only after a 404 on the well-known one;
    ``auth``: the credentials the user opted in to send (``--card-auth``)."""
    result = await fetch_card(
        source, a2a_version=a2a_version, timeout=timeout, network=network, auth=auth
    )
    if result.status == 404 and result.legacy_hint:
        legacy = await fetch_card(
            result.legacy_hint, a2a_version=a2a_version, timeout=timeout, network=network,
            auth=auth,
        )  # fmt: skip
        if legacy.status is not None and legacy.status != 404:
            return legacy
    return result


def picked(view: CardView, version: str) -> int | None:
    """Index in ``view.interfaces`` of the interface a ``version`` client would use: the
    first it can speak among the members its generation reads, else (a hybrid card, whose
    0.3 mirror repeats a supportedInterfaces entry) the first of its version anywhere."""
    usable = [
        (index, iface)
        for index, iface in enumerate(view.interfaces)
        if iface.speakable and iface.major_minor == version
    ]
    for index, iface in usable:
        if iface.source in _SOURCES[version]:
            return index
    return usable[0][0] if usable else None


def is_relative(iface: InterfaceView) -> bool:
    """The interface URL names no host to connect to (gRPC: ``host:port`` is absolute)."""
    binding = iface.known_binding
    if binding is not None and traits(binding).url.target:
        return not iface.url or iface.url.startswith("/")
    try:
        parts = urlsplit(iface.url)
    except ValueError:
        return True
    return not (parts.scheme and parts.netloc)


def card_record(reading: CardRead, view: CardView | None) -> dict[str, Any]:
    """The ``card`` record: where it came from and what it is."""
    fetched = reading.fetch
    record: dict[str, Any] = {"event": "card", "source": reading.source}
    if fetched is not None:
        record |= {
            "url": fetched.card_url,
            "status": fetched.status,
            "etag": fetched.etag,
            "last_modified": fetched.last_modified,
            "content_type": fetched.content_type,
        }
    if view is None:
        return record | {"shape": None, "interfaces": [], "picked": {"1.0": None, "0.3": None}}
    return record | {
        "shape": view.shape.value,
        "name": view.name,
        "version": view.version,
        "interfaces": [
            {
                "url": i.url,
                "binding": i.binding,
                "protocol_version": i.protocol_version,
                "tenant": i.tenant,
                "source": i.source,
                "relative": is_relative(i),
            }
            for i in view.interfaces
        ],
        "picked": {v: picked(view, v) for v in _SOURCES},
    }


def problem_record(problem: CardProblem) -> dict[str, Any]:
    """One ``problem`` record."""
    return {
        "event": "problem",
        "path": problem.path,
        "severity": problem.severity.value,
        "message": problem.message,
    }


def check(reading: CardRead) -> tuple[list[dict[str, Any]], int]:
    """Every record for ``reading``, and the exit status."""
    if not reading.has_document:
        fetched = reading.fetch
        end: dict[str, Any] = {"event": "end", "outcome": "not_fetched", "source": reading.source}
        if fetched is not None:
            end |= {"url": fetched.card_url, "status": fetched.status}
        if reading.outcome is ReadOutcome.REDIRECT and fetched is not None:
            end["location"] = fetched.redirect_location
            end["message"] = (
                f"HTTP {fetched.status} redirect to {fetched.redirect_location} "
                "(redirects are not followed)"
            )
        elif reading.error:
            end["message"] = reading.error
        else:
            end["message"] = f"HTTP {fetched.status if fetched else '?'}: no card"
            if fetched is not None and is_html(fetched.content_type, fetched.raw):
                end["message"] += f" ({page_words(fetched.raw)}, {fetched.content_type})"
            if fetched is not None and fetched.status in (401, 403):
                end["message"] += f"; {CARD_AUTH_HINT}"
        return [end | {"exit_status": EXIT_NO_CARD}], EXIT_NO_CARD
    findings = examine(reading)
    view = findings.view
    records = [card_record(reading, view)]
    records += [problem_record(p) for p in findings.problems]
    errors = sum(1 for p in findings.problems if p.severity is Severity.ERROR)
    if view is None or view.shape is CardShape.NOT_A_CARD:
        outcome, code = "not_a_card", EXIT_NO_CARD
    elif errors:
        outcome, code = "problems", EXIT_PROBLEMS
    else:
        outcome, code = "valid", EXIT_VALID
    end = {"event": "end", "outcome": outcome, "problems": len(findings.problems),
           "errors": errors, "exit_status": code}  # fmt: skip
    return [*records, end], code


def pretty(record: dict[str, Any]) -> str:
    """A human-readable rendering of one record."""
    kind = record["event"]
    if kind == "card":
        where = record.get("url", record["source"])
        lines = [f"card: {where}" + (f"  (HTTP {record['status']})" if "status" in record else "")]
        if record.get("etag"):
            lines.append(f"  ETag: {record['etag']}")
        lines.append(f"  shape: {record['shape']}")
        chosen = {i: v for v, i in record["picked"].items() if i is not None}
        for index, iface in enumerate(record["interfaces"]):
            marks = [f"{v} client's pick" for i, v in chosen.items() if i == index]
            marks += ["relative URL"] if iface["relative"] else []
            tail = f"  [{', '.join(marks)}]" if marks else ""
            lines.append(
                f"  interface {index}: {iface['binding']} {iface['protocol_version']} "
                f"{iface['url']} ({iface['source']}){tail}"
            )
        return "\n".join(lines)
    if kind == "problem":
        return f"  {record['severity']}: {record['path'] or '(root)'}: {record['message']}"
    message = f": {record['message']}" if record.get("message") else ""
    return f"result: {record['outcome']}{message} (exit {record['exit_status']})"


def write(out: TextIO, fmt: str, records: list[dict[str, Any]]) -> None:
    """Print ``records`` as jsonl or pretty (terminal-safe, see ``for_terminal``)."""
    for record in records:
        text = line(record) if fmt == "jsonl" else pretty(record)
        out.write(for_terminal(text, out, pretty=fmt != "jsonl") + "\n")
    out.flush()


def main(argv: list[str]) -> int:
    """Run ``card``; returns the exit status (see module docstring)."""
    try:
        args = build_parser().parse_args(argv)
        if not args.timeout > 0:
            raise CliUsageError(
                "--timeout must be a positive number of seconds", "a2a-workbench card"
            )
        card_source(args.source, "URL_OR_FILE")
        card_auth = card_auth_from_args(args, args.source)
    except CliUsageError as exc:
        return usage_exit(str(exc))
    source: str = args.source
    if source.startswith(("http://", "https://")):
        version = None if args.a2a_version == "none" else args.a2a_version
        network = network_from_args(args)
        reading = read_card(asyncio.run(fetch(source, version, args.timeout, network, card_auth)))
    else:
        reading = read_card(Path(source))
    # A typed URL may carry user info (refused by the fetch): never print its password.
    reading = replace(reading, source=mask_url_query(reading.source, ()))
    if reading.fetch is not None:
        fetched = reading.fetch
        reading = replace(
            reading, fetch=replace(fetched, card_url=mask_url_query(fetched.card_url, ()))
        )
    records, code = check(reading)
    write(sys.stdout, args.output, records)
    return code
