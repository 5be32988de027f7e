"""Walk Agent Card JSON against the official ``lf.a2a.v1.AgentCard`` protobuf descriptor.

The descriptor comes from a2a-sdk (``a2a.types.a2a_pb2``). The walk is used instead of
``json_format.ParseDict`` because ``ParseDict`` stops at the first problem and, with
``ignore_unknown_fields``, silently turns unknown enum strings into 0. The walk lists every
unknown field, wrong type, unknown enum value and missing ``REQUIRED`` field
(``google.api.field_behavior``), each with a JSON path such as ``skills[2].tags``.

The descriptor helpers (:func:`required_fields`, :func:`is_repeated`, :func:`is_map`) are
also what the spec-literal signature profile needs to put empty REQUIRED fields back.
"""

from __future__ import annotations

import base64
import binascii

from a2a.types import a2a_pb2
from google.api import field_behavior_pb2
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

from app.protocol.card.card_shape import MIRROR_FIELDS_03, CardProblem, Severity, json_type

__all__ = ["CARD_DESCRIPTOR", "DescriptorWalker", "is_map", "is_repeated", "required_fields"]

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

CARD_DESCRIPTOR = a2a_pb2.AgentCard.DESCRIPTOR
"""The 1.0 ``AgentCard`` message descriptor every walk starts from."""


def _is_required(field: FieldDescriptor) -> bool:
    behaviors = field.GetOptions().Extensions[field_behavior_pb2.field_behavior]
    return field_behavior_pb2.REQUIRED in behaviors


def required_fields(descriptor: Descriptor) -> tuple[FieldDescriptor, ...]:
    """Fields of ``descriptor`` annotated ``(google.api.field_behavior) = REQUIRED``."""
    return tuple(f for f in descriptor.fields if _is_required(f))


def is_map(field: FieldDescriptor) -> bool:
    """``field`` is a protobuf ``map<…>`` (a repeated map-entry message)."""
    mt = field.message_type
    return bool(mt is not None and mt.GetOptions().map_entry)


def is_repeated(field: FieldDescriptor) -> bool:
    """``field`` is ``repeated`` (maps included)."""
    # protobuf ≥ 5.28 has is_repeated and 7.x dropped ``label``; older runtimes only have label.
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


UNKNOWN_FIELD = "unknown field"
"""How a field the descriptor does not know is named in a problem (an info, 1.0 §5.7)."""


class DescriptorWalker:
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
                self.add(path, f"expected a JSON object (Struct), got {json_type(value)}")
            elif _json_depth(value) > _MAX_DEPTH:
                self.add(path, f"nested deeper than {_MAX_DEPTH} levels", Severity.WARNING)
            return
        if full == "google.protobuf.Value":
            if _json_depth(value) > _MAX_DEPTH:
                self.add(path, f"nested deeper than {_MAX_DEPTH} levels", Severity.WARNING)
            return
        if full == "google.protobuf.ListValue":
            if not isinstance(value, list):
                self.add(path, f"expected an array, got {json_type(value)}")
            return
        if full == "google.protobuf.Timestamp":
            if not isinstance(value, str):
                self.add(path, f"expected an RFC 3339 timestamp string, got {json_type(value)}")
            return
        if not isinstance(value, dict):
            self.add(path, f"expected an object ({desc.name}), got {json_type(value)}")
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
            if key != field.json_name:
                # Parsers take the proto name too, but JSON is written in camelCase (1.0 §5.5).
                self.add(
                    sub,
                    f"the proto field name; JSON uses the camelCase '{field.json_name}'",
                    Severity.WARNING,
                )
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
                # Proto3 cannot tell empty from unset; official signers drop it
                # (docs/PROTOCOL.md §7.2).
                self.add(sub, "required field is empty", Severity.WARNING)

    def _unknown(self, desc: Descriptor, path: str, sub: str, key: str) -> None:
        if self.hybrid and desc is CARD_DESCRIPTOR and key in MIRROR_FIELDS_03:
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
            # Implementations SHOULD ignore unrecognized fields (1.0 §5.7): a note, so a
            # card from a newer minor version or with a vendor's addition is not refused.
            self.add(sub, f"{UNKNOWN_FIELD} for {desc.full_name} (ignored)", Severity.INFO)

    def field(self, value: object, field: FieldDescriptor, path: str, depth: int) -> None:
        if is_map(field):
            if not isinstance(value, dict):
                self.add(path, f"expected an object (map), got {json_type(value)}")
                return
            value_field = field.message_type.fields_by_name["value"]
            for key, item in value.items():
                self.single(item, value_field, f"{path}.{key}", depth + 1)
            return
        if is_repeated(field):
            if not isinstance(value, list):
                self.add(path, f"expected an array, got {json_type(value)}")
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
                self.add(path, f"expected a string, got {json_type(value)}")
        elif kind == FieldDescriptor.TYPE_BOOL:
            if not isinstance(value, bool):
                self.add(path, f"expected a boolean, got {json_type(value)}")
        elif kind in _INT_TYPES:
            self._integer(value, path)
        elif kind in _FLOAT_TYPES:
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            if not ok and value not in ("NaN", "Infinity", "-Infinity"):
                self.add(path, f"expected a number, got {json_type(value)}")
        elif kind == FieldDescriptor.TYPE_BYTES:
            if not isinstance(value, str):
                self.add(path, f"expected a base64 string, got {json_type(value)}")
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
            self.add(path, f"expected an integer, got {json_type(value)}")

    def _enum(self, value: object, enum_desc: EnumDescriptor, path: str) -> None:
        if isinstance(value, str):
            if value not in enum_desc.values_by_name:
                known = ", ".join(enum_desc.values_by_name)
                self.add(path, f"unknown {enum_desc.name} value {value!r} (known: {known})")
        elif isinstance(value, int) and not isinstance(value, bool):
            if value not in enum_desc.values_by_number:
                self.add(path, f"unknown {enum_desc.name} number {value}")
        else:
            self.add(path, f"expected an enum name string, got {json_type(value)}")
