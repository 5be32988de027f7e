"""One HTTP exchange for every HTTP binding (JSON-RPC, HTTP+JSON), unary or streaming.

A binding builds the :class:`~app.protocol.net.http.HttpCall` and hands over a
:class:`~app.protocol.transports.judge.Judge` that says what an answer means in its terms;
sending, reading, SSE framing and size caps are the same for all of them. A new HTTP binding
writes its call builder and its judge.
Events come in batches (:data:`app.protocol.events.EventBatch`), as from every binding.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

import httpx

from app.protocol.clock import Clock
from app.protocol.events import EventBatch, ResponseBody, ResponseHead
from app.protocol.net.http import HttpCall, send_unary
from app.protocol.request import PreparedCall
from app.protocol.transports.judge import Judge
from app.protocol.transports.sse_http import send_streaming_batches


def exchange(
    prepared: PreparedCall, call: HttpCall, judge: Judge, client: httpx.AsyncClient, clock: Clock
) -> AsyncGenerator[EventBatch, None]:
    """Send ``call`` and yield its events (without the final ExchangeEnd) in batches, each
    answer followed by the error ``judge`` finds in it."""
    request = prepared.request
    if prepared.streaming:
        return send_streaming_batches(
            client,
            call,
            clock,
            judge,
            timeout=request.timeout,
            max_bytes=request.max_response_bytes,
        )
    return _unary(prepared, call, judge, client, clock)


async def _unary(
    prepared: PreparedCall, call: HttpCall, judge: Judge, client: httpx.AsyncClient, clock: Clock
) -> AsyncGenerator[EventBatch, None]:
    request = prepared.request
    head: ResponseHead | None = None
    async for event in send_unary(
        client, call, clock, timeout=request.timeout, max_bytes=request.max_response_bytes
    ):
        batch: EventBatch = [event]
        if isinstance(event, ResponseHead):
            head = event
        elif isinstance(event, ResponseBody) and head is not None:
            error = judge.body(head, event, clock)
            if error is not None:
                batch.append(error)
        yield batch
