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

Exit statuses (as ``send``): 0 every request succeeded, 1 an agent answered with an error,
2 transport or protocol failure, 3 usage error (bad file, unknown operation, missing
variable, a scoped secret such as ``{{token.HOST-PORT}}`` used for another host or outside
auth/headers/query — that operation sends nothing). With several operations the most
serious status wins. ``--deadline`` bounds each exchange; ``--strict`` turns a success with
findings of error severity into status 2 (as ``send``).

Each operation's ``x-a2a.assertions`` are evaluated after it (``assertion`` records; a
failed one makes the status at least 1; ``--junit FILE`` writes one test case per
assertion) and its ``x-a2a.captures`` become ``{{variables}}`` of the operations after it
(``capture`` records; a captured value wins over ``--var`` and the environment), so a saved
send → get → cancel sequence runs unattended (:mod:`app.commands.run_checks`).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from app.commands.cli import CliUsageError, parser, usage_exit
from app.commands.history import recorded
from app.commands.network_args import add_network_options, override
from app.commands.oauth import CliOAuth, with_token
from app.commands.printer import (
    EXIT_OK,
    EXIT_RPC,
    EXIT_STATUS,
    EXIT_USAGE,
    Printer,
    for_terminal,
    pretty,
)
from app.commands.run_checks import RunChecks, pretty_check
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
from app.spec.variables import Resolver, SecretStore, parse_var


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
    out.write(for_terminal(text, out) + "\n")
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
    usage_hint: str = "",
    checks: RunChecks | None = None,
) -> Outcome:
    """Send each operation and print its events; returns the most serious outcome.

    ``deadline`` bounds each exchange; the count of error findings printed is appended to
    ``findings`` (one entry per operation sent) when given. ``network`` adjusts each saved
    request's TLS and proxy settings (the command line's options on top). An operation that
    cannot be built (a ``usage`` record) is also said on stderr, with ``usage_hint``.
    ``checks`` collects the assertions' results and the captured variables (a fresh one
    when not given); captured values resolve the later operations' ``{{variables}}``."""
    checks = checks if checks is not None else RunChecks(reveal_secrets=reveal_secrets)
    worst = Outcome.OK
    tokens = TokenCache()  # one token per (token URL, client, scopes) for the whole run
    for op in operations:
        op_id = op.request.operation_id
        if fmt == "pretty":
            title = (f"=== {op_id}: {op.request.method} ({op.request.binding.value} "
                     f"{op.request.version.value})")  # fmt: skip
            out.write(for_terminal(title, out) + "\n")
        if checks.captured:
            resolver = dataclasses.replace(resolver, values={**resolver.values, **checks.captured})
        try:
            sendable = to_a2a_request(op.request, resolver)
        except UsageError as exc:
            print(f"run: {op_id}: {exc}{usage_hint}", file=sys.stderr)
            _write(out, fmt, {**error_record(ErrorKind.USAGE, str(exc)), "operation": op_id})
            _write(out, fmt, {**end_record(Outcome.USAGE_ERROR, 0.0), "operation": op_id})
            worst = worst.worse(Outcome.USAGE_ERROR)
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
        if network is not None:  # before the token: the CA bundle and proxy reach it too
            request = dataclasses.replace(request, network=network(request.network))
        if sendable.oauth is not None:
            try:
                request = await with_token(request, sendable.oauth, tokens)
            except OAuthError as exc:
                print(f"oauth2: {exc}", file=sys.stderr)
                message = f"OAuth 2 token not obtained: {exc}"
                error = error_record(ErrorKind.TRANSPORT, message)
                _write(out, fmt, {**error, "operation": op_id})
                _write(out, fmt, {**end_record(Outcome.TRANSPORT_ERROR, 0.0), "operation": op_id})
                worst = worst.worse(Outcome.TRANSPORT_ERROR)
                continue
        if deadline is not None:
            request = dataclasses.replace(request, deadline=deadline)
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
            request, observed = renewed, Observed()
        for record in checks.after(op.request, observed, resolver):
            _write(out, fmt, record)
        worst = worst.worse(outcome)  # the exit status reports the worst
        if findings is not None:
            findings.append(printer.error_findings)
    return worst


async def _renewed(
    request: A2ARequest, config: OAuthConfig, tokens: TokenCache, refusal: str
) -> A2ARequest | None:
    """``request`` with a new token after the agent refused the last one, or None when a new
    one needs the user (no refresh token, not client credentials) or cannot be had."""
    oauth = CliOAuth(config, cache=tokens, network=request.network)
    if not oauth.can_renew():
        return None
    print(f"oauth2: the agent refused the token ({refusal}); getting a new one", file=sys.stderr)
    try:
        token = await oauth.token(force=True)
    except OAuthError as exc:
        print(f"oauth2: {exc}", file=sys.stderr)
        return None
    return apply_auth(request, AuthConfig.bearer(token.access_token))


def environment_resolver(doc: SpecDocument, name: str, values: dict[str, str]) -> Resolver:
    """The resolver for ``--var`` ``values`` and the document's environment ``name`` (none
    when ""), reading the secret store the GUI writes.

    Raises:
        CliUsageError: ``name`` is not one of the document's environments (the message
            lists them).
    """
    store = SecretStore(secrets_path())
    if not name:
        return Resolver(values, store=store)
    found, problems = environments.read(doc.data)
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    if environments.find(found, name) is None:
        known = ", ".join(e.name for e in found) or "(the document defines none)"
        raise CliUsageError(f"unknown environment {name!r} (environments: {known})")
    return environments.resolver_for(found, name, values=values, store=store)


def _environments_hint(doc: SpecDocument, selected: str) -> str:
    """Without ``--env``, point at the document's environments (they may hold the value)."""
    if selected:
        return ""
    found, _ = environments.read(doc.data)
    if not found:
        return ""
    names = ", ".join(e.name for e in found)
    return f" (the document's environments: {names}; select one with --env NAME)"


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
        return usage_exit(str(exc), [error_record(ErrorKind.USAGE, str(exc))])
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
                    usage_hint=_environments_hint(doc, args.env),
                    checks=checks,
                )
            )
        )
    except KeyboardInterrupt:
        return EXIT_STATUS[Outcome.CANCELLED]
    if args.junit:
        try:
            checks.write_junit(Path(args.junit), [op.request.operation_id for op in operations])
        except OSError as exc:
            print(f"run: cannot write the JUnit report {args.junit}: {exc}", file=sys.stderr)
            return EXIT_USAGE
    status = strict_status(EXIT_STATUS[outcome], sum(findings), args.strict)
    return EXIT_RPC if checks.failed and status == EXIT_OK else status
