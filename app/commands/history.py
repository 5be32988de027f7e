"""``a2a-workbench history``: the recorded exchanges, and the hook that records ``send``/``run``.

    a2a-workbench history list [--limit N] [--text T] [--method M] [--outcome O]
        [--endpoint URL] [--output jsonl|pretty]
    a2a-workbench history show ID [--output jsonl|pretty]
    a2a-workbench history export [ID...] --format har|jsonl|fixture --out FILE|-
        [--stable-ids] [--redact VALUE]... [--redact-from FILE] [--card FILE]

``list`` prints one ``entry`` record per entry, newest first; ``show`` prints the entry's
events as the same records ``send`` printed (credentials masked, as they are stored);
``export`` writes the given entries (default: all, oldest first) as HAR 1.2 (HTTP bindings
only) or as JSON lines of event records, each with ``"exchange": ID``, or as a replay
fixture (YAML, JSON when FILE ends in ``.json``; docs/FIXTURES.md) with the ``--redact`` values
(and those of ``--redact-from``, one per line) masked, ids made stable with
``--stable-ids``, and the Agent Card of ``--card`` (a JSON file) to serve. Written to a
file, ``export`` says on stderr how many exchanges went where.

Exit statuses: 0 done, 2 the history cannot be opened (or a fixture cannot be written),
3 usage error (unknown ID, an unreadable --card or --redact-from file).
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import json
import sys
import time
from collections.abc import AsyncIterator, Iterable
from contextlib import suppress
from pathlib import Path
from typing import Any

from app.commands.cli import CliUsageError, parser, say, usage_exit
from app.commands.printer import EXIT_OK, EXIT_TRANSPORT, for_terminal, pretty
from app.history.jsonl_export import event_records, write_jsonl
from app.history.store import HistoryEntry, HistoryFilter, HistoryStore, HistoryUnavailable
from app.protocol.events import ExchangeEnd, ExchangeEvent, Outcome
from app.protocol.records import line, record
from app.protocol.request import A2ARequest

# --- recording send / run ---------------------------------------------------------------

_store: HistoryStore | None = None
_unavailable = False


def shared_store() -> HistoryStore | None:
    """The process's history store, opened on first use (problems go to stderr once)."""
    global _store, _unavailable
    if _store is None and not _unavailable:
        try:
            _store = HistoryStore.open()
        except HistoryUnavailable as exc:
            _unavailable = True
            print(f"warning: {exc}; this run is not recorded", file=sys.stderr)
            return None
        for notice in _store.notices:
            print(f"warning: {notice}", file=sys.stderr)
        atexit.register(_store.close)
    return _store


async def recorded(
    events: AsyncIterator[ExchangeEvent],
    request: A2ARequest,
    *,
    enabled: bool = True,
    secret_headers: Iterable[str] = (),
    secret_query: Iterable[str] = (),
    operation: str = "",
) -> AsyncIterator[ExchangeEvent]:
    """``events`` unchanged, each also recorded in the history unless not ``enabled``.

    Waits at the end until the exchange is stored, so a finished command has written all.
    Left before its end (the reader of stdout went away, an interrupt), the entry ends
    ``cancelled`` with what was fed until then, as the window records a stopped exchange.
    """
    store = shared_store() if enabled else None
    if store is None:
        async for event in events:
            yield event
        return
    recorder = store.recorder(
        request,
        secret_headers=secret_headers,
        secret_query=secret_query,
        source="cli",
        operation=operation,
    )
    started = time.monotonic()
    ended = False
    try:
        async for event in events:
            recorder.feed(event)
            ended = isinstance(event, ExchangeEnd)
            yield event
    finally:
        if not ended:
            recorder.feed(ExchangeEnd(time.monotonic() - started, Outcome.CANCELLED))
        await asyncio.to_thread(recorder.close, 30.0)
        for problem in store.write_problems:
            print(f"warning: {problem}", file=sys.stderr)


# --- the history command ----------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = parser("a2a-workbench history", "The recorded exchanges.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=type(p))
    ls = sub.add_parser("list", help="entries, newest first")
    ls.add_argument("--limit", type=int, default=50)
    ls.add_argument("--text", default="", help="substring of endpoint, URL, method or error")
    ls.add_argument("--method", default="", help="A2A method or HTTP verb")
    ls.add_argument("--outcome", default="", help="ok, rpc_error, …, or incomplete")
    ls.add_argument("--endpoint", default="", help="exactly this endpoint")
    ls.add_argument("--output", default="jsonl", choices=["jsonl", "pretty"])
    show = sub.add_parser("show", help="one entry's events")
    show.add_argument("id", type=int)
    show.add_argument("--output", default="jsonl", choices=["jsonl", "pretty"])
    export = sub.add_parser(
        "export", help="entries as HAR 1.2, JSON lines or a replay fixture (then: replay FILE)"
    )
    export.add_argument("ids", type=int, nargs="*", metavar="ID")
    export.add_argument("--format", required=True, choices=["har", "jsonl", "fixture"])
    export.add_argument("--out", required=True, metavar="FILE", help="file to write, or -")
    export.add_argument(
        "--stable-ids",
        action="store_true",
        help="fixture: task/context/message ids replaced by stable ones",
    )
    export.add_argument(
        "--redact",
        action="append",
        default=[],
        metavar="VALUE",
        help="fixture: a value to replace by **** wherever it appears",
    )
    export.add_argument(
        "--redact-from", metavar="FILE", help="fixture: values to redact, one per line"
    )
    export.add_argument("--card", metavar="FILE", help="fixture: the Agent Card (JSON) to serve")
    return p


def _size(n: int) -> str:
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} KiB"


def pretty_entry(entry: HistoryEntry) -> str:
    """One line per entry: id, time, method, binding/version, endpoint, outcome."""
    status = "" if entry.status is None else f" {entry.status}"
    duration = "" if entry.duration_ms is None else f" {entry.duration_ms:.1f} ms"
    items = f" {entry.items} items" if entry.items else ""
    when = entry.started.strftime("%Y-%m-%d %H:%M:%S")
    return (
        f"#{entry.id} {when}Z {entry.rpc_method} ({entry.binding} {entry.version}) "
        f"{entry.endpoint}  {entry.outcome or 'incomplete'}{status}{duration} "
        f"{_size(entry.size)}{items}"
    )


def _run(args: argparse.Namespace, store: HistoryStore) -> int:
    if args.command == "list":
        where = HistoryFilter(args.text, args.method, args.outcome, args.endpoint)
        jsonl = args.output == "jsonl"
        for entry in store.entries(where, limit=args.limit):
            text = line(record("entry", entry.as_record())) if jsonl else pretty_entry(entry)
            print(for_terminal(text, sys.stdout, pretty=not jsonl))
        return EXIT_OK
    ids = [args.id] if args.command == "show" else list(args.ids)
    missing = [i for i in ids if store.entry(i) is None]
    if missing:
        raise CliUsageError(f"no history entry {', '.join(map(str, missing))}")
    if args.command == "show":
        jsonl = args.output == "jsonl"
        for shown in event_records(store.iter_events(args.id)):
            text = line(shown) if jsonl else pretty(shown)
            print(for_terminal(text, sys.stdout, pretty=not jsonl))
        return EXIT_OK
    ids = ids or store.ids()
    fixture_only = [f for f, on in (("--stable-ids", args.stable_ids), ("--redact", args.redact),
                    ("--redact-from", args.redact_from), ("--card", args.card)) if on]  # fmt: skip
    if fixture_only and args.format != "fixture":
        raise CliUsageError(f"{', '.join(fixture_only)}: only with --format fixture")
    if args.format == "fixture":
        return _export_fixture(args, store, ids)
    out = sys.stdout if args.out == "-" else Path(args.out).open("w", encoding="utf-8")  # noqa: SIM115
    written = len(ids)
    try:
        if args.format == "jsonl":
            write_jsonl(store, ids, out)
        else:
            from app.history.har_export import har_log

            document = har_log((e, store.events(e.id)) for i in ids if (e := store.entry(i)))
            written = len(document["log"]["entries"])
            json.dump(document, out, ensure_ascii=False, indent=2)
            out.write("\n")
            if skipped := len(ids) - written:
                print(f"note: {skipped} gRPC entries left out of the HAR", file=sys.stderr)
    finally:
        if out is not sys.stdout:
            out.close()
    _wrote(args, written)
    return EXIT_OK


_KINDS = {"har": "HAR 1.2", "jsonl": "JSON lines", "fixture": "a replay fixture"}


def _wrote(args: argparse.Namespace, count: int) -> None:
    """One line on stderr saying what went where (the file itself is the output; on
    stdout nothing is added to it)."""
    if args.out != "-":
        say(f"history: wrote {count} exchange(s) to {args.out} as {_KINDS[args.format]}")


def _fixture_options(args: argparse.Namespace) -> Any:
    from app.replay.export import ExportOptions
    from app.replay.fixture import format_for

    values = list(args.redact)
    card = None
    try:
        if args.redact_from:
            text = Path(args.redact_from).read_text(encoding="utf-8")
            values += [line.strip() for line in text.splitlines() if line.strip()]
        if args.card:
            card = json.loads(Path(args.card).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise CliUsageError(f"cannot read {exc}") from exc
    if card is not None and not isinstance(card, dict):
        raise CliUsageError(f"{args.card}: an Agent Card is a JSON object")
    fmt = "yaml" if args.out == "-" else format_for(Path(args.out))
    return ExportOptions(fmt, tuple(values), args.stable_ids, card)


def _export_fixture(args: argparse.Namespace, store: HistoryStore, ids: list[int]) -> int:
    from app.replay.export import build_fixture, fixture_text, write_fixture

    options = _fixture_options(args)
    exchanges = ((e, store.events(e.id)) for i in ids if (e := store.entry(i)))
    if args.out == "-":
        fixture = build_fixture(exchanges, options)
        sys.stdout.write(fixture_text(fixture, options.fmt))
    else:
        try:
            fixture = write_fixture(Path(args.out), exchanges, options)
        except OSError as exc:
            print(f"cannot write {args.out}: {exc}", file=sys.stderr)
            return EXIT_TRANSPORT
    for note in fixture.notes:
        print(f"note: {note}", file=sys.stderr)
    _wrote(args, len(fixture.exchanges))
    return EXIT_OK


def main(argv: list[str]) -> int:
    """Run ``history``; returns the exit status (see module docstring)."""
    try:
        args = build_parser().parse_args(argv)
    except CliUsageError as exc:
        return usage_exit(str(exc))
    try:
        store = HistoryStore.open()
    except HistoryUnavailable as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_TRANSPORT
    for notice in store.notices:
        print(f"warning: {notice}", file=sys.stderr)
    try:
        return _run(args, store)
    except CliUsageError as exc:
        return usage_exit(str(exc))
    except BrokenPipeError:
        with suppress(OSError):
            sys.stdout.close()
        return EXIT_OK
    finally:
        store.close()
