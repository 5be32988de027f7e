"""An answer that is not HTTP at all, said in words.

A URL that points at another service (an SSH or database port, a raw TCP echo, a TLS
tunnel's far end) answers an HTTP request with bytes that are no status line, or with a
banner and a hang-up. httpx then reports "illegal status line", "Server disconnected
without sending a response" or a bare read error, which reads like a flaky network. What
the user needs is "the server's answer is not HTTP", and how it begins.

h11 quotes an illegal status line itself; for a hang-up or a reset a second connection
sends a minimal request and reads the first bytes (:func:`answer_start`), as
:mod:`app.protocol.methods.binding_errors` does to recognise an HTTP/2-only port.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import re
import ssl
from urllib.parse import urlsplit

import httpx

from app.protocol.visible_text import escape_controls

__all__ = ["NOT_HTTP", "answer_start", "not_http_at", "not_http_words"]

NOT_HTTP = "the server's answer is not HTTP"

_PROBE_TIMEOUT_S = 2.0
_READ_BYTES = 64
_SHOWN_CHARS = 40
_ILLEGAL = ("ILLEGAL STATUS LINE", "ILLEGAL REQUEST LINE", "ILLEGAL HEADER LINE")
_QUOTED = re.compile(r"bytearray\((b'.*'|b\".*\")\)")
# Every HTTP/1.x answer begins so (RFC 9112 §4); HTTP/2 answers an HTTP/1.1 request with
# a SETTINGS frame, which the HTTP/2 probe of binding_errors recognises first.
_STATUS_LINE = b"HTTP/"


def _hello(host: str) -> bytes:
    return f"HEAD / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode("ascii")


def _unverified() -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(["http/1.1"])
    return context


async def answer_start(host: str, port: int, *, secure: bool) -> bytes | None:
    """The first bytes ``host:port`` answers a minimal HTTP/1.1 request with (over TLS,
    not verified, when ``secure``): ``b""`` when it closes without a byte, None when it
    cannot be reached or says nothing in time."""
    try:
        async with asyncio.timeout(_PROBE_TIMEOUT_S):
            reader, writer = await asyncio.open_connection(
                host, port, ssl=_unverified() if secure else None
            )
            try:
                writer.write(_hello(host))
                await writer.drain()
                return await reader.read(_READ_BYTES)
            finally:
                writer.close()
                with contextlib.suppress(OSError, ssl.SSLError):
                    await writer.wait_closed()
    except (OSError, ssl.SSLError, TimeoutError):
        return None


def _shown(data: bytes) -> str:
    text = data.decode("utf-8", "replace").strip()
    cut = text[:_SHOWN_CHARS] + ("…" if len(text) > _SHOWN_CHARS else "")
    return escape_controls(cut)


def _quoted_start(message: str) -> bytes | None:
    """The bytes h11 quotes in an "illegal status line: bytearray(b'…')" message."""
    found = _QUOTED.search(message)
    if found is None:
        return None
    with contextlib.suppress(ValueError, SyntaxError):
        value = ast.literal_eval(found.group(1))  # a bytes literal, nothing else evaluates
        if isinstance(value, bytes):
            return value
    return None


async def not_http_words(exc: BaseException, url: str, *, probe: bool) -> str | None:
    """``the server's answer is not HTTP (it begins "SSH-2.0-OpenSSH_9.6")`` for an httpx
    failure where the peer answered something other than HTTP, else None.

    ``probe``: a second connection may be opened to read how the server answers (callers
    behind a proxy pass False: the probe would connect directly).
    """
    if not isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError):
        return None
    message = str(exc)
    start: bytes | None = None
    if any(mark in message.upper() for mark in _ILLEGAL):
        start = _quoted_start(message) or b""
        if not start.startswith(_STATUS_LINE):
            return _words(start)
    if not probe:
        return None
    parts = urlsplit(url)
    if parts.hostname is None:
        return None
    secure = parts.scheme.lower() == "https"
    return await not_http_at(parts.hostname, parts.port or (443 if secure else 80), secure=secure)


async def not_http_at(host: str, port: int, *, secure: bool) -> str | None:
    """:data:`NOT_HTTP` with how the answer begins when ``host:port`` answers an HTTP/1.1
    request with something else; None when it answers HTTP, nothing, or cannot be reached
    (nothing to tell by)."""
    start = await answer_start(host, port, secure=secure)
    if not start or start.startswith(_STATUS_LINE):
        return None
    return _words(start)


def _words(start: bytes) -> str:
    shown = _shown(start)
    return f'{NOT_HTTP} (it begins "{shown}")' if shown else NOT_HTTP
