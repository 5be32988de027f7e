"""JSON-RPC 2.0 over Redis Streams, a custom carrier (docs/PROTOCOL.md §12.4; iac-code's
``redis-streams`` binding), with the ``redis`` library's asyncio client.

The request is an entry ``XADD``-ed to the agent's request stream with the fields
``correlation_id``, ``reply_stream`` and ``payload``; the agent ``XADD``-s its replies to the
named reply stream, each with ``correlation_id``, ``payload`` and ``final``. Every exchange
names a reply stream of its own (``a2a-workbench:replies:<uuid>``, deleted when it ends), so
no two exchanges read each other's replies. A Redis entry has no headers: the request's stay
unsent. The Redis URL's password, if any, is a credential (masked like every URL's).
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import redis.asyncio as aioredis
from redis.exceptions import RedisError

from app.protocol.clock import Clock
from app.protocol.events import EventBatch, ResponseHead
from app.protocol.request import A2ARequest, PreparedCall, prepare
from app.protocol.transports import carrier_exchange
from app.protocol.transports.carrier_exchange import Channel
from app.protocol.wire.carrier_frames import (
    CarrierReply,
    RedisStreamsAddress,
    oversize_reply,
    redis_reply,
    redis_streams_address,
)

_BLOCK_MS = 1000  # one XREAD waits at most this long, so a cancel is never held up
_COUNT = 100  # entries one XREAD returns at most: a flooded reply stream is read in steps


def http_call(request: A2ARequest) -> None:
    """None: no HTTP call."""
    return None


def exchange(
    request: A2ARequest | PreparedCall, client: httpx.AsyncClient, clock: Clock
) -> AsyncGenerator[EventBatch, None]:
    """Send one request as a Redis Streams entry; ``client`` is unused.

    Raises:
        UsageError: the endpoint is not a ``redis-streams://`` URL, or the request cannot be
            built (nothing was sent).
    """
    prepared = prepare(request)
    address = redis_streams_address(prepared.request.endpoint)
    opener = _opener(address, prepared.request.timeout, prepared.request.max_response_bytes)
    return carrier_exchange.exchange(
        prepared, opener, clock, verb="XADD", url=prepared.request.endpoint.strip()
    )


class _Entries:
    """A :class:`~app.protocol.transports.carrier_exchange.Channel`: the request entry and
    the replies on this exchange's own reply stream."""

    def __init__(self, client: Any, address: RedisStreamsAddress, cap: int) -> None:
        self._client = client
        self._address = address
        self._cap = cap
        self.reply_stream = f"a2a-workbench:replies:{uuid.uuid4()}"
        self._correlation_id = str(uuid.uuid4())
        self._last_id: bytes | str = "0-0"
        self._ready: deque[CarrierReply] = deque()

    def head(self, *, event_stream: bool, t: float) -> ResponseHead:
        return carrier_exchange.plain_head(t, "Redis Streams", event_stream=event_stream)

    async def send(self, frame: bytes) -> None:
        fields = {
            "correlation_id": self._correlation_id,
            "reply_stream": self.reply_stream,
            "payload": frame,
        }
        await _redis(self._client.xadd(self._address.request_stream, fields))

    async def receive(self) -> CarrierReply | None:
        while not self._ready:
            rows = await _redis(
                self._client.xread(
                    {self.reply_stream: self._last_id}, count=_COUNT, block=_BLOCK_MS
                )
            )
            for _stream, entries in rows or ():
                for entry_id, fields in entries:
                    self._last_id = entry_id
                    named = {_text(k): v for k, v in fields.items()}
                    if _text(named.get("correlation_id", b"")) == self._correlation_id:
                        self._ready.append(self._reply(named))
        return self._ready.popleft()

    def _reply(self, named: dict[str, Any]) -> CarrierReply:
        payload = named.get("payload", b"")
        if len(payload) > self._cap:
            head = payload if isinstance(payload, bytes) else str(payload).encode()
            return oversize_reply(head, self._cap, "payload")
        return redis_reply(named)


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


async def _redis(awaitable: Any) -> Any:
    """A Redis call whose failures are connection failures (OSError), in Redis's words."""
    try:
        result = await awaitable
    except RedisError as exc:
        raise ConnectionError(f"Redis: {exc}") from None
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        # redis-py can lose a cancel (Stop, the deadline) that lands while it reads a reply,
        # and a stream that never ends would then be read for ever: honour it here.
        raise asyncio.CancelledError
    return result


def _opener(address: RedisStreamsAddress, timeout: float, cap: int) -> carrier_exchange.OpenChannel:
    @asynccontextmanager
    async def open_channel() -> AsyncIterator[Channel]:
        client = aioredis.Redis.from_url(
            address.redis_url, socket_connect_timeout=timeout, client_name="a2a-workbench"
        )
        entries = _Entries(client, address, cap)
        try:
            yield entries
        finally:
            with contextlib.suppress(RedisError):  # the server went away: its to keep
                await client.delete(entries.reply_stream)
            await client.aclose()

    return open_channel
