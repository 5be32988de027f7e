"""The gRPC side of a replay: grpcio generic handlers for every A2A rpc of 1.0 and 0.3.

Requests are decoded with the rpc's official request descriptor and matched as ProtoJSON;
the recorded messages are encoded with its response descriptor (:mod:`app.replay.grpc_codec`)
and sent at their recorded offsets with the recorded initial metadata, status, details and
trailers (``-bin`` values decoded from base64). An unmatched call fails ``UNIMPLEMENTED``
(a path that is no A2A rpc, or a method never recorded) or ``NOT_FOUND``, its details
naming the closest recorded request and the difference.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import AsyncIterator
from typing import Any

import grpc
import grpc.aio
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message import DecodeError

from app.replay.answers import Pacer, Replay
from app.replay.fixture import Answer, RecordedExchange
from app.replay.grpc_codec import decode_request, encode_response, grpc_rpc
from app.replay.matching import grpc_shape

# Set by gRPC itself; a handler may not send them as metadata.
_RESERVED = frozenset({"content-type", "user-agent", "te", "grpc-status", "grpc-message",
                       "grpc-encoding", "grpc-accept-encoding", "grpc-timeout"})  # fmt: skip

Metadata = tuple[tuple[str, str | bytes], ...]


def _metadata(pairs: tuple[tuple[str, str], ...]) -> Metadata:
    out: list[tuple[str, str | bytes]] = []
    for name, value in pairs:
        key = name.lower()
        if key in _RESERVED or key.startswith(":"):
            continue
        if key.endswith("-bin"):
            try:
                out.append((key, base64.b64decode(value + "=" * (-len(value) % 4))))
            except binascii.Error:
                continue
        else:
            out.append((key, value))
    return tuple(out)


class ReplayHandler(grpc.GenericRpcHandler):  # type: ignore[misc]
    """Answers every call from the fixture (see the module docstring)."""

    def __init__(self, replay: Replay) -> None:
        self._replay = replay

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler:
        path = str(handler_call_details.method)
        rpc = grpc_rpc(path)
        if rpc is not None and rpc.server_streaming:

            async def stream(
                data: bytes, context: grpc.aio.ServicerContext
            ) -> AsyncIterator[bytes]:
                x, answer, pacer = await self._begin(path, rpc, data, context)
                for message in answer.messages:
                    await pacer.until(message.t)
                    yield encode_response(rpc, message.json)
                await self._finish(x, pacer, context)

            return grpc.unary_stream_rpc_method_handler(stream)

        async def unary(data: bytes, context: grpc.aio.ServicerContext) -> bytes:
            if rpc is None:
                message = f"replay: {path} is not an A2A rpc (1.0 lf.a2a.v1 or 0.3 a2a.v1)"
                self._replay.emit({"event": "unmatched", "binding": "GRPC", "message": message})
                await context.abort(grpc.StatusCode.UNIMPLEMENTED, message)
            assert rpc is not None
            x, answer, pacer = await self._begin(path, rpc, data, context)
            reply = b""
            if answer.messages:
                await pacer.until(answer.messages[0].t)
                reply = encode_response(rpc, answer.messages[0].json)
            await self._finish(x, pacer, context)
            return reply

        return grpc.unary_unary_rpc_method_handler(unary)

    async def _begin(
        self, path: str, rpc: MethodDescriptor, data: bytes, context: grpc.aio.ServicerContext
    ) -> tuple[RecordedExchange, Answer, Pacer]:
        try:
            request: Any = decode_request(rpc, data)
        except DecodeError as exc:
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, f"replay: not a {rpc.input_type.full_name}: {exc}"
            )
        shape = grpc_shape(path, request)
        x, verdict = self._replay.lookup(shape)
        if x is None:
            message, _ = self._replay.unmatched(shape, verdict)
            known = self._replay.matcher.has_method(shape)
            await context.abort(
                grpc.StatusCode.NOT_FOUND if known else grpc.StatusCode.UNIMPLEMENTED, message
            )
        assert x is not None
        pacer = Pacer(self._replay.speed)
        await pacer.until(x.answer.t)
        await context.send_initial_metadata(_metadata(x.answer.headers))
        return x, x.answer, pacer

    async def _finish(
        self, x: RecordedExchange, pacer: Pacer, context: grpc.aio.ServicerContext
    ) -> None:
        answer = x.answer
        await pacer.until(answer.end)
        trailers = _metadata(answer.trailers)
        if answer.grpc_status != "OK":
            code = (
                grpc.StatusCode[answer.grpc_status]
                if answer.grpc_status in grpc.StatusCode.__members__
                else grpc.StatusCode.UNKNOWN
            )
            await context.abort(code, answer.details, trailers)
        context.set_trailing_metadata(trailers)
