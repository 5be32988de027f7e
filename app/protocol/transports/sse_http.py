"""Streaming over HTTP: Server-Sent Events, whatever the binding.

:func:`send_streaming_batches` sends one prepared call and yields :class:`RequestSent`,
:class:`ResponseHead`, then — after checking the response ``Content-Type``
(docs/PROTOCOL.md §2.4.2, §9.1) — either one :class:`StreamItem` per SSE frame, or a
:class:`ResponseBody` when the peer answered with a plain body (a JSON-RPC error with HTTP
200, a REST 4xx error) instead of a stream. Errors are :class:`ExchangeError` events next to
the items, never exceptions, and the stream goes on after a bad item. Events come in
batches (:data:`app.protocol.events.EventBatch`): the items of one chunk read off the socket
together; :func:`send_streaming` hands them out one at a time.

What an item or a plain body *means* is the binding's business: the caller passes a
:class:`app.protocol.transports.judge.Judge` (JSON-RPC envelopes, REST error
objects); this module knows SSE framing only.

Frames are decoded by our own :class:`app.protocol.wire.sse.SseDecoder` over
``decoded_chunks(response)``, not by httpx-sse: httpx-sse decodes text and drops comments and
the frame bytes, and a debugger must show every frame exactly as received.

Cancellation: the response is always closed in ``finally``; a cancelled
consumer closes this generator (``aclosing`` in :mod:`app.protocol.exchange`), which closes
the response once and returns the connection to the pool.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any

import httpx

from app.protocol.clock import Clock
from app.protocol.events import (
    NOT_JSON,
    ErrorKind,
    EventBatch,
    ExchangeError,
    ExchangeEvent,
    ResponseBody,
    ResponseHead,
    StreamItem,
)
from app.protocol.net.http import (
    HttpCall,
    body_event,
    content_type,
    describe_transport_error,
    head_of,
    open_response,
    parse_body,
    snippet,
)
from app.protocol.stream.stream_items import ItemInfo, ItemKind, classify_frame
from app.protocol.transports.judge import Judge
from app.protocol.wire.decoding import decoded_chunks
from app.protocol.wire.html_page import html_answer
from app.protocol.wire.jsonparse import parse_event_data
from app.protocol.wire.sse import SseDecoder, SseEvent

# Parsing more than this on the event loop would stall the GUI; hand it to a thread.
_THREADED_PARSE_CHARS = 512 * 1024

# Items per batch at most. A chunk of small events holds hundreds; each item's parsed JSON
# is a handful of objects the garbage collector tracks, and a batch too big to die young
# (before the collector's first generation fills) moves them all to the old generations,
# whose full collections stall the GUI for tens of milliseconds.
_BATCH_ITEMS = 50


def is_event_stream(content_type_value: str) -> bool:
    """True for ``text/event-stream`` (parameters such as ``charset`` ignored)."""
    return content_type_value.partition(";")[0].strip().lower() == "text/event-stream"


async def send_streaming(
    client: httpx.AsyncClient,
    call: HttpCall,
    clock: Clock,
    judge: Judge,
    *,
    timeout: float,
    max_bytes: int,
) -> AsyncGenerator[ExchangeEvent, None]:
    """:func:`send_streaming_batches` one event at a time."""
    batches = send_streaming_batches(
        client, call, clock, judge, timeout=timeout, max_bytes=max_bytes
    )
    async with aclosing(batches):
        async for batch in batches:
            for event in batch:
                yield event


async def send_streaming_batches(
    client: httpx.AsyncClient,
    call: HttpCall,
    clock: Clock,
    judge: Judge,
    *,
    timeout: float,
    max_bytes: int,
) -> AsyncGenerator[EventBatch, None]:
    """Send ``call`` and yield its events as they arrive (no final ExchangeEnd), in batches:
    the stream items of one chunk read off the socket come together.

    Args:
        client: the AsyncClient (its pool and limits).
        call: the fully built request; it should carry ``Accept: text/event-stream``.
        clock: the exchange's clock, for event times.
        judge: the binding's view of what an item or a plain body carries.
        timeout: seconds, only for error messages (the client's timeout applies per read).
        max_bytes: the largest single SSE frame (or plain body) accepted; a larger one ends
            the stream with an error.

    Yields:
        ``RequestSent``, ``ResponseHead``, then ``StreamItem`` s (SSE) or a ``ResponseBody``,
        with ``ExchangeError`` s after the item or body they judge.
    """
    response = None
    async for step in open_response(client, call, clock, timeout=timeout):
        if isinstance(step, httpx.Response):
            response = step
        else:
            yield [step]
    if response is None:
        return
    try:
        head = head_of(response, clock)
        if is_event_stream(content_type(response)):
            first: EventBatch = [dataclasses.replace(head, event_stream=True)]
            if not 200 <= head.status < 300:
                first.append(
                    ExchangeError(
                        clock.now(),
                        ErrorKind.RPC,
                        f"HTTP {head.status} {head.reason} on an event stream".strip(),
                        head.status,
                        head.reason,
                    )
                )
            yield first
            async for batch in _stream_batches(response, call, clock, judge, timeout, max_bytes):
                yield batch
        else:
            yield [head]
            async for event in _plain_body(response, call, clock, timeout, max_bytes):
                error = judge.plain(head, event, clock) if isinstance(event, ResponseBody) else None
                yield [event] if error is None else [event, error]
    finally:
        await response.aclose()


async def _stream_batches(
    response: httpx.Response,
    call: HttpCall,
    clock: Clock,
    judge: Judge,
    timeout: float,
    max_bytes: int,
) -> AsyncGenerator[EventBatch, None]:
    """One batch per chunk read: its frames as items, each followed by its judged error."""
    decoder = SseDecoder()
    seq = 0
    try:
        async for chunk in decoded_chunks(response):
            # A fast stream arrives in big chunks (hundreds of frames): their items are
            # made in one go, without a coroutine per frame; only a huge frame is parsed
            # off the loop.
            batch: EventBatch = []
            for frame in decoder.feed(chunk):
                seq += 1
                if frame.data is not None and len(frame.data) > _THREADED_PARSE_CHARS:
                    item = await _big_item(frame, seq, clock)
                else:
                    item = _item(frame, seq, clock)
                batch.append(item)
                error = _judge_item(item, judge, clock)
                if error is not None:
                    batch.append(error)
                if len(batch) >= _BATCH_ITEMS:
                    yield batch
                    batch = []
            if decoder.pending_bytes > max_bytes:
                batch.append(
                    ExchangeError(
                        clock.now(),
                        ErrorKind.PROTOCOL,
                        f"An SSE event is larger than the {max_bytes:,} byte limit; "
                        "stopped reading the stream",
                    )
                )
                yield batch
                return
            if batch:
                yield batch
    except httpx.HTTPError as exc:
        batch = []
        for frame in decoder.close():
            seq += 1
            batch.append(_incomplete_item(frame, seq, clock))
        message = describe_transport_error(exc, call.url, timeout)
        batch.append(ExchangeError(clock.now(), ErrorKind.TRANSPORT, f"Stream cut off: {message}"))
        yield batch
        return
    batch = []
    for frame in decoder.close():
        seq += 1
        batch.append(_incomplete_item(frame, seq, clock))
        batch.append(
            ExchangeError(
                clock.now(),
                ErrorKind.PROTOCOL,
                "The stream ended in the middle of an event (no blank line after the last frame)",
            )
        )
    if batch:
        yield batch


def _item(frame: SseEvent, seq: int, clock: Clock) -> StreamItem:
    """A StreamItem for one frame: parsed ``data`` or the reason it did not parse."""
    value: Any = NOT_JSON
    error = ""
    if frame.data is not None:
        value, error = parse_event_data(frame.data)
    info = classify_frame(value, error, frame.event, frame.raw)
    return StreamItem(
        clock.now(), seq, frame.raw, value, error, frame.event, info, frame.last_event_id
    )


def _incomplete_item(frame: SseEvent, seq: int, clock: Clock) -> StreamItem:
    """The event the stream ended in the middle of: per the standard it is not dispatched,
    so its data is not parsed; the raw bytes are shown as an ``incomplete`` item."""
    text = frame.raw.decode("utf-8", "replace")
    summary = " ".join(f"incomplete event, not dispatched: {text}".split())[:160]
    info = ItemInfo(ItemKind.INCOMPLETE, summary=summary)
    return StreamItem(clock.now(), seq, frame.raw, NOT_JSON, "", frame.event, info)


async def _big_item(frame: SseEvent, seq: int, clock: Clock) -> StreamItem:
    """:func:`_item`, parsing a frame of more than ``_THREADED_PARSE_CHARS`` in a thread."""
    if frame.data is None or len(frame.data) <= _THREADED_PARSE_CHARS:
        return _item(frame, seq, clock)
    value, error = await asyncio.to_thread(parse_event_data, frame.data)
    info = classify_frame(value, error, frame.event, frame.raw)
    return StreamItem(
        clock.now(), seq, frame.raw, value, error, frame.event, info, frame.last_event_id
    )


async def _plain_body(
    response: httpx.Response,
    call: HttpCall,
    clock: Clock,
    timeout: float,
    max_bytes: int,
) -> AsyncGenerator[ExchangeEvent, None]:
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in decoded_chunks(response):
            chunks.append(chunk)
            size += len(chunk)
            if size > max_bytes:
                break
    except httpx.HTTPError as exc:
        message = describe_transport_error(exc, call.url, timeout)
        yield ExchangeError(clock.now(), ErrorKind.TRANSPORT, f"Body cut off: {message}")
    body = b"".join(chunks)
    chunks.clear()  # the pieces would hold the body a second time while it is shown
    if size > max_bytes:
        yield ExchangeError(
            clock.now(),
            ErrorKind.PROTOCOL,
            f"Response body larger than the {max_bytes:,} byte limit; "
            f"showing the first {max_bytes:,} bytes",
        )
        yield ResponseBody(
            clock.now(), body[:max_bytes], content_type(response), NOT_JSON, "cut off"
        )
        return
    yield body_event(clock.now(), body, content_type(response), *await parse_body(body))


def _judge_item(item: StreamItem, judge: Judge, clock: Clock) -> ExchangeError | None:
    """The error one stream item carries, or None: data that is not JSON is a ``protocol``
    error (the item itself is still shown); what JSON data means, the binding judges."""
    if item.json is NOT_JSON:
        if not item.json_error:
            return None  # a comment or keep-alive frame
        return ExchangeError(
            clock.now(),
            ErrorKind.PROTOCOL,
            f"Event #{item.seq} is not valid JSON ({item.json_error}); the stream goes on",
        )
    return judge.item(item, clock)


def event_error(item: StreamItem, clock: Clock) -> ExchangeError:
    """The ``rpc`` error of an ``event: error`` frame that carries no error object."""
    return ExchangeError(
        clock.now(), ErrorKind.RPC, f"Error event #{item.seq}: {snippet(item.raw)}", data=item.json
    )


def not_a_stream(head: ResponseHead, body: ResponseBody, clock: Clock) -> ExchangeError:
    """The ``protocol`` error of a plain body that is no error where a stream was due."""
    expected = "an event stream (text/event-stream)"
    page = html_answer(head.status, head.reason, body.content_type, body.body, expected)
    return ExchangeError(
        clock.now(),
        ErrorKind.PROTOCOL,
        page
        or "Expected an event stream (text/event-stream) but got a plain "
        f"{body.content_type or 'untyped'} body",
    )
