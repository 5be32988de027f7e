"""The threaded reader under gRPC server streams: order, batches, errors after items, the
read-ahead bound, and a stop (the Stop button) that ends its thread — with plain blocking
iterators, and a real a2a-sdk gRPC stream stopped after two items."""

from __future__ import annotations

import asyncio
import queue
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from app.protocol import exchange
from app.protocol.events import ErrorKind, ExchangeEnd, ExchangeError, Outcome, StreamItem
from app.protocol.methods.catalog import TemplateContext, find_method
from app.protocol.request import A2ARequest, render_body
from app.protocol.transports.grpc_reader import (
    BATCH_ITEMS,
    WAITING_BYTES,
    WAITING_ITEMS,
    ThreadedReader,
)
from app.protocol.types import Binding, ProtocolVersion
from tests.helpers.grpc_server import no_reader_threads, reader_threads

_END = object()


async def test_items_come_in_order_in_bounded_batches_and_on_exit_runs() -> None:
    exited = threading.Event()
    reader = ThreadedReader(lambda: iter(range(1234)), exited.set)
    batches = [batch async for batch in reader.batches()]
    assert [n for batch in batches for n in batch] == list(range(1234))
    assert all(0 < len(batch) <= BATCH_ITEMS for batch in batches)
    assert exited.wait(2)
    await no_reader_threads()


async def test_an_error_is_raised_after_the_items_read_before_it() -> None:
    def produce() -> Iterator[int]:
        yield 1
        yield 2
        raise ValueError("the call failed")

    got: list[int] = []
    with pytest.raises(ValueError, match="the call failed"):
        async for batch in ThreadedReader(produce, lambda: None).batches():
            got += batch
    assert got == [1, 2]


async def test_the_thread_reads_no_further_ahead_than_the_bound() -> None:
    read = [0]

    def produce() -> Iterator[int]:
        for n in range(WAITING_ITEMS * 10):
            read[0] = n + 1
            yield n

    batches = ThreadedReader(produce, lambda: None).batches()
    first = await batches.__anext__()
    await asyncio.sleep(0.2)  # the consumer does not take: the thread waits at the bound
    # What it took (one take, handed over in batches), the bound, the item in its hand.
    assert read[0] <= 2 * WAITING_ITEMS + 1
    rest = [n async for batch in batches for n in batch]
    assert first + rest == list(range(WAITING_ITEMS * 10))


async def test_the_thread_reads_no_further_ahead_than_the_bound_in_bytes() -> None:
    """Big messages: the read-ahead stops at its bytes long before its count."""
    size = WAITING_BYTES // 4
    read = [0]

    def produce() -> Iterator[bytes]:
        for n in range(40):
            read[0] = n + 1
            yield bytes([n]) * size

    batches = ThreadedReader(produce, lambda: None, len).batches()
    first = await batches.__anext__()
    await asyncio.sleep(0.2)  # the consumer does not take: the thread waits at the bound
    # What it took, four more (the bound), the one in its hand.
    assert read[0] <= len(first) + 4 + 1 < 40
    rest = [item async for batch in batches for item in batch]
    assert [item[0] for item in first + rest] == list(range(40))


async def test_closing_the_consumer_ends_a_thread_blocked_in_its_source() -> None:
    """The Stop path: the consumer closes; the caller makes the blocked source end (here
    an item that says so, as a cancelled call raises); the thread exits and on_exit runs."""
    source: queue.Queue[object] = queue.Queue()
    exited = threading.Event()

    def produce() -> Iterator[object]:
        while (item := source.get()) is not _END:
            yield item

    batches = ThreadedReader(produce, exited.set).batches()
    source.put("first")
    assert await batches.__anext__() == ["first"]
    await batches.aclose()  # while the thread waits in source.get()
    source.put("read after the stop: dropped")
    source.put(_END)
    assert exited.wait(2)
    await no_reader_threads()


async def test_a_wake_up_after_the_loop_closed_is_ignored() -> None:
    """The thread may finish after the exchange's loop is gone (the app quitting)."""
    release = threading.Event()
    exited = threading.Event()

    def produce() -> Iterator[int]:
        release.wait(5)
        yield 1

    def run() -> None:
        loop = asyncio.new_event_loop()

        async def start() -> None:
            batches = ThreadedReader(produce, exited.set).batches()
            task = asyncio.ensure_future(batches.__anext__())
            await asyncio.sleep(0.05)
            task.cancel()

        loop.run_until_complete(start())
        loop.close()

    escaped: list[Any] = []
    hook, threading.excepthook = threading.excepthook, escaped.append
    try:
        worker = threading.Thread(target=run)
        worker.start()
        worker.join(5)
        release.set()
        assert exited.wait(2)
        await no_reader_threads()
    finally:
        threading.excepthook = hook
    assert escaped == []


@pytest.mark.peer
async def test_a_stopped_grpc_stream_ends_its_reader_thread(sdk_peer: dict[str, Any]) -> None:
    spec = find_method(ProtocolVersion.V1_0, "SendStreamingMessage")
    assert spec is not None
    request = A2ARequest(
        sdk_peer["grpc_target"],
        spec.name,
        render_body(spec, Binding.GRPC, TemplateContext(text="stream 100 100")),
        ProtocolVersion.V1_0,
        Binding.GRPC,
        timeout=15.0,
    )
    items: list[StreamItem] = []
    ends: list[ExchangeEnd] = []
    enough = asyncio.Event()

    async def consume() -> None:
        async for event in exchange.run(request):
            assert not isinstance(event, ExchangeError), event
            if isinstance(event, StreamItem):
                items.append(event)
                if len(items) >= 2:
                    enough.set()
            elif isinstance(event, ExchangeEnd):
                ends.append(event)

    task = asyncio.create_task(consume())
    await asyncio.wait_for(enough.wait(), 10)
    assert reader_threads()
    task.cancel()  # the Stop button
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [end.outcome for end in ends] in ([], [Outcome.CANCELLED])
    await no_reader_threads()
    assert [item.seq for item in items[:2]] == [1, 2]


async def test_a_stream_that_never_connected_has_no_ok_head() -> None:
    """No server: the transport error alone, as for a unary call (the blocking API reports
    the initial metadata of a failed call as empty, not as a failure)."""
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    spec = find_method(ProtocolVersion.V1_0, "SendStreamingMessage")
    assert spec is not None
    request = A2ARequest(
        f"127.0.0.1:{port}",
        spec.name,
        render_body(spec, Binding.GRPC, TemplateContext(text="hi")),
        ProtocolVersion.V1_0,
        Binding.GRPC,
        timeout=5.0,
    )
    events = [event async for event in exchange.run(request)]
    assert [type(event).__name__ for event in events] == [
        "RequestSent",
        "ExchangeError",
        "ExchangeEnd",
    ], events
    error = events[1]
    assert isinstance(error, ExchangeError)
    assert error.kind is ErrorKind.TRANSPORT and error.message.startswith("Could not reach")
    await no_reader_threads()
