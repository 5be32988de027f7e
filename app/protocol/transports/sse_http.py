"""Streaming over HTTP: Server-Sent Events for the JSON-RPC and HTTP+JSON bindings.

:func:`send_streaming` sends one prepared call and yields :class:`RequestSent`,
:class:`ResponseHead`, then — after checking the response ``Content-Type`` (PROTOCOL.md §2.4,
§9) — either one :class:`StreamItem` per SSE frame, or a :class:`ResponseBody` when the peer
answered with a plain body (a JSON-RPC error with HTTP 200, a REST 4xx error) instead of a
stream. Errors are :class:`ExchangeError` events next to the items, never exceptions, and the
stream goes on after a bad item.

Frames are decoded by our own :class:`app.protocol.sse.SseDecoder` over
``response.aiter_bytes()``, not by httpx-sse: httpx-sse decodes text and drops comments and
the frame bytes, and a debugger must show every frame exactly as received.

Cancellation (STYLE.md §5): the response is always closed in ``finally``; a cancelled
consumer closes this generator (``aclosing`` in :mod:`app.protocol.exchange`), which closes
the response once and returns the connection to the pool.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

import httpx

from app.protocol.clock import Clock
from app.protocol.errors import describe_details, jsonrpc_error_name
from app.protocol.events import (
    NOT_JSON,
    ErrorKind,
    ExchangeError,
    ExchangeEvent,
    ResponseBody,
    ResponseHead,
    StreamItem,
)
from app.protocol.http import (
    HttpCall,
    content_type,
    describe_transport_error,
    head_of,
    http_error,
    open_response,
    parse_json_bytes,
    snippet,
)
from app.protocol.jsonparse import parse_json
from app.protocol.jsonrpc import RpcError, RpcMalformed, classify_response
from app.protocol.sse import SseDecoder, SseEvent

# Parsing more than this on the event loop would stall the GUI; hand it to a thread.
_THREADED_PARSE_CHARS = 512 * 1024


def is_event_stream(content_type_value: str) -> bool:
    """True for ``text/event-stream`` (parameters such as ``charset`` ignored)."""
    return content_type_value.partition(";")[0].strip().lower() == "text/event-stream"


async def send_streaming(
    client: httpx.AsyncClient,
    call: HttpCall,
    clock: Clock,
    *,
    timeout: float,
    max_bytes: int,
    request_id: Any | None,
    jsonrpc: bool | None = None,
) -> AsyncGenerator[ExchangeEvent, None]:
    """Send ``call`` and yield its events as they arrive (no final ExchangeEnd).

    Args:
        client: the AsyncClient (its pool and limits).
        call: the fully built request; it should carry ``Accept: text/event-stream``.
        clock: the exchange's clock, for event times.
        timeout: seconds, only for error messages (the client's timeout applies per read).
        max_bytes: the largest single SSE frame (or plain body) accepted; a larger one ends
            the stream with an error.
        request_id: the JSON-RPC id sent, or None for HTTP+JSON.
        jsonrpc: whether items are JSON-RPC envelopes; defaults to ``request_id is not None``
            (pass True for a JSON-RPC request that carried no id).

    Yields:
        ``RequestSent``, ``ResponseHead``, then ``StreamItem`` s (SSE) or a ``ResponseBody``,
        with ``ExchangeError`` s after the item or body they judge.
    """
    is_jsonrpc = request_id is not None if jsonrpc is None else jsonrpc
    response = None
    async for step in open_response(client, call, clock, timeout=timeout):
        if isinstance(step, httpx.Response):
            response = step
        else:
            yield step
    if response is None:
        return
    try:
        head = head_of(response, clock)
        yield head
        if is_event_stream(content_type(response)):
            if not 200 <= head.status < 300:
                yield ExchangeError(
                    clock.now(),
                    ErrorKind.RPC,
                    f"HTTP {head.status} {head.reason} on an event stream".strip(),
                    head.status,
                    head.reason,
                )
            async for event in _stream_items(response, call, clock, timeout, max_bytes):
                yield event
                if isinstance(event, StreamItem):
                    error = judge_item(event, request_id, clock, jsonrpc=is_jsonrpc)
                    if error is not None:
                        yield error
        else:
            async for event in _plain_body(response, call, head, clock, timeout, max_bytes):
                yield event
                if isinstance(event, ResponseBody):
                    error = _judge_plain(head, event, request_id, clock, jsonrpc=is_jsonrpc)
                    if error is not None:
                        yield error
    finally:
        await response.aclose()


async def _stream_items(
    response: httpx.Response, call: HttpCall, clock: Clock, timeout: float, max_bytes: int
) -> AsyncGenerator[ExchangeEvent, None]:
    decoder = SseDecoder()
    seq = 0
    try:
        async for chunk in response.aiter_bytes():
            # A fast stream arrives in big chunks (hundreds of frames): items are made
            # without a coroutine per frame; only a huge frame is parsed off the loop.
            for frame in decoder.feed(chunk):
                seq += 1
                if frame.data is not None and len(frame.data) > _THREADED_PARSE_CHARS:
                    yield await _big_item(frame, seq, clock)
                else:
                    yield _item(frame, seq, clock)
            if decoder.pending_bytes > max_bytes:
                yield ExchangeError(
                    clock.now(),
                    ErrorKind.PROTOCOL,
                    f"An SSE event is larger than the {max_bytes:,} byte limit; "
                    "stopped reading the stream",
                )
                return
    except httpx.HTTPError as exc:
        for frame in decoder.close():
            seq += 1
            yield await _big_item(frame, seq, clock)
        message = describe_transport_error(exc, call.url, timeout)
        yield ExchangeError(clock.now(), ErrorKind.TRANSPORT, f"Stream cut off: {message}")
        return
    for frame in decoder.close():
        seq += 1
        yield await _big_item(frame, seq, clock)
        yield ExchangeError(
            clock.now(),
            ErrorKind.PROTOCOL,
            "The stream ended in the middle of an event (no blank line after the last frame)",
        )


def _item(frame: SseEvent, seq: int, clock: Clock) -> StreamItem:
    """A StreamItem for one frame: parsed ``data`` or the reason it did not parse."""
    value: Any = NOT_JSON
    error = ""
    if frame.data is not None:
        value, error = parse_text(frame.data)
    return StreamItem(clock.now(), seq, frame.raw, value, error, frame.event, frame.id or "")


async def _big_item(frame: SseEvent, seq: int, clock: Clock) -> StreamItem:
    """:func:`_item`, parsing a frame of more than ``_THREADED_PARSE_CHARS`` in a thread."""
    if frame.data is None or len(frame.data) <= _THREADED_PARSE_CHARS:
        return _item(frame, seq, clock)
    value, error = await asyncio.to_thread(parse_text, frame.data)
    return StreamItem(
        clock.now(), seq, frame.raw, value, error, sse_event=frame.event, sse_id=frame.id or ""
    )


def parse_text(data: str) -> tuple[Any, str]:
    """``(value, "")`` or ``(NOT_JSON, reason)`` for the ``data`` of one frame.

    orjson parses in a quarter of the time of :func:`json.loads`; the standard library
    still decides whenever orjson would not give the very same value (it reads integers of
    more than 64 bits as floats, and refuses NaN, lone surrogates and overflowing floats),
    so values and error messages are exactly :func:`json.loads`'.
    """
    if not data.strip():
        return NOT_JSON, "empty data"
    return parse_json(data)


async def _plain_body(
    response: httpx.Response,
    call: HttpCall,
    head: ResponseHead,
    clock: Clock,
    timeout: float,
    max_bytes: int,
) -> AsyncGenerator[ExchangeEvent, None]:
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in response.aiter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size > max_bytes:
                break
    except httpx.HTTPError as exc:
        message = describe_transport_error(exc, call.url, timeout)
        yield ExchangeError(clock.now(), ErrorKind.TRANSPORT, f"Body cut off: {message}")
    body = b"".join(chunks)
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
    value, error = await parse_json_bytes(body)
    yield ResponseBody(clock.now(), body, content_type(response), value, error)


def judge_item(
    item: StreamItem, request_id: Any | None, clock: Clock, *, jsonrpc: bool
) -> ExchangeError | None:
    """The error one stream item carries, or None.

    - data that is not JSON → ``protocol`` (the item itself is still shown);
    - JSON-RPC: an ``error`` member → ``rpc`` with its code; not a JSON-RPC response, or
      another request's id → ``protocol``;
    - HTTP+JSON: an ``{"error": …}`` object → ``rpc``;
    - ``event: error`` → ``rpc`` (with the code it carries, if any).
    """
    if item.json is NOT_JSON:
        if not item.json_error:
            return None  # a comment or keep-alive frame
        return ExchangeError(
            clock.now(),
            ErrorKind.PROTOCOL,
            f"Event #{item.seq} is not valid JSON ({item.json_error}); the stream goes on",
        )
    if jsonrpc:
        value = item.json
        if (
            type(value) is dict
            and value.get("jsonrpc") == "2.0"
            and "result" in value
            and "error" not in value
            and (request_id is None or value.get("id") in (request_id, None))
            and item.sse_event != "error"
        ):
            return None  # a well-formed result for our request: the usual case, quickly
        outcome = classify_response(value, request_id)
        if isinstance(outcome, RpcError):
            return outcome.as_error(clock.now())
        if item.sse_event == "error":
            return _event_error(item, clock)
        if isinstance(outcome, RpcMalformed):
            return ExchangeError(
                clock.now(),
                ErrorKind.PROTOCOL,
                f"Event #{item.seq} is not a valid JSON-RPC response: {outcome.reason}",
            )
        return None
    rest = rest_error(item.json, clock)
    if rest is not None:
        return rest
    if item.sse_event == "error":
        return _event_error(item, clock)
    return None


def _event_error(item: StreamItem, clock: Clock) -> ExchangeError:
    return ExchangeError(
        clock.now(), ErrorKind.RPC, f"Error event #{item.seq}: {snippet(item.raw)}", data=item.json
    )


def rest_error(value: Any, clock: Clock, status: int | None = None) -> ExchangeError | None:
    """The error in a REST ``{"error": {code, status, message, details}}`` body (§3.2)."""
    if not isinstance(value, dict) or not isinstance(value.get("error"), dict):
        return None
    error = value["error"]
    code = error.get("code")
    if isinstance(code, bool) or not isinstance(code, int):
        code = status
    name = str(error.get("status") or "") or jsonrpc_error_name(code)
    details = error.get("details")
    return ExchangeError(
        clock.now(),
        ErrorKind.RPC,
        str(error.get("message") or "(no message)"),
        code,
        name,
        details,
        describe_details(details) if details is not None else (),
    )


def _judge_plain(
    head: ResponseHead, body: ResponseBody, request_id: Any | None, clock: Clock, *, jsonrpc: bool
) -> ExchangeError | None:
    if jsonrpc:
        from app.protocol.transports.jsonrpc import judge_body  # jsonrpc imports this module

        error = judge_body(head, body, request_id, clock)
        if error is not None:
            return error
        return ExchangeError(
            clock.now(),
            ErrorKind.PROTOCOL,
            "Expected an event stream (text/event-stream) but got a plain "
            f"{body.content_type or 'untyped'} body",
        )
    ok_status = 200 <= head.status < 300
    error = rest_error(body.json, clock, head.status) if body.json is not NOT_JSON else None
    if error is not None:
        return error
    if not ok_status:
        return http_error(head, body, clock)
    return ExchangeError(
        clock.now(),
        ErrorKind.PROTOCOL,
        "Expected an event stream (text/event-stream) but got a plain "
        f"{body.content_type or 'untyped'} body",
    )
