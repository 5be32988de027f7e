"""An endpoint that speaks another binding, said in words, for the GUI and the CLI alike.

Three mistakes are common when switching binding and keeping the URL (docs/PEERS.md):

- gRPC sent to an HTTP/1.1 port (a JSON-RPC or REST server): gRPC core reports "Trying to
  connect an http1.x server"; we say "this port answers HTTP/1.1; gRPC needs HTTP/2".
- JSON-RPC or HTTP+JSON sent to a gRPC port: the HTTP/2-only server answers an HTTP/1.1
  request with frames httpx cannot parse; a second connection that opens with the HTTP/2
  preface (:func:`speaks_http2`) confirms it.
- a JSON-RPC POST answered by a redirect (307/308; a REST base such as ``/rest`` redirects
  to ``/rest/``): a JSON-RPC client posts to the interface URL the card names and does not
  follow redirects (following one would silently send the request somewhere else).

:func:`card_hint` adds what the Agent Card lists for the binding, where a card is known.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from urllib.parse import urlsplit

import httpx

from app.protocol.bindings import Payload, binding_named, traits
from app.protocol.clock import Clock
from app.protocol.events import ErrorKind, ExchangeError, ResponseHead
from app.protocol.types import Binding

HTTP1_FOR_GRPC = "this port answers HTTP/1.1; gRPC needs HTTP/2"
HTTP2_FOR_HTTP1 = (
    "this port answers HTTP/2 only (a gRPC server?); JSON-RPC and HTTP+JSON speak HTTP/1.1"
)
_GRPC_HTTP1_MARKS = ("TRYING TO CONNECT AN HTTP1", "EXPECTED SETTINGS FRAME")
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_PROBE_TIMEOUT_S = 2.0
# The HTTP/2 connection preface and an empty SETTINGS frame (RFC 9113 §3.4, §6.5).
_H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
_SETTINGS = 4

MISMATCH_MARKS = (HTTP1_FOR_GRPC, "this port answers HTTP/2 only", "does not follow redirects")
"""Phrases that mark an error as "this endpoint speaks another binding"."""


def grpc_words(details: str) -> str | None:
    """Words for a gRPC ``UNAVAILABLE`` details line that met an HTTP/1.1 server, or None."""
    upper = details.upper()
    return HTTP1_FOR_GRPC if any(mark in upper for mark in _GRPC_HTTP1_MARKS) else None


async def http_words(exc: BaseException, url: str, *, probe: bool) -> str | None:
    """Words for an httpx failure at a port that speaks HTTP/2 only (a gRPC server), or
    None. Only plain ``http://`` is probed: over TLS the server would pick the protocol by
    ALPN and answer HTTP/1.1 clients properly."""
    if not probe or not isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError):
        return None
    parts = urlsplit(url)
    if parts.scheme.lower() != "http" or parts.hostname is None:
        return None
    if not await speaks_http2(parts.hostname, parts.port or 80):
        return None
    return HTTP2_FOR_HTTP1


async def speaks_http2(host: str, port: int) -> bool:
    """Whether ``host:port`` answers the HTTP/2 preface with a SETTINGS frame (h2c)."""
    try:
        async with asyncio.timeout(_PROBE_TIMEOUT_S):
            reader, writer = await asyncio.open_connection(host, port)
            try:
                writer.write(_H2_PREFACE)
                await writer.drain()
                head = await reader.readexactly(9)
            finally:
                writer.close()
                with contextlib.suppress(OSError):
                    await writer.wait_closed()
    except (OSError, TimeoutError, asyncio.IncompleteReadError):
        return False
    return head[3] == _SETTINGS


def redirect_error(head: ResponseHead, binding: Binding, clock: Clock) -> ExchangeError | None:
    """The error for a redirect answering a POST that must not be redirected, or None."""
    if head.status not in _REDIRECTS:
        return None
    location = next((v for k, v in head.headers if k.lower() == "location"), "")
    where = f"a redirect to {location}" if location else "a redirect without a Location"
    found = traits(binding)
    name = found.label
    # A REST route is appended to the interface's base URL; a JSON-RPC URL is the endpoint.
    if found.payload is Payload.REST:
        advice = f"use the card's {name} base URL"
    elif found.payload is Payload.JSONRPC:
        advice = f"post to the card's {name} URL itself"
    else:
        advice = "send to the interface URL itself"
    # The status is the error's code and name: said once, by whoever shows the error.
    message = (
        f"The server answered with {where}; the {name} binding does not follow redirects: {advice}"
    )
    return ExchangeError(clock.now(), ErrorKind.RPC, message, head.status, head.reason)


def says_other_binding(message: str) -> bool:
    """Whether an error message says the endpoint speaks another binding."""
    return any(mark in message for mark in MISMATCH_MARKS)


def card_hint(binding: Binding, interfaces: Iterable[tuple[str, str]], endpoint: str) -> str:
    """ "the card lists gRPC at 127.0.0.1:50051" for the card's ``(binding, url)`` pairs
    naming ``binding`` at another URL than ``endpoint``, or "" when it lists none."""
    urls = [
        url for b, url in interfaces if binding_named(b) is binding and not same_url(url, endpoint)
    ]
    if not urls:
        return ""
    return f"the card lists {traits(binding).label} at {urls[0]}"


def same_url(a: str, b: str) -> bool:
    """Whether two interface URLs are the same but for a trailing slash and case."""
    return a.strip().rstrip("/").lower() == b.strip().rstrip("/").lower()
