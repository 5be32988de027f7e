"""gRPC messages of a fixture, encoded and decoded with the official A2A descriptors.

``/lf.a2a.v1.A2AService/SendMessage`` (1.0, ``a2a.types.a2a_pb2``) and
``/a2a.v1.A2AService/SendMessage`` (0.3, ``a2a.compat.v0_3``) name their rpc descriptor
through :func:`app.protocol.methods.catalog.grpc_service`; messages go through
``google.protobuf.json_format`` as camelCase ProtoJSON, as the gRPC binding records them.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import MethodDescriptor

from app.protocol.methods.catalog import grpc_service
from app.protocol.types import ProtocolVersion
from app.replay.fixture import Fixture, FixtureError


def grpc_rpc(path: str) -> MethodDescriptor | None:
    """The A2A rpc at ``/package.A2AService/Method`` (either version), or None."""
    service_name, _, method_name = path.strip("/").partition("/")
    for version in (ProtocolVersion.V1_0, ProtocolVersion.V0_3):
        service = grpc_service(version)
        if service.full_name == service_name:
            return service.methods_by_name.get(method_name)
    return None


def all_rpcs() -> list[tuple[str, MethodDescriptor]]:
    """``(path, rpc)`` of every A2A rpc of both versions."""
    out = []
    for version in (ProtocolVersion.V1_0, ProtocolVersion.V0_3):
        service = grpc_service(version)
        out += [(f"/{service.full_name}/{m.name}", m) for m in service.methods]
    return out


def encode_response(rpc: MethodDescriptor, value: Any) -> bytes:
    """The response message ``value`` (ProtoJSON) serialized.

    Raises:
        json_format.ParseError: ``value`` is not the rpc's response message.
    """
    message = message_factory.GetMessageClass(rpc.output_type)()
    json_format.ParseDict(value, message)
    return bytes(message.SerializeToString())


def decode_request(rpc: MethodDescriptor, data: bytes) -> Any:
    """A request message's bytes as ProtoJSON.

    Raises:
        google.protobuf.message.DecodeError: not the rpc's request message.
    """
    message = message_factory.GetMessageClass(rpc.input_type).FromString(data)
    return json_format.MessageToDict(message)


def check_messages(fixture: Fixture) -> None:
    """Every gRPC exchange names an A2A rpc and its messages are that rpc's response, so
    a hand edit that breaks one is refused before serving, not at the call.

    Raises:
        FixtureError: naming the exchange and message.
    """
    for i, x in enumerate(fixture.exchanges):
        if x.binding != "GRPC":
            continue
        rpc = grpc_rpc(x.path)
        if rpc is None:
            raise FixtureError(f"exchanges[{i}].request.path: {x.path!r} is not an A2A rpc")
        for n, message in enumerate(x.answer.messages):
            try:
                encode_response(rpc, message.json)
            except json_format.ParseError as exc:
                raise FixtureError(
                    f"exchanges[{i}].response.messages[{n}].json: not a "
                    f"{rpc.output_type.full_name}: {exc}"
                ) from exc
