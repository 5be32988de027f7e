"""One HTTP exchange for every HTTP binding (JSON-RPC, HTTP+JSON), unary or streaming.

A binding builds the :class:`~app.protocol.http.HttpCall` and hands over a :class:`Judge`
that says what an answer means in its terms; sending, reading, SSE framing and size caps
are the same for all of them. A new HTTP binding writes its call builder and its judge.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Protocol

import httpx

from app.protocol.clock import Clock
from app.protocol.events import ExchangeError, ExchangeEvent, ResponseBody, ResponseHead, StreamItem
from app.protocol.http import HttpCall, send_unary
from app.protocol.request import PreparedCall
from app.protocol.transports.sse_http import send_streaming


class Judge(Protocol):
    """What an answer carries, in one binding's terms: an error event, or None."""

    def body(self, head: ResponseHead, body: ResponseBody, clock: Clock) -> ExchangeError | None:
        """A unary answer: an error object, a malformed envelope, a result of the wrong shape."""

    def plain(self, head: ResponseHead, body: ResponseBody, clock: Clock) -> ExchangeError | None:
        """A plain body answering a streaming call (an error, or a stream that is missing)."""

    def item(self, item: StreamItem, clock: Clock) -> ExchangeError | None:
        """One stream item whose data is JSON."""


async def exchange(
    prepared: PreparedCall, call: HttpCall, judge: Judge, client: httpx.AsyncClient, clock: Clock
) -> AsyncGenerator[ExchangeEvent, None]:
    """Send ``call`` and yield its events (without the final ExchangeEnd), each answer
    followed by the error ``judge`` finds in it."""
    request = prepared.request
    if prepared.streaming:
        async for event in send_streaming(
            client,
            call,
            clock,
            judge,
            timeout=request.timeout,
            max_bytes=request.max_response_bytes,
        ):
            yield event
        return
    head: ResponseHead | None = None
    async for event in send_unary(
        client, call, clock, timeout=request.timeout, max_bytes=request.max_response_bytes
    ):
        yield event
        if isinstance(event, ResponseHead):
            head = event
        elif isinstance(event, ResponseBody) and head is not None:
            error = judge.body(head, event, clock)
            if error is not None:
                yield error
