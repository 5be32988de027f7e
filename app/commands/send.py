"""``a2a-workbench send``: one A2A request from the command line, printed as events.

    a2a-workbench send URL --method METHOD [--version 1.0|0.3] [--binding JSONRPC|HTTP+JSON|GRPC]
        [--text TEXT | --body FILE|-] [--header 'Name: value']... [--timeout SECONDS]
        [--output jsonl|pretty] [--bearer TOKEN | --basic USER:PASS |
        --api-key NAME=VALUE[@header|query|cookie] | --oauth2 FLOW ...] [--extension URI]...
        [--force] [--deadline SECONDS] [--strict] [--file PATH|URI]... [--data JSON]...
        [--task-id ID] [--context-id ID]

Exit statuses: 0 success, 1 the agent answered with an error, 2 transport or protocol
failure, 3 usage error — including a body whose shape does not fit the version and
binding (a JSON-RPC envelope given to HTTP+JSON, a 0.3 part in a 1.0 request, …) or breaks
the method's request schema (a 1.0 message without ``role``; listed by JSON path), unless
``--force``. With ``--strict`` a ``finding`` of error severity (a deviation the client
understood, such as a 0.3 state spelling in a 1.0 answer) turns success into status 2.

``--file`` and ``--data`` add parts after the template's text part, in the shape of the
version and binding (docs/PROTOCOL.md §5.2): a local file inline as base64 (at most
10 MiB), an ``http(s):`` or ``file:`` URI by reference, a JSON object as a data part.

Credentials go to URL only; they are masked in the output unless ``--reveal-secrets``.
``--oauth2`` and its settings: :mod:`app.commands.oauth`.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from dataclasses import replace
from pathlib import Path

from app.commands.cli import CliUsageError, parser, usage_exit
from app.commands.history import recorded
from app.commands.network_args import add_network_options, network_from_args
from app.commands.oauth import CliOAuth, add_oauth_options, oauth_from_args, with_oauth
from app.commands.printer import EXIT_OK, EXIT_STATUS, EXIT_TRANSPORT, Printer
from app.commands.secret_args import secret_value
from app.errors import UsageError
from app.protocol import exchange
from app.protocol.compose import RequestInputs, compose, compose_body
from app.protocol.events import ErrorKind, ExchangeEnd, Outcome
from app.protocol.methods.catalog import find_method, methods_for
from app.protocol.methods.parts import Attachment, data_attachment, file_attachment, uri_attachment
from app.protocol.net.auth import (
    ApiKeyLocation,
    AuthConfig,
    secret_header_names,
    secret_query_names,
)
from app.protocol.records import end_record, error_record
from app.protocol.request import A2ARequest
from app.protocol.types import Binding, ProtocolVersion
from app.spec.request_validation import check_request_body

_URI = re.compile(r"(?:https?|file|data):", re.IGNORECASE)  # by reference, not read here


def build_parser() -> argparse.ArgumentParser:
    """The ``send`` argument parser (shared with ``--help``)."""
    p = parser("a2a-workbench send", "Send one A2A request.")
    p.add_argument(
        "url", help="the interface URL (JSON-RPC endpoint, REST base URL) or gRPC host:port"
    )
    p.add_argument("--method", required=True, help="A2A method, e.g. SendMessage, message/send")
    p.add_argument("--version", default="1.0", choices=[v.value for v in ProtocolVersion])
    p.add_argument("--binding", default="JSONRPC", choices=[b.value for b in Binding])
    add_command_option(p)
    source = p.add_mutually_exclusive_group()
    source.add_argument("--text", help="fill the method's template with this message text")
    source.add_argument(
        "--body",
        help="a file holding the method's request object as JSON (JSON-RPC: the params), or -",
    )
    p.add_argument(
        "--task-id",
        default="",
        metavar="ID",
        help="the task id for --text templates that take one (GetTask, CancelTask, "
        "SubscribeToTask, push configs); with a send method, continue that task",
    )
    p.add_argument(
        "--context-id",
        default="",
        metavar="ID",
        help="the context id for --text templates (ListTasks; a send method's next turn)",
    )
    p.add_argument(
        "--file",
        action="append",
        default=[],
        metavar="PATH|URI",
        help="attach a file part: a path inline (base64), a URI by reference (repeatable)",
    )
    p.add_argument(
        "--data",
        action="append",
        default=[],
        metavar="JSON",
        help="attach a data part holding this JSON object (repeatable)",
    )
    p.add_argument("--timeout", type=float, default=30.0, help="seconds (default 30)")
    add_exchange_options(p)
    p.add_argument("--output", default="jsonl", choices=["jsonl", "pretty"])
    p.add_argument(
        "--reveal-secrets", action="store_true", help="print credential headers unmasked"
    )
    add_credential_options(p)
    p.add_argument(
        "--force", action="store_true", help="send a body even if its shape does not fit"
    )
    p.add_argument("--no-history", action="store_true", help="do not record this exchange")
    add_network_options(p)
    return p


def add_credential_options(p: argparse.ArgumentParser) -> None:
    """``--header``, the credential flags (``--bearer``, ``--basic``, ``--api-key``,
    ``--oauth2`` …) and ``--extension``, shared by ``send`` and ``check``."""
    p.add_argument(
        "--header", action="append", default=[], metavar="'Name: value'", help="repeatable"
    )
    auth = p.add_mutually_exclusive_group()
    auth.add_argument(
        "--bearer",
        metavar="TOKEN|@FILE|env:NAME",
        help="send Authorization: Bearer TOKEN (from a file or an environment variable)",
    )
    auth.add_argument(
        "--basic",
        metavar="USER:PASS|@FILE|env:NAME",
        help="send HTTP Basic credentials (USER:PASS, or a file or variable holding them)",
    )
    auth.add_argument(
        "--api-key",
        metavar="NAME=VALUE[@header|query|cookie]",
        help="send an API key in a header (default), the query or a cookie; VALUE may be "
        "@FILE or env:NAME",
    )
    add_oauth_options(p, auth)
    p.add_argument(
        "--extension",
        action="append",
        default=[],
        metavar="URI",
        help="activate an extension (A2A-Extensions; repeatable)",
    )


def add_command_option(p: argparse.ArgumentParser) -> None:
    """``--command``, the command line of a stdio agent (``send``, ``run``, ``check``)."""
    p.add_argument(
        "--command",
        default="",
        metavar="'PROGRAM ARGS…'",
        help="the command line that starts a stdio agent (split like a shell; no shell "
        "runs it); the app runs it and stops it at the end",
    )


def add_exchange_options(p: argparse.ArgumentParser) -> None:
    """``--deadline`` and ``--strict``, shared by ``send`` and ``run``."""
    p.add_argument(
        "--deadline",
        type=float,
        default=None,
        metavar="SECONDS",
        help="bound the whole exchange, streams included (DEADLINE_EXCEEDED, exit 2)",
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="findings of error severity fail the exit status (2)",
    )


def strict_status(status: int, error_findings: int, strict: bool) -> int:
    """The exit status, raised to 2 under ``--strict`` when error findings were printed."""
    if strict and error_findings and status == EXIT_OK:
        return EXIT_TRANSPORT
    return status


def parse_auth(args: argparse.Namespace) -> AuthConfig:
    """The credential ``--bearer``, ``--basic`` or ``--api-key`` describes; each secret may
    be ``@FILE`` or ``env:NAME`` (:mod:`app.commands.secret_args`).

    Raises:
        CliUsageError: a malformed ``--basic`` or ``--api-key``, an unreadable ``@FILE``, an
            unset ``env:NAME``.
    """
    if args.bearer is not None:
        return AuthConfig.bearer(secret_value(args.bearer, "--bearer"))
    if args.basic is not None:
        user, sep, password = secret_value(args.basic, "--basic").partition(":")
        if not sep:
            # Never echo the value: it is a credential.
            raise CliUsageError("--basic must look like USER:PASS (no ':' found)")
        return AuthConfig.basic(user, password)
    if args.api_key is not None:
        spec, location = args.api_key, ApiKeyLocation.HEADER
        head, at, tail = spec.rpartition("@")
        if at and tail in {loc.value for loc in ApiKeyLocation}:
            spec, location = head, ApiKeyLocation(tail)
        name, sep, value = spec.partition("=")
        if not sep or not name.strip():
            raise CliUsageError(
                "--api-key must look like NAME=VALUE[@header|query|cookie] (value not shown)"
            )
        return AuthConfig.api_key(name.strip(), secret_value(value, "--api-key"), location)
    return AuthConfig.none()


def masking_auth(args: argparse.Namespace) -> AuthConfig:
    """The credential whose header names are masked in the output (OAuth: ``Authorization``)."""
    if args.oauth2 or args.oauth2_from_card:
        return AuthConfig.bearer("")
    return parse_auth(args)


def parse_header(text: str) -> tuple[str, str]:
    """``'Name: value'`` → ``("Name", "value")``.

    Raises:
        CliUsageError: no colon or an empty name.
    """
    name, sep, value = text.partition(":")
    if not sep or not name.strip():
        # Never echo the text: it may be a credential typed without its name.
        raise CliUsageError("--header must look like 'Name: value' (value not shown)")
    return name.strip(), value.strip()


def request_from_args(args: argparse.Namespace) -> A2ARequest:
    """Build the request the arguments describe (:mod:`app.protocol.compose`).

    Raises:
        UsageError: unknown method for --text, unreadable or invalid --body, a body that does
            not fit the version and binding (unless --force), bad credentials.
    """
    version = ProtocolVersion(args.version)
    binding = Binding(args.binding)
    if args.body is not None:
        if args.file or args.data:
            raise CliUsageError("--file and --data fill the template; they do not go with --body")
        if args.task_id or args.context_id:
            raise CliUsageError("--task-id and --context-id fill --text templates, not --body")
        source = RequestInputs(args.method, params_json=_read_body(args.body))
    else:
        if find_method(version, args.method) is None:
            names = ", ".join(m.name for m in methods_for(version))
            raise CliUsageError(
                f"unknown {version.value} method {args.method!r} (known: {names}); "
                "use --body to send any method"
            )
        source = RequestInputs(
            args.method,
            text=args.text if args.text is not None else "hello",
            parts=_attachments(args.file, args.data),
            task_id=args.task_id,
            context_id=args.context_id,
        )
    # In two steps: the shape check (app.spec) judges the body before the request is made.
    body = compose_body(replace(source, version=version, binding=binding))
    if not args.force:
        problems = check_request_body(version, binding, args.method, body)
        if problems:
            reasons = "; ".join(str(p) for p in problems)
            raise CliUsageError(
                f"the body does not fit a {version.value} {binding.value} request: {reasons} "
                "(--force sends it anyway)"
            )
    inputs = RequestInputs(
        args.method,
        endpoint=args.url,
        version=version,
        binding=binding,
        body=body,
        headers=tuple(parse_header(h) for h in args.header),
        timeout=args.timeout,
        deadline=args.deadline,
        network=network_from_args(args),
        auth=parse_auth(args),
        extensions=tuple(args.extension),
        command=args.command,
    )
    return compose(inputs)


def _read_body(source: str) -> str:
    try:
        if source == "-":
            return sys.stdin.read()
        with open(source, encoding="utf-8") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise CliUsageError(f"cannot read --body {source}: {exc}") from exc


async def _run(
    request: A2ARequest, printer: Printer, args: argparse.Namespace, oauth: CliOAuth | None = None
) -> Outcome:
    if oauth is None:
        return await _exchange(request, printer, args)
    return await with_oauth(
        oauth, request, printer, lambda r, seen: _exchange(r, printer, args, seen)
    )


async def _exchange(
    request: A2ARequest,
    printer: Printer,
    args: argparse.Namespace,
    seen: list[object] | None = None,
) -> Outcome:
    outcome = Outcome.TRANSPORT_ERROR
    auth = masking_auth(args)
    async for event in recorded(
        exchange.run(request),
        request,
        enabled=not args.no_history,
        secret_headers=secret_header_names(auth),
        secret_query=secret_query_names(auth),
    ):
        printer.emit(event)
        if seen is not None:
            seen.append(event)
        if isinstance(event, ExchangeEnd):
            outcome = event.outcome
    return outcome


def main(argv: list[str]) -> int:
    """Run ``send``; returns the exit status (see module docstring)."""
    try:
        args = build_parser().parse_args(argv)
        request = request_from_args(args)
        oauth = oauth_from_args(args)
        if oauth is not None:
            oauth.network = request.network
    except UsageError as exc:  # CliUsageError, or the request cannot be built
        return usage_exit(
            str(exc),
            [error_record(ErrorKind.USAGE, str(exc)), end_record(Outcome.USAGE_ERROR, 0.0)],
        )
    auth = masking_auth(args)
    printer = Printer(
        args.output,
        reveal_secrets=args.reveal_secrets,
        secret_headers=secret_header_names(auth),
        secret_query=secret_query_names(auth),
    )
    try:
        outcome = asyncio.run(exchange.owning_agents(_run(request, printer, args, oauth)))
    except KeyboardInterrupt:
        return EXIT_STATUS[Outcome.CANCELLED]
    return strict_status(EXIT_STATUS[outcome], printer.error_findings, args.strict)


def _attachments(files: list[str], data: list[str]) -> tuple[Attachment, ...]:
    """``--file`` and ``--data`` as attachments, files first, each in the order given.

    Raises:
        UsageError: a file cannot be read or is too big inline; a data part is not an
            object.
    """
    found = [
        uri_attachment(item) if _URI.match(item) else file_attachment(Path(item)) for item in files
    ]
    return (*found, *(data_attachment(text) for text in data))
