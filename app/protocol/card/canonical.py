"""The detached payload a card's signature covers, per signer profile, and what it leaves out.

A card signature is a JWS with a detached payload: a canonical serialisation of the card.
Signers disagree about which one (docs/PROTOCOL.md §7.5), so the payload is
computed for each known *signer profile*:

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

:func:`uncovered_members` lists the served members a profile's payload does not include
(0.3 mirror fields, unknown fields, empty values): what a valid signature does *not* vouch for.
"""

from __future__ import annotations

import copy
import enum
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import rfc8785
from a2a.types import a2a_pb2
from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from app.protocol.card.card_shape import MIRROR_FIELDS_03
from app.protocol.card.descriptor import is_repeated, required_fields

__all__ = [
    "Profile",
    "ProfilePayload",
    "UncoveredMember",
    "canonical_payloads",
    "uncovered_members",
]

_CARD_FIELDS = frozenset(
    name for fd in a2a_pb2.AgentCard.DESCRIPTOR.fields for name in (fd.name, fd.json_name)
)
_MAX_DEPTH = 128  # a2a.utils._jcs.MAX_DEPTH


class Profile(enum.Enum):
    """Signer canonicalisation profiles, in the order they are tried (module docstring)."""

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


def _default_json(fd: FieldDescriptor) -> Any:
    if fd.type == FieldDescriptor.TYPE_MESSAGE:
        if fd.message_type.GetOptions().map_entry:
            return {}
        if is_repeated(fd):
            return []
        return _add_required({}, fd.message_type)
    if is_repeated(fd):
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


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def uncovered_members(
    card: dict[str, Any], payload: ProfilePayload, *, drops_empty: bool
) -> list[UncoveredMember]:
    """Members of the served ``card`` that ``payload``'s signed document does not include.

    Args:
        card: the card as served.
        payload: a profile's payload (its ``document`` is walked beside the card).
        drops_empty: the profile drops empty values before signing (every SDK profile).
    """
    out: list[UncoveredMember] = []
    v1 = "supportedInterfaces" in card or "supported_interfaces" in card

    def why(path: str, key: str, value: Any, top: bool) -> str:
        if drops_empty and _clean_empty_sdk(value) is None:
            return "empty value; dropped before signing"
        if value is False or (type(value) in (int, float) and value == 0):
            return "default value (false/0); proto3 JSON omits it, so it is not signed"
        if isinstance(value, str | list | dict) and not value:
            # A known member left empty: proto3 JSON (the spec profile) omits it too.
            return "empty value; proto3 JSON omits it, so it is not signed"
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
