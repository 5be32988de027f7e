"""Decoding ``grpc-status-details-bin`` (google.rpc.Status with ErrorInfo / BadRequest)."""

from __future__ import annotations

import base64

import pytest
from google.protobuf.any_pb2 import Any as AnyProto
from google.rpc import error_details_pb2, status_pb2

from app.protocol.wire.grpc_status import (
    STATUS_DETAILS_KEY,
    decode_status,
    metadata_pairs,
    status_details_bytes,
)


def packed_status() -> bytes:
    info = error_details_pb2.ErrorInfo(reason="TASK_NOT_FOUND", domain="a2a-protocol.org")
    info.metadata["taskId"] = "t1"
    bad = error_details_pb2.BadRequest(
        field_violations=[
            error_details_pb2.BadRequest.FieldViolation(
                field="message.message_id", description="required"
            )
        ]
    )
    status = status_pb2.Status(code=5, message="Task not found")
    for detail in (info, bad):
        packed = AnyProto()
        packed.Pack(detail)
        status.details.append(packed)
    return status.SerializeToString()


def test_error_info_and_bad_request_are_decoded() -> None:
    rich = decode_status(packed_status())
    assert (rich.code, rich.message) == (5, "Task not found")
    assert rich.details[0]["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"
    assert rich.details[0]["reason"] == "TASK_NOT_FOUND"
    assert rich.lines == (
        'ErrorInfo: reason=TASK_NOT_FOUND domain=a2a-protocol.org metadata={"taskId": "t1"}',
        "BadRequest: message.message_id: required",
    )


def test_unknown_detail_types_keep_their_type_and_bytes() -> None:
    status = status_pb2.Status(code=3)
    status.details.append(AnyProto(type_url="type.example.com/x.Y", value=b"\x01\x02"))
    rich = decode_status(status.SerializeToString())
    assert rich.details == ({"@type": "type.example.com/x.Y", "value": "AQI="},)
    assert rich.lines[0].startswith("x.Y: ")


def test_garbage_is_a_value_error() -> None:
    with pytest.raises(ValueError, match=r"not a google\.rpc\.Status"):
        decode_status(b"\xff\xff\xff")


def test_metadata_round_trip_through_display_pairs() -> None:
    raw = packed_status()
    pairs = metadata_pairs([("x-a", "1"), (STATUS_DETAILS_KEY, raw)])
    assert pairs[0] == ("x-a", "1")
    assert pairs[1] == (STATUS_DETAILS_KEY, base64.b64encode(raw).decode())
    assert status_details_bytes(pairs) == raw
    assert status_details_bytes((("x-a", "1"),)) is None
    assert metadata_pairs(None) == ()
