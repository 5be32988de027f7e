"""The card tools: ``fetch_card``, ``validate_card`` and ``verify_card_signature``.

They read cards as ``card`` and ``verify`` do (:func:`app.commands.card.fetch` — no
credentials, no redirects, at most 1 MiB — :func:`app.protocol.card.read.read_card`,
:func:`app.protocol.card.read.examine`, :func:`app.protocol.card.jws_verify.verify_card`)
and return the same findings as structured results. Keys are never fetched: a JWKS is
given inline or as a file, and a signature's ``jku`` / ``x5u`` are reported, not followed.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from pydantic import BaseModel, Field

from app.commands.card import check as card_records
from app.commands.card import fetch
from app.commands.mcp.local_files import local_file, read_local
from app.commands.mcp.mcp_state import ServerState
from app.commands.mcp.tool_registry import add_tool
from app.errors import UsageError
from app.protocol.card.jwks import JwksError, parse_jwks
from app.protocol.card.jws_verify import CardStatus, ProfileMode, SignatureResult, verify_card
from app.protocol.card.read import CardRead, ReadOutcome, read_bytes, read_card
from app.protocol.secrets import mask_url_query

MAX_INLINE_BYTES = 1024 * 1024
"""An inline card or JWKS is at most this large (a fetched card is capped alike)."""


class CardReport(BaseModel):
    """What a card is: where it came from, its shape, interfaces and every problem."""

    outcome: Literal["valid", "problems", "not_a_card", "not_fetched"] = Field(
        description="valid; problems (of error severity, listed); not_a_card; not_fetched."
    )
    message: str = Field(default="", description="Why there is no card, in words.")
    source: str
    url: str | None = Field(
        default=None, description="The card URL fetched (after the well-known path)."
    )
    status: int | None = Field(default=None, description="HTTP status of the fetch.")
    shape: str | None = Field(default=None, description="1.0, 0.3, hybrid or not a card.")
    name: str | None = None
    version: str | None = Field(default=None, description="The agent's own version.")
    interfaces: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Every interface: url, binding, protocol_version, tenant, where the card "
        "lists it, and whether its URL is relative.",
    )
    picked: dict[str, int | None] = Field(
        default_factory=dict,
        description="Index into `interfaces` a 1.0 client and a 0.3 client would use.",
    )
    problems: list[dict[str, Any]] = Field(
        default_factory=list, description="Each problem: JSON path, severity, message."
    )
    card: dict[str, Any] | None = Field(
        default=None, description="The card document itself, when it is a JSON object."
    )


class SignatureReport(BaseModel):
    """The verdict on one ``signatures[]`` entry."""

    index: int
    verdict: str = Field(description="valid, invalid, unsupported or 'no trusted key'.")
    message: str
    reason: str | None = None
    kid: str | None = None
    alg: str | None = None
    profile: str | None = Field(default=None, description="The canonicalisation that verified.")
    sdk_canonicalisation_only: bool = False
    key_index: int | None = Field(default=None, description="The JWKS key that verified.")
    jku: str | None = Field(default=None, description="Named by the signature; never fetched.")
    x5u: str | None = Field(default=None, description="Named by the signature; never fetched.")
    notes: list[str] = Field(default_factory=list)


class VerifyReport(BaseModel):
    """A card's JWS signatures checked against the keys given."""

    status: str = Field(description="valid (one signature verifies), invalid, unsigned.")
    signatures: list[SignatureReport] = Field(default_factory=list)
    uncovered: list[dict[str, str]] = Field(
        default_factory=list,
        description="Card members a signature does not cover (path, reason).",
    )
    duplicate_keys: list[str] = Field(
        default_factory=list, description="Member names the card repeats (either may be signed)."
    )
    notes: list[str] = Field(default_factory=list)


def report(reading: CardRead, max_bytes: int) -> CardReport:
    """``reading`` as a :class:`CardReport`, from the records ``card`` prints; a card
    document over ``max_bytes`` is given as its size."""
    records, _ = card_records(reading)
    fields: dict[str, Any] = {"source": reading.source}
    problems: list[dict[str, Any]] = []
    for rec in records:
        kind = rec.pop("event")
        if kind == "card":
            fields |= rec
        elif kind == "problem":
            problems.append(rec)
        else:
            fields["outcome"] = rec["outcome"]
            fields["message"] = rec.get("message", "")
            fields.setdefault("url", rec.get("url"))
            fields.setdefault("status", rec.get("status"))
    card = reading.card if reading.has_document and isinstance(reading.card, dict) else None
    if card is not None and len(reading.raw) > max_bytes:
        card = {"omitted": f"the card is {len(reading.raw)} bytes, over this server's "
                f"limit of {max_bytes} (--max-body); its problems are listed all the same",
                "bytes": len(reading.raw)}  # fmt: skip
    return CardReport(**fields, problems=problems, card=card)


def inline_reading(card: dict[str, Any] | None, card_path: str | None) -> CardRead:
    """The card given inline (a JSON object) or as a file.

    Raises:
        UsageError: neither or both are given, or the file cannot be read.
    """
    if (card is None) == (card_path is None):
        raise UsageError("give the card either inline (`card`) or as a file (`card_path`)")
    if card_path is not None:
        reading = read_card(local_file(card_path))
        if reading.outcome is ReadOutcome.FAILED:
            raise UsageError(f"cannot read {card_path}: {reading.error}")
        return reading
    raw = json.dumps(card, ensure_ascii=False).encode("utf-8")
    if len(raw) > MAX_INLINE_BYTES:
        raise UsageError(f"the card is {len(raw)} bytes; at most {MAX_INLINE_BYTES} inline")
    return read_bytes(raw, "inline card")


def _jwks_text(jwks: dict[str, Any] | None, jwks_path: str | None) -> bytes:
    if (jwks is None) == (jwks_path is None):
        raise UsageError("give the JWKS either inline (`jwks`) or as a file (`jwks_path`)")
    if jwks is not None:
        return json.dumps(jwks).encode("utf-8")
    return read_local(jwks_path or "", MAX_INLINE_BYTES)


def _signature(result: SignatureResult) -> SignatureReport:
    return SignatureReport(
        index=result.index,
        verdict=result.label,
        message=result.message,
        reason=result.reason.value if result.reason else None,
        kid=result.kid,
        alg=result.alg,
        profile=result.profile.value if result.profile else None,
        sdk_canonicalisation_only=result.sdk_canonicalisation_only,
        key_index=result.key_index,
        jku=result.jku,
        x5u=result.x5u,
        notes=list(result.notes),
    )


def register(server: MCPServer[Any], state: ServerState) -> None:
    """Add the card tools to ``server``."""

    async def fetch_card(
        url: Annotated[
            str,
            Field(
                description="The agent's base URL (the well-known path is added) or its card "
                "URL, http or https."
            ),
        ],
        a2a_version: Annotated[
            Literal["1.0", "0.3", "none"],
            Field(description="A2A-Version header of the fetch; servers shape the card by it."),
        ] = "1.0",
        timeout: Annotated[float, Field(gt=0, le=60, description="Seconds.")] = 10.0,
    ) -> CardReport:
        """Fetch an agent's Agent Card and say what it is: its shape (A2A 1.0, 0.3 or a
        hybrid), every interface with the one each client generation would pick, and every
        validation problem with its JSON path. No credentials are sent and redirects are
        not followed. Use this first when asked about an agent; pass the returned `card` to
        verify_card_signature or the URL to check_agent."""
        if not url.startswith(("http://", "https://")):
            raise UsageError(f"{url!r} is not an http(s) URL; a card file goes to validate_card")
        state.hosts.check(url, "the card URL")
        version = None if a2a_version == "none" else a2a_version
        reading = read_card(await fetch(url, version, timeout))
        return report(_masked(reading), state.limits.max_body_bytes)

    async def validate_card(
        card: Annotated[
            dict[str, Any] | None, Field(description="The Agent Card as a JSON object.")
        ] = None,
        card_path: Annotated[str | None, Field(description="Or: a card file to read.")] = None,
    ) -> CardReport:
        """Validate an Agent Card given inline or as a file, without any network call: its
        shape (1.0, 0.3, hybrid), interfaces, and every problem with its JSON path and
        severity. To validate a card an agent serves, use fetch_card."""
        return report(inline_reading(card, card_path), state.limits.max_body_bytes)

    async def verify_card_signature(
        card: Annotated[
            dict[str, Any] | None, Field(description="The signed Agent Card (JSON object).")
        ] = None,
        card_path: Annotated[str | None, Field(description="Or: a card file.")] = None,
        jwks: Annotated[
            dict[str, Any] | None,
            Field(description="The JWKS (or one JWK) you trust, as a JSON object."),
        ] = None,
        jwks_path: Annotated[str | None, Field(description="Or: a JWKS file.")] = None,
        profile: Annotated[
            Literal["any", "sdk", "spec"],
            Field(description="Canonicalisations accepted: sdk, spec (strict) or any."),
        ] = "any",
    ) -> VerifyReport:
        """Verify an Agent Card's JWS signatures against a JWKS given inline or as a file.
        Keys are never fetched (a signature's jku/x5u are only reported). A valid signature
        proves the card was signed by a key of that JWKS, nothing about who owns the key.
        Also lists card members the signature does not cover."""
        reading = inline_reading(card, card_path)
        if reading.parse_error is not None:
            err = reading.parse_error
            raise UsageError(f"the card is not JSON: {err.message} (line {err.line})")
        try:
            keys = parse_jwks(_jwks_text(jwks, jwks_path))
        except JwksError as exc:
            raise UsageError(f"the JWKS: {exc}") from exc
        # A member written twice: another parser reads another card, so no signature over
        # it is valid (docs/PROTOCOL.md §5.5).
        verification = verify_card(
            reading.card, keys, mode=ProfileMode(profile), duplicates=reading.duplicate_keys
        )
        if verification.status is CardStatus.NOT_A_CARD:
            raise UsageError("the card is not a JSON object")
        return VerifyReport(
            status=verification.status.value,
            signatures=[_signature(r) for r in verification.signatures],
            uncovered=[{"path": u.path, "reason": u.reason} for u in verification.uncovered],
            duplicate_keys=[d.describe() for d in reading.duplicate_keys],
            notes=list(verification.notes),
        )

    add_tool(server, fetch_card, title="Fetch an Agent Card", read_only=True,
             open_world=True, idempotent=True)  # fmt: skip
    add_tool(server, validate_card, title="Validate an Agent Card", read_only=True,
             open_world=False, idempotent=True)  # fmt: skip
    add_tool(server, verify_card_signature, title="Verify an Agent Card's signatures",
             read_only=True, open_world=False, idempotent=True)  # fmt: skip


def _masked(reading: CardRead) -> CardRead:
    """A typed URL may carry user info (refused by the fetch): never show its password."""
    fetched = reading.fetch
    if fetched is not None:
        fetched = replace(fetched, card_url=mask_url_query(fetched.card_url, ()))
    return replace(reading, source=mask_url_query(reading.source, ()), fetch=fetched)
