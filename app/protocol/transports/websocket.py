"""JSON-RPC 2.0 over a WebSocket, a custom carrier (docs/PROTOCOL.md §12.1; iac-code's
``websocket`` binding): one request per text frame, each reply wrapped
``{"id":…,"payload":…,"final":bool}``.

The ``websockets`` library makes the connection (handshake, frames, close, size limit); a
connection is opened per exchange, so *Stop* closes it and a *Cancel task* beside a stream
goes over a connection of its own. The handshake carries the request's headers (credentials
included), ``A2A-Version`` on 1.0 sends and the app's ``User-Agent``; its answer stands as the
exchange's ``ResponseHead`` (``101 Switching Protocols``).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import urlencode, urlsplit

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus, InvalidURI, WebSocketException
from websockets.frames import CloseCode

from app.protocol.clock import Clock
from app.protocol.events import EventBatch, Headers, ResponseHead
from app.protocol.net.http import USER_AGENT
from app.protocol.net.tls_context import ssl_context
from app.protocol.request import A2ARequest, PreparedCall, prepare
from app.protocol.transports import carrier_exchange
from app.protocol.transports.carrier_exchange import Channel
from app.protocol.transports.jsonrpc_http import default_headers, merge_headers
from app.protocol.wire.a2a_errors import UsageError
from app.protocol.wire.carrier_frames import CarrierReply, oversize_reply, websocket_reply


def http_call(request: A2ARequest) -> None:
    """None: a WebSocket exchange is no HTTP call a ``curl`` could replay (``websocat``)."""
    return None


def url_of(request: A2ARequest) -> str:
    """The URL connected to: the endpoint with the request's query parameters appended.

    Raises:
        UsageError: not a ``ws://`` or ``wss://`` URL.
    """
    url = request.endpoint.strip()
    if urlsplit(url).scheme.lower() not in ("ws", "wss"):
        raise UsageError(f"A WebSocket endpoint is a ws:// or wss:// URL, got {url!r}")
    if request.query:
        url += ("&" if "?" in url else "?") + urlencode(request.query)
    return url


def handshake_headers(request: A2ARequest) -> Headers:
    """The handshake's headers: the JSON-RPC defaults that mean something on a handshake
    (``A2A-Version``), then the user's (which override them)."""
    kept = tuple(
        (n, v)
        for n, v in default_headers(request, streaming=False)
        if n.lower() not in ("content-type", "accept")
    )
    return merge_headers(kept, request.headers)


def exchange(
    request: A2ARequest | PreparedCall, client: httpx.AsyncClient, clock: Clock
) -> AsyncGenerator[EventBatch, None]:
    """Send one request over a WebSocket of its own; ``client`` is unused.

    Raises:
        UsageError: the request cannot be built (nothing was sent).
    """
    prepared = prepare(request)
    url = url_of(prepared.request)
    headers = handshake_headers(prepared.request)
    opener = _opener(prepared.request, url, headers)
    return carrier_exchange.exchange(
        prepared, opener, clock, verb="WebSocket", url=url, headers=headers
    )


class _Connection:
    """A :class:`~app.protocol.transports.carrier_exchange.Channel` over one WebSocket."""

    def __init__(self, ws: ClientConnection, cap: int) -> None:
        self._ws = ws
        self._cap = cap

    def head(self, *, event_stream: bool, t: float) -> ResponseHead:
        response = self._ws.response
        headers: Headers = tuple(response.headers.raw_items()) if response is not None else ()
        status = response.status_code if response is not None else 101
        reason = response.reason_phrase if response is not None else "Switching Protocols"
        return ResponseHead(t, status, reason, "HTTP/1.1", headers, event_stream)

    async def send(self, frame: bytes) -> None:
        await self._ws.send(frame.decode("utf-8", "replace"))

    async def receive(self) -> CarrierReply | None:
        try:
            message = await self._ws.recv()
        except ConnectionClosed as exc:
            if exc.sent is not None and exc.sent.code == CloseCode.MESSAGE_TOO_BIG:
                # The library closed the connection on a frame over max_size: say so.
                return oversize_reply(b"", self._cap, "frame")
            return None
        return websocket_reply(message)


def _opener(request: A2ARequest, url: str, headers: Headers) -> carrier_exchange.OpenChannel:
    @asynccontextmanager
    async def open_channel() -> AsyncIterator[Channel]:
        secure = url.lower().startswith("wss:")
        proxy = request.network.proxy.proxy_for("http" + url[2:])
        try:
            ws = await connect(
                url,
                additional_headers=list(headers),
                user_agent_header=USER_AGENT,
                proxy=proxy,
                ssl=ssl_context(request.network.tls) if secure else None,
                open_timeout=request.timeout,
                max_size=request.max_response_bytes,
                compression=None,
            )
        except InvalidURI as exc:
            raise UsageError(f"{url!r} is not a usable WebSocket URL: {exc}") from None
        except InvalidStatus as exc:
            status = exc.response.status_code
            raise ConnectionRefusedError(
                f"{url} refused the WebSocket handshake: HTTP {status} {exc.response.reason_phrase}"
            ) from None
        except WebSocketException as exc:
            raise ConnectionError(f"WebSocket handshake with {url} failed: {exc}") from None
        try:
            yield _Connection(ws, request.max_response_bytes)
        finally:
            await ws.close()

    return open_channel
