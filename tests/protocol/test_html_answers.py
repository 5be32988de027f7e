"""An answer that is an HTML page (issue 29, kind 7) says so, status and media type first:
a card URL that reaches a web front end, and any A2A answer that is a page."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.protocol import exchange
from app.protocol.card.fetch import fetch_card
from app.protocol.card.read import examine, not_a_card, read_bytes, read_card
from app.protocol.events import ExchangeError, Outcome
from app.protocol.request import A2ARequest
from app.protocol.types import Binding, ProtocolVersion
from app.protocol.wire.html_page import html_answer, html_title, is_html
from tests.helpers.bad_server import Canned, bad_server
from tests.helpers.sse_server import sse_server
from tests.protocol.test_matrix import body_for

SPA = (
    b"<!doctype html>\n<html><head><meta charset=utf-8><title>My \x1b[2J App</title></head>"
    b'<body><div id="root"></div><script src="/main.js"></script></body></html>'
)
HTML = {"Content-Type": "text/html; charset=utf-8"}


@pytest.mark.parametrize(
    ("content_type", "body", "html"),
    [
        ("text/html", b"anything", True),
        ("application/xhtml+xml", b"<x/>", True),
        ("text/plain", b"\xef\xbb\xbf  <!DOCTYPE html><p>", True),  # by how it begins
        ("", b"\n<html lang=en>", True),
        ("application/json", b'{"a": "<html>"}', False),
        ("text/plain", b"<b>not a page</b>", False),
    ],
)
def test_a_page_is_told_by_its_media_type_or_its_start(
    content_type: str, body: bytes, html: bool
) -> None:
    assert is_html(content_type, body) is html


def test_the_sentence_names_status_media_type_and_title_escaped() -> None:
    text = html_answer(200, "OK", "text/html; charset=utf-8", SPA, "a JSON-RPC response")
    assert text == (
        "HTTP 200 OK, text/html: the server returned an HTML page (“My \\x1b[2J App”), "
        "not a JSON-RPC response"
    )
    assert html_title(b"<p>no title</p>") == ""


# --- the card -----------------------------------------------------------------------------


async def test_a_card_url_answering_a_page_is_not_a_card() -> None:
    with bad_server(Canned(headers=HTML, body=SPA)) as url:
        reading = read_card(await fetch_card(url))
    (problem,) = examine(reading).problems
    assert problem.message.startswith("returned HTML (status 200), not an Agent Card")
    assert "text/html" in problem.message and "My \\x1b[2J App" in problem.message
    assert "Expecting value" not in problem.message


def test_a_card_file_that_is_a_page_says_so() -> None:
    assert not_a_card(read_bytes(SPA, "index.html")).startswith("the file is an HTML page")
    assert not_a_card(read_bytes(b"{oops", "c.json")).startswith("not JSON (line 1, column 2)")


# --- A2A answers --------------------------------------------------------------------------


async def _errors(
    canned: Canned, binding: Binding = Binding.JSONRPC, method: str = "SendMessage"
) -> tuple[list[str], Outcome]:
    with bad_server(canned) as url:
        body = body_for(ProtocolVersion.V1_0, binding, method, text="hi")
        request = A2ARequest(url, method, body, binding=binding, timeout=5)
        events: list[Any] = [event async for event in exchange.run(request)]
    return [e.message for e in events if isinstance(e, ExchangeError)], events[-1].outcome


@pytest.mark.parametrize(
    ("binding", "method", "expected"),
    [
        (Binding.JSONRPC, "SendMessage", "a JSON-RPC response"),
        (Binding.HTTP_JSON, "SendMessage", "the JSON SendMessage answer"),
        (Binding.JSONRPC, "SendStreamingMessage", "a JSON-RPC response"),
        (Binding.HTTP_JSON, "SendStreamingMessage", "an event stream (text/event-stream)"),
    ],
)
async def test_an_answer_that_is_a_page_names_status_and_media_type_first(
    binding: Binding, method: str, expected: str
) -> None:
    errors, outcome = await _errors(Canned(headers=HTML, body=SPA), binding, method)
    assert outcome is Outcome.PROTOCOL_ERROR
    assert errors == [
        f"HTTP 200 OK, text/html: the server returned an HTML page (“My \\x1b[2J App”), "
        f"not {expected}"
    ]


async def test_an_error_status_with_a_page_quotes_no_markup() -> None:
    page = b"<html><head><title>502 Bad Gateway</title></head><body><h1>nginx</h1></body></html>"
    errors, outcome = await _errors(Canned(status=502, headers=HTML, body=page))
    assert outcome is Outcome.RPC_ERROR
    assert errors == ["HTTP 502 Bad Gateway, text/html: an HTML page (“502 Bad Gateway”)"]


async def test_a_stream_answered_by_a_page_with_status_200() -> None:
    envelope = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {}}
    with sse_server([SPA], content_type="text/html") as srv:
        request = A2ARequest(srv.url, "SendStreamingMessage", json.dumps(envelope), timeout=5)
        events = [event async for event in exchange.run(request)]
    errors = [e.message for e in events if isinstance(e, ExchangeError)]
    assert errors and errors[0].startswith("HTTP 200 OK, text/html: the server returned")


@pytest.mark.peer
async def test_a_real_servers_error_page(js_peer: dict[str, Any]) -> None:
    # Express answers a path it does not route with its own HTML page.
    body = body_for(ProtocolVersion.V1_0, Binding.JSONRPC, "SendMessage", text="hi")
    request = A2ARequest(f"{js_peer['base_url']}/no-such-agent", "SendMessage", body, timeout=10)
    events = [event async for event in exchange.run(request)]
    (error,) = [e for e in events if isinstance(e, ExchangeError)]
    assert error.message.startswith("HTTP 404 Not Found, text/html: an HTML page")
    assert "<" not in error.message
