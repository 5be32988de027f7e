"""Agent Card signature verification (JWS, RFC 7515) against a user-supplied JWKS.

Nothing is fetched: the pasted JWKS is the only trust root; ``jku`` / ``x5u`` are shown as
text and never followed (PROTOCOL.md §7.6).

Each ``signatures[]`` entry is a JWS with a **detached** payload: the signing input is
``protected + "." + base64url(payload)`` (RFC 7515 §5.2 with the payload left out of the
card, standard ``b64`` encoding, not RFC 7797). The payload is a canonical serialisation of
the card, and signers disagree about which one (PROTOCOL.md §7.5), so every signature is
checked against each known *signer profile*:

========== =========================================================================
profile    payload
========== =========================================================================
sdk        a2a-sdk ≥ 1.1.4 and a2a-js 1.0.x: served JSON → SDK ``parse_agent_card``
           (drops 0.3 mirror and unknown fields) → ``MessageToDict`` → drop
           ``signatures`` → drop empty values → RFC 8785 (JCS)
legacy-sdk a2a-sdk 1.0.0–1.1.3: same dict, ``json.dumps(sort_keys=True)`` (ASCII escapes,
           Python float repr)
sdk-0.3    a2a-sdk 0.3.21–0.3.26: the 0.3 pydantic card dumped without defaults/None,
           falsy values dropped, ``json.dumps(sort_keys=True)``
spec       A2A spec §8.4.1 literally: proto-JSON keeping empty REQUIRED fields, RFC 8785
========== =========================================================================

A signature that matches a profile other than ``spec`` and not ``spec`` is *valid (SDK
canonicalisation)*: official signers drop empty REQUIRED fields that §8.4.1 keeps, so a
strict client rejects it. ``ProfileMode.SPEC`` accepts only the ``spec`` form.

Refused outright (verdict *unsupported*): ``alg: none``, any ``crit`` header, ``b64: false``
(RFC 7797), algorithms outside ``SUPPORTED_ALGS``. HMAC verifies only with an ``oct`` key;
an asymmetric key is never used as an HMAC secret (the classic RS256→HS256 confusion).
"""

from __future__ import annotations

import base64
import copy
import enum
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import rfc8785
from a2a.types import a2a_pb2
from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from jwcrypto import jwk
from jwcrypto import jws as jwcrypto_jws
from jwcrypto.common import JWException

from app.protocol.card_model import MIRROR_FIELDS_03, required_fields

__all__ = [
    "SUPPORTED_ALGS",
    "TRUST_NOTE",
    "CardStatus",
    "CardVerification",
    "InvalidReason",
    "JwkEntry",
    "Jwks",
    "JwksError",
    "Profile",
    "ProfileMode",
    "ProfilePayload",
    "SignatureResult",
    "UncoveredMember",
    "Verdict",
    "canonical_payloads",
    "parse_jwks",
    "verify_card",
]

SUPPORTED_ALGS: dict[str, tuple[str, frozenset[str]]] = {
    # alg: (kty, allowed curves or empty = any)
    "HS256": ("oct", frozenset()),
    "HS384": ("oct", frozenset()),
    "HS512": ("oct", frozenset()),
    "RS256": ("RSA", frozenset()),
    "RS384": ("RSA", frozenset()),
    "RS512": ("RSA", frozenset()),
    "PS256": ("RSA", frozenset()),
    "PS384": ("RSA", frozenset()),
    "PS512": ("RSA", frozenset()),
    "ES256": ("EC", frozenset({"P-256"})),
    "ES384": ("EC", frozenset({"P-384"})),
    "ES512": ("EC", frozenset({"P-521"})),
    "ES256K": ("EC", frozenset({"secp256k1"})),
    "EdDSA": ("OKP", frozenset({"Ed25519", "Ed448"})),
    "Ed25519": ("OKP", frozenset({"Ed25519"})),
    "Ed448": ("OKP", frozenset({"Ed448"})),
}
"""JWS algorithms verified (RFC 7518 §3.1, RFC 8037, RFC 8812) and the key each needs."""

TRUST_NOTE = (
    "A valid signature only proves the card was signed with a key from the JWKS you "
    "supplied. It does not tell you who owns that key: check where the JWKS came from."
)

_CARD_FIELDS = frozenset(
    name for fd in a2a_pb2.AgentCard.DESCRIPTOR.fields for name in (fd.name, fd.json_name)
)
_B64URL = re.compile(r"^[A-Za-z0-9_-]*$")
_MAX_DEPTH = 128  # a2a.utils._jcs.MAX_DEPTH


class Profile(enum.Enum):
    """Signer canonicalisation profiles, in the order they are tried (PROTOCOL.md §7.5)."""

    SDK = "sdk"
    LEGACY_SDK = "legacy-sdk"
    SDK_0_3 = "sdk-0.3"
    SPEC = "spec"

    @property
    def title(self) -> str:
        """Human-readable name of the profile's producer."""
        return {
            Profile.SDK: "current SDK (a2a-sdk ≥ 1.1.4, a2a-js 1.0.x; RFC 8785)",
            Profile.LEGACY_SDK: "legacy 1.x SDK (a2a-sdk 1.0.0–1.1.3; json.dumps)",
            Profile.SDK_0_3: "0.3 SDK (a2a-sdk 0.3.21–0.3.26; pydantic 0.3 card)",
            Profile.SPEC: "spec-literal (§8.4.1; empty REQUIRED fields kept)",
        }[self]


class ProfileMode(enum.Enum):
    """Which profiles may make a signature valid (CLI ``--profile``)."""

    ANY = "any"
    SDK = "sdk"
    SPEC = "spec"

    @property
    def profiles(self) -> tuple[Profile, ...]:
        """Profiles accepted in this mode, in trial order."""
        if self is ProfileMode.SPEC:
            return (Profile.SPEC,)
        if self is ProfileMode.SDK:
            return (Profile.SDK, Profile.LEGACY_SDK, Profile.SDK_0_3)
        return tuple(Profile)


class Verdict(enum.Enum):
    """Outcome for one signature."""

    VALID = "valid"
    INVALID = "invalid"
    UNSUPPORTED = "unsupported"


class InvalidReason(enum.Enum):
    """Why a signature is invalid."""

    MALFORMED_HEADER = "malformed header"
    NO_KEY_FOR_KID = "no key with that kid"
    KEY_TYPE_MISMATCH = "key type does not fit alg"
    KEY_OPS_NO_VERIFY = "key_ops does not allow verify"
    SIGNATURE_MISMATCH = "signature mismatch under every profile"
    NO_PAYLOAD = "card has no canonical form under any accepted profile"


class CardStatus(enum.Enum):
    """Outcome for the whole card."""

    UNSIGNED = "unsigned"
    VALID = "valid"
    INVALID = "invalid"
    NOT_A_CARD = "not a card"


class JwksError(ValueError):
    """The JWKS text is not a JWKS (or a single JWK); a usage error, not a verdict."""


@dataclass(frozen=True, slots=True)
class JwkEntry:
    """One key of the user's JWKS.

    Attributes:
        index: position in ``keys``.
        kid, kty, alg, use, crv: the members as given ("" when absent).
        key_ops: the ``key_ops`` member, or ``None`` when absent (RFC 7517 §4.3).
        has_private: the JWK carries private material (``d``, or ``k`` for oct).
        key: the imported jwcrypto key, ``None`` when import failed.
        error: why import failed, else "".
    """

    index: int
    kid: str
    kty: str
    alg: str = ""
    use: str = ""
    crv: str = ""
    key_ops: tuple[str, ...] | None = None
    has_private: bool = False
    key: jwk.JWK | None = field(default=None, repr=False, compare=False)
    error: str = ""


@dataclass(frozen=True, slots=True)
class Jwks:
    """A parsed JWKS (RFC 7517 §5); ``notes`` lists per-key import problems and warnings."""

    keys: tuple[JwkEntry, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ProfilePayload:
    """The detached payload one profile produces for a card.

    Attributes:
        profile: the profile.
        payload: exact canonical bytes (UTF-8), ``None`` when the profile cannot apply.
        error: why there is no payload (e.g. "does not parse as a 1.0 AgentCard"), else "".
        document: the JSON value that was serialised (for coverage diagnostics).
    """

    profile: Profile
    payload: bytes | None
    error: str = ""
    document: Any = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class UncoveredMember:
    """A member of the served card that the signed payload does not include.

    Attributes:
        path: JSON path from the card root, e.g. ``securitySchemes.bearerAuth.type``.
        reason: why it is not covered (0.3 mirror field, unknown field, empty value,
            unprotected header).
    """

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class SignatureResult:
    """Verdict for one ``signatures[]`` entry.

    Attributes:
        index: position in ``signatures``.
        verdict: VALID, INVALID or UNSUPPORTED.
        reason: set when INVALID.
        message: one-line explanation.
        kid, alg, typ: protected header members (``None`` when absent).
        jku, x5u: URL members as text — never fetched.
        protected_header: decoded protected header JSON text ("" if undecodable).
        unprotected_header: the entry's ``header`` as JSON text ("" when absent); not signed.
        profile: first matching profile accepted by the mode (``None`` unless VALID).
        matched_profiles: every profile whose payload verifies with the key, in trial order
            (may be non-empty for an INVALID result in strict mode).
        key_index: index of the JWKS key that verified (or was rejected for key_ops).
        notes: extra findings (missing ``typ``, ``jku`` present, key_ops, …).
    """

    index: int
    verdict: Verdict
    reason: InvalidReason | None = None
    message: str = ""
    kid: str | None = None
    alg: str | None = None
    typ: str | None = None
    jku: str | None = None
    x5u: str | None = None
    protected_header: str = ""
    unprotected_header: str = ""
    profile: Profile | None = None
    matched_profiles: tuple[Profile, ...] = ()
    key_index: int | None = None
    notes: tuple[str, ...] = ()

    @property
    def malformed(self) -> bool:
        """The entry could not be read as a JWS at all."""
        return self.reason is InvalidReason.MALFORMED_HEADER

    @property
    def sdk_canonicalisation_only(self) -> bool:
        """Valid, but only under an SDK profile, not the spec-literal form."""
        return self.verdict is Verdict.VALID and Profile.SPEC not in self.matched_profiles

    @property
    def label(self) -> str:
        """Short verdict text: ``valid``, ``valid (SDK canonicalisation)``, ``invalid``, …"""
        if self.verdict is Verdict.VALID and self.sdk_canonicalisation_only:
            return "valid (SDK canonicalisation)"
        return self.verdict.value


@dataclass(frozen=True, slots=True)
class CardVerification:
    """Verification of all signatures of one card.

    Attributes:
        status: UNSIGNED, VALID (≥1 valid signature), INVALID or NOT_A_CARD.
        mode: which profiles were accepted.
        signatures: one result per ``signatures[]`` entry.
        payloads: canonical payload per profile (all four, whatever the mode).
        uncovered: served members the signature does not cover, measured against the
            matched profile (else the ``sdk`` profile).
        uncovered_profile: the profile ``uncovered`` was measured against.
        notes: card-level notes, always including ``TRUST_NOTE`` for signed cards.
    """

    status: CardStatus
    mode: ProfileMode
    signatures: tuple[SignatureResult, ...] = ()
    payloads: tuple[ProfilePayload, ...] = ()
    uncovered: tuple[UncoveredMember, ...] = ()
    uncovered_profile: Profile | None = None
    notes: tuple[str, ...] = ()

    @property
    def any_valid(self) -> bool:
        """At least one signature is valid."""
        return any(r.verdict is Verdict.VALID for r in self.signatures)

    @property
    def any_malformed(self) -> bool:
        """At least one signature entry is malformed."""
        return any(r.malformed for r in self.signatures)

    def payload(self, profile: Profile) -> ProfilePayload | None:
        """The payload computed for ``profile``."""
        return next((p for p in self.payloads if p.profile is profile), None)


# ---------------------------------------------------------------------------------------
# JWKS


def parse_jwks(text: str | bytes) -> Jwks:
    """Parse a JWKS (``{"keys": [...]}``) or a single JWK object.

    Keys that do not import are kept with ``error`` set, so the user sees them.

    Args:
        text: JSON text.

    Returns:
        The keys, with notes for import failures and private material.

    Raises:
        JwksError: not JSON, not an object, or no ``keys`` array / no key at all.
    """
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise JwksError(f"JWKS is not JSON: {exc}") from exc
    if isinstance(data, dict) and "keys" in data:
        raw_keys = data["keys"]
        if not isinstance(raw_keys, list):
            raise JwksError("JWKS 'keys' is not an array")
    elif isinstance(data, dict) and "kty" in data:
        raw_keys = [data]
    else:
        raise JwksError('not a JWKS: expected {"keys": [...]} or a single JWK object')
    if not raw_keys:
        raise JwksError("JWKS has no keys")
    entries: list[JwkEntry] = []
    notes: list[str] = []
    for index, raw in enumerate(raw_keys):
        if not isinstance(raw, dict):
            entries.append(JwkEntry(index, "", "", error="not a JSON object"))
            notes.append(f"keys[{index}]: not a JSON object")
            continue
        key_ops = raw.get("key_ops")
        ops = tuple(str(o) for o in key_ops) if isinstance(key_ops, list) else None
        kty = str(raw.get("kty", ""))
        has_private = "d" in raw or kty == "oct"
        imported: jwk.JWK | None = None
        error = ""
        try:
            imported = jwk.JWK(**raw)
        except (JWException, ValueError, TypeError, KeyError) as exc:
            error = f"{type(exc).__name__}: {exc}"
            notes.append(f"keys[{index}]: cannot import: {error}")
        entry = JwkEntry(
            index=index,
            kid=str(raw.get("kid", "")),
            kty=kty,
            alg=str(raw.get("alg", "")),
            use=str(raw.get("use", "")),
            crv=str(raw.get("crv", "")),
            key_ops=ops,
            has_private=has_private,
            key=imported,
            error=error,
        )
        entries.append(entry)
        if has_private and kty != "oct":
            notes.append(
                f"keys[{index}] (kid {entry.kid!r}) contains private key material; a "
                "verifier needs only the public key"
            )
    return Jwks(tuple(entries), tuple(notes))


def _key_fit(alg: str, entry: JwkEntry) -> str:
    """Return "" when ``entry`` may verify ``alg``, else why not."""
    kty, curves = SUPPORTED_ALGS[alg]
    if entry.key is None:
        return f"key {entry.index} did not import ({entry.error})"
    if entry.kty != kty:
        if kty == "oct":
            return (
                f"{alg} is HMAC and needs a shared-secret (oct) key; a {entry.kty} key is "
                "never used as an HMAC secret"
            )
        return f"{alg} needs a {kty} key, key {entry.index} is {entry.kty or 'untyped'}"
    if curves and entry.crv not in curves:
        return f"{alg} needs curve {'/'.join(sorted(curves))}, key {entry.index} is {entry.crv}"
    if entry.alg and entry.alg != alg:
        return f"key {entry.index} is restricted to alg {entry.alg}"
    if entry.use and entry.use != "sig":
        return f"key {entry.index} has use {entry.use!r}, not 'sig'"
    return ""


# ---------------------------------------------------------------------------------------
# canonical payloads


class _NoForm(Exception):
    """A profile cannot produce a payload for this card."""


def _clean_empty_sdk(value: Any, depth: int = 1) -> Any:
    # Byte-for-byte the rule of a2a-sdk 1.3.0 a2a/utils/signing.py:_clean_empty: drop "",
    # None, [] and {} (also when they become empty), keep False and 0.
    if isinstance(value, dict | list) and depth > _MAX_DEPTH:
        raise _NoForm(f"nesting exceeds {_MAX_DEPTH} levels")
    if isinstance(value, dict):
        cleaned = {
            k: c for k, v in value.items() if (c := _clean_empty_sdk(v, depth + 1)) is not None
        }
        return cleaned or None
    if isinstance(value, list):
        items = [c for v in value if (c := _clean_empty_sdk(v, depth + 1)) is not None]
        return items or None
    if isinstance(value, str) and not value:
        return None
    return value


def _clean_falsy_03(value: Any) -> Any:
    # a2a-sdk 0.3.2x signing.clean_empty: containers keep only truthy members, so False and
    # 0 vanish too — unlike the 1.x rule.
    if isinstance(value, dict):
        cleaned = {k: _clean_falsy_03(v) for k, v in value.items()}
        return {k: v for k, v in cleaned.items() if v}
    if isinstance(value, list):
        return [v for v in (_clean_falsy_03(v) for v in value) if v]
    return value if value not in ("", [], {}) else None


def _proto_card(card: dict[str, Any]) -> a2a_pb2.AgentCard:
    from a2a.client.card_resolver import parse_agent_card

    data = copy.deepcopy(card)
    data.pop("signatures", None)
    try:
        return parse_agent_card(data)
    except (json_format.ParseError, ValueError, TypeError, AttributeError) as exc:
        raise _NoForm(f"does not parse as a 1.0 AgentCard: {exc}") from exc


def _add_required(value: Any, desc: Descriptor) -> Any:
    """Put back REQUIRED fields that MessageToDict dropped as default (spec §8.4.1)."""
    if not isinstance(value, dict) or desc.full_name.startswith("google.protobuf."):
        return value
    for fd in desc.fields:
        name = fd.json_name
        if name in value:
            value[name] = _add_required_field(value[name], fd)
        elif fd in required_fields(desc):
            value[name] = _default_json(fd)
    return value


def _add_required_field(value: Any, fd: FieldDescriptor) -> Any:
    if fd.type != FieldDescriptor.TYPE_MESSAGE:
        return value
    mt = fd.message_type
    if mt.GetOptions().map_entry:
        value_fd = mt.fields_by_name["value"]
        if isinstance(value, dict) and value_fd.type == FieldDescriptor.TYPE_MESSAGE:
            return {k: _add_required(v, value_fd.message_type) for k, v in value.items()}
        return value
    if isinstance(value, list):
        return [_add_required(v, mt) for v in value]
    return _add_required(value, mt)


def _repeated(fd: FieldDescriptor) -> bool:
    # protobuf ≥ 5.28 has is_repeated; 7.x dropped ``label``.
    flag = getattr(fd, "is_repeated", None)
    if flag is not None:
        return bool(flag)
    return bool(fd.label == FieldDescriptor.LABEL_REPEATED)


def _default_json(fd: FieldDescriptor) -> Any:
    if fd.type == FieldDescriptor.TYPE_MESSAGE:
        if fd.message_type.GetOptions().map_entry:
            return {}
        if _repeated(fd):
            return []
        return _add_required({}, fd.message_type)
    if _repeated(fd):
        return []
    if fd.type == FieldDescriptor.TYPE_STRING or fd.type == FieldDescriptor.TYPE_BYTES:
        return ""
    if fd.type == FieldDescriptor.TYPE_BOOL:
        return False
    if fd.type == FieldDescriptor.TYPE_ENUM:
        return fd.enum_type.values_by_number[0].name
    return 0


def _jcs(value: Any) -> bytes:
    try:
        return bytes(rfc8785.dumps(value))
    except (rfc8785.CanonicalizationError, ValueError, TypeError, RecursionError) as exc:
        raise _NoForm(f"no RFC 8785 form: {exc}") from exc


def _python_json(value: Any) -> bytes:
    try:
        return json.dumps(value, separators=(",", ":"), sort_keys=True).encode("utf-8")
    except (ValueError, TypeError, RecursionError) as exc:
        raise _NoForm(f"json.dumps failed: {exc}") from exc


def _profile_03(card: dict[str, Any]) -> tuple[Any, bytes]:
    import pydantic
    from a2a.compat.v0_3.types import AgentCard as AgentCard03

    try:
        model = AgentCard03.model_validate(card)
    except (pydantic.ValidationError, ValueError, TypeError, RecursionError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise _NoForm(f"not a valid 0.3 AgentCard: {first}") from exc
    dumped = model.model_dump(
        exclude={"signatures"}, exclude_defaults=True, exclude_none=True, by_alias=True
    )
    document = _clean_falsy_03(dumped)
    return document, _python_json(document)


def canonical_payloads(card: object) -> tuple[ProfilePayload, ...]:
    """Compute each profile's detached payload for a card; never raises.

    Args:
        card: parsed card JSON as served.

    Returns:
        One ``ProfilePayload`` per ``Profile``, in trial order.
    """
    if not isinstance(card, dict):
        return tuple(ProfilePayload(p, None, "card is not a JSON object") for p in Profile)
    proto: a2a_pb2.AgentCard | None = None
    proto_error = ""
    try:
        proto = _proto_card(card)
    except _NoForm as exc:
        proto_error = str(exc)
    except RecursionError:
        proto_error = "card nested too deeply for the 1.0 model"

    def attempt(profile: Profile, build: Callable[[], tuple[Any, bytes]]) -> ProfilePayload:
        try:
            document, payload = build()
        except _NoForm as exc:
            return ProfilePayload(profile, None, str(exc))
        except RecursionError:
            return ProfilePayload(profile, None, "card nested too deeply")
        return ProfilePayload(profile, payload, document=document)

    def sdk_document() -> Any:
        if proto is None:
            raise _NoForm(proto_error)
        as_dict = json_format.MessageToDict(proto)
        as_dict.pop("signatures", None)
        return _clean_empty_sdk(as_dict)

    def sdk() -> tuple[Any, bytes]:
        document = sdk_document()
        return document, _jcs(document)

    def legacy() -> tuple[Any, bytes]:
        document = sdk_document()
        return document, _python_json(document)

    def spec() -> tuple[Any, bytes]:
        if proto is None:
            raise _NoForm(proto_error)
        document = json_format.MessageToDict(proto)
        document.pop("signatures", None)
        document = _add_required(document, a2a_pb2.AgentCard.DESCRIPTOR)
        return document, _jcs(document)

    return (
        attempt(Profile.SDK, sdk),
        attempt(Profile.LEGACY_SDK, legacy),
        attempt(Profile.SDK_0_3, lambda: _profile_03(card)),
        attempt(Profile.SPEC, spec),
    )


# ---------------------------------------------------------------------------------------
# coverage


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _uncovered(
    card: dict[str, Any], payload: ProfilePayload, drops_empty: bool
) -> list[UncoveredMember]:
    out: list[UncoveredMember] = []
    v1 = "supportedInterfaces" in card or "supported_interfaces" in card

    def why(path: str, key: str, value: Any, top: bool) -> str:
        if drops_empty and _clean_empty_sdk(value) is None:
            return "empty value; dropped before signing"
        if value is False or (type(value) in (int, float) and value == 0):
            return "default value (false/0); proto3 JSON omits it, so it is not signed"
        if top and key in MIRROR_FIELDS_03:
            if v1:
                return "0.3 mirror field; 1.0 signers ignore it"
            return "0.3 field; signed only in its converted 1.0 form"
        if top and key in _CARD_FIELDS:
            return (
                "known field whose content did not survive the 1.0 model (unknown or "
                'mis-shaped members, e.g. a JS SDK {"$case": …} oneof); not signed'
            )
        if path.startswith("securitySchemes."):
            return "0.3 security scheme member or unknown member; not signed"
        return "unknown field; not part of the signed model"

    def walk(served: Any, signed: Any, path: str, depth: int) -> None:
        if depth > _MAX_DEPTH:
            return
        if isinstance(served, dict):
            signed_d = signed if isinstance(signed, dict) else {}
            for key, value in served.items():
                key_s = str(key)
                sub = f"{path}.{key_s}" if path else key_s
                if not path and key_s == "signatures":
                    continue
                target = key_s if key_s in signed_d else _camel(key_s)
                if target in signed_d:
                    walk(value, signed_d[target], sub, depth + 1)
                else:
                    out.append(UncoveredMember(sub, why(path, key_s, value, not path)))
        elif isinstance(served, list):
            signed_l = signed if isinstance(signed, list) else []
            j = 0
            for i, item in enumerate(served):
                sub = f"{path}[{i}]"
                if drops_empty and _clean_empty_sdk(item) is None:
                    out.append(UncoveredMember(sub, "empty value; dropped before signing"))
                elif j < len(signed_l):
                    walk(item, signed_l[j], sub, depth + 1)
                    j += 1
                else:
                    out.append(UncoveredMember(sub, "not in the signed payload"))

    walk(card, payload.document, "", 1)
    return out


# ---------------------------------------------------------------------------------------
# verification


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


def _check(protected: str, signature: str, payload: bytes, key: jwk.JWK, alg: str) -> bool:
    token = jwcrypto_jws.JWS()
    try:
        token.deserialize(f"{protected}.{_b64url_encode(payload)}.{signature}")
        token.allowed_algs = [alg]
        token.verify(key, alg=alg)
    except (JWException, ValueError, TypeError):
        return False
    return True


def _opt_str(value: object) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else _compact(value)


def _verify_entry(
    index: int,
    entry: object,
    jwks: Jwks,
    payloads: Sequence[ProfilePayload],
    mode: ProfileMode,
) -> SignatureResult:
    def bad(message: str, **kw: Any) -> SignatureResult:
        return SignatureResult(
            index, Verdict.INVALID, InvalidReason.MALFORMED_HEADER, message, **kw
        )

    if not isinstance(entry, dict):
        return bad(f"signature entry is {type(entry).__name__}, not an object")
    unprotected = entry.get("header")
    unprotected_text = _compact(unprotected) if unprotected not in (None, {}) else ""
    protected, signature = entry.get("protected"), entry.get("signature")
    if not isinstance(protected, str) or not protected:
        return bad("no 'protected' string", unprotected_header=unprotected_text)
    if not isinstance(signature, str) or not _B64URL.match(signature):
        return bad("'signature' is not a base64url string", unprotected_header=unprotected_text)
    try:
        header_text = _b64url_decode(protected).decode("utf-8")
        header = json.loads(header_text)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        return bad(
            f"protected header is not base64url JSON: {exc}", unprotected_header=unprotected_text
        )
    if not isinstance(header, dict):
        return bad(
            "protected header is not a JSON object",
            protected_header=header_text,
            unprotected_header=unprotected_text,
        )

    kid, alg = header.get("kid"), header.get("alg")
    info: dict[str, Any] = {
        "kid": _opt_str(kid),
        "alg": _opt_str(alg),
        "typ": _opt_str(header.get("typ")),
        "jku": _opt_str(header.get("jku")),
        "x5u": _opt_str(header.get("x5u")),
        "protected_header": header_text,
        "unprotected_header": unprotected_text,
    }
    notes: list[str] = []
    if info["jku"]:
        notes.append(f"jku {info['jku']} is shown only; it was not fetched")
    if info["x5u"]:
        notes.append(f"x5u {info['x5u']} is shown only; it was not fetched")
    if unprotected_text:
        notes.append("the unprotected 'header' is not covered by the signature")
        if isinstance(unprotected, dict) and set(unprotected) & set(header):
            notes.append(
                "protected and unprotected headers share names "
                f"{sorted(set(unprotected) & set(header))} (RFC 7515 §7.2.1 forbids this)"
            )
    if header.get("typ") is None:
        notes.append("no 'typ' (spec: SHOULD be \"JOSE\"; a2a-js's verifier requires it)")

    if not isinstance(alg, str) or not alg:
        return bad("protected header has no 'alg'", **info)
    if alg.lower() == "none":
        return SignatureResult(
            index, Verdict.UNSUPPORTED, None, "alg 'none' is refused", notes=tuple(notes), **info
        )
    if "crit" in header:
        return SignatureResult(
            index,
            Verdict.UNSUPPORTED,
            None,
            f"'crit' header present ({_compact(header['crit'])}); refused",
            notes=tuple(notes),
            **info,
        )
    if "b64" in header and header["b64"] is not True:
        return SignatureResult(
            index,
            Verdict.UNSUPPORTED,
            None,
            "b64:false (RFC 7797 unencoded payload) is refused",
            notes=tuple(notes),
            **info,
        )
    if alg not in SUPPORTED_ALGS:
        return SignatureResult(
            index,
            Verdict.UNSUPPORTED,
            None,
            f"algorithm {alg!r} is not supported",
            notes=tuple(notes),
            **info,
        )
    if kid is not None and not isinstance(kid, str):
        return bad("'kid' is not a string", notes=tuple(notes), **info)

    if kid is None:
        notes.append("protected header has no 'kid' (spec: MUST); every fitting key was tried")
        candidates = list(jwks.keys)
    else:
        candidates = [k for k in jwks.keys if k.kid == kid]
        if not candidates:
            known = ", ".join(repr(k.kid) for k in jwks.keys) or "none"
            return SignatureResult(
                index,
                Verdict.INVALID,
                InvalidReason.NO_KEY_FOR_KID,
                f"no key with kid {kid!r} in the JWKS (kids: {known})",
                notes=tuple(notes),
                **info,
            )

    fitting: list[JwkEntry] = []
    misfits: list[str] = []
    for cand in candidates:
        why = _key_fit(alg, cand)
        if why:
            misfits.append(why)
        else:
            fitting.append(cand)
    if not fitting:
        return SignatureResult(
            index,
            Verdict.INVALID,
            InvalidReason.KEY_TYPE_MISMATCH,
            "; ".join(misfits),
            notes=tuple(notes),
            **info,
        )

    usable = [k for k in fitting if k.key_ops is None or "verify" in k.key_ops]
    blocked = [k for k in fitting if k not in usable]
    accepted = mode.profiles
    for cand in usable:
        assert cand.key is not None  # _key_fit guarantees an imported key
        matched = tuple(
            p.profile
            for p in payloads
            if p.payload is not None and _check(protected, signature, p.payload, cand.key, alg)
        )
        if not matched:
            continue
        chosen = next((p for p in matched if p in accepted), None)
        if chosen is None:
            return SignatureResult(
                index,
                Verdict.INVALID,
                InvalidReason.SIGNATURE_MISMATCH,
                f"matches only {', '.join(p.value for p in matched)}; "
                f"not accepted in {mode.value} mode",
                matched_profiles=matched,
                key_index=cand.index,
                notes=tuple(notes),
                **info,
            )
        if Profile.SPEC not in matched:
            notes.append(
                "matches the SDK canonicalisation but not the spec-literal form "
                "(§8.4.1 keeps empty REQUIRED fields); strict verifiers reject it"
            )
        return SignatureResult(
            index,
            Verdict.VALID,
            None,
            f"verified with key {cand.index} (kid {cand.kid!r}, {alg}) under profile "
            f"{chosen.value}",
            profile=chosen,
            matched_profiles=matched,
            key_index=cand.index,
            notes=tuple(notes),
            **info,
        )

    for cand in blocked:
        assert cand.key is not None
        ops = list(cand.key_ops or ())
        # Check with the operation restriction lifted, only to tell the user whether
        # fixing key_ops would be enough; the verdict stays invalid.
        unrestricted = jwk.JWK(
            **{
                k: v
                for k, v in json.loads(cand.key.export(private_key=cand.key.has_private)).items()
                if k != "key_ops"
            }
        )
        would = [
            p.profile
            for p in payloads
            if p.payload is not None and _check(protected, signature, p.payload, unrestricted, alg)
        ]
        hint = (
            f"; without key_ops it would verify under {would[0].value}"
            if would
            else "; it would not verify without key_ops either"
        )
        return SignatureResult(
            index,
            Verdict.INVALID,
            InvalidReason.KEY_OPS_NO_VERIFY,
            f"key {cand.index} (kid {cand.kid!r}) has key_ops {ops} without 'verify' "
            f"(RFC 7517 §4.3){hint}",
            key_index=cand.index,
            matched_profiles=tuple(would),
            notes=tuple(notes),
            **info,
        )

    if not any(p.payload is not None and p.profile in accepted for p in payloads):
        errors = "; ".join(f"{p.profile.value}: {p.error}" for p in payloads if p.payload is None)
        return SignatureResult(
            index,
            Verdict.INVALID,
            InvalidReason.NO_PAYLOAD,
            f"no canonical payload could be built ({errors})",
            notes=tuple(notes),
            **info,
        )
    tried = ", ".join(p.profile.value for p in payloads if p.payload is not None)
    return SignatureResult(
        index,
        Verdict.INVALID,
        InvalidReason.SIGNATURE_MISMATCH,
        f"signature does not match under any profile (tried {tried}) with "
        f"{len(usable)} fitting key(s)",
        notes=tuple(notes),
        **info,
    )


def verify_card(
    card: object, jwks: Jwks, *, mode: ProfileMode = ProfileMode.ANY
) -> CardVerification:
    """Verify every signature of a card against the user's JWKS; never fetches or raises.

    Args:
        card: parsed card JSON exactly as served (hybrid and 0.3 shapes welcome).
        jwks: the only trust root (``parse_jwks``).
        mode: which profiles may make a signature valid.

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
        uncovered = _uncovered(card, payload, drops_empty=basis is not Profile.SPEC)
    if isinstance(entries, list):
        uncovered.extend(
            UncoveredMember(f"signatures[{i}].header", "unprotected JWS header; not signed")
            for i, e in enumerate(entries)
            if isinstance(e, dict) and e.get("header") not in (None, {})
        )
    status = (
        CardStatus.VALID
        if any(r.verdict is Verdict.VALID for r in results)
        else (CardStatus.INVALID)
    )
    notes = [TRUST_NOTE, *jwks.notes]
    return CardVerification(status, mode, results, payloads, tuple(uncovered), basis, tuple(notes))
