"""JSON-RPC 2.0 over a stdio agent's stdin and stdout, a custom carrier (docs/PROTOCOL.md
§12.3; iac-code's ``stdio`` binding): the line framing of the Unix socket, to a process the
app starts from the command line the user gives (``A2ARequest.command``) and keeps for the
exchanges that follow (:mod:`app.protocol.transports.agent_processes`).

The card's ``stdio://name`` URL only names the agent. *Stop* drops the rest of a stream's
lines (the agent keeps answering, in order: a request sent meanwhile waits behind it); the
process stays until the user stops it or the app ends.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx

from app.protocol.clock import Clock
from app.protocol.events import EventBatch, ResponseHead
from app.protocol.request import A2ARequest, PreparedCall, prepare
from app.protocol.transports import carrier_exchange
from app.protocol.transports.agent_processes import agent_for, argv_of
from app.protocol.transports.carrier_exchange import Channel
from app.protocol.wire.carrier_frames import CarrierReply


def http_call(request: A2ARequest) -> None:
    """None: no HTTP call (the snippet pipes the line into the command)."""
    return None


def exchange(
    request: A2ARequest | PreparedCall, client: httpx.AsyncClient, clock: Clock
) -> AsyncGenerator[EventBatch, None]:
    """Send one request to the agent of ``request.command`` (started when not running);
    ``client`` is unused.

    Raises:
        UsageError: no command line, or the request cannot be built (nothing was sent).
    """
    prepared = prepare(request)
    command = prepared.request.command
    argv_of(command)  # refused before anything starts
    _, request_id = carrier_exchange.frame_of(prepared)
    opener = _opener(
        command, request_id, streaming=prepared.streaming, cap=prepared.request.max_response_bytes
    )
    url = prepared.request.endpoint.strip() or "stdio://"
    return carrier_exchange.exchange(prepared, opener, clock, verb="stdio", url=url)


class _Turn:
    """A :class:`~app.protocol.transports.carrier_exchange.Channel`: one request's turn at
    the agent."""

    def __init__(self, command: str, request_id: Any, streaming: bool, cap: int) -> None:
        self._command = command
        self._request_id = request_id
        self._streaming = streaming
        self._cap = cap
        self._agent: Any = None
        self._waiting: Any = None

    def head(self, *, event_stream: bool, t: float) -> ResponseHead:
        pid = self._agent.pid if self._agent is not None else 0
        return carrier_exchange.plain_head(t, f"stdio pid {pid}", event_stream=event_stream)

    async def send(self, frame: bytes) -> None:
        self._agent = await agent_for(self._command)
        self._waiting = await self._agent.request(
            frame, self._request_id, streaming=self._streaming, cap=self._cap
        )

    async def receive(self) -> CarrierReply | None:
        reply: CarrierReply | None = await self._waiting.replies.get()
        return reply

    def close(self) -> None:
        if self._agent is not None and self._waiting is not None:
            self._agent.abandon(self._waiting)


def _opener(
    command: str, request_id: Any, *, streaming: bool, cap: int
) -> carrier_exchange.OpenChannel:
    @asynccontextmanager
    async def open_channel() -> AsyncIterator[Channel]:
        turn = _Turn(command, request_id, streaming, cap)
        try:
            yield turn
        finally:
            turn.close()

    return open_channel
