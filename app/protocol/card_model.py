"""Agent Card shape detection, field-level validation and a normalized view for the UI.

Three shapes are told apart (PROTOCOL.md §6, PEERS.md 10):

- **pure 1.0**: ``supportedInterfaces`` and no 0.3 top-level fields;
- **pure 0.3**: top-level ``url`` + ``preferredTransport`` + ``additionalInterfaces``;
- **hybrid**: a 1.0 card with the 0.3 mirror fields merged in, as a2a-sdk 1.3.0 serves it
  whenever the card lists a 0.3 interface (``agent_card_to_dict``).

1.0 validation walks the JSON against the official ``lf.a2a.v1.AgentCard`` descriptor from
a2a-sdk (``a2a.types.a2a_pb2``) instead of calling ``json_format.ParseDict``, because
``ParseDict`` stops at the first problem and, with ``ignore_unknown_fields``, silently turns
unknown enum strings into 0. The walk lists every unknown field, wrong type, unknown enum
value and missing ``REQUIRED`` field (``google.api.field_behavior``), each with a JSON path
such as ``skills[2].tags``. 0.3 validation uses the 0.3 JSON-RPC schema's required fields
(PROTOCOL.md §6.2). Nothing here raises on any JSON input.
"""

from __future__ import annotations

import base64
import binascii
import enum
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from a2a.types import a2a_pb2
from google.api import field_behavior_pb2
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

__all__ = [
    "MIRROR_FIELDS_03",
    "SPEAKABLE_VERSIONS",
    "CapabilitiesView",
    "CardProblem",
    "CardShape",
    "CardView",
    "ExtensionView",
    "InterfaceView",
    "ProviderView",
    "SecurityRequirementView",
    "SecuritySchemeView",
    "Severity",
    "SignatureView",
    "SkillView",
    "detect_shape",
    "normalize_card",
    "required_fields",
    "validate_card",
]

SPEAKABLE_VERSIONS = ("1.0", "0.3")
"""Protocol versions (Major.Minor) this app can speak."""

KNOWN_BINDINGS = ("JSONRPC", "HTTP+JSON", "GRPC")
"""Standard ``protocolBinding`` / ``transport`` values (spec HEAD §5.5)."""

MIRROR_FIELDS_03 = (
    "url",
    "preferredTransport",
    "protocolVersion",
    "additionalInterfaces",
    "security",
    "supportsAuthenticatedExtendedCard",
)
"""Top-level 0.3 fields a2a-sdk 1.3.0 merges into a 1.0 card (PROTOCOL.md §6.3)."""

# 0.3 OpenAPI-style members merged into each securitySchemes entry of a hybrid card.
_SCHEME_MIRROR_KEYS = frozenset(
    {
        "type",
        "in",
        "name",
        "scheme",
        "bearerFormat",
        "flows",
        "openIdConnectUrl",
        "oauth2MetadataUrl",
        "description",
    }
)

# Deeper than this, protobuf's ParseDict (100) and the SDK's JCS (128) give up anyway.
_MAX_DEPTH = 100

_CARD = a2a_pb2.AgentCard.DESCRIPTOR


class CardShape(enum.Enum):
    """Which protocol version(s) a card's JSON follows."""

    V1_0 = "pure 1.0"
    V0_3 = "pure 0.3"
    HYBRID = "hybrid"
    NOT_A_CARD = "not a card"


class Severity(enum.Enum):
    """How bad a ``CardProblem`` is."""

    ERROR = "error"
    """Violates the spec or the descriptor; a strict peer would reject the card."""
    WARNING = "warning"
    """Legal but likely to break something (e.g. an interface version the app cannot speak)."""
    INFO = "info"
    """Worth knowing (e.g. 0.3 mirror fields, which a 1.0 signature does not cover)."""


@dataclass(frozen=True, slots=True)
class CardProblem:
    """One field-level finding.

    Attributes:
        path: JSON path from the card root, e.g. ``supportedInterfaces[0].url``; ``""`` = root.
        message: what is wrong, in words.
        severity: ERROR, WARNING or INFO.
    """

    path: str
    message: str
    severity: Severity = Severity.ERROR


# ---------------------------------------------------------------------------------------
# shape


def _has(card: dict[str, Any], *names: str) -> bool:
    return any(name in card for name in names)


def detect_shape(card: object) -> CardShape:
    """Classify parsed card JSON.

    Args:
        card: any JSON value.

    Returns:
        ``NOT_A_CARD`` for non-objects; ``HYBRID`` when ``supportedInterfaces`` sits next to
        0.3 mirror fields; ``V1_0`` when it has ``supportedInterfaces`` (or neither
        convention); ``V0_3`` when it has only the 0.3 ``url`` / ``preferredTransport`` /
        ``additionalInterfaces`` / ``protocolVersion``.
    """
    if not isinstance(card, dict):
        return CardShape.NOT_A_CARD
    has_v1 = _has(card, "supportedInterfaces", "supported_interfaces")
    has_v03 = _has(card, *MIRROR_FIELDS_03, "preferred_transport", "additional_interfaces")
    if has_v1 and has_v03:
        return CardShape.HYBRID
    if has_v1:
        return CardShape.V1_0
    if _has(card, "url", "preferredTransport", "additionalInterfaces", "protocolVersion"):
        return CardShape.V0_3
    return CardShape.V1_0


# ---------------------------------------------------------------------------------------
# descriptor walk (1.0)


def _is_required(field: FieldDescriptor) -> bool:
    behaviors = field.GetOptions().Extensions[field_behavior_pb2.field_behavior]
    return field_behavior_pb2.REQUIRED in behaviors


def required_fields(descriptor: Descriptor) -> tuple[FieldDescriptor, ...]:
    """Fields of ``descriptor`` annotated ``(google.api.field_behavior) = REQUIRED``."""
    return tuple(f for f in descriptor.fields if _is_required(f))


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _is_map(field: FieldDescriptor) -> bool:
    mt = field.message_type
    return bool(mt is not None and mt.GetOptions().map_entry)


def _is_repeated(field: FieldDescriptor) -> bool:
    # protobuf ≥ 5.28 has is_repeated; older runtimes only have label.
    flag = getattr(field, "is_repeated", None)
    if flag is not None:
        return bool(flag)
    return bool(field.label == FieldDescriptor.LABEL_REPEATED)


def _json_depth(value: object) -> int:
    # Iterative, so a hostile 10 000-deep Struct cannot exhaust the stack here.
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            deepest = max(deepest, depth)
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            deepest = max(deepest, depth)
            stack.extend((v, depth + 1) for v in item)
    return deepest


_INT_TYPES = {
    FieldDescriptor.TYPE_INT32,
    FieldDescriptor.TYPE_SINT32,
    FieldDescriptor.TYPE_SFIXED32,
    FieldDescriptor.TYPE_UINT32,
    FieldDescriptor.TYPE_FIXED32,
    FieldDescriptor.TYPE_INT64,
    FieldDescriptor.TYPE_SINT64,
    FieldDescriptor.TYPE_SFIXED64,
    FieldDescriptor.TYPE_UINT64,
    FieldDescriptor.TYPE_FIXED64,
}
_FLOAT_TYPES = {FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE}


class _Walker:
    """Collects problems while walking JSON against a message descriptor."""

    def __init__(self, *, hybrid: bool) -> None:
        self.problems: list[CardProblem] = []
        self.hybrid = hybrid

    def add(self, path: str, message: str, severity: Severity = Severity.ERROR) -> None:
        self.problems.append(CardProblem(path, message, severity))

    def message(self, value: object, desc: Descriptor, path: str, depth: int) -> None:
        if depth > _MAX_DEPTH:
            self.add(path, f"nested deeper than {_MAX_DEPTH} levels; not checked further")
            return
        full = desc.full_name
        if full == "google.protobuf.Struct":
            if not isinstance(value, dict):
                self.add(path, f"expected a JSON object (Struct), got {_json_type(value)}")
            elif _json_depth(value) > _MAX_DEPTH:
                self.add(path, f"nested deeper than {_MAX_DEPTH} levels", Severity.WARNING)
            return
        if full == "google.protobuf.Value":
            if _json_depth(value) > _MAX_DEPTH:
                self.add(path, f"nested deeper than {_MAX_DEPTH} levels", Severity.WARNING)
            return
        if full == "google.protobuf.ListValue":
            if not isinstance(value, list):
                self.add(path, f"expected an array, got {_json_type(value)}")
            return
        if full == "google.protobuf.Timestamp":
            if not isinstance(value, str):
                self.add(path, f"expected an RFC 3339 timestamp string, got {_json_type(value)}")
            return
        if not isinstance(value, dict):
            self.add(path, f"expected an object ({desc.name}), got {_json_type(value)}")
            return

        seen: dict[str, str] = {}  # field name → key used
        oneofs: dict[str, str] = {}  # oneof name → key used
        for key, item in value.items():
            sub = f"{path}.{key}" if path else str(key)
            field = desc.fields_by_camelcase_name.get(key) or desc.fields_by_name.get(key)
            if field is None:
                self._unknown(desc, path, sub, key)
                continue
            if field.name in seen:
                self.add(sub, f"field given twice (also as '{seen[field.name]}')")
                continue
            seen[field.name] = key
            if item is None:
                # ProtoJSON: null means "not set"; REQUIRED fields are checked below.
                continue
            oneof = field.containing_oneof
            if oneof is not None and not oneof.name.startswith("_"):
                if oneof.name in oneofs:
                    self.add(
                        sub,
                        f"only one of oneof '{oneof.name}' may be set "
                        f"(also '{oneofs[oneof.name]}')",
                    )
                oneofs[oneof.name] = key
            self.field(item, field, sub, depth)

        for field in required_fields(desc):
            sub = f"{path}.{field.json_name}" if path else field.json_name
            key = seen.get(field.name)
            item = value.get(key) if key is not None else None
            if item is None:
                self.add(sub, "missing required field")
            elif item in ("", [], {}):
                # Proto3 cannot tell empty from unset; official signers drop it (PROTOCOL.md §7.1).
                self.add(sub, "required field is empty", Severity.WARNING)

    def _unknown(self, desc: Descriptor, path: str, sub: str, key: str) -> None:
        if self.hybrid and desc is _CARD and key in MIRROR_FIELDS_03:
            self.add(
                sub, "0.3 mirror field (hybrid card; not covered by a 1.0 signature)", Severity.INFO
            )
        elif (
            self.hybrid
            and desc.full_name == "lf.a2a.v1.SecurityScheme"
            and key in _SCHEME_MIRROR_KEYS
        ):
            self.add(sub, "0.3 security scheme member (hybrid card)", Severity.INFO)
        else:
            self.add(sub, f"unknown field for {desc.full_name}")

    def field(self, value: object, field: FieldDescriptor, path: str, depth: int) -> None:
        if _is_map(field):
            if not isinstance(value, dict):
                self.add(path, f"expected an object (map), got {_json_type(value)}")
                return
            value_field = field.message_type.fields_by_name["value"]
            for key, item in value.items():
                self.single(item, value_field, f"{path}.{key}", depth + 1)
            return
        if _is_repeated(field):
            if not isinstance(value, list):
                self.add(path, f"expected an array, got {_json_type(value)}")
                return
            for index, item in enumerate(value):
                if item is None:
                    self.add(f"{path}[{index}]", "null is not allowed in an array")
                    continue
                self.single(item, field, f"{path}[{index}]", depth + 1)
            return
        self.single(value, field, path, depth)

    def single(self, value: object, field: FieldDescriptor, path: str, depth: int) -> None:
        kind = field.type
        if kind == FieldDescriptor.TYPE_MESSAGE:
            self.message(value, field.message_type, path, depth + 1)
        elif kind == FieldDescriptor.TYPE_ENUM:
            self._enum(value, field.enum_type, path)
        elif kind == FieldDescriptor.TYPE_STRING:
            if not isinstance(value, str):
                self.add(path, f"expected a string, got {_json_type(value)}")
        elif kind == FieldDescriptor.TYPE_BOOL:
            if not isinstance(value, bool):
                self.add(path, f"expected a boolean, got {_json_type(value)}")
        elif kind in _INT_TYPES:
            self._integer(value, path)
        elif kind in _FLOAT_TYPES:
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            if not ok and value not in ("NaN", "Infinity", "-Infinity"):
                self.add(path, f"expected a number, got {_json_type(value)}")
        elif kind == FieldDescriptor.TYPE_BYTES:
            if not isinstance(value, str):
                self.add(path, f"expected a base64 string, got {_json_type(value)}")
            else:
                try:
                    padded = value + "=" * (-len(value) % 4)
                    base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
                except (binascii.Error, ValueError):
                    self.add(path, "not valid base64")

    def _integer(self, value: object, path: str) -> None:
        if isinstance(value, bool):
            self.add(path, "expected an integer, got boolean")
        elif isinstance(value, int):
            return
        elif isinstance(value, float):
            if not value.is_integer():
                self.add(path, f"expected an integer, got {value!r}")
        elif isinstance(value, str):
            try:
                int(value)
            except ValueError:
                self.add(path, f"expected an integer, got string {value!r}")
        else:
            self.add(path, f"expected an integer, got {_json_type(value)}")

    def _enum(self, value: object, enum_desc: EnumDescriptor, path: str) -> None:
        if isinstance(value, str):
            if value not in enum_desc.values_by_name:
                known = ", ".join(enum_desc.values_by_name)
                self.add(path, f"unknown {enum_desc.name} value {value!r} (known: {known})")
        elif isinstance(value, int) and not isinstance(value, bool):
            if value not in enum_desc.values_by_number:
                self.add(path, f"unknown {enum_desc.name} number {value}")
        else:
            self.add(path, f"expected an enum name string, got {_json_type(value)}")


# ---------------------------------------------------------------------------------------
# semantic checks shared by both versions


def _major_minor(version: str) -> str | None:
    parts = version.strip().split(".")
    if len(parts) < 2 or not all(p.isdigit() for p in parts[:2]):
        return None
    return f"{int(parts[0])}.{int(parts[1])}"


def _check_interface(
    problems: list[CardProblem],
    path: str,
    url: object,
    binding: object,
    version: object,
    *,
    v1: bool,
) -> None:
    if isinstance(url, str) and url:
        if binding == "GRPC":
            if "://" in url:
                problems.append(
                    CardProblem(
                        f"{path}.url",
                        f"gRPC interface url {url!r} has a scheme; gRPC targets are host:port",
                        Severity.WARNING,
                    )
                )
        else:
            try:
                parts = urlsplit(url)
                scheme, host = parts.scheme.lower(), parts.hostname
            except ValueError:
                scheme, host = "", None
            if scheme not in ("http", "https") or not host:
                problems.append(
                    CardProblem(
                        f"{path}.url", f"not an absolute http(s) URL: {url!r}", Severity.ERROR
                    )
                )
    if isinstance(binding, str) and binding and binding not in KNOWN_BINDINGS:
        problems.append(
            CardProblem(
                f"{path}.{'protocolBinding' if v1 else 'transport'}",
                f"custom binding {binding!r}; the app speaks {', '.join(KNOWN_BINDINGS)}",
                Severity.INFO,
            )
        )
    if isinstance(version, str) and version:
        mm = _major_minor(version)
        vpath = f"{path}.protocolVersion"
        if mm is None:
            problems.append(CardProblem(vpath, f"protocol version {version!r} is not Major.Minor"))
        elif mm not in SPEAKABLE_VERSIONS:
            problems.append(
                CardProblem(
                    vpath,
                    f"protocol version {version!r} cannot be spoken by this app "
                    f"(it speaks {', '.join(SPEAKABLE_VERSIONS)})",
                    Severity.WARNING,
                )
            )
        elif v1 and version != mm:
            problems.append(
                CardProblem(
                    vpath,
                    f"1.0 interfaces carry Major.Minor only; {version!r} read as {mm}",
                    Severity.INFO,
                )
            )


def _duplicates(
    problems: list[CardProblem], entries: Iterable[tuple[str, tuple[object, ...]]]
) -> None:
    first: dict[str, str] = {}
    for path, key in entries:
        try:
            text = json.dumps(key, sort_keys=True)
        except (TypeError, ValueError):
            continue
        if text in first:
            problems.append(
                CardProblem(path, f"duplicate interface (same as {first[text]})", Severity.WARNING)
            )
        else:
            first[text] = path


def _check_v1_interfaces(card: dict[str, Any], problems: list[CardProblem]) -> None:
    interfaces = card.get("supportedInterfaces", card.get("supported_interfaces"))
    if not isinstance(interfaces, list):
        return
    if not interfaces:
        problems.append(
            CardProblem("supportedInterfaces", "no interfaces: nothing to talk to", Severity.ERROR)
        )
    keys: list[tuple[str, tuple[object, ...]]] = []
    for index, iface in enumerate(interfaces):
        if not isinstance(iface, dict):
            continue
        path = f"supportedInterfaces[{index}]"
        binding = iface.get("protocolBinding", iface.get("protocol_binding"))
        version = iface.get("protocolVersion", iface.get("protocol_version"))
        _check_interface(problems, path, iface.get("url"), binding, version, v1=True)
        mm = _major_minor(version) if isinstance(version, str) else version
        keys.append((path, (iface.get("url"), binding, mm, iface.get("tenant") or "")))
    _duplicates(problems, keys)


# ---------------------------------------------------------------------------------------
# 0.3


_REQUIRED_03 = (
    ("name", str),
    ("description", str),
    ("url", str),
    ("version", str),
    ("capabilities", dict),
    ("defaultInputModes", list),
    ("defaultOutputModes", list),
    ("skills", list),
)
_OPTIONAL_03: dict[str, type | tuple[type, ...]] = {
    "protocolVersion": str,
    "preferredTransport": str,
    "additionalInterfaces": list,
    "provider": dict,
    "documentationUrl": str,
    "iconUrl": str,
    "securitySchemes": dict,
    "security": list,
    "supportsAuthenticatedExtendedCard": bool,
    "signatures": list,
}
_SKILL_REQUIRED_03 = (("id", str), ("name", str), ("description", str), ("tags", list))
_SKILL_OPTIONAL_03 = {"examples": list, "inputModes": list, "outputModes": list, "security": list}
_CAPS_03 = {
    "streaming": bool,
    "pushNotifications": bool,
    "stateTransitionHistory": bool,
    "extensions": list,
}
_TYPE_NAMES = {str: "a string", dict: "an object", list: "an array", bool: "a boolean"}


def _check_typed(
    problems: list[CardProblem],
    obj: dict[str, Any],
    path: str,
    required: Iterable[tuple[str, type]],
    optional: dict[str, type | tuple[type, ...]],
    *,
    report_unknown: bool,
) -> None:
    prefix = f"{path}." if path else ""
    known = set(optional)
    for name, kind in required:
        known.add(name)
        if obj.get(name) is None:
            problems.append(CardProblem(prefix + name, "missing required field"))
        elif not isinstance(obj[name], kind) or (kind is not bool and isinstance(obj[name], bool)):
            problems.append(
                CardProblem(
                    prefix + name,
                    f"expected {_TYPE_NAMES.get(kind, kind.__name__)}, got {_json_type(obj[name])}",
                )
            )
    for name, kinds in optional.items():
        value = obj.get(name)
        if value is not None and not isinstance(value, kinds):
            expected = kinds if isinstance(kinds, type) else kinds[0]
            problems.append(
                CardProblem(
                    prefix + name,
                    f"expected {_TYPE_NAMES.get(expected, expected.__name__)}, "
                    f"got {_json_type(value)}",
                )
            )
    if report_unknown:
        for name in obj:
            if name not in known:
                problems.append(
                    CardProblem(prefix + name, "not a 0.3 AgentCard field", Severity.WARNING)
                )


def _validate_03(card: dict[str, Any]) -> list[CardProblem]:
    problems: list[CardProblem] = []
    _check_typed(problems, card, "", _REQUIRED_03, _OPTIONAL_03, report_unknown=False)
    for name in card:
        if name not in _OPTIONAL_03 and name not in dict(_REQUIRED_03):
            if name == "supportedInterfaces":
                problems.append(
                    CardProblem(name, "1.0 interfaces embedded in a 0.3 card", Severity.INFO)
                )
            else:
                problems.append(CardProblem(name, "not a 0.3 AgentCard field", Severity.WARNING))
    caps = card.get("capabilities")
    if isinstance(caps, dict):
        _check_typed(problems, caps, "capabilities", (), dict(_CAPS_03), report_unknown=False)
    skills = card.get("skills")
    if isinstance(skills, list):
        for index, skill in enumerate(skills):
            path = f"skills[{index}]"
            if not isinstance(skill, dict):
                problems.append(CardProblem(path, f"expected an object, got {_json_type(skill)}"))
                continue
            _check_typed(
                problems,
                skill,
                path,
                _SKILL_REQUIRED_03,
                dict(_SKILL_OPTIONAL_03),
                report_unknown=False,
            )
    for name in ("defaultInputModes", "defaultOutputModes"):
        modes = card.get(name)
        if isinstance(modes, list):
            for index, mode in enumerate(modes):
                if not isinstance(mode, str):
                    problems.append(
                        CardProblem(
                            f"{name}[{index}]", f"expected a string, got {_json_type(mode)}"
                        )
                    )

    version = card.get("protocolVersion", "0.3.0")
    transport = card.get("preferredTransport", "JSONRPC")
    keys: list[tuple[str, tuple[object, ...]]] = []
    _check_interface(problems, "", card.get("url"), transport, version, v1=False)
    # The root path "" would render the url check as ".url"; fix paths up.
    root_paths = {".url": "url", ".transport": "preferredTransport"}
    root_paths[".protocolVersion"] = "protocolVersion"
    problems[:] = [
        CardProblem(root_paths.get(p.path, p.path), p.message, p.severity) for p in problems
    ]
    extra = card.get("additionalInterfaces")
    if isinstance(extra, list):
        for index, iface in enumerate(extra):
            path = f"additionalInterfaces[{index}]"
            if not isinstance(iface, dict):
                problems.append(CardProblem(path, f"expected an object, got {_json_type(iface)}"))
                continue
            for member in ("url", "transport"):
                if not isinstance(iface.get(member), str):
                    problems.append(
                        CardProblem(f"{path}.{member}", "missing required field (string)")
                    )
            _check_interface(
                problems, path, iface.get("url"), iface.get("transport"), None, v1=False
            )
            keys.append((path, (iface.get("url"), iface.get("transport"))))
    # The 0.3 spec asks for the main url to be repeated in additionalInterfaces, so only
    # repeats inside additionalInterfaces count as duplicates.
    _duplicates(problems, keys)
    return problems


# ---------------------------------------------------------------------------------------
# public validation


def validate_card(card: object, shape: CardShape | None = None) -> list[CardProblem]:
    """List every field-level problem of parsed card JSON; never raises.

    Args:
        card: any JSON value (what ``json.loads`` returned).
        shape: validate as this shape; detected when ``None``.

    Returns:
        Problems in document order (descriptor walk first, then interface checks).
    """
    shape = shape or detect_shape(card)
    if not isinstance(card, dict) or shape is CardShape.NOT_A_CARD:
        return [CardProblem("", f"an Agent Card is a JSON object, got {_json_type(card)}")]
    try:
        if shape is CardShape.V0_3:
            return _validate_03(card)
        walker = _Walker(hybrid=shape is CardShape.HYBRID)
        walker.message(card, _CARD, "", 1)
        problems = walker.problems
        _check_v1_interfaces(card, problems)
        return problems
    except RecursionError:
        return [CardProblem("", "card nested too deeply to validate")]


# ---------------------------------------------------------------------------------------
# normalized view


@dataclass(frozen=True, slots=True)
class ProviderView:
    """``provider`` (organization and url), as text."""

    organization: str
    url: str


@dataclass(frozen=True, slots=True)
class InterfaceView:
    """One way to reach the agent.

    Attributes:
        url: endpoint URL (gRPC: ``host:port``).
        binding: ``JSONRPC`` / ``HTTP+JSON`` / ``GRPC`` / custom URI.
        protocol_version: as written on the card (0.3 cards: top-level ``protocolVersion``,
            default ``"0.3.0"``).
        tenant: 1.0 tenant ("" when none; 0.3 has no tenant).
        source: ``"supportedInterfaces"``, ``"url"`` or ``"additionalInterfaces"``.
    """

    url: str
    binding: str
    protocol_version: str
    tenant: str = ""
    source: str = "supportedInterfaces"

    @property
    def major_minor(self) -> str | None:
        """``"1.0"`` / ``"0.3"`` etc., or ``None`` when the version is not Major.Minor[.Patch]."""
        return _major_minor(self.protocol_version)

    @property
    def speakable(self) -> bool:
        """Whether this app can speak the interface's protocol version and binding."""
        return self.major_minor in SPEAKABLE_VERSIONS and self.binding in KNOWN_BINDINGS


@dataclass(frozen=True, slots=True)
class ExtensionView:
    """``capabilities.extensions[]`` entry; ``params_json`` is compact JSON text ("" when none)."""

    uri: str
    description: str
    required: bool
    params_json: str = ""


@dataclass(frozen=True, slots=True)
class CapabilitiesView:
    """``capabilities``; ``None`` means "not stated"."""

    streaming: bool | None = None
    push_notifications: bool | None = None
    extended_agent_card: bool | None = None
    state_transition_history: bool | None = None
    extensions: tuple[ExtensionView, ...] = ()


@dataclass(frozen=True, slots=True)
class SkillView:
    """One skill."""

    id: str
    name: str
    description: str
    tags: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    input_modes: tuple[str, ...] = ()
    output_modes: tuple[str, ...] = ()
    security_requirements: tuple[SecurityRequirementView, ...] = ()


@dataclass(frozen=True, slots=True)
class SecuritySchemeView:
    """One ``securitySchemes`` entry.

    Attributes:
        name: the map key, referenced by requirements.
        kind: ``apiKey`` / ``http`` / ``oauth2`` / ``openIdConnect`` / ``mutualTLS`` / ``?``.
        summary: one line for a table, e.g. ``"http bearer (JWT)"`` or ``"apiKey in header X-Key"``.
        description: the scheme's description ("" when none).
        raw_json: the entry as compact JSON text.
    """

    name: str
    kind: str
    summary: str
    description: str
    raw_json: str


@dataclass(frozen=True, slots=True)
class SecurityRequirementView:
    """One alternative of ``securityRequirements``: all listed schemes together (AND)."""

    schemes: tuple[tuple[str, tuple[str, ...]], ...]
    """``(scheme name, scopes)`` pairs."""


@dataclass(frozen=True, slots=True)
class SignatureView:
    """A ``signatures[]`` entry as text; nothing here is fetched or verified.

    Attributes:
        kid: protected header ``kid`` ("" when absent).
        alg: protected header ``alg`` ("" when absent).
        jku: protected header ``jku`` as text (never followed), "" when absent.
        typ: protected header ``typ`` ("" when absent).
        header_json: decoded protected header as compact JSON text, "" if undecodable.
        error: why the protected header could not be decoded, else "".
    """

    kid: str
    alg: str
    jku: str
    typ: str
    header_json: str
    error: str = ""


@dataclass(frozen=True, slots=True)
class CardView:
    """What the card panel shows; built from any JSON without raising.

    Attributes:
        shape: detected shape.
        name, description, version: identity ("" when missing or not text).
        provider: ``None`` when absent.
        icon_url, documentation_url: "" when absent.
        protocol_versions: distinct interface versions in card order.
        interfaces: preferred first (1.0 order; 0.3: ``url`` then ``additionalInterfaces``).
        capabilities: stated capabilities.
        default_input_modes, default_output_modes: media types.
        skills: skills in card order.
        security_schemes: in card order.
        security_requirements: card-level requirements (0.3 ``security`` mapped).
        signatures: decoded signature headers.
    """

    shape: CardShape
    name: str = ""
    description: str = ""
    version: str = ""
    provider: ProviderView | None = None
    icon_url: str = ""
    documentation_url: str = ""
    protocol_versions: tuple[str, ...] = ()
    interfaces: tuple[InterfaceView, ...] = ()
    capabilities: CapabilitiesView = CapabilitiesView()
    default_input_modes: tuple[str, ...] = ()
    default_output_modes: tuple[str, ...] = ()
    skills: tuple[SkillView, ...] = ()
    security_schemes: tuple[SecuritySchemeView, ...] = ()
    security_requirements: tuple[SecurityRequirementView, ...] = ()
    signatures: tuple[SignatureView, ...] = ()


def _s(value: object) -> str:
    return value if isinstance(value, str) else ""


def _get(obj: dict[str, Any], camel: str, snake: str | None = None) -> Any:
    if camel in obj:
        return obj[camel]
    return obj.get(snake) if snake else None


def _strs(value: object) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(v for v in value if isinstance(v, str))


def _b(value: object) -> bool | None:
    return value if isinstance(value, bool) else None


def _compact(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return ""


def _requirements(value: object) -> tuple[SecurityRequirementView, ...]:
    if not isinstance(value, list):
        return ()
    out: list[SecurityRequirementView] = []
    for item in value:
        if not isinstance(item, dict):
            continue
        schemes = item.get("schemes")
        pairs: list[tuple[str, tuple[str, ...]]] = []
        if isinstance(schemes, dict):  # 1.0: {"schemes": {name: {"list": [...]}}}
            for name, scopes in schemes.items():
                scope_list = scopes.get("list") if isinstance(scopes, dict) else None
                pairs.append((str(name), _strs(scope_list)))
        else:  # 0.3: {name: [scopes]}
            pairs.extend((str(name), _strs(scopes)) for name, scopes in item.items())
        out.append(SecurityRequirementView(tuple(pairs)))
    return tuple(out)


_WRAPPERS = {
    "apiKeySecurityScheme": "apiKey",
    "httpAuthSecurityScheme": "http",
    "oauth2SecurityScheme": "oauth2",
    "openIdConnectSecurityScheme": "openIdConnect",
    "mtlsSecurityScheme": "mutualTLS",
}


def _scheme(name: str, entry: object) -> SecuritySchemeView:
    raw = _compact(entry)
    if not isinstance(entry, dict):
        return SecuritySchemeView(name, "?", f"not an object ({_json_type(entry)})", "", raw)
    kind, body = "?", entry
    for wrapper, wrapper_kind in _WRAPPERS.items():
        if isinstance(entry.get(wrapper), dict):
            kind, body = wrapper_kind, entry[wrapper]
            break
    else:
        if isinstance(entry.get("type"), str):
            kind = entry["type"]
    if kind == "apiKey":
        location = _s(body.get("location")) or _s(body.get("in"))
        summary = f"apiKey in {location or '?'} {_s(body.get('name')) or '?'}"
    elif kind == "http":
        fmt = _s(body.get("bearerFormat"))
        summary = f"http {_s(body.get('scheme')) or '?'}" + (f" ({fmt})" if fmt else "")
    elif kind == "oauth2":
        flows = body.get("flows")
        names = ", ".join(flows) if isinstance(flows, dict) else "?"
        summary = f"oauth2 flows: {names}"
    elif kind == "openIdConnect":
        summary = f"openIdConnect {_s(body.get('openIdConnectUrl'))}"
    elif kind == "mutualTLS":
        summary = "mutual TLS"
    else:
        summary = "unrecognised scheme"
    return SecuritySchemeView(name, kind, summary, _s(body.get("description")), raw)


def _signature(entry: object) -> SignatureView:
    if not isinstance(entry, dict):
        return SignatureView("", "", "", "", "", f"entry is {_json_type(entry)}, not an object")
    protected = entry.get("protected")
    if not isinstance(protected, str):
        return SignatureView("", "", "", "", "", "no 'protected' string")
    try:
        header = json.loads(base64.urlsafe_b64decode(protected + "=" * (-len(protected) % 4)))
    except (binascii.Error, ValueError, RecursionError) as exc:
        return SignatureView("", "", "", "", "", f"protected header undecodable: {exc}")
    if not isinstance(header, dict):
        return SignatureView("", "", "", "", _compact(header), "protected header is not an object")
    jku = header.get("jku")
    return SignatureView(
        kid=_s(header.get("kid")),
        alg=_s(header.get("alg")),
        jku=jku if isinstance(jku, str) else ("" if jku is None else _compact(jku)),
        typ=_s(header.get("typ")),
        header_json=_compact(header),
    )


def _interfaces(card: dict[str, Any], shape: CardShape) -> tuple[InterfaceView, ...]:
    out: list[InterfaceView] = []
    if shape is CardShape.V0_3:
        version = _s(card.get("protocolVersion")) or "0.3.0"
        url = _s(card.get("url"))
        if url:
            binding = _s(card.get("preferredTransport")) or "JSONRPC"
            out.append(InterfaceView(url, binding, version, "", "url"))
        extra = card.get("additionalInterfaces")
        for iface in extra if isinstance(extra, list) else ():
            if isinstance(iface, dict):
                view = InterfaceView(
                    _s(iface.get("url")),
                    _s(iface.get("transport")),
                    version,
                    "",
                    "additionalInterfaces",
                )
                # 0.3 asks cards to repeat the main url there; show it once.
                if not any((o.url, o.binding) == (view.url, view.binding) for o in out):
                    out.append(view)
        return tuple(out)
    interfaces = _get(card, "supportedInterfaces", "supported_interfaces")
    for iface in interfaces if isinstance(interfaces, list) else ():
        if isinstance(iface, dict):
            out.append(
                InterfaceView(
                    _s(iface.get("url")),
                    _s(_get(iface, "protocolBinding", "protocol_binding")),
                    _s(_get(iface, "protocolVersion", "protocol_version")),
                    _s(iface.get("tenant")),
                )
            )
    return tuple(out)


def _skill(entry: dict[str, Any]) -> SkillView:
    reqs = _get(entry, "securityRequirements", "security_requirements")
    if reqs is None:
        reqs = entry.get("security")
    return SkillView(
        id=_s(entry.get("id")),
        name=_s(entry.get("name")),
        description=_s(entry.get("description")),
        tags=_strs(entry.get("tags")),
        examples=_strs(entry.get("examples")),
        input_modes=_strs(_get(entry, "inputModes", "input_modes")),
        output_modes=_strs(_get(entry, "outputModes", "output_modes")),
        security_requirements=_requirements(reqs),
    )


def normalize_card(card: object) -> CardView:
    """Build the UI view of parsed card JSON of any shape; never raises.

    Args:
        card: any JSON value.

    Returns:
        A ``CardView``; missing or mistyped members become empty values.
    """
    shape = detect_shape(card)
    if not isinstance(card, dict):
        return CardView(shape)
    provider_obj = card.get("provider")
    provider = (
        ProviderView(_s(provider_obj.get("organization")), _s(provider_obj.get("url")))
        if isinstance(provider_obj, dict)
        else None
    )
    interfaces = _interfaces(card, shape)
    versions: list[str] = []
    for iface in interfaces:
        if iface.protocol_version and iface.protocol_version not in versions:
            versions.append(iface.protocol_version)

    caps_obj = card.get("capabilities")
    caps_obj = caps_obj if isinstance(caps_obj, dict) else {}
    extensions: list[ExtensionView] = []
    ext_list = caps_obj.get("extensions")
    for ext in ext_list if isinstance(ext_list, list) else ():
        if isinstance(ext, dict):
            params = ext.get("params")
            extensions.append(
                ExtensionView(
                    _s(ext.get("uri")),
                    _s(ext.get("description")),
                    ext.get("required") is True,
                    _compact(params) if params is not None else "",
                )
            )
    extended = _b(_get(caps_obj, "extendedAgentCard", "extended_agent_card"))
    if extended is None:
        extended = _b(card.get("supportsAuthenticatedExtendedCard"))
    capabilities = CapabilitiesView(
        streaming=_b(caps_obj.get("streaming")),
        push_notifications=_b(_get(caps_obj, "pushNotifications", "push_notifications")),
        extended_agent_card=extended,
        state_transition_history=_b(caps_obj.get("stateTransitionHistory")),
        extensions=tuple(extensions),
    )
    skills_obj = card.get("skills")
    skills = tuple(
        _skill(s)
        for s in (skills_obj if isinstance(skills_obj, list) else ())
        if isinstance(s, dict)
    )
    schemes_obj = _get(card, "securitySchemes", "security_schemes")
    schemes = tuple(
        _scheme(str(k), v)
        for k, v in (schemes_obj.items() if isinstance(schemes_obj, dict) else ())
    )
    reqs = _get(card, "securityRequirements", "security_requirements")
    if reqs is None:
        reqs = card.get("security")
    sigs = card.get("signatures")
    return CardView(
        shape=shape,
        name=_s(card.get("name")),
        description=_s(card.get("description")),
        version=_s(card.get("version")),
        provider=provider,
        icon_url=_s(_get(card, "iconUrl", "icon_url")),
        documentation_url=_s(_get(card, "documentationUrl", "documentation_url")),
        protocol_versions=tuple(versions),
        interfaces=interfaces,
        capabilities=capabilities,
        default_input_modes=_strs(_get(card, "defaultInputModes", "default_input_modes")),
        default_output_modes=_strs(_get(card, "defaultOutputModes", "default_output_modes")),
        skills=skills,
        security_schemes=schemes,
        security_requirements=_requirements(reqs),
        signatures=tuple(_signature(s) for s in (sigs if isinstance(sigs, list) else ())),
    )
