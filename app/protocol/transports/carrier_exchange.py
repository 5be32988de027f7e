"""One exchange over a custom JSON-RPC carrier (WebSocket, Unix socket, stdio, Redis Streams).

Every carrier sends the same JSON-RPC 2.0 request as one frame and reads replies
(:class:`~app.protocol.wire.carrier_frames.CarrierReply`) until the carrier marks one final;
what differs is only how it connects, sends and receives — a :class:`Channel`. This module
turns the replies into the exchange's events, as ``http_exchange.py`` does for the HTTP
bindings: ``RequestSent`` (the exact frame), a ``ResponseHead`` when the first reply comes
(a WebSocket's handshake answer; the others have none, so it says which carrier answered),
then a ``ResponseBody`` (a unary answer, or an error answering a stream) or one
``StreamItem`` per result, each judged as JSON-RPC (:class:`JsonRpcJudge`). A reply that only
closes a stream is framing, not an item.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from typing import Any, Protocol

from app.protocol.clock import Clock
from app.protocol.events import (
    ErrorKind,
    EventBatch,
    ExchangeError,
    Headers,
    RequestSent,
    ResponseBody,
    ResponseHead,
    StreamItem,
)
from app.protocol.request import PreparedCall, parse_body
from app.protocol.stream.stream_items import classify_frame
from app.protocol.transports.jsonrpc_http import JsonRpcJudge
from app.protocol.wire.carrier_frames import CarrierReply, request_frame

JSON_CONTENT_TYPE = "application/json"


class Channel(Protocol):
    """One carrier connection, open for one exchange."""

    def head(self, *, event_stream: bool, t: float) -> ResponseHead:
        """What stands for a status line: a WebSocket's handshake answer, or the carrier's
        name where there is none."""
        ...

    async def send(self, frame: bytes) -> None:
        """Send the request frame."""
        ...

    async def receive(self) -> CarrierReply | None:
        """The next reply to this exchange's request; None when the peer closed."""
        ...


OpenChannel = Callable[[], AbstractAsyncContextManager[Channel]]


def frame_of(prepared: PreparedCall) -> tuple[bytes, Any]:
    """The frame a carrier sends for ``prepared`` and the JSON-RPC id it carries.

    Raises:
        UsageError: the body is not JSON (unless the request is ``malformed``).
    """
    request = prepared.request
    if not request.malformed:
        parse_body(request.body)  # the usual words for a typo, before anything is sent
    return request_frame(request.body)


def plain_head(t: float, carrier: str, *, event_stream: bool) -> ResponseHead:
    """The head of a carrier without a status line of its own."""
    return ResponseHead(t, 0, "OK", carrier, (), event_stream)


async def exchange(
    prepared: PreparedCall,
    open_channel: OpenChannel,
    clock: Clock,
    *,
    verb: str,
    url: str,
    headers: Headers = (),
) -> AsyncGenerator[EventBatch, None]:
    """Send ``prepared`` over the channel ``open_channel`` makes; yield its events (without
    the final ExchangeEnd) in batches.

    Args:
        prepared: the request.
        open_channel: connects (its failures are ``OSError`` s, reported as transport
            errors).
        clock: the exchange's clock.
        verb: what ``RequestSent.method`` says (``WebSocket``, ``stdio``, ``XADD``).
        url: what ``RequestSent.url`` says.
        headers: what was sent besides the frame (a WebSocket handshake's headers).

    Raises:
        UsageError: the request cannot be built (nothing was sent).
    """
    frame, request_id = frame_of(prepared)
    judge = JsonRpcJudge(prepared.spec, request_id)
    yield [RequestSent(clock.now(), verb, url, headers, frame, prepared.request.method)]
    async with AsyncExitStack() as stack:
        try:
            channel = await stack.enter_async_context(open_channel())
            await channel.send(frame)
        except OSError as exc:
            words = str(exc) or type(exc).__name__
            yield [
                ExchangeError(clock.now(), ErrorKind.TRANSPORT, f"Could not reach {url}: {words}")
            ]
            return
        first, seq = True, 0
        while True:
            reply = await channel.receive()
            if reply is None:
                if first:
                    message = f"{url} closed the connection without answering"
                    yield [ExchangeError(clock.now(), ErrorKind.TRANSPORT, message)]
                return
            stream = prepared.streaming and (reply.has_result or (not first and not reply.closing))
            batch: EventBatch = []
            if first:
                batch.append(channel.head(event_stream=stream, t=clock.now()))
                first = False
            if reply.closing:
                yield batch
                return
            if stream:
                seq += 1
                info = classify_frame(reply.json, reply.json_error, "", reply.raw)
                item = StreamItem(
                    clock.now(), seq, reply.raw, reply.json, reply.json_error, "", info
                )
                batch.append(item)
                error = judge.item(item, clock)
            else:
                head = batch[0] if batch and isinstance(batch[0], ResponseHead) else None
                body = ResponseBody(
                    clock.now(), reply.raw, JSON_CONTENT_TYPE, reply.json, reply.json_error
                )
                batch.append(body)
                error = _judge_body(judge, head, body, clock, prepared.streaming)
            if error is not None:
                batch.append(error)
            yield batch
            if reply.final or not stream:
                return


def _judge_body(
    judge: JsonRpcJudge,
    head: ResponseHead | None,
    body: ResponseBody,
    clock: Clock,
    streaming: bool,
) -> ExchangeError | None:
    # The judge reads an HTTP status; a carrier's answer is there or not, like a 200.
    ok = ResponseHead(body.t, 200, "OK", head.http_version if head else "", ())
    return judge.plain(ok, body, clock) if streaming else judge.body(ok, body, clock)


__all__ = ["Channel", "OpenChannel", "exchange", "frame_of", "plain_head"]
