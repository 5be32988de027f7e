"""HTTP plumbing shared by the JSON-RPC and REST bindings (httpx).

Sends a prepared request, yields :class:`RequestSent` with the headers httpx really sends,
then :class:`ResponseHead` and a size-capped :class:`ResponseBody`. Network failures
become :class:`ExchangeError` events (kind ``transport``), never exceptions.
"""

from __future__ import annotations

import asyncio
import ssl
import weakref
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from http.cookiejar import CookieJar, DefaultCookiePolicy
from typing import Any

import httpx

from app import __version__, heap
from app.protocol.clock import Clock
from app.protocol.events import (
    KEEP_VALUE_BYTES,
    NOT_JSON,
    BigResponseBody,
    ErrorKind,
    ExchangeError,
    ExchangeEvent,
    Headers,
    RequestSent,
    ResponseBody,
    ResponseHead,
)
from app.protocol.methods.binding_errors import http_words
from app.protocol.net.network import NetworkOptions, TlsSettings
from app.protocol.net.network_errors import explain_http_failure, explain_proxy_failure
from app.protocol.net.not_http import not_http_words
from app.protocol.net.tls_context import ssl_context
from app.protocol.stream.stream_items import ItemInfo, classify_json
from app.protocol.wire.a2a_errors import UsageError
from app.protocol.wire.decoding import ACCEPT_ENCODING, decoded_chunks
from app.protocol.wire.html_page import html_answer, is_html, media_type, page_words
from app.protocol.wire.jsonparse import parse_json

USER_AGENT = f"a2a-workbench/{__version__}"
"""What every HTTP request of the app says it comes from (a request's own User-Agent header
wins); gRPC channels put it first in theirs (``grpc.primary_user_agent``)."""

# Parsing more than this on the event loop would stall the GUI's repaint; hand it to a thread.
_THREADED_PARSE_BYTES = 512 * 1024


@dataclass(frozen=True, slots=True)
class HttpCall:
    """A fully built HTTP request: verb, absolute URL, query, headers in order, body bytes."""

    verb: str
    url: str
    headers: Headers
    content: bytes
    rpc_method: str
    query: Headers = ()


def new_client(
    timeout: float, verify: ssl.SSLContext | bool = True, *, proxy: str | None = None
) -> httpx.AsyncClient:
    """An AsyncClient with explicit limits and timeouts (docs/ARCHITECTURE.md §7.3).

    Redirects are not followed: a debugger shows a 3xx for what it is. Nothing ambient
    rides along: no cookies are kept (a ``Set-Cookie`` would otherwise go back with every
    later request to that host, from any tab or check, though the user gave it for none of
    them), nothing is read from the environment (no ``.netrc``; the proxy is the caller's,
    from :class:`~app.protocol.net.network.ProxySettings`). Building the default TLS
    context reads the CA bundle (~0.1-0.3 s); a GUI passes one built off its thread.
    """
    client = httpx.AsyncClient(
        verify=verify,
        timeout=httpx.Timeout(timeout),
        limits=httpx.Limits(max_connections=20, max_keepalive_connections=10),
        follow_redirects=False,
        trust_env=False,
        proxy=proxy,
        cookies=_no_cookies(),
    )
    # Only the codings decoded in bounded steps (replaced in place: header order unchanged).
    client.headers["Accept-Encoding"] = ACCEPT_ENCODING
    client.headers["User-Agent"] = USER_AGENT  # not python-httpx/…
    return client


def _no_cookies() -> CookieJar:
    """A cookie jar that stores nothing (a policy allowing no domain). A jar, not
    ``httpx.Cookies``: the client would copy those into a jar of its own."""
    return CookieJar(DefaultCookiePolicy(allowed_domains=[]))


def client_for(
    url: str,
    network: NetworkOptions | None = None,
    *,
    timeout: float = 30.0,
    verify: ssl.SSLContext | None = None,
) -> httpx.AsyncClient:
    """An AsyncClient (:func:`new_client`) that reaches ``url`` as ``network`` says: its TLS
    context (CA bundle, client certificate, verification off) and its proxy (none, the
    environment's for this URL, or a custom one). The caller closes it.

    ``verify`` is a ready context to use when ``network.tls`` is the default (a GUI builds
    that one off its thread). Reads certificate files: run it off the event loop when that
    matters.

    Raises:
        UsageError: a certificate file is missing or unusable.
    """
    network = network or NetworkOptions()
    context = verify if verify is not None and network.tls.is_default else None
    proxy = network.proxy.proxy_for(url)
    try:
        client = new_client(timeout, context or ssl_context(network.tls), proxy=proxy)
    except (ValueError, httpx.InvalidURL) as exc:  # httpx refuses the proxy URL
        shown = network.proxy.shown_for(url)
        raise UsageError(f"The proxy {shown!r} is not usable: {exc}") from None
    _NETWORK_OF[client] = (network.tls, network.proxy.shown_for(url) or "")
    return client


# What a client was built with: a failure is explained knowing whether a client certificate
# was offered and which proxy was in the way (clients from new_client have neither).
_NETWORK_OF: weakref.WeakKeyDictionary[httpx.AsyncClient, tuple[TlsSettings, str]] = (
    weakref.WeakKeyDictionary()
)


async def describe_failure(
    client: httpx.AsyncClient, exc: Exception, url: str, timeout: float
) -> str:
    """:func:`describe_transport_error`, or what failed at the proxy or in a TLS handshake."""
    tls, proxy = _NETWORK_OF.get(client, (TlsSettings(), ""))
    refused = isinstance(exc, httpx.ConnectError) and _caused_by(exc, ConnectionRefusedError)
    words = explain_proxy_failure(str(exc), proxy, refused=refused)
    words = words or await explain_http_failure(exc, url, tls, probe=not proxy)
    if words is None and (binding := await http_words(exc, url, probe=not proxy)):
        words = f"Could not talk to {url}: {binding}"
    if words is None and (answer := await not_http_words(exc, url, probe=not proxy)):
        words = f"Could not talk to {url}: {answer}"
    return words or describe_transport_error(exc, url, timeout)


def describe_transport_error(exc: Exception, url: str, timeout: float) -> str:
    """One readable line for an httpx failure; never includes request headers (secrets)."""
    if isinstance(exc, httpx.ConnectTimeout):
        return f"Timed out after {timeout:g} s connecting to {url}"
    if isinstance(exc, httpx.TimeoutException):
        return f"Timed out after {timeout:g} s waiting for {url}"
    if isinstance(exc, httpx.ConnectError):
        if _caused_by(exc, ConnectionRefusedError):
            return f"Connection refused by {url} (is the agent running?)"
        return f"Could not connect to {url}: {str(exc) or 'connection failed'}"
    if isinstance(exc, httpx.RemoteProtocolError):
        return f"The server at {url} broke the HTTP protocol: {str(exc) or 'malformed HTTP'}"
    if isinstance(exc, httpx.DecodingError):
        return f"Could not decode the answer from {url}: {str(exc) or 'bad Content-Encoding'}"
    # httpx often carries no text (a reset connection): say in words what failed.
    reason = str(exc) or _PLAIN_REASONS.get(type(exc), "no details given")
    return f"{type(exc).__name__} talking to {url}: {reason}"


_PLAIN_REASONS: dict[type[Exception], str] = {
    httpx.ReadError: "the connection broke while reading the answer",
    httpx.WriteError: "the connection broke while sending the request",
    httpx.CloseError: "the connection failed while closing",
    httpx.ProxyError: "the proxy refused or failed the request",
    httpx.LocalProtocolError: "the request could not be sent as valid HTTP",
}


def _caused_by(exc: BaseException, kind: type[BaseException]) -> bool:
    seen: BaseException | None = exc
    for _ in range(10):
        if seen is None:
            return False
        if isinstance(seen, kind):
            return True
        if isinstance(seen, BaseExceptionGroup):
            return any(_caused_by(inner, kind) for inner in seen.exceptions)
        seen = seen.__cause__ or seen.__context__
    return False


def raw_headers(headers: httpx.Headers) -> Headers:
    """Header pairs with their names spelled as on the wire (httpx lower-cases its views)."""
    return tuple((name.decode("latin-1"), value.decode("latin-1")) for name, value in headers.raw)


async def parse_body(body: bytes) -> tuple[Any, str, ItemInfo | None]:
    """:func:`parse_json_bytes`, and for a big body also what it says, classified in the
    same worker thread (None for a small one: classifying it on the loop is cheap)."""
    # isspace, not strip: stripping a big body's final newline copies all of it.
    if len(body) > _THREADED_PARSE_BYTES and not body.isspace():
        with heap.building():
            return await asyncio.to_thread(_parse_and_classify, body)
    value, error = await parse_json_bytes(body)
    return value, error, None


async def join_chunks(chunks: list[bytes]) -> bytes:
    """``b"".join(chunks)``; a big body in a worker thread (joining 25 MiB into new pages
    took 15–35 ms, the GUI waiting when the loop is its thread; the join lets the GIL go)."""
    if sum(map(len, chunks)) > _THREADED_PARSE_BYTES:
        return await asyncio.to_thread(b"".join, chunks)
    return b"".join(chunks)


def _parse_and_classify(body: bytes) -> tuple[Any, str, ItemInfo | None]:
    # The pieces the body arrived in are freed but kept by the allocator: handed back
    # before the value takes as much again (~25 MiB of a 25 MiB body's peak).
    heap.trim()
    value, error = parse_json(body)
    return value, error, classify_json(value) if value is not NOT_JSON else None


def body_event(
    t: float, body: bytes, content_type: str, value: Any, error: str, info: ItemInfo | None
) -> ResponseBody:
    """The body event: a :class:`BigResponseBody` (its value can be let go) over
    :data:`KEEP_VALUE_BYTES`, else a plain :class:`ResponseBody`."""
    kind = BigResponseBody if len(body) > KEEP_VALUE_BYTES else ResponseBody
    return kind(t, body, content_type, value, error, info=info)


async def parse_json_bytes(body: bytes) -> tuple[Any, str]:
    """``(value, "")`` or ``(NOT_JSON, reason)``; big bodies are parsed off the event loop."""

    if not body or body.isspace():
        return NOT_JSON, "empty body"
    if len(body) > _THREADED_PARSE_BYTES:
        return await asyncio.to_thread(parse_json, body)
    return parse_json(body)


async def open_response(
    client: httpx.AsyncClient, call: HttpCall, clock: Clock, *, timeout: float
) -> AsyncGenerator[ExchangeEvent | httpx.Response, None]:
    """Build and send ``call``: yields RequestSent (as soon as it goes out), then either the
    streamed ``httpx.Response`` (still open: the caller reads and closes it) or an
    ExchangeError (bad URL: ``usage``; network failure: ``transport``)."""
    try:
        request = client.build_request(
            call.verb,
            call.url,
            params=list(call.query) or None,
            headers=list(call.headers),
            content=call.content or None,
        )
    except (httpx.InvalidURL, httpx.UnsupportedProtocol, ValueError) as exc:
        yield ExchangeError(clock.now(), ErrorKind.USAGE, f"Invalid URL {call.url!r}: {exc}")
        return
    yield RequestSent(
        clock.now(),
        call.verb,
        str(request.url),
        raw_headers(request.headers),
        call.content,
        call.rpc_method,
    )
    try:
        response = await client.send(request, stream=True)
    except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
        yield ExchangeError(clock.now(), ErrorKind.USAGE, f"Invalid URL {call.url!r}: {exc}")
        return
    except (httpx.HTTPError, ssl.SSLError) as exc:
        # A TLS alert read with the response (a refused client certificate) reaches here
        # as the ssl error itself, not wrapped by httpx.
        message = await describe_failure(client, exc, call.url, timeout)
        yield ExchangeError(clock.now(), ErrorKind.TRANSPORT, message)
        return
    yield response


async def send_unary(
    client: httpx.AsyncClient,
    call: HttpCall,
    clock: Clock,
    *,
    timeout: float,
    max_bytes: int,
) -> AsyncIterator[ExchangeEvent]:
    """Send ``call`` and yield RequestSent, ResponseHead, ResponseBody (or ExchangeError).

    The body is read in chunks and cut at ``max_bytes`` (then an error says so and the first
    ``max_bytes`` bytes are still yielded).
    """
    response = None
    async for step in open_response(client, call, clock, timeout=timeout):
        if isinstance(step, httpx.Response):
            response = step
        else:
            yield step
    if response is None:
        return
    try:
        yield head_of(response, clock)
        chunks: list[bytes] = []
        size = 0
        truncated = False
        try:
            async for chunk in decoded_chunks(response):
                chunks.append(chunk)
                size += len(chunk)
                if size > max_bytes:
                    truncated = True
                    break
        except httpx.HTTPError as exc:
            message = describe_transport_error(exc, call.url, timeout)
            yield ExchangeError(clock.now(), ErrorKind.TRANSPORT, f"Body cut off: {message}")
        body = await join_chunks(chunks)
        chunks.clear()  # the pieces would hold the body a second time while it is shown
        if truncated:
            body = body[:max_bytes]
            yield ExchangeError(
                clock.now(),
                ErrorKind.PROTOCOL,
                f"Response body larger than the {max_bytes:,} byte limit; "
                f"showing the first {max_bytes:,} bytes",
            )
            yield ResponseBody(clock.now(), body, content_type(response), NOT_JSON, "cut off")
            return
        # No local keeps the value: a big body's can then be let go while this generator
        # waits at the yield (BigResponseBody.release).
        yield body_event(clock.now(), body, content_type(response), *await parse_body(body))
    finally:
        await response.aclose()


def head_of(response: httpx.Response, clock: Clock) -> ResponseHead:
    """The status line and headers of ``response`` as an event."""
    return ResponseHead(
        clock.now(),
        response.status_code,
        response.reason_phrase,
        response.http_version,
        raw_headers(response.headers),
    )


def content_type(response: httpx.Response) -> str:
    """The response's Content-Type header value, or ``""``."""
    return str(response.headers.get("content-type", ""))


_SNIPPET_BYTES = 300


def snippet(raw: bytes) -> str:
    """The start of ``raw`` as one readable text, ``…`` when cut (for error messages)."""
    text = raw[:_SNIPPET_BYTES].decode("utf-8", "replace").strip()
    return text + ("…" if len(raw) > _SNIPPET_BYTES and text else "")


def http_error(head: ResponseHead, body: ResponseBody, clock: Clock) -> ExchangeError:
    """An error status without a decodable error object: status line plus the body's start
    (an HTML page: its media type and title, never its markup)."""
    message = f"HTTP {head.status} {head.reason}".strip()
    if is_html(body.content_type, body.body):
        message += f", {media_type(body.content_type) or 'no Content-Type'}: "
        message += page_words(body.body)
    elif text := snippet(body.body):
        message += f": {text}"
    return ExchangeError(clock.now(), ErrorKind.RPC, message, head.status, head.reason)


def not_json(head: ResponseHead, body: ResponseBody, expected: str) -> str:
    """Why a 2xx body that had to be JSON is not usable: an HTML page said as such, with the
    status and media type first (:func:`app.protocol.wire.html_page.html_answer`), else
    the parser's reason and the ``Content-Type``."""
    page = html_answer(head.status, head.reason, body.content_type, body.body, expected)
    return page or (
        f"The response is not JSON ({body.json_error}); "
        f"Content-Type {body.content_type or 'missing'}"
    )
