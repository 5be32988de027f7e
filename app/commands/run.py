"""``a2a-workbench run``: send the requests saved in an OpenAPI 3.2 document.

    a2a-workbench run SPEC [--operation ID]... [--env NAME] [--var NAME=VALUE]...
        [--output jsonl|pretty] [--reveal-secrets] [--deadline SECONDS] [--strict]
        [--no-history] [--junit FILE]

Operations are sent one after another in file order, or in the order of ``--operation``.
``{{variables}}`` resolve from ``--var``, then the named environment ``--env NAME`` of the
document (``x-a2a-environments``; its secrets from the OS keyring or the GUI's fallback
secrets file), then ``A2A_WB_<NAME>``, then the OS keyring and that fallback file
(:mod:`app.spec.variables`). An ``--env`` the document does not define is a usage error
listing those it does.
Events are printed as by ``send``; with ``jsonl`` every record also carries
``"operation": "<operationId>"``; ``pretty`` prints a ``=== <operationId>`` line first.

Every run ends with an ``end`` record, also when it fails as a whole (a file that cannot
be used, an unknown ``--operation``, an unwritable ``--junit``: an ``error`` record first;
interrupted: ``cancelled``), as each operation's exchange does.

Exit statuses (as ``send``): 0 every request succeeded, 1 an agent answered with an error,
2 transport or protocol failure, 3 usage error (bad file, unknown operation, missing
variable, a scoped secret such as ``{{token.HOST-PORT}}`` used for another host or outside
auth/headers/query — that operation sends nothing). With several operations the most
serious status wins. ``--deadline`` bounds each exchange; ``--strict`` turns a success with
findings of error severity into status 2 (as ``send``).

Each operation's ``x-a2a.assertions`` are evaluated after it (``assertion`` records; a
failed one makes the status at least 1) and its ``x-a2a.captures`` become ``{{variables}}``
of the operations after it (``capture`` records; a captured value wins over ``--var`` and
the environment), so a saved send → get → cancel sequence runs unattended
(:mod:`app.commands.run_checks`). A request that needs a value an earlier one failed to
capture is not sent (a ``usage`` record says why); the status is the earlier one's: a dead
agent is 2 all through. ``--junit FILE`` writes a test case per request (its real duration;
a failure when the agent answered with an error, an error when it could not be sent or
answered) and per assertion.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from app.commands.cli import CliUsageError, parser, say, usage_exit
from app.commands.history import recorded
from app.commands.network_args import add_network_options, override
from app.commands.oauth import CliOAuth, with_token
from app.commands.printer import (
    EXIT_OK,
    EXIT_RPC,
    EXIT_STATUS,
    Printer,
    for_terminal,
    pretty,
)
from app.commands.run_checks import RequestCase, RunChecks, pretty_check
from app.commands.send import add_exchange_options, strict_status
from app.errors import UsageError
from app.paths import secrets_path
from app.protocol import exchange
from app.protocol.events import ErrorKind, ExchangeEnd, Outcome, ResponseHead
from app.protocol.net.auth import AuthConfig, apply_auth
from app.protocol.net.network import NetworkOptions
from app.protocol.oauth import OAuthConfig, OAuthError, TokenCache
from app.protocol.oauth.challenge import invalid_token
from app.protocol.records import end_record, error_record, line
from app.protocol.request import A2ARequest
from app.spec import environments
from app.spec.assertions import Observed
from app.spec.document import SavedOperation, SpecDocument, SpecError, load
from app.spec.requests import to_a2a_request
from app.spec.variables import MissingVariable, Resolver, SecretStore, parse_var


def build_parser() -> argparse.ArgumentParser:
    """The ``run`` argument parser."""
    p = parser(
        "a2a-workbench run", "Send the A2A requests saved in an OpenAPI 3.2 document (x-a2a)."
    )
    p.add_argument("spec", help="the OpenAPI document (YAML or JSON)")
    p.add_argument(
        "--operation",
        action="append",
        default=[],
        metavar="ID",
        help="operationId to send (repeatable; default: every A2A operation in file order)",
    )
    p.add_argument(
        "--env",
        default="",
        metavar="NAME",
        help="use the document's named environment NAME (x-a2a-environments)",
    )
    p.add_argument(
        "--var",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="variable value (wins over --env)",
    )
    p.add_argument("--output", default="jsonl", choices=["jsonl", "pretty"])
    p.add_argument(
        "--reveal-secrets", action="store_true", help="print credential headers unmasked"
    )
    p.add_argument("--no-history", action="store_true", help="do not record the exchanges")
    p.add_argument(
        "--junit", metavar="FILE", help="write the assertions' results as JUnit XML to FILE"
    )
    add_exchange_options(p)
    add_network_options(p)
    return p


def select(operations: list[SavedOperation], wanted: list[str]) -> list[SavedOperation]:
    """The operations named in ``wanted`` (in that order), or all of them.

    Raises:
        CliUsageError: an unknown operationId (the message lists the known ones).
    """
    if not wanted:
        return operations
    by_id = {op.request.operation_id: op for op in operations}
    missing = [w for w in wanted if w not in by_id]
    if missing:
        known = ", ".join(by_id) or "(none)"
        raise CliUsageError(f"unknown operation {', '.join(missing)} (A2A operations: {known})")
    return [by_id[w] for w in wanted]


def _write(out: TextIO, fmt: str, record: dict[str, object]) -> None:
    text = line(record) if fmt == "jsonl" else pretty_check(record) or pretty(record)
    out.write(for_terminal(text, out, pretty=fmt != "jsonl") + "\n")
    out.flush()


async def run_operations(
    operations: list[SavedOperation],
    resolver: Resolver,
    fmt: str,
    *,
    out: TextIO = sys.stdout,
    reveal_secrets: bool = False,
    history: bool = True,
    deadline: float | None = None,
    findings: list[int] | None = None,
    network: Callable[[NetworkOptions], NetworkOptions] | None = None,
    checks: RunChecks | None = None,
) -> Outcome:
    """Send each operation and print its events; returns the most serious outcome.

    ``deadline`` bounds each exchange; the count of error findings printed is appended to
    ``findings`` (one entry per operation sent) when given. ``network`` adjusts each saved
    request's TLS and proxy settings (the command line's options on top). An operation that
    cannot be built (a ``usage`` record) is also said on stderr.
    ``checks`` collects the assertions' results and the captured variables (a fresh one
    when not given); captured values resolve the later operations' ``{{variables}}``."""
    checks = checks if checks is not None else RunChecks(reveal_secrets=reveal_secrets)
    worst = Outcome.OK
    tokens = TokenCache()  # one token per (token URL, client, scopes) for the whole run
    for op in operations:
        op_id = op.request.operation_id
        label = f"{op.request.method} ({op.request.binding.value} {op.request.version.value})"
        if fmt == "pretty":
            out.write(for_terminal(f"=== {op_id}: {label}", out, pretty=True) + "\n")
        if checks.captured:
            resolver = dataclasses.replace(resolver, values={**resolver.values, **checks.captured})
        try:
            sendable = to_a2a_request(op.request, resolver)
        except UsageError as exc:
            message, outcome = _not_built(exc, checks)
            print(f"run: {op_id}: {message}", file=sys.stderr)
            _write(out, fmt, {**error_record(ErrorKind.USAGE, message), "operation": op_id})
            _write(out, fmt, {**end_record(Outcome.USAGE_ERROR, 0.0), "operation": op_id})
            checks.sent(RequestCase(op_id, label, Outcome.USAGE_ERROR, 0.0, message))
            worst = worst.worse(outcome)
            continue
        printer = Printer(
            fmt,
            out,
            reveal_secrets=reveal_secrets,
            secret_headers=sendable.secret_headers,
            secret_query=sendable.secret_query,
        )
        outcome = Outcome.TRANSPORT_ERROR
        observed = Observed()
        request = sendable.request
        started = time.monotonic()
        if network is not None:  # before the token: the CA bundle and proxy reach it too
            request = dataclasses.replace(request, network=network(request.network))
        if sendable.oauth is not None:
            try:
                request = await with_token(request, sendable.oauth, tokens)
            except OAuthError as exc:
                say(f"oauth2: {exc}")
                message = f"OAuth 2 token not obtained: {exc}"
                error = error_record(ErrorKind.TRANSPORT, message)
                _write(out, fmt, {**error, "operation": op_id})
                _write(out, fmt, {**end_record(Outcome.TRANSPORT_ERROR, 0.0), "operation": op_id})
                elapsed = time.monotonic() - started
                checks.sent(RequestCase(op_id, label, Outcome.TRANSPORT_ERROR, elapsed, message))
                worst = worst.worse(Outcome.TRANSPORT_ERROR)
                continue
        if deadline is not None:
            request = dataclasses.replace(request, deadline=deadline)
        first_error = ""
        for attempt in range(2):
            heads: list[ResponseHead] = []
            async for event in recorded(
                exchange.run(request),
                request,
                enabled=history,
                secret_headers=sendable.secret_headers,
                secret_query=sendable.secret_query,
                operation=op_id,
            ):
                for record in printer.records(event):
                    _write(out, fmt, {**record, "operation": op_id} if fmt == "jsonl" else record)
                    if record.get("event") == "error" and not first_error:
                        first_error = str(record.get("message", ""))
                observed.feed(event)
                if isinstance(event, ResponseHead):
                    heads.append(event)
                if isinstance(event, ExchangeEnd):
                    outcome = event.outcome
            # As `send` does: after a 401 invalid_token, one new token (when that needs no
            # user) and one resend; the assertions judge the answer to the resend.
            renewed = None
            if attempt == 0 and sendable.oauth is not None and (refusal := invalid_token(heads)):
                renewed = await _renewed(request, sendable.oauth, tokens, refusal)
            if renewed is None:
                break
            request, observed, first_error = renewed, Observed(), ""
        elapsed = time.monotonic() - started
        checks.sent(RequestCase(op_id, label, outcome, elapsed, first_error))
        for record in checks.after(op.request, observed, resolver, outcome):
            _write(out, fmt, record)
        worst = worst.worse(outcome)  # the exit status reports the worst
        if findings is not None:
            findings.append(printer.error_findings)
    return worst


def _not_built(exc: UsageError, checks: RunChecks) -> tuple[str, Outcome]:
    """Why a request could not be built, and the outcome it adds to the run's status.

    A ``{{variable}}`` an earlier request was to capture, and did not, is that request's
    failure (a dead agent is exit 2, not a usage error): the status it already gave stands.
    """
    if isinstance(exc, MissingVariable) and exc.name in checks.lost:
        source, outcome = checks.lost[exc.name]
        message = (
            f"not sent: {{{{{exc.name}}}}} was to be captured by {source}, which "
            f"captured nothing ({outcome.value})"
        )
        return message, outcome if outcome is not Outcome.OK else Outcome.USAGE_ERROR
    return str(exc), Outcome.USAGE_ERROR


async def _renewed(
    request: A2ARequest, config: OAuthConfig, tokens: TokenCache, refusal: str
) -> A2ARequest | None:
    """``request`` with a new token after the agent refused the last one, or None when a new
    one needs the user (no refresh token, not client credentials) or cannot be had."""
    oauth = CliOAuth(config, cache=tokens, network=request.network)
    if not oauth.can_renew():
        return None
    say(f"oauth2: the agent refused the token ({refusal}); getting a new one")
    try:
        token = await oauth.token(force=True)
    except OAuthError as exc:
        say(f"oauth2: {exc}")
        return None
    return apply_auth(request, AuthConfig.bearer(token.access_token))


def environment_resolver(doc: SpecDocument, name: str, values: dict[str, str]) -> Resolver:
    """The resolver for ``--var`` ``values`` and the document's environment ``name`` (none
    when ""), reading the secret store the GUI writes; a variable without a value is said
    with the environments of the document that set it (``--env demo``).

    Raises:
        CliUsageError: ``name`` is not one of the document's environments (the message
            lists them).
    """
    store = SecretStore(secrets_path())
    found, _ = environments.read(doc.data)  # its problems are the document's: said on open
    if name and environments.find(found, name) is None:
        known = ", ".join(e.name for e in found) or "(the document defines none)"
        raise CliUsageError(f"unknown environment {name!r} (environments: {known})")
    resolver = environments.resolver_for(found, name, values=values, store=store)
    return dataclasses.replace(resolver, defined_in=environments.defining(found))


def _usage_end(message: str) -> int:
    """A usage failure of the whole run: its ``error`` record, then the ``end`` record every
    run finishes with (as ``send``), the message on stderr; exit 3."""
    records = [error_record(ErrorKind.USAGE, message), end_record(Outcome.USAGE_ERROR, 0.0)]
    return usage_exit(message, records)


def main(argv: list[str]) -> int:
    """Run ``run``; returns the exit status (see module docstring)."""
    try:
        args = build_parser().parse_args(argv)
        values = dict(parse_var(v) for v in args.var)
        try:
            doc = load(Path(args.spec))
        except SpecError as exc:
            raise CliUsageError(str(exc)) from exc
        for problem in doc.problems:
            print(f"warning: {problem.wording}", file=sys.stderr)
        if doc.notice:
            print(doc.notice, file=sys.stderr)
        operations = select(doc.operations(), args.operation)
        if not operations:
            raise CliUsageError(f"{args.spec}: no A2A operations (operations with x-a2a)")
        resolver = environment_resolver(doc, args.env, values)
    except UsageError as exc:  # CliUsageError, or a bad --var
        return _usage_end(str(exc))
    findings: list[int] = []
    checks = RunChecks(reveal_secrets=args.reveal_secrets)
    try:
        outcome = asyncio.run(
            exchange.owning_agents(
                run_operations(
                    operations,
                    resolver,
                    args.output,
                    reveal_secrets=args.reveal_secrets,
                    history=not args.no_history,
                    deadline=args.deadline,
                    findings=findings,
                    network=lambda saved: override(saved, args),
                    checks=checks,
                )
            )
        )
    except KeyboardInterrupt:
        _write(sys.stdout, args.output, end_record(Outcome.CANCELLED, 0.0))
        return EXIT_STATUS[Outcome.CANCELLED]
    if args.junit:
        try:
            checks.write_junit(Path(args.junit), [op.request.operation_id for op in operations])
        except OSError as exc:
            return _usage_end(f"run: cannot write the JUnit report {args.junit}: {exc}")
    status = strict_status(EXIT_STATUS[outcome], sum(findings), args.strict)
    return EXIT_RPC if checks.failed and status == EXIT_OK else status
