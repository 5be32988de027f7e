"""JSON-RPC 2.0 over a Unix socket, a custom carrier (docs/PROTOCOL.md §12.2; iac-code's
``unix`` binding): one compact JSON text per line each way, a stream closed by a line with
``"final": true``.

Plain asyncio streams: a connection per exchange, so *Stop* closes it and a *Cancel task*
beside a stream goes over a connection of its own. A line has no place for headers: the
request's (credentials too) stay unsent (``BindingTraits.carries_headers``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager

import httpx

from app.protocol.clock import Clock
from app.protocol.events import EventBatch, ResponseHead
from app.protocol.request import A2ARequest, PreparedCall, prepare
from app.protocol.transports import carrier_exchange
from app.protocol.transports.carrier_exchange import Channel
from app.protocol.transports.line_channel import BUFFER, LineReader
from app.protocol.wire.carrier_frames import CarrierReply, unix_path


def http_call(request: A2ARequest) -> None:
    """None: no HTTP call (the snippet is ``socat``)."""
    return None


def exchange(
    request: A2ARequest | PreparedCall, client: httpx.AsyncClient, clock: Clock
) -> AsyncGenerator[EventBatch, None]:
    """Send one request over a connection of its own; ``client`` is unused.

    Raises:
        UsageError: the request cannot be built (nothing was sent).
    """
    prepared = prepare(request)
    path = unix_path(prepared.request.endpoint)
    opener = _opener(path, prepared.request.max_response_bytes)
    return carrier_exchange.exchange(
        prepared, opener, clock, verb="unix", url=prepared.request.endpoint.strip()
    )


class _Connection:
    """A :class:`~app.protocol.transports.carrier_exchange.Channel` over one connection."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, cap: int):
        self._lines = LineReader(reader, cap)
        self._writer = writer

    def head(self, *, event_stream: bool, t: float) -> ResponseHead:
        return carrier_exchange.plain_head(t, "unix socket", event_stream=event_stream)

    async def send(self, frame: bytes) -> None:
        self._writer.write(frame + b"\n")
        await self._writer.drain()

    async def receive(self) -> CarrierReply | None:
        return await self._lines.next_reply()


def _opener(path: str, cap: int) -> carrier_exchange.OpenChannel:
    @asynccontextmanager
    async def open_channel() -> AsyncIterator[Channel]:
        reader, writer = await asyncio.open_unix_connection(path, limit=BUFFER)
        try:
            yield _Connection(reader, writer, cap)
        finally:
            writer.close()
            with contextlib.suppress(OSError):  # the peer went first
                await writer.wait_closed()

    return open_channel
