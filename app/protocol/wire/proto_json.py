"""A protobuf message as ProtoJSON: what ``json_format.MessageToDict(message)`` gives, faster.

The gRPC binding turns every message of a server stream into ProtoJSON on its reader
thread, and that thread shares the interpreter lock with the GUI thread painting the stream:
``MessageToDict`` re-derives every field's JSON name, kind and converter on each message
(~9 µs for a status update, most of the reader's own work in ``bench/stream.py``). Here
that is worked out once per message type (a plan: field → JSON name and kind), and a
message costs one ``ListFields()`` call and a loop over what is set.

The output is ``MessageToDict``'s with its default options, value for value
(``tests/protocol/test_proto_json.py`` compares the two on every A2A message type, every
field set): the well-known types (``Struct``, ``Value``, ``Timestamp``, wrappers, ``Any``…)
are handed to ``json_format`` itself, and so is any message this module does not handle
exactly (extensions, an enum value without a name, a float that is not finite, an enum
with a JSON name option), so its errors are ``json_format``'s too.
"""

from __future__ import annotations

import base64
from typing import Any

from google.protobuf import descriptor_pool, json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.internal import type_checkers
from google.protobuf.message import Message

_STRING, _MESSAGE, _WKT, _ENUM, _BYTES, _BOOL, _INT64, _FLOAT, _DOUBLE, _PLAIN, _MAP = range(11)

_WKT_FILES = frozenset(
    {
        "google/protobuf/any.proto",
        "google/protobuf/duration.proto",
        "google/protobuf/field_mask.proto",
        "google/protobuf/struct.proto",
        "google/protobuf/timestamp.proto",
        "google/protobuf/wrappers.proto",
    }
)
"""The well-known types ``json_format`` writes its own way (a Timestamp as a string…)."""

_CPP_KINDS = {
    FieldDescriptor.CPPTYPE_BOOL: _BOOL,
    FieldDescriptor.CPPTYPE_INT64: _INT64,
    FieldDescriptor.CPPTYPE_UINT64: _INT64,
    FieldDescriptor.CPPTYPE_FLOAT: _FLOAT,
    FieldDescriptor.CPPTYPE_DOUBLE: _DOUBLE,
    FieldDescriptor.CPPTYPE_INT32: _PLAIN,
    FieldDescriptor.CPPTYPE_UINT32: _PLAIN,
}


class _Inexact(Exception):
    """A value this module does not write the way ``json_format`` does."""


# field → (JSON name, kind, enum names or the map's value field, repeated)
_Plan = dict[FieldDescriptor, tuple[str, int, Any, bool]]
_plans: dict[Descriptor, _Plan | None] = {}


def message_to_dict(message: Message) -> Any:
    """``json_format.MessageToDict(message)``: camelCase names, enums by name, 64-bit
    integers as strings, bytes in base64, the well-known types in their JSON form.

    Raises:
        json_format.SerializeToJsonError: what ``MessageToDict`` raises (an enum number a
            closed enum does not name, a non-finite number in a ``Value``).
    """
    descriptor = message.DESCRIPTOR
    plan = _plans[descriptor] if descriptor in _plans else _plan(descriptor)
    if plan is None:
        return json_format.MessageToDict(message)
    try:
        return _fields(message, plan)
    except Exception:  # _Inexact, or a well-known type json_format refuses: its own words
        return json_format.MessageToDict(message)


def _fields(message: Message, plan: _Plan) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field, value in message.ListFields():
        entry = plan.get(field)
        if entry is None:  # an extension
            raise _Inexact
        name, kind, extra, repeated = entry
        if kind == _STRING and not repeated:  # the usual field: ids, texts
            out[name] = value
        elif kind == _MESSAGE and not repeated:
            out[name] = message_to_dict(value)
        elif kind == _MAP:
            key_kind, value_kind, value_extra = extra
            out[name] = {
                _map_key(key, key_kind): _value(value_kind, value_extra, item)
                for key, item in value.items()
            }
        elif repeated:
            out[name] = [_value(kind, extra, item) for item in value]
        else:
            out[name] = _value(kind, extra, value)
    return out


def _value(kind: int, extra: Any, value: Any) -> Any:
    if kind in (_STRING, _PLAIN):
        return value
    if kind == _MESSAGE:
        return message_to_dict(value)
    if kind == _ENUM:
        name = extra.get(value)
        if name is None:  # a number the enum does not name: json_format decides
            raise _Inexact
        return name
    if kind == _WKT:
        return json_format.MessageToDict(value)
    if kind == _BYTES:
        return base64.b64encode(value).decode("utf-8")
    if kind == _BOOL:
        return bool(value)
    if kind == _INT64:
        return str(value)
    if value != value or value in (float("inf"), float("-inf")):
        raise _Inexact  # "NaN", "Infinity": json_format's spelling
    return type_checkers.ToShortestFloat(value) if kind == _FLOAT else value


def _map_key(key: Any, kind: int) -> str:
    if kind == _BOOL:
        return "true" if key else "false"
    return str(key)


def _plan(descriptor: Descriptor) -> _Plan | None:
    """How to write each field of ``descriptor``'s messages; None: json_format writes them
    (a well-known type)."""
    plan: _Plan | None = None
    if descriptor.file.name not in _WKT_FILES:
        plan = {}
        for field in descriptor.fields:
            kind, extra = _kind(field)
            plan[field] = (field.json_name, kind, extra, field.is_repeated and kind != _MAP)
    _plans[descriptor] = plan
    return plan


def _kind(field: FieldDescriptor) -> tuple[int, Any]:
    message_type = field.message_type
    if message_type is not None and message_type.GetOptions().map_entry:
        key, value = message_type.fields_by_name["key"], message_type.fields_by_name["value"]
        key_kind, _ = _kind(key)
        value_kind, value_extra = _kind(value)
        return _MAP, (key_kind, value_kind, value_extra)
    if field.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE:
        return (_WKT if message_type.file.name in _WKT_FILES else _MESSAGE), None
    if field.cpp_type == FieldDescriptor.CPPTYPE_ENUM:
        enum = field.enum_type
        if enum.full_name == "google.protobuf.NullValue" or _json_names(enum):
            return _ENUM, {}  # every value to json_format
        return _ENUM, {value.number: value.name for value in enum.values}
    if field.cpp_type == FieldDescriptor.CPPTYPE_STRING:
        return (_BYTES if field.type == FieldDescriptor.TYPE_BYTES else _STRING), None
    return _CPP_KINDS.get(field.cpp_type, _PLAIN), None


def _json_names(enum: Any) -> bool:
    """Whether a value of ``enum`` has its own JSON name (``json_format`` writes that)."""
    extension = _json_name_option()
    return extension is not None and any(
        value.GetOptions().HasExtension(extension) for value in enum.values
    )


_option: list[Any] = []


def _json_name_option() -> Any:
    if not _option:
        try:
            _option.append(descriptor_pool.Default().FindExtensionByName("pb.enumvalue.json"))
        except KeyError:
            _option.append(None)
    return _option[0]
