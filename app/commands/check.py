"""``a2a-workbench check``: does the agent do what its card says, the same on every binding?

    a2a-workbench check CARD_URL [--interface N] [--junit FILE] [--output jsonl|pretty]
        [--timeout S] [--budget S] [--header 'Name: value']... [--bearer TOKEN |
        --basic USER:PASS | --api-key NAME=VALUE[@header|query|cookie] | --oauth2 FLOW ...]
        [--extension URI]... [--no-history] [TLS and proxy options]

Runs :func:`app.check.runner.run_check` and prints one record per line (``jsonl``): a
``check`` record, a ``finding`` per check and interface, an ``end`` record (docs/CLI.md,
"check"), each kind under ``"event"`` and, for one more release, ``"type"``. Every
exchange is recorded in the history unless ``--no-history``; a finding's ``exchanges`` are
the entry ids (``a2a-workbench history show ID``).

Exit statuses: 0 no check failed (warnings, skips and n/a allowed), 1 a check failed, 2 the agent
could not be reached (no card, or no interface answered), 3 usage error.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sys
from pathlib import Path
from typing import Any, TextIO

from app.check.check_model import (
    CheckEnded,
    CheckEvent,
    CheckResult,
    CheckStarted,
    CheckStatus,
    EndReason,
)
from app.check.runner import CheckOptions, run_check
from app.commands.card_auth_args import add_card_auth_options
from app.commands.cli import CliUsageError, card_source, parser, say, usage_exit
from app.commands.history import shared_store
from app.commands.junit import CaseStatus, JUnitCase, JUnitSuite, write_junit
from app.commands.network_args import add_network_options, network_from_args
from app.commands.oauth import CliOAuth, oauth_from_args
from app.commands.printer import EXIT_OK, EXIT_RPC, EXIT_TRANSPORT, for_terminal
from app.commands.send import (
    add_command_option,
    add_credential_options,
    parse_auth,
    parse_header,
)
from app.errors import UsageError
from app.protocol import exchange
from app.protocol.events import ErrorKind
from app.protocol.net.auth import AuthConfig
from app.protocol.oauth import OAuthError
from app.protocol.records import error_record, line, record

_CASE_STATUS = {
    CheckStatus.PASS: CaseStatus.PASSED,
    # JUnit has no warning: a warning does not fail CI; its text stays in the jsonl record.
    CheckStatus.WARN: CaseStatus.PASSED,
    CheckStatus.FAIL: CaseStatus.FAILED,
    CheckStatus.SKIP: CaseStatus.SKIPPED,
    # JUnit has no "not applicable" either: a skip whose message and property say n/a.
    CheckStatus.NA: CaseStatus.SKIPPED,
}
_MARK = {
    CheckStatus.PASS: "✓ pass",
    CheckStatus.WARN: "! warn",
    CheckStatus.FAIL: "✗ FAIL",
    CheckStatus.SKIP: "- skip",
    CheckStatus.NA: "· n/a ",
}
_NOT_JUDGED = (CheckStatus.SKIP, CheckStatus.NA)
"""Printed on one line with their reason: nothing was judged."""


def build_parser() -> argparse.ArgumentParser:
    """The ``check`` argument parser."""
    p = parser("a2a-workbench check", "Check an agent against its Agent Card.")
    p.add_argument("card_url", metavar="CARD_URL", help="the card URL, a base URL or a card file")
    p.add_argument(
        "--interface",
        type=int,
        default=None,
        metavar="N",
        help="check only the card's interface N (0-based; default: every interface)",
    )
    p.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report")
    p.add_argument("--output", default="jsonl", choices=["jsonl", "pretty"])
    p.add_argument("--timeout", type=float, default=10.0, help="seconds per call (default 10)")
    p.add_argument(
        "--budget", type=float, default=120.0, help="seconds for the whole run (default 120)"
    )
    add_credential_options(p)
    add_card_auth_options(p, credentials=False)
    add_command_option(p)
    p.add_argument(
        "--push-public-url",
        default="",
        metavar="URL",
        help="the address the agent should call for the push checks (a tunnel you run to "
        "the receiver's local port); without it, an agent refusing loopback makes push n/a",
    )
    p.add_argument(
        "--push-port",
        type=int,
        default=0,
        metavar="N",
        help="the push checks' receiver listens on 127.0.0.1:N (default: any free port)",
    )
    p.add_argument("--no-history", action="store_true", help="do not record the exchanges")
    add_network_options(p)
    return p


def options_from_args(args: argparse.Namespace) -> CheckOptions:
    """The run the arguments describe (credentials from OAuth are added later).

    Raises:
        CliUsageError: a bad timeout, budget, header or credential.
    """
    for name in ("timeout", "budget"):
        value = getattr(args, name)
        if not (value > 0 and value != float("inf")):
            raise CliUsageError(f"--{name} must be a positive number of seconds")
    if not 0 <= args.push_port <= 65535:
        raise CliUsageError(f"--push-port {args.push_port} is not a port number (0-65535)")
    if args.interface is not None and args.interface < 0:
        raise CliUsageError("--interface must be 0 or more")
    card_source(args.card_url)
    return CheckOptions(
        card_url=args.card_url,
        interface=args.interface,
        auth=parse_auth(args),
        headers=tuple(parse_header(h) for h in args.header),
        network=network_from_args(args),
        call_timeout_s=args.timeout,
        budget_s=args.budget,
        history=None if args.no_history else shared_store(),
        extensions=tuple(args.extension),
        command=args.command,
        card_auth=args.card_auth,
        push_public_url=args.push_public_url,
        push_port=args.push_port,
    )


def started_record(event: CheckStarted) -> dict[str, Any]:
    return record(
        "check",
        {
            "card_url": event.card_url,
            "agent": event.agent_name,
            "interfaces": list(event.interfaces),
            "planned": event.planned,
        },
        with_type=True,
    )


def finding_record(event: CheckResult) -> dict[str, Any]:
    return record(
        "finding",
        {
            "status": event.status.value,
            "id": event.check_id,
            "area": event.area.value,
            "title": event.title,
            "section": event.section,
            "detail": event.detail,
            "interface": event.interface,
            "exchanges": list(event.exchanges),
            "tck": list(event.tck),
        },
        with_type=True,
    )


def end_record(event: CheckEnded) -> dict[str, Any]:
    return record(
        "end",
        {
            "counts": {status.value: event.counts.get(status, 0) for status in CheckStatus},
            "reason": event.reason.value,
            "elapsed_ms": round(event.elapsed_ms, 1),
            "message": event.message,
        },
        with_type=True,
    )


def pretty_line(event: CheckEvent) -> str | None:
    """The terminal line(s) for one event; None for progress."""
    if isinstance(event, CheckStarted):
        return (
            f"Checking {event.agent_name or event.card_url} ({event.card_url}): "
            f"{len(event.interfaces)} interface(s), {event.planned} checks"
        )
    if isinstance(event, CheckResult):
        where = f" [{event.interface}]" if event.interface else ""
        head = f"{_MARK[event.status]}  {event.check_id}{where}: {event.title}"
        if event.status is CheckStatus.PASS:
            return head
        if event.status in _NOT_JUDGED:
            return f"{head} ({event.detail})" if event.detail else head
        lines = [head, *(f"      {line}" for line in event.detail.splitlines())]
        if event.section:
            lines.append(f"      spec: {event.section}")
        if event.tck:
            lines.append(f"      a2a-tck: {', '.join(event.tck)}")
        if event.exchanges:
            ids = ", ".join(str(i) for i in event.exchanges)
            lines.append(f"      exchanges: {ids} (a2a-workbench history show ID)")
        return "\n".join(lines)
    if isinstance(event, CheckEnded):
        counts = ", ".join(f"{event.counts.get(s, 0)} {s.value}" for s in CheckStatus)
        why = f": {event.message}" if event.message else ""
        return f"{counts} in {event.elapsed_ms / 1000:.1f} s ({event.reason.value}{why})"
    return None


def junit_suites(results: list[CheckResult]) -> list[JUnitSuite]:
    """One suite per area, in the order the areas first appear."""
    areas: dict[str, list[JUnitCase]] = {}
    for r in results:
        name = f"{r.check_id} [{r.interface}]" if r.interface else r.check_id
        line = " ".join(r.detail.split()) or r.title
        if r.status is CheckStatus.NA:
            line = f"n/a: {line}"
        message = line if len(line) <= 200 else line[:199] + "…"
        exchanges = ", ".join(str(i) for i in r.exchanges)
        seen = f"\nexchanges: {exchanges} (a2a-workbench history show ID)" if exchanges else ""
        areas.setdefault(r.area.value, []).append(
            JUnitCase(
                classname=f"check.{r.area.value}",
                name=name,
                status=_CASE_STATUS[r.status],
                time_s=r.duration_ms / 1000.0,
                message=message,
                detail=f"{r.title}\n{r.section}\n{r.detail}{seen}".strip(),
                properties=_properties(r),
            )
        )
    return [JUnitSuite(f"check.{area}", cases) for area, cases in areas.items()]


def _properties(result: CheckResult) -> tuple[tuple[str, str], ...]:
    """The case's properties: ``status`` = ``n/a`` for a check that does not apply, ``tck``
    = the a2a-tck requirement ids it corresponds to, comma-separated."""
    found: list[tuple[str, str]] = []
    if result.status is CheckStatus.NA:
        found.append(("status", result.status.value))
    if result.tck:
        found.append(("tck", ",".join(result.tck)))
    return tuple(found)


class _Output:
    def __init__(self, mode: str, out: TextIO) -> None:
        self.mode = mode
        self.out = out

    def emit(self, event: CheckEvent) -> None:
        if self.mode == "pretty":
            text = pretty_line(event)
        elif isinstance(event, CheckStarted):
            text = line(started_record(event))
        elif isinstance(event, CheckResult):
            text = line(finding_record(event))
        elif isinstance(event, CheckEnded):
            text = line(end_record(event))
        else:
            text = None
        if text is not None:
            # An agent's error text lands in details: never let it drive the terminal.
            self.out.write(for_terminal(text, self.out, pretty=self.mode == "pretty") + "\n")
            self.out.flush()


async def _check(
    options: CheckOptions, output: _Output, oauth: CliOAuth | None
) -> tuple[EndReason, list[CheckResult]]:
    if oauth is not None:
        token = await oauth.token()
        options = dataclasses.replace(options, auth=AuthConfig.bearer(token.access_token))
    results: list[CheckResult] = []
    reason = EndReason.COMPLETED
    async for event in run_check(options):
        output.emit(event)
        if isinstance(event, CheckResult):
            results.append(event)
        elif isinstance(event, CheckEnded):
            reason = event.reason
    return reason, results


def main(argv: list[str]) -> int:
    """Run ``check``; returns the exit status (module docstring)."""
    try:
        args = build_parser().parse_args(argv)
        oauth = oauth_from_args(args)
        options = options_from_args(args)
        if oauth is not None:  # the CA bundle and proxy reach the authorization server too
            oauth.network = options.network
    except UsageError as exc:
        return usage_exit(str(exc), [error_record(ErrorKind.USAGE, str(exc), with_type=True)])
    output = _Output(args.output, sys.stdout)
    try:
        reason, results = asyncio.run(exchange.owning_agents(_check(options, output, oauth)))
    except UsageError as exc:  # --interface beyond the card's interfaces
        return usage_exit(str(exc), [error_record(ErrorKind.USAGE, str(exc), with_type=True)])
    except OAuthError as exc:
        say(f"oauth2: {exc}")
        return EXIT_TRANSPORT
    except KeyboardInterrupt:
        return EXIT_TRANSPORT
    if args.junit:
        try:
            write_junit(Path(args.junit), junit_suites(results), name="a2a-workbench check")
        except OSError as exc:
            return usage_exit(f"a2a-workbench check: cannot write --junit {args.junit}: {exc}")
    if reason is EndReason.UNREACHABLE:
        return EXIT_TRANSPORT
    if any(r.status is CheckStatus.FAIL for r in results):
        return EXIT_RPC
    return EXIT_OK
