"""The fast ProtoJSON writer gives exactly what json_format.MessageToDict gives: every message
type of the A2A 1.0 and 0.3 gRPC descriptors, every field set (each oneof member in turn),
the well-known types inside them, enum numbers without a name and values json_format spells
its own way."""

from __future__ import annotations

from typing import Any

import pytest
from a2a.compat.v0_3 import a2a_v0_3_pb2
from a2a.types import a2a_pb2
from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from app.protocol.wire.proto_json import message_to_dict

F = FieldDescriptor


def _types(file: Any) -> list[Descriptor]:
    found: list[Descriptor] = []
    stack = list(file.message_types_by_name.values())
    while stack:
        descriptor = stack.pop()
        if not descriptor.GetOptions().map_entry:
            found.append(descriptor)
        stack.extend(descriptor.nested_types)
    return sorted(found, key=lambda d: d.full_name)


TYPES = _types(a2a_pb2.DESCRIPTOR) + _types(a2a_v0_3_pb2.DESCRIPTOR)


def _scalar(field: FieldDescriptor, n: int) -> Any:
    if field.cpp_type == F.CPPTYPE_ENUM:
        values = field.enum_type.values
        return values[min(n + 1, len(values) - 1)].number
    if field.cpp_type == F.CPPTYPE_STRING:
        return b"\x00\xffbytes" if field.type == F.TYPE_BYTES else f"text é {n}"
    if field.cpp_type == F.CPPTYPE_BOOL:
        return True
    if field.cpp_type in (F.CPPTYPE_INT64, F.CPPTYPE_UINT64):
        return 2**40 + n
    if field.cpp_type in (F.CPPTYPE_FLOAT, F.CPPTYPE_DOUBLE):
        return 1.1 + n
    return 7 + n


def _fill_wkt(message: Any) -> None:
    name = message.DESCRIPTOR.full_name
    if name == "google.protobuf.Struct":
        message.update({"a": 1.5, "b": [True, "x", None], "c": {"d": "e"}})
    elif name == "google.protobuf.Value":
        message.string_value = "v"
    elif name == "google.protobuf.ListValue":
        message.extend([1, "two"])
    elif name == "google.protobuf.Timestamp":
        message.FromSeconds(1_700_000_000)
        message.nanos = 5_000_000
    elif name == "google.protobuf.Duration":
        message.FromMilliseconds(1500)
    elif name == "google.protobuf.FieldMask":
        message.paths.append("a.b")
    elif "value" in message.DESCRIPTOR.fields_by_name:  # wrappers
        field = message.DESCRIPTOR.fields_by_name["value"]
        message.value = _scalar(field, 0)


def _fill(message: Any, choice: int, depth: int = 0) -> None:
    descriptor = message.DESCRIPTOR
    if descriptor.file.name.startswith("google/protobuf/"):
        _fill_wkt(message)
        return
    for field in descriptor.fields:
        oneof = field.containing_oneof
        if oneof is not None and oneof.fields[choice % len(oneof.fields)] is not field:
            continue
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            value_field = field.message_type.fields_by_name["value"]
            target = getattr(message, field.name)
            for n, key in enumerate(("k1", "k2")):
                if value_field.message_type is not None:
                    if depth < 3:
                        _fill(target[key], choice, depth + 1)
                else:
                    target[key] = _scalar(value_field, n)
        elif field.message_type is not None:
            if depth >= 3:
                continue
            if field.is_repeated:
                for _ in range(2):
                    _fill(getattr(message, field.name).add(), choice, depth + 1)
            else:
                _fill(getattr(message, field.name), choice, depth + 1)
        elif field.is_repeated:
            getattr(message, field.name).extend([_scalar(field, 0), _scalar(field, 1)])
        else:
            setattr(message, field.name, _scalar(field, choice))


def _instances(descriptor: Descriptor) -> list[Message]:
    widest = max([len(o.fields) for o in descriptor.oneofs] or [1])
    out: list[Message] = []
    for choice in range(widest):
        message = GetMessageClass(descriptor)()
        _fill(message, choice)
        out.append(message)
    return out


@pytest.mark.parametrize("descriptor", TYPES, ids=lambda d: d.full_name)
def test_every_message_type_fully_set_is_written_as_json_format_writes_it(
    descriptor: Descriptor,
) -> None:
    for message in _instances(descriptor):
        assert message_to_dict(message) == json_format.MessageToDict(message)
        assert message_to_dict(type(message)()) == json_format.MessageToDict(type(message)())


def test_an_enum_number_without_a_name_and_odd_numbers_are_json_formats() -> None:
    update = a2a_pb2.TaskStatusUpdateEvent(task_id="t")
    update.status.state = 99  # an open enum keeps a number it does not know
    assert message_to_dict(update) == json_format.MessageToDict(update)
    assert message_to_dict(update)["status"]["state"] == 99
    values = a2a_pb2.Message(message_id="m")
    values.metadata.update({"n": 1e300, "neg": -0.0, "tiny": 5e-324})
    assert message_to_dict(values) == json_format.MessageToDict(values)
    nan = a2a_pb2.Message(message_id="m")
    nan.metadata.update({"x": float("nan")})
    with pytest.raises(json_format.SerializeToJsonError):
        json_format.MessageToDict(nan)
    with pytest.raises(json_format.SerializeToJsonError):
        message_to_dict(nan)


def test_a_stream_message_is_written_once_per_type_then_reused() -> None:
    update = a2a_pb2.StreamResponse(
        status_update=a2a_pb2.TaskStatusUpdateEvent(
            task_id="bench-task",
            status=a2a_pb2.TaskStatus(
                state=a2a_pb2.TASK_STATE_WORKING,
                message=a2a_pb2.Message(
                    message_id="m1", role=a2a_pb2.ROLE_AGENT, parts=[a2a_pb2.Part(text="p")]
                ),
            ),
        )
    )
    expected = {
        "statusUpdate": {
            "taskId": "bench-task",
            "status": {
                "state": "TASK_STATE_WORKING",
                "message": {"messageId": "m1", "role": "ROLE_AGENT", "parts": [{"text": "p"}]},
            },
        }
    }
    assert message_to_dict(update) == expected
    assert message_to_dict(update) == expected
