"""Decoding gRPC rich status: the ``grpc-status-details-bin`` trailer (``google.rpc.Status``).

An A2A 1.0 gRPC server puts a serialized ``google.rpc.Status`` into this trailer, with one
packed ``google.rpc.ErrorInfo`` {``reason``, ``domain: "a2a-protocol.org"``} and, for
validation errors, a packed ``google.rpc.BadRequest`` (docs/PROTOCOL.md §4.3). 0.3 servers send
none. The messages come from ``googleapis-common-protos`` (installed with ``a2a-sdk``).

Pure functions, no I/O.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format
from google.protobuf.any_pb2 import Any as AnyProto
from google.protobuf.message import DecodeError
from google.rpc import error_details_pb2, status_pb2

from app.protocol.events import Headers
from app.protocol.wire.a2a_errors import describe_details

STATUS_DETAILS_KEY = "grpc-status-details-bin"

# Importing the module registers ErrorInfo, BadRequest, RetryInfo … in the default pool,
# which json_format needs to unpack the Any details; keep the reference explicit.
_REGISTERED = error_details_pb2.DESCRIPTOR


@dataclass(frozen=True, slots=True)
class RichStatus:
    """A decoded ``google.rpc.Status``.

    Attributes:
        code: the numeric gRPC status code the server put inside (should equal the call's).
        message: the status message inside (usually the call's details text).
        details: each packed detail as ProtoJSON with its ``@type`` (an unknown type keeps
            ``@type`` and its base64 ``value``).
        lines: readable lines (``ErrorInfo: reason=TASK_NOT_FOUND domain=…``,
            ``BadRequest: message.message_id: …``), as for JSON-RPC and REST errors.
    """

    code: int
    message: str
    details: tuple[dict[str, Any], ...]
    lines: tuple[str, ...]


def decode_status(data: bytes) -> RichStatus:
    """Decode the bytes of a ``grpc-status-details-bin`` trailer.

    Raises:
        ValueError: ``data`` is not a serialized ``google.rpc.Status``.
    """
    status = status_pb2.Status()
    try:
        status.ParseFromString(data)
    except DecodeError as exc:
        raise ValueError(f"{STATUS_DETAILS_KEY} is not a google.rpc.Status: {exc}") from exc
    details = tuple(_detail_json(detail) for detail in status.details)
    return RichStatus(status.code, status.message, details, describe_details(list(details)))


def _detail_json(detail: AnyProto) -> dict[str, Any]:
    try:
        value = json_format.MessageToDict(detail)
    except (TypeError, KeyError, json_format.Error):
        # A detail type this client does not know: show what it is and its raw bytes.
        return {"@type": detail.type_url, "value": base64.b64encode(detail.value).decode()}
    return value if isinstance(value, dict) else {"@type": detail.type_url, "value": value}


def status_details_bytes(metadata: Headers) -> bytes | None:
    """The raw ``grpc-status-details-bin`` value from display metadata (base64 text), if any.

    :func:`metadata_pairs` shows binary values as base64; this undoes it.
    """
    for key, value in metadata:
        if key.lower() == STATUS_DETAILS_KEY:
            try:
                return base64.b64decode(value + "=" * (-len(value) % 4))
            except ValueError:
                return None
    return None


def metadata_pairs(metadata: Any) -> Headers:
    """gRPC metadata as display pairs; binary (``-bin``) values become standard base64.

    Accepts ``grpc.aio.Metadata``, a sequence of ``(key, value)`` pairs, or None.
    """
    if metadata is None:
        return ()
    pairs: list[tuple[str, str]] = []
    for key, value in metadata:
        if isinstance(value, bytes):
            pairs.append((str(key), base64.b64encode(value).decode("ascii")))
        else:
            pairs.append((str(key), str(value)))
    return tuple(pairs)
