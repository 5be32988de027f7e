"""Hostile gRPC server streams under the threaded reader: a status after some items, a
server that never sends, and many stopped streams in a row (no reader thread left)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import grpc
import grpc.aio
import pytest
from a2a.types import a2a_pb2

from app.protocol import exchange
from app.protocol.events import ErrorKind, ExchangeEnd, ExchangeError, Outcome, StreamItem
from app.protocol.request import A2ARequest
from app.protocol.types import Binding
from tests.helpers.grpc_server import hostile_grpc_server, no_reader_threads

pytestmark = pytest.mark.leaks_allowed("grpc.aio server task, stopped by the fixture")

_UPDATE = a2a_pb2.StreamResponse(
    status_update=a2a_pb2.TaskStatusUpdateEvent(
        task_id="t", context_id="c", status=a2a_pb2.TaskStatus(state=a2a_pb2.TASK_STATE_WORKING)
    )
).SerializeToString()


async def _three_then_abort(request: bytes, context: Any) -> AsyncIterator[bytes]:
    for _ in range(3):
        yield _UPDATE
    await context.abort(grpc.StatusCode.INTERNAL, "the agent fell over")


SILENT = {"silent": True}
"""What SendStreamingMessage does: send nothing, or updates without end."""


async def _silent_or_endless(request: bytes, context: Any) -> AsyncIterator[bytes]:
    if SILENT["silent"]:
        await asyncio.sleep(3600)
    while True:
        yield _UPDATE
        await asyncio.sleep(0.001)


@pytest.fixture
async def hostile_stream() -> AsyncIterator[str]:
    handlers = {
        "SubscribeToTask": grpc.unary_stream_rpc_method_handler(_three_then_abort),
        "SendStreamingMessage": grpc.unary_stream_rpc_method_handler(_silent_or_endless),
    }
    async with hostile_grpc_server(handlers) as target:
        yield target


async def test_a_status_after_items_is_an_error_after_them(hostile_stream: str) -> None:
    request = A2ARequest(hostile_stream, "SubscribeToTask", '{"id": "t"}', binding=Binding.GRPC)
    events = [event async for event in exchange.run(request)]
    kinds = [type(event).__name__ for event in events]
    assert kinds.count("StreamItem") == 3, kinds
    last_item = max(i for i, e in enumerate(events) if isinstance(e, StreamItem))
    errors = [e for e in events if isinstance(e, ExchangeError)]
    assert len(errors) == 1 and events.index(errors[0]) > last_item
    assert errors[0].code == "INTERNAL" and "the agent fell over" in errors[0].message
    assert isinstance(events[-1], ExchangeEnd)
    assert events[-1].outcome is not Outcome.OK
    await no_reader_threads()


async def test_stopping_a_stream_that_never_sends_ends_at_once(hostile_stream: str) -> None:
    """The server sends not even its headers: Stop still ends the call at once (it once
    waited for the server: the reader held the call's lock waiting for the metadata)."""
    SILENT["silent"] = True
    request = A2ARequest(
        hostile_stream, "SendStreamingMessage", '{"message": {}}', binding=Binding.GRPC
    )
    seen: list[Any] = []

    async def consume() -> None:
        async for event in exchange.run(request):
            seen.append(event)

    task = asyncio.create_task(consume())
    await asyncio.sleep(0.5)
    started = time.monotonic()
    task.cancel()  # the Stop button
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 2
    await no_reader_threads()
    assert [type(e).__name__ for e in seen][:1] == ["RequestSent"]
    assert not any(isinstance(e, ExchangeError) and e.kind is ErrorKind.INTERNAL for e in seen)


async def test_twenty_stopped_streams_leave_no_thread(hostile_stream: str) -> None:
    SILENT["silent"] = False
    before = threading.active_count()
    for _ in range(20):
        request = A2ARequest(
            hostile_stream, "SendStreamingMessage", '{"message": {}}', binding=Binding.GRPC
        )
        got = asyncio.Event()

        async def consume(request: A2ARequest = request, got: asyncio.Event = got) -> None:
            async for event in exchange.run(request):
                if isinstance(event, StreamItem):
                    got.set()

        task = asyncio.create_task(consume())
        await asyncio.wait_for(got.wait(), 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    await no_reader_threads()
    assert threading.active_count() <= before + 2
