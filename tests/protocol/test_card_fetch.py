"""Public card discovery against a loopback HTTP server of our own."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from app.protocol.card.card_json import parse_card_json
from app.protocol.card.fetch import CardCache, fetch_card, resolve_card_url

CARD = {"name": "Loopback", "description": "d", "version": "1"}
CARD_BYTES = json.dumps(CARD).encode()
ETAG = 'W/"abc"'


@dataclass
class Seen:
    """What the server received."""

    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)


Route = Callable[[BaseHTTPRequestHandler], None]


def _send(h: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str]) -> None:
    h.send_response(status)
    for name, value in headers.items():
        h.send_header(name, value)
    h.send_header("Content-Length", str(len(body)))
    h.end_headers()
    h.wfile.write(body)


def _card(h: BaseHTTPRequestHandler) -> None:
    if h.headers.get("If-None-Match") == ETAG:
        h.send_response(304)
        h.send_header("ETag", ETAG)
        h.end_headers()
        return
    _send(
        h,
        200,
        CARD_BYTES,
        {
            "Content-Type": "application/json",
            "ETag": ETAG,
            "Last-Modified": "Mon, 30 Nov 2026 10:00:00 GMT",
            # A cookie the fetch must never send back.
            "Set-Cookie": "session=abc; Path=/",
        },
    )


def _redirect(h: BaseHTTPRequestHandler) -> None:
    _send(h, 302, b"", {"Location": "/elsewhere/agent-card.json"})


def _huge(h: BaseHTTPRequestHandler) -> None:
    _send(h, 200, b" " * (1_048_576 + 1), {"Content-Type": "application/json"})


def _huge_chunked(h: BaseHTTPRequestHandler) -> None:
    # No Content-Length: the limit must hold while streaming, not only on the header.
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Transfer-Encoding", "chunked")
    h.end_headers()
    chunk = b"x" * 65536
    try:
        for _ in range(20):  # 1.25 MiB
            h.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        h.wfile.write(b"0\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        pass


def _exact(h: BaseHTTPRequestHandler) -> None:
    body = b'{"name":"' + b"a" * (1_048_576 - 11) + b'"}'
    assert len(body) == 1_048_576
    _send(h, 200, body, {"Content-Type": "application/json"})


def _broken_json(h: BaseHTTPRequestHandler) -> None:
    _send(h, 200, b'{\n  "name": "x",\n  oops\n}', {"Content-Type": "application/json"})


def _duplicate_keys(h: BaseHTTPRequestHandler) -> None:
    _send(h, 200, b'{"name": "a", "name": "b"}', {"Content-Type": "application/json"})


def _slow(h: BaseHTTPRequestHandler) -> None:
    import time

    time.sleep(1)
    _send(h, 200, b"{}", {})


ROUTES: dict[str, Route] = {
    "/.well-known/agent-card.json": _card,
    "/sub/.well-known/agent-card.json": _card,
    "/redirect/.well-known/agent-card.json": _redirect,
    "/huge.json": _huge,
    "/huge-chunked.json": _huge_chunked,
    "/exact.json": _exact,
    "/broken.json": _broken_json,
    "/dup.json": _duplicate_keys,
    "/slow.json": _slow,
}


@pytest.fixture
def server() -> Iterator[tuple[str, Seen]]:
    seen = Seen()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            seen.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
            route = ROUTES.get(self.path)
            if route is None:
                _send(self, 404, b"not found", {"Content-Type": "text/plain"})
            else:
                route(self)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request: Any, client_address: Any) -> None:
            pass  # the client hanging up on purpose (size limit, timeout) is expected

    httpd = Server(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_resolve_card_url() -> None:
    assert resolve_card_url("http://h:1") == ("http://h:1/.well-known/agent-card.json", True)
    assert resolve_card_url("http://h/a/") == ("http://h/a/.well-known/agent-card.json", True)
    assert resolve_card_url("http://h/x/card.json") == ("http://h/x/card.json", False)
    assert resolve_card_url("https://h/.well-known/agent.json")[1] is False
    with pytest.raises(ValueError):
        resolve_card_url("file:///etc/passwd")


async def test_base_url_fetch_sends_no_credentials(server: tuple[str, Seen]) -> None:
    base, seen = server
    result = await fetch_card(base, a2a_version="1.0")
    assert result.ok and result.status == 200
    assert result.json == CARD
    assert result.raw == CARD_BYTES
    assert result.card_url == f"{base}/.well-known/agent-card.json"
    assert result.etag == ETAG
    assert result.last_modified == "Mon, 30 Nov 2026 10:00:00 GMT"
    path, headers = seen.requests[-1]
    assert path == "/.well-known/agent-card.json"
    assert headers["a2a-version"] == "1.0"
    for name in ("authorization", "cookie", "proxy-authorization"):
        assert name not in headers


async def test_no_version_header_unless_asked(server: tuple[str, Seen]) -> None:
    base, seen = server
    await fetch_card(base)
    assert "a2a-version" not in seen.requests[-1][1]


async def test_cookie_from_earlier_response_not_sent(server: tuple[str, Seen]) -> None:
    base, seen = server
    async with httpx.AsyncClient() as client:
        # The first answer sets a cookie on the client; the second fetch must not return it.
        first = await fetch_card(base)
        assert first.header("set-cookie")
        await fetch_card(f"{base}/sub/", client=client)
        await fetch_card(f"{base}/sub/")
    assert all("cookie" not in headers for _, headers in seen.requests)


async def test_client_with_auth_is_refused() -> None:
    async with httpx.AsyncClient(headers={"Authorization": "Bearer t"}) as client:
        with pytest.raises(ValueError):
            await fetch_card("http://127.0.0.1:9/", client=client)
    async with httpx.AsyncClient(auth=("u", "p")) as client:
        with pytest.raises(ValueError):
            await fetch_card("http://127.0.0.1:9/", client=client)


async def test_client_that_follows_redirects_is_refused() -> None:
    async with httpx.AsyncClient(follow_redirects=True) as client:
        with pytest.raises(ValueError):
            await fetch_card("http://127.0.0.1:9/", client=client)


async def test_the_fetch_is_an_exchange_on_a_caller_client() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=CARD, headers={"ETag": ETAG})

    async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as client:
        result = await fetch_card("http://agent.example/", a2a_version="0.3", client=client)
    assert result.ok and result.json == CARD and result.etag == ETAG
    assert [r.url.path for r in seen] == ["/.well-known/agent-card.json"]
    assert seen[0].headers["a2a-version"] == "0.3" and "cookie" not in seen[0].headers
    assert ("A2A-Version", "0.3") in result.request_headers


async def test_redirect_is_reported_not_followed(server: tuple[str, Seen]) -> None:
    base, seen = server
    result = await fetch_card(f"{base}/redirect/")
    assert result.status == 302
    assert result.redirect_location == f"{base}/elsewhere/agent-card.json"
    assert result.json is None
    assert [p for p, _ in seen.requests] == ["/redirect/.well-known/agent-card.json"]


async def test_one_byte_over_limit_is_refused(server: tuple[str, Seen]) -> None:
    base, _ = server
    result = await fetch_card(f"{base}/huge.json")
    assert result.too_large and result.error and "too large" in result.error
    assert result.json is None and result.parse_error is None
    assert not result.ok


async def test_limit_holds_without_content_length(server: tuple[str, Seen]) -> None:
    base, _ = server
    result = await fetch_card(f"{base}/huge-chunked.json")
    assert result.too_large and result.json is None
    assert len(result.raw) == 1_048_576


async def test_exactly_one_mebibyte_is_accepted(server: tuple[str, Seen]) -> None:
    base, _ = server
    result = await fetch_card(f"{base}/exact.json")
    assert result.ok and not result.too_large
    assert len(result.raw) == 1_048_576


async def test_conditional_refetch_304(server: tuple[str, Seen]) -> None:
    base, seen = server
    cache = CardCache()
    first = await fetch_card(base)
    cache.update(first)
    kwargs = cache.conditional_kwargs(first.card_url)
    assert kwargs["if_none_match"] == ETAG
    second = await fetch_card(base, **kwargs)
    assert second.status == 304 and second.not_modified
    assert second.json is None and second.raw == b""
    assert seen.requests[-1][1]["if-none-match"] == ETAG
    assert seen.requests[-1][1]["if-modified-since"] == "Mon, 30 Nov 2026 10:00:00 GMT"
    cache.update(second)
    entry = cache.get(first.card_url)
    assert entry is not None and entry.raw == CARD_BYTES and entry.etag == ETAG


async def test_404_offers_legacy_path(server: tuple[str, Seen]) -> None:
    base, _ = server
    result = await fetch_card(f"{base}/nothing-here")
    assert result.status == 404
    assert result.legacy_hint == f"{base}/nothing-here/.well-known/agent.json"
    other = await fetch_card(f"{base}/missing.json")
    assert other.status == 404 and other.legacy_hint is None


async def test_parse_error_has_position(server: tuple[str, Seen]) -> None:
    base, _ = server
    result = await fetch_card(f"{base}/broken.json")
    assert result.status == 200 and not result.ok
    assert result.parse_error is not None
    assert (result.parse_error.line, result.parse_error.column) == (3, 3)
    assert result.raw.startswith(b"{")


async def test_duplicate_keys_reported(server: tuple[str, Seen]) -> None:
    base, _ = server
    result = await fetch_card(f"{base}/dup.json")
    assert result.json == {"name": "b"}
    assert [(d.path, d.lines) for d in result.duplicate_keys] == [("name", (1, 1))]


async def test_connection_refused_is_a_result() -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = await fetch_card(f"http://127.0.0.1:{port}/")
    assert result.status is None
    assert result.error and "connection" in result.error.lower()


async def test_timeout_is_a_result(server: tuple[str, Seen]) -> None:
    base, _ = server
    result = await fetch_card(f"{base}/slow.json", timeout=0.3)
    assert result.status is None and result.error and "timed out" in result.error


async def test_bad_url_is_a_result() -> None:
    result = await fetch_card("ftp://example.org/")
    assert result.error and result.status is None


def test_parse_card_json_never_raises() -> None:
    assert parse_card_json(b"\xff")[1] is not None
    assert parse_card_json(b"[" * 100_000)[1] is not None
    assert parse_card_json(b"null") == (None, None, ())
