"""Agent Card signature verification (JWS, RFC 7515) against a user-supplied JWKS.

Nothing is fetched: the pasted JWKS (:mod:`app.protocol.card.jwks`) is the only trust root;
``jku`` / ``x5u`` are shown as text and never followed (docs/PROTOCOL.md §7.6).

Each ``signatures[]`` entry is a JWS with a **detached** payload: the signing input is
``protected + "." + base64url(payload)`` (RFC 7515 §5.2 with the payload left out of the
card, standard ``b64`` encoding, not RFC 7797). The payload is a canonical serialisation of
the card, one per signer profile (:mod:`app.protocol.card.canonical`), and every signature
is checked against each of them. An entry goes through three steps:

1. **header checks**: the entry is a JWS with a decodable protected header; refused outright
   (verdict *unsupported*) are ``alg: none``, any ``crit`` header, ``b64: false`` (RFC 7797)
   and algorithms outside ``SUPPORTED_ALGS``;
2. **key choice**: the JWKS keys with the header's ``kid`` (every key when it has none) that
   fit ``alg`` (key type, curve, ``alg``/``use`` restrictions), split by whether ``key_ops``
   allows ``verify``;
3. **per-profile check**: each usable key against each profile's payload.

A signature that matches a profile other than ``spec`` and not ``spec`` is *valid (SDK
canonicalisation)*: official signers drop empty REQUIRED fields that A2A 1.0 spec §8.4.1
keeps, so a strict client rejects it. ``ProfileMode.SPEC`` accepts only the ``spec`` form.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from jwcrypto import jwk
from jwcrypto import jws as jwcrypto_jws
from jwcrypto.common import JWException

from app.protocol.card.canonical import (
    Profile,
    ProfilePayload,
    UncoveredMember,
    canonical_payloads,
    uncovered_members,
)
from app.protocol.card.jwks import SUPPORTED_ALGS, JwkEntry, Jwks, key_fit
from app.protocol.card.verdicts import (
    TRUST_NOTE,
    CardStatus,
    CardVerification,
    InvalidReason,
    ProfileMode,
    SignatureResult,
    Verdict,
    ambiguous,
    card_status,
)
from app.protocol.wire.json_duplicates import DuplicateMember

__all__ = [
    "TRUST_NOTE",
    "CardStatus",
    "CardVerification",
    "InvalidReason",
    "ProfileMode",
    "SignatureResult",
    "Verdict",
    "card_status",
    "verify_card",
]

_B64URL = re.compile(r"^[A-Za-z0-9_-]*$")


def _b64url_decode(text: str) -> bytes:
    if not _B64URL.match(text) or len(text) % 4 == 1:
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _b64url_encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _compact(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return repr(value)


def _opt_str(value: object) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else _compact(value)


def _jws_verifies(protected: str, signature: str, payload: bytes, key: jwk.JWK, alg: str) -> bool:
    token = jwcrypto_jws.JWS()
    try:
        token.deserialize(f"{protected}.{_b64url_encode(payload)}.{signature}")
        token.allowed_algs = [alg]
        token.verify(key, alg=alg)
    except (JWException, ValueError, TypeError):
        return False
    return True


def _malformed(index: int, message: str, **fields: Any) -> SignatureResult:
    return SignatureResult(
        index, Verdict.INVALID, InvalidReason.MALFORMED_HEADER, message, **fields
    )


@dataclass(slots=True)
class _Signed:
    """An entry that passed the header checks; ``notes`` grows as the later steps learn more.

    ``header_fields`` are the ``SignatureResult`` members read from the headers (``kid``,
    ``alg``, ``typ``, ``jku``, ``x5u``, both header texts); every verdict carries them.
    """

    index: int
    protected: str
    signature: str
    alg: str
    kid: str | None
    header_fields: dict[str, Any]
    notes: list[str] = field(default_factory=list)

    def verdict(
        self, verdict: Verdict, reason: InvalidReason | None, message: str, **extra: Any
    ) -> SignatureResult:
        return SignatureResult(
            self.index,
            verdict,
            reason,
            message,
            notes=tuple(self.notes),
            **self.header_fields,
            **extra,
        )

    def verifies(self, payload: ProfilePayload, key: jwk.JWK) -> bool:
        return payload.payload is not None and _jws_verifies(
            self.protected, self.signature, payload.payload, key, self.alg
        )


# ---------------------------------------------------------------------------------------
# step 1: header checks


def _header_checks(index: int, entry: object) -> _Signed | SignatureResult:
    """A JWS entry with a decodable protected header and an algorithm that may be checked."""
    if not isinstance(entry, dict):
        return _malformed(index, f"signature entry is {type(entry).__name__}, not an object")
    unprotected = entry.get("header")
    unprotected_text = _compact(unprotected) if unprotected not in (None, {}) else ""
    protected, signature = entry.get("protected"), entry.get("signature")
    if not isinstance(protected, str) or not protected:
        return _malformed(index, "no 'protected' string", unprotected_header=unprotected_text)
    if not isinstance(signature, str) or not _B64URL.match(signature):
        return _malformed(
            index, "'signature' is not a base64url string", unprotected_header=unprotected_text
        )
    try:
        header_text = _b64url_decode(protected).decode("utf-8")
        header = json.loads(header_text)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        return _malformed(
            index,
            f"protected header is not base64url JSON: {exc}",
            unprotected_header=unprotected_text,
        )
    if not isinstance(header, dict):
        return _malformed(
            index,
            "protected header is not a JSON object",
            protected_header=header_text,
            unprotected_header=unprotected_text,
        )
    fields: dict[str, Any] = {
        "kid": _opt_str(header.get("kid")),
        "alg": _opt_str(header.get("alg")),
        "typ": _opt_str(header.get("typ")),
        "jku": _opt_str(header.get("jku")),
        "x5u": _opt_str(header.get("x5u")),
        "protected_header": header_text,
        "unprotected_header": unprotected_text,
    }
    notes = _header_notes(header, fields, unprotected)
    alg, kid = header.get("alg"), header.get("kid")
    if not isinstance(alg, str) or not alg:
        return _malformed(index, "protected header has no 'alg'", **fields)
    if refusal := _refusal(header, alg):
        return SignatureResult(
            index, Verdict.UNSUPPORTED, None, refusal, notes=tuple(notes), **fields
        )
    if kid is not None and not isinstance(kid, str):
        return _malformed(index, "'kid' is not a string", notes=tuple(notes), **fields)
    return _Signed(index, protected, signature, alg, kid, fields, notes)


def _header_notes(header: dict[str, Any], fields: dict[str, Any], unprotected: Any) -> list[str]:
    notes: list[str] = []
    if fields["jku"]:
        notes.append(f"jku {fields['jku']} is shown only; it was not fetched")
    if fields["x5u"]:
        notes.append(f"x5u {fields['x5u']} is shown only; it was not fetched")
    if fields["unprotected_header"]:
        notes.append("the unprotected 'header' is not covered by the signature")
        if isinstance(unprotected, dict) and set(unprotected) & set(header):
            notes.append(
                "protected and unprotected headers share names "
                f"{sorted(set(unprotected) & set(header))} (RFC 7515 §7.2.1 forbids this)"
            )
    if header.get("typ") is None:
        notes.append("no 'typ' (spec: SHOULD be \"JOSE\"; a2a-js's verifier requires it)")
    return notes


def _refusal(header: dict[str, Any], alg: str) -> str:
    """Why the header is refused outright (verdict *unsupported*), else ``""``."""
    if alg.lower() == "none":
        return "alg 'none' is refused"
    if "crit" in header:
        return f"'crit' header present ({_compact(header['crit'])}); refused"
    if "b64" in header and header["b64"] is not True:
        return "b64:false (RFC 7797 unencoded payload) is refused"
    if alg not in SUPPORTED_ALGS:
        return f"algorithm {alg!r} is not supported"
    return ""


# ---------------------------------------------------------------------------------------
# step 2: key choice


@dataclass(frozen=True, slots=True)
class _Keys:
    """Keys that fit the signature; ``blocked`` ones lack ``verify`` in their ``key_ops``."""

    usable: tuple[JwkEntry, ...]
    blocked: tuple[JwkEntry, ...]


def _key_choice(signed: _Signed, jwks: Jwks) -> _Keys | SignatureResult:
    """The JWKS keys with the header's ``kid`` (all keys without one) that fit ``alg``."""
    if signed.kid is None:
        signed.notes.append(
            "protected header has no 'kid' (spec: MUST); every fitting key was tried"
        )
        candidates = list(jwks.keys)
    else:
        candidates = [k for k in jwks.keys if k.kid == signed.kid]
        if not candidates:
            known = ", ".join(repr(k.kid) for k in jwks.keys) or "none"
            return signed.verdict(
                Verdict.UNTRUSTED,
                InvalidReason.NO_KEY_FOR_KID,
                f"no trusted key for kid {signed.kid!r}: the JWKS has kids {known}",
            )
    fitting: list[JwkEntry] = []
    misfits: list[str] = []
    for candidate in candidates:
        if why := key_fit(signed.alg, candidate):
            misfits.append(why)
        else:
            fitting.append(candidate)
    if not fitting:
        return signed.verdict(Verdict.INVALID, InvalidReason.KEY_TYPE_MISMATCH, "; ".join(misfits))
    usable = tuple(k for k in fitting if k.key_ops is None or "verify" in k.key_ops)
    return _Keys(usable, tuple(k for k in fitting if k not in usable))


# ---------------------------------------------------------------------------------------
# step 3: per-profile check


def _profile_check(
    signed: _Signed, keys: _Keys, payloads: Sequence[ProfilePayload], mode: ProfileMode
) -> SignatureResult:
    """Each usable key against each profile's payload; the first key that verifies decides."""
    for candidate in keys.usable:
        assert candidate.key is not None  # key_fit guarantees an imported key
        key = candidate.key
        matched = tuple(p.profile for p in payloads if signed.verifies(p, key))
        if matched:
            return _matched_verdict(signed, candidate, matched, mode)
    if keys.blocked:
        return _key_ops_verdict(signed, keys.blocked[0], payloads)
    if not any(p.payload is not None and p.profile in mode.profiles for p in payloads):
        errors = "; ".join(f"{p.profile.value}: {p.error}" for p in payloads if p.payload is None)
        return signed.verdict(
            Verdict.INVALID,
            InvalidReason.NO_PAYLOAD,
            f"no canonical payload could be built ({errors})",
        )
    tried = ", ".join(p.profile.value for p in payloads if p.payload is not None)
    return signed.verdict(
        Verdict.INVALID,
        InvalidReason.SIGNATURE_MISMATCH,
        f"signature does not match under any profile (tried {tried}) with "
        f"{len(keys.usable)} fitting key(s)",
    )


def _matched_verdict(
    signed: _Signed, key: JwkEntry, matched: tuple[Profile, ...], mode: ProfileMode
) -> SignatureResult:
    chosen = next((p for p in matched if p in mode.profiles), None)
    if chosen is None:
        return signed.verdict(
            Verdict.INVALID,
            InvalidReason.SIGNATURE_MISMATCH,
            f"matches only {', '.join(p.value for p in matched)}; "
            f"not accepted in {mode.value} mode",
            matched_profiles=matched,
            key_index=key.index,
        )
    if Profile.SPEC not in matched:
        signed.notes.append(
            "matches the SDK canonicalisation but not the spec-literal form "
            "(§8.4.1 keeps empty REQUIRED fields); strict verifiers reject it"
        )
    return signed.verdict(
        Verdict.VALID,
        None,
        f"verified with key {key.index} (kid {key.kid!r}, {signed.alg}) under profile "
        f"{chosen.value}",
        profile=chosen,
        matched_profiles=matched,
        key_index=key.index,
    )


def _key_ops_verdict(
    signed: _Signed, blocked: JwkEntry, payloads: Sequence[ProfilePayload]
) -> SignatureResult:
    assert blocked.key is not None  # key_fit guarantees an imported key
    ops = list(blocked.key_ops or ())
    # Check with the operation restriction lifted, only to tell the user whether fixing
    # key_ops would be enough; the verdict stays invalid.
    exported = json.loads(blocked.key.export(private_key=blocked.key.has_private))
    unrestricted = jwk.JWK(**{k: v for k, v in exported.items() if k != "key_ops"})
    would = [p.profile for p in payloads if signed.verifies(p, unrestricted)]
    hint = (
        f"; without key_ops it would verify under {would[0].value}"
        if would
        else "; it would not verify without key_ops either"
    )
    return signed.verdict(
        Verdict.INVALID,
        InvalidReason.KEY_OPS_NO_VERIFY,
        f"key {blocked.index} (kid {blocked.kid!r}) has key_ops {ops} without 'verify' "
        f"(RFC 7517 §4.3){hint}",
        key_index=blocked.index,
        matched_profiles=tuple(would),
    )


# ---------------------------------------------------------------------------------------
# the card


def _verify_entry(
    index: int,
    entry: object,
    jwks: Jwks,
    payloads: Sequence[ProfilePayload],
    mode: ProfileMode,
) -> SignatureResult:
    signed = _header_checks(index, entry)
    if isinstance(signed, SignatureResult):
        return signed
    keys = _key_choice(signed, jwks)
    if isinstance(keys, SignatureResult):
        return keys
    return _profile_check(signed, keys, payloads, mode)


def verify_card(
    card: object,
    jwks: Jwks,
    *,
    mode: ProfileMode = ProfileMode.ANY,
    duplicates: Sequence[DuplicateMember] = (),
) -> CardVerification:
    """Verify every signature of a card against the user's JWKS; never fetches or raises.

    Args:
        card: parsed card JSON exactly as served (hybrid and 0.3 shapes welcome).
        jwks: the only trust root (``parse_jwks``).
        mode: which profiles may make a signature valid.
        duplicates: the member names the served text writes twice in one object
            (``parse_card_json``). A signature over such a card is never valid: the value
            it was checked against is one reading of the card, another parser reads another.

    Returns:
        Per-signature verdicts, payload bytes per profile, coverage gaps and notes.
    """
    if not isinstance(card, dict):
        return CardVerification(CardStatus.NOT_A_CARD, mode)
    entries = card.get("signatures")
    if entries is None or entries == []:
        return CardVerification(CardStatus.UNSIGNED, mode)
    payloads = canonical_payloads(card)
    if isinstance(entries, list):
        results = tuple(_verify_entry(i, e, jwks, payloads, mode) for i, e in enumerate(entries))
    else:
        results = (
            SignatureResult(
                0,
                Verdict.INVALID,
                InvalidReason.MALFORMED_HEADER,
                f"'signatures' is {type(entries).__name__}, not an array",
            ),
        )
    matched = next((r.profile for r in results if r.profile is not None), None)
    basis = matched or next(
        (p.profile for p in payloads if p.payload is not None and p.profile in mode.profiles),
        None,
    )
    uncovered: list[UncoveredMember] = []
    if basis is not None:
        payload = next(p for p in payloads if p.profile is basis)
        uncovered = uncovered_members(card, payload, drops_empty=basis is not Profile.SPEC)
    if isinstance(entries, list):
        uncovered.extend(
            UncoveredMember(f"signatures[{i}].header", "unprotected JWS header; not signed")
            for i, e in enumerate(entries)
            if isinstance(e, dict) and e.get("header") not in (None, {})
        )
    if duplicates:
        results = tuple(ambiguous(r, duplicates[0]) for r in results)
    status = card_status(results)
    notes = [TRUST_NOTE, *jwks.notes]
    notes += [f"ambiguous card: {d.path}: {d.describe()}" for d in duplicates]
    return CardVerification(status, mode, results, payloads, tuple(uncovered), basis, tuple(notes))
