"""``a2a-workbench verify``: check an Agent Card's JWS signatures against a local JWKS.

Usage::

    a2a-workbench verify CARD_URL_OR_FILE --jwks FILE [--profile sdk|spec|any]
                         [--a2a-version V] [--output jsonl|pretty] [--show-payloads]

A URL is fetched with ``fetch_card`` (no credentials, no redirects, ≤1 MiB) and
``A2A-Version: 1.0`` by default, because servers shape the card by that header and the
1.0 card is the one signers sign (docs/PEERS.md Q12). Nothing else is fetched: ``jku``/``x5u``
are printed, never followed.

``jsonl`` output: one ``{"event": "signature", ...}`` line per ``signatures[]`` entry (plus
``{"event": "payload", ...}`` lines with ``--show-payloads``), then one
``{"event": "end", ...}`` summary line. A card with duplicate member names gets one
``{"event": "duplicate_key", "path", "lines", "message"}`` line per name first, and none of
its signatures is valid: another parser reads another card.

A signature whose ``kid`` has no key in the JWKS is ``no trusted key`` (not ``invalid``):
it may well be fine, it just cannot be checked against the keys given. When that is so of
every signature, the summary says so too (``"status": "no trusted key"``, exit 4).

Exit status: 0 at least one signature is valid and none is malformed; 1 none is valid and
one is invalid, refused or malformed (a tampered card, a forged header, an ambiguous card);
2 the card is unsigned, or could not be fetched (no answer, a redirect, an HTTP error, not a
JSON object); 3 usage error (bad arguments, unreadable JWKS, a card file that cannot be read
or is not a JSON object); 4 no trusted key: no signature names a key of the JWKS, so none
could be checked.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any, TextIO

from app.commands import cli
from app.commands.card_auth_args import add_card_auth_options, card_auth_from_args
from app.commands.cli import EXIT_USAGE, CliUsageError, card_source, say
from app.commands.network_args import add_network_options, network_from_args
from app.commands.printer import for_terminal
from app.protocol.card.card_auth import CARD_AUTH_HINT
from app.protocol.card.fetch import fetch_card
from app.protocol.card.jwks import JwksError, parse_jwks
from app.protocol.card.jws_verify import (
    CardStatus,
    CardVerification,
    ProfileMode,
    SignatureResult,
    Verdict,
    verify_card,
)
from app.protocol.card.read import ReadOutcome, not_a_card, read_card
from app.protocol.records import line
from app.protocol.wire.json_duplicates import DuplicateMember

EXIT_VALID, EXIT_INVALID, EXIT_UNSIGNED, EXIT_NO_TRUSTED_KEY = 0, 1, 2, 4
EXIT_NOT_FETCHED = 2
"""The agent's side, as everywhere in the CLI: unreachable, or no card where it should be."""


class _CardNotFetched(Exception):
    """The card URL gave no card to verify (the message says why)."""


PROG = "a2a-workbench verify"


def build_parser() -> argparse.ArgumentParser:
    """The ``verify`` argument parser (errors raise ``CliUsageError`` instead of exiting)."""
    parser = cli.parser(PROG, "Verify an Agent Card's JWS signatures against a JWKS you trust.")
    parser.add_argument("card", metavar="CARD_URL_OR_FILE", help="card URL, base URL or file")
    parser.add_argument("--jwks", required=True, metavar="FILE", help="JWKS (or one JWK) file")
    parser.add_argument(
        "--profile",
        choices=[m.value for m in ProfileMode],
        default=ProfileMode.ANY.value,
        help="canonicalisation profiles accepted: sdk, spec (strict §8.4.1) or any",
    )
    parser.add_argument(
        "--a2a-version",
        default="1.0",
        metavar="V",
        help="A2A-Version header for URL fetches (default 1.0; 'none' sends no header)",
    )
    parser.add_argument("--output", choices=["jsonl", "pretty"], default="jsonl")
    parser.add_argument("--timeout", type=float, default=10.0, help="fetch timeout, seconds")
    parser.add_argument(
        "--show-payloads", action="store_true", help="also print each profile's payload"
    )
    add_card_auth_options(parser, credentials=True)
    add_network_options(parser, grpc=False)
    return parser


def _load_card(args: argparse.Namespace) -> tuple[Any, str, tuple[DuplicateMember, ...]]:
    source: str = args.card
    if not source.startswith(("http://", "https://")):
        reading = read_card(Path(source), max_bytes=None)
        if reading.outcome is ReadOutcome.FAILED:
            raise CliUsageError(f"cannot read card file {source}: {reading.error}")
        if reading.parse_error:
            raise CliUsageError(f"card file {source}: {not_a_card(reading)}")
        return reading.card, source, reading.duplicate_keys
    version = None if args.a2a_version.lower() == "none" else args.a2a_version
    network = network_from_args(args)
    auth = card_auth_from_args(args, source)
    result = asyncio.run(
        fetch_card(source, a2a_version=version, timeout=args.timeout, network=network, auth=auth)
    )
    reading = read_card(result)
    if reading.outcome is ReadOutcome.FAILED:
        raise _CardNotFetched(f"card not fetched from {result.card_url}: {reading.error}")
    if reading.outcome is ReadOutcome.REDIRECT and result.redirect_location:
        raise _CardNotFetched(
            f"card not fetched: HTTP {result.status} redirect to "
            f"{result.redirect_location} (redirects are not followed)"
        )
    # Only a plain 200 is a card to verify here; any other status is reported as it is.
    if result.status != 200:
        hint = f"; try the legacy path {result.legacy_hint}" if result.legacy_hint else ""
        if result.status in (401, 403):
            hint += f"; {CARD_AUTH_HINT}"
        raise _CardNotFetched(
            f"card not fetched from {result.card_url}: HTTP {result.status}{hint}"
        )
    if reading.parse_error:
        raise _CardNotFetched(f"card from {result.card_url}: {not_a_card(reading)}")
    return reading.card, reading.source, reading.duplicate_keys


def _signature_record(result: SignatureResult) -> dict[str, Any]:
    return {
        "event": "signature",
        "index": result.index,
        "verdict": result.verdict.value,
        "label": result.label,
        "reason": result.reason.value if result.reason else None,
        "message": result.message,
        "kid": result.kid,
        "alg": result.alg,
        "typ": result.typ,
        "jku": result.jku,
        "x5u": result.x5u,
        "profile": result.profile.value if result.profile else None,
        "matched_profiles": [p.value for p in result.matched_profiles],
        "sdk_canonicalisation_only": result.sdk_canonicalisation_only,
        "key_index": result.key_index,
        "protected_header": result.protected_header,
        "unprotected_header": result.unprotected_header or None,
        "notes": list(result.notes),
    }


def exit_status(verification: CardVerification) -> int:
    """Map a verification to the documented exit status (module docstring)."""
    if verification.status is CardStatus.NOT_A_CARD:
        return EXIT_USAGE
    if verification.status is CardStatus.UNSIGNED:
        return EXIT_UNSIGNED
    if verification.status is CardStatus.NO_TRUSTED_KEY:
        return EXIT_NO_TRUSTED_KEY
    if verification.any_valid and not verification.any_malformed:
        return EXIT_VALID
    return EXIT_INVALID


def _end_record(verification: CardVerification, source: str, code: int) -> dict[str, Any]:
    counts = {v.value: 0 for v in Verdict}
    for result in verification.signatures:
        counts[result.verdict.value] += 1
    return {
        "event": "end",
        "source": source,
        "status": verification.status.value,
        "mode": verification.mode.value,
        "signatures": len(verification.signatures),
        **counts,
        "malformed": sum(1 for r in verification.signatures if r.malformed),
        "uncovered_profile": (
            verification.uncovered_profile.value if verification.uncovered_profile else None
        ),
        "uncovered": [{"path": u.path, "reason": u.reason} for u in verification.uncovered],
        "notes": list(verification.notes) if verification.signatures else [],
        "exit_status": code,
    }


def _write_jsonl(
    out: TextIO, verification: CardVerification, source: str, code: int, payloads: bool
) -> None:
    def write(record: dict[str, Any]) -> None:
        out.write(for_terminal(line(record), out) + "\n")

    if payloads:
        for p in verification.payloads:
            write(
                {
                    "event": "payload",
                    "profile": p.profile.value,
                    "payload": p.payload.decode("utf-8") if p.payload is not None else None,
                    "error": p.error or None,
                }
            )
    for result in verification.signatures:
        write(_signature_record(result))
    write(_end_record(verification, source, code))


def _write_pretty(
    out: TextIO, verification: CardVerification, source: str, code: int, payloads: bool
) -> None:
    # The card's and the signatures' texts are the signer's: never let them drive a terminal.
    def write(text: str) -> None:
        out.write(for_terminal(text, out, pretty=True))

    write(f"card: {source}\n")
    if verification.status is CardStatus.UNSIGNED:
        write("unsigned: the card has no signatures\n")
        return
    if payloads:
        for p in verification.payloads:
            body = p.payload.decode("utf-8") if p.payload is not None else f"(none: {p.error})"
            write(f"payload [{p.profile.value}]: {body}\n")
    for r in verification.signatures:
        write(
            f"signature {r.index}: {r.label.upper()} kid={r.kid!r} alg={r.alg!r}"
            + (f" profile={r.profile.value}" if r.profile else "")
            + f"\n  {r.message}\n"
        )
        if r.jku:
            write(f"  jku (not fetched): {r.jku}\n")
        for note in r.notes:
            write(f"  note: {note}\n")
    if verification.uncovered:
        basis = verification.uncovered_profile.value if verification.uncovered_profile else "?"
        write(f"not covered by the signature (measured against {basis}):\n")
        for u in verification.uncovered:
            write(f"  {u.path}: {u.reason}\n")
    for note in verification.notes:
        write(f"note: {note}\n")
    write(f"result: {verification.status.value} (exit {code})\n")


def _usage_exit(detail: str) -> int:
    return cli.usage_exit(detail, stderr_line=f"{PROG}: error: {detail}")


def main(argv: list[str]) -> int:
    """Run ``verify``; returns the exit status (see module docstring)."""
    try:
        args = build_parser().parse_args(argv)
    except CliUsageError as exc:
        return _usage_exit(exc.detail)
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    try:
        try:
            jwks_text = Path(args.jwks).read_bytes()
        except OSError as exc:
            raise CliUsageError(
                f"cannot read JWKS file {args.jwks}: {exc.strerror or exc}"
            ) from exc
        try:
            jwks = parse_jwks(jwks_text)
        except JwksError as exc:
            raise CliUsageError(f"JWKS file {args.jwks}: {exc}") from exc
        card_source(args.card, "CARD_URL_OR_FILE")
        card, source, duplicates = _load_card(args)
    except CliUsageError as exc:
        return _usage_exit(exc.detail)
    except _CardNotFetched as exc:
        say(f"{PROG}: {exc}")
        return EXIT_NOT_FETCHED

    verification = verify_card(card, jwks, mode=ProfileMode(args.profile), duplicates=duplicates)
    code = exit_status(verification)
    if verification.status is CardStatus.NOT_A_CARD:
        if "://" in source:
            print(f"{PROG}: {source} is not a JSON object card", file=sys.stderr)
            return EXIT_NOT_FETCHED
        return _usage_exit(f"{source} is not a JSON object card")
    writer = _write_jsonl if args.output == "jsonl" else _write_pretty
    _write_duplicates(sys.stdout, args.output, duplicates)  # before ``end``, always last
    writer(sys.stdout, verification, source, code, args.show_payloads)
    return code


def _write_duplicates(out: TextIO, fmt: str, duplicates: tuple[DuplicateMember, ...]) -> None:
    """The card's duplicate member names, as the card panel reports them
    (:func:`app.protocol.card.read.examine`): a signature may cover either value."""
    for d in duplicates:
        record = {"event": "duplicate_key", "path": d.path, "lines": list(d.lines),
                  "message": d.describe()}  # fmt: skip
        if fmt == "jsonl":
            text = for_terminal(line(record), out)
        else:
            text = for_terminal(f"duplicate member: {d.path}: {d.describe()}", out, pretty=True)
        out.write(text + "\n")
