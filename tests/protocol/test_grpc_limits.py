"""gRPC failures from a hostile server map to the documented kinds (never an internal error)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import grpc.aio
import pytest

from app.protocol import exchange
from app.protocol.events import ErrorKind, ExchangeEnd, ExchangeError, Outcome
from app.protocol.request import A2ARequest
from app.protocol.types import Binding
from tests.helpers.grpc_server import hostile_grpc_server

# The hostile server's own request-handling task (grpc.aio AioServer._request_call) is
# still waiting when the test body ends; the fixture's server.stop() ends it at teardown.
pytestmark = pytest.mark.leaks_allowed("grpc.aio server task, stopped by the fixture")

REPLIES: dict[str, bytes] = {}


async def _get_task(request: bytes, context: Any) -> bytes:
    return REPLIES["GetTask"]


async def _subscribe(request: bytes, context: Any) -> AsyncIterator[bytes]:
    yield REPLIES["SubscribeToTask"]


@pytest.fixture
async def hostile_grpc() -> AsyncIterator[str]:
    handlers = {
        "GetTask": grpc.unary_unary_rpc_method_handler(_get_task),
        "SubscribeToTask": grpc.unary_stream_rpc_method_handler(_subscribe),
    }
    async with hostile_grpc_server(handlers) as target:
        yield target


async def run(request: A2ARequest) -> list[Any]:
    events = [event async for event in exchange.run(request)]
    for event in events:
        if isinstance(event, ExchangeError):
            assert event.kind is not ErrorKind.INTERNAL, event.message
    return events


def errors(events: list[Any]) -> list[ExchangeError]:
    return [e for e in events if isinstance(e, ExchangeError)]


@pytest.mark.parametrize("method", ["GetTask", "SubscribeToTask"])
async def test_an_undecodable_reply_is_a_protocol_error(hostile_grpc: str, method: str) -> None:
    REPLIES[method] = b"\xff\xff\xff\xff\x0f"
    events = await run(A2ARequest(hostile_grpc, method, '{"id": "t"}', binding=Binding.GRPC))
    found = errors(events)
    assert found and found[0].kind is ErrorKind.PROTOCOL
    assert "not the method's response message" in found[0].message
    assert isinstance(events[-1], ExchangeEnd)
    assert events[-1].outcome is Outcome.PROTOCOL_ERROR


async def test_an_over_limit_reply_is_a_protocol_error_as_over_http(hostile_grpc: str) -> None:
    REPLIES["GetTask"] = b"\x0a\x80\x80\x04" + b"x" * 65536  # field 1, 64 KiB string
    request = A2ARequest(
        hostile_grpc, "GetTask", '{"id": "t"}', binding=Binding.GRPC, max_response_bytes=1000
    )
    events = await run(request)
    found = errors(events)
    assert found and found[0].kind is ErrorKind.PROTOCOL and "size limit" in found[0].message
    assert events[-1].outcome is Outcome.PROTOCOL_ERROR


@pytest.mark.parametrize(
    "header",
    [("x-note", "a\x01b"), ("x-note", "line\nbreak"), ("x-note", "caf\u00e9"), ("bad key", "v")],
)
async def test_unsendable_metadata_is_a_usage_error(hostile_grpc: str, header: Any) -> None:
    request = A2ARequest(
        hostile_grpc, "GetTask", '{"id": "t"}', binding=Binding.GRPC, headers=(header,)
    )
    events = await run(request)
    found = errors(events)
    assert found and found[0].kind is ErrorKind.USAGE, found
    assert events[-1].outcome is Outcome.USAGE_ERROR
