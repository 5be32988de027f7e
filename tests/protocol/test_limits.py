"""Valid-but-extreme input is survivable: JSON limits with paths, bounded decompression."""

from __future__ import annotations

import gzip
import io
import json
import tracemalloc
import zlib
from typing import Any

import httpx
import pytest

from app.commands.printer import Printer, body_value
from app.protocol import exchange
from app.protocol.card.card_json import parse_card_json
from app.protocol.card.fetch import fetch_card
from app.protocol.card.jwks import JwksError, parse_jwks
from app.protocol.events import NOT_JSON, ExchangeError, Outcome, ResponseBody, StreamItem
from app.protocol.net.http import describe_transport_error, parse_body
from app.protocol.request import A2ARequest
from app.protocol.wire import decoding
from app.protocol.wire.jsonparse import MAX_DEPTH, MAX_INTEGER_DIGITS, parse_event_data, parse_json
from app.spec.document import SpecError, loads
from tests.helpers.bad_server import Canned, bad_server


def strict(line: str) -> Any:
    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} in output: {line[:80]}")

    return json.loads(line, parse_constant=refuse)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('{"result": {"x": NaN}}', "NaN is not a JSON value at $.result.x"),
        ('{"a": [1, Infinity]}', "Infinity is not a JSON value at $.a[1]"),
        ('{"a": {"b c": -Infinity}}', 'at $.a["b c"]'),
        ('{"result": [1e999]}', "beyond the range of a 64-bit float at $.result[0]"),
        ("-1e400", "beyond the range of a 64-bit float at $"),
        ('{"n": ' + "9" * 5000 + "}", f"more than {MAX_INTEGER_DIGITS}) at $.n"),
        ('{"n": -' + "1" * 1001 + "}", "integer of 1001 digits"),
        ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "nested too deeply"),
        ('{"r": ' + "[" * 5000 + "]" * 5000 + "}", "nested too deeply"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"a":' * 300 + "1" + "}" * 300, "at $.a.a.a"),
    ],
)
def test_extreme_json_is_refused_with_its_path(text: str, needle: str) -> None:
    for data in (text, text.encode()):
        value, reason = parse_json(data)
        assert value is NOT_JSON and needle in reason
    assert parse_event_data(text)[1] == parse_json(text)[1]


@pytest.mark.parametrize(
    "text",
    [
        "[" * MAX_DEPTH + "]" * MAX_DEPTH,
        '{"x": "' + "[" * 1000 + '", "y": [[1]]}',  # brackets inside strings are no depth
        '{"x": "' + "]" * 1000 + "[" * 1000 + '"}',
        "[1e308, -1e-999, 0.0, " + "7" * MAX_INTEGER_DIGITS + "]",
        '{"n": 123456789012345678901234567890}',
    ],
)
def test_extreme_but_inside_the_limits_parses(text: str) -> None:
    value, reason = parse_json(text)
    assert reason == "" and value == json.loads(text)


def test_every_reader_of_json_applies_the_limits() -> None:
    nan_card = b'{"name": "x", "capabilities": {"n": NaN}}'
    value, failure, _ = parse_card_json(nan_card)
    assert value is None and failure is not None and "$.capabilities.n" in failure.message
    with pytest.raises(JwksError, match=r"at \$\.keys\[0\]\.n"):
        parse_jwks('{"keys": [{"kty": "RSA", "n": ' + "1" * 2000 + "}]}")
    with pytest.raises(SpecError, match=r"at \$\[\"x-a2a\"\]\.v"):
        loads('{"openapi": "3.2.0", "x-a2a": {"v": 1e999}}')


def test_jsonl_output_is_strict_json_for_extreme_bodies() -> None:
    assert body_value(b'{"x": NaN}') == '{"x": NaN}'  # shown as text, never as NaN
    out = io.StringIO()
    printer = Printer("jsonl", out)
    for raw in (b'{"a": NaN}', b"[1e999]", b"[" * 3000 + b"]" * 3000):
        printer.emit(ResponseBody(0.0, raw, "application/json", *parse_json(raw)))
    for line in out.getvalue().splitlines():
        strict(line)


def test_pretty_output_survives_the_deepest_value_allowed() -> None:
    deep = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    out = io.StringIO()
    Printer("pretty", out).emit(
        ResponseBody(0.0, deep.encode(), "application/json", *parse_json(deep))
    )
    assert out.getvalue()


def bomb(size: int, layers: int = 2) -> bytes:
    data = b"\0" * size
    for _ in range(layers):
        data = gzip.compress(data, 9)
    return data


BOMB = bomb(256 * 1024 * 1024)  # 256 MiB decoded from well under 10 KiB


def test_the_bomb_is_small_and_decodes_in_bounded_steps() -> None:
    assert len(BOMB) < 10_000
    layers = decoding._layers(httpx.Response(200, headers={"Content-Encoding": "gzip, gzip"}))
    biggest = total = 0
    for piece in decoding._through(layers, BOMB):
        biggest, total = max(biggest, len(piece)), total + len(piece)
        if total > 8 * 1024 * 1024:
            break
    assert biggest <= decoding.STEP_BYTES


@pytest.mark.parametrize("coding", ["deflate", "zlib-deflate"])
def test_deflate_in_both_spellings_decodes(coding: str) -> None:
    data = zlib.compress(b"hello " * 1000)
    if coding == "deflate":
        data = data[2:-4]  # raw deflate, as some servers send under "deflate"
    layer = decoding._Layer("deflate")
    assert b"".join(layer.feed(data)) == b"hello " * 1000


def test_a_corrupt_gzip_body_is_a_decoding_error_in_words() -> None:
    layer = decoding._Layer("gzip")
    with pytest.raises(httpx.DecodingError) as caught:
        list(layer.feed(b"\x1f\x8b\x08\x00garbage-garbage"))
    message = describe_transport_error(caught.value, "http://x/", 1.0)
    assert "Could not decode the answer" in message and "corrupt" in message


def test_empty_transport_reasons_are_said_in_words() -> None:
    for exc in (httpx.ReadError(""), httpx.WriteError(""), httpx.RemoteProtocolError("")):
        message = describe_transport_error(exc, "http://x/", 1.0)
        assert not message.rstrip().endswith(":"), message


def bomb_canned(content_type: str, body: bytes = BOMB) -> Canned:
    return Canned(
        headers={"Content-Type": content_type, "Content-Encoding": "gzip, gzip"}, body=body
    )


async def bounded(coro: Any) -> tuple[Any, int]:
    tracemalloc.start()
    try:
        result = await coro
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


async def collect(request: A2ARequest) -> list[Any]:
    return [event async for event in exchange.run(request)]


BODY = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {}})


async def test_a_gzip_bomb_as_a_unary_body_is_cut_at_the_cap() -> None:
    with bad_server(bomb_canned("application/json")) as url:
        request = A2ARequest(url, "SendMessage", BODY, max_response_bytes=1_000_000)
        events, peak = await bounded(collect(request))
    assert peak < 32 * 1024 * 1024
    assert any("byte limit" in e.message for e in events if isinstance(e, ExchangeError))
    assert events[-1].outcome is Outcome.PROTOCOL_ERROR


async def test_a_gzip_bomb_as_an_event_stream_stops_at_the_frame_cap() -> None:
    # One endless frame (no blank line ever) of 64 MiB, double-gzipped.
    body = gzip.compress(gzip.compress(b"data: " + b"a" * (64 * 1024 * 1024)), 9)
    with bad_server(bomb_canned("text/event-stream", body)) as url:
        request = A2ARequest(url, "SendStreamingMessage", BODY, max_response_bytes=1_000_000)
        events, peak = await bounded(collect(request))
    assert peak < 32 * 1024 * 1024
    assert any("larger than the" in e.message for e in events if isinstance(e, ExchangeError))
    assert not any(isinstance(e, StreamItem) and len(e.raw) > 2_000_000 for e in events)


async def test_a_gzip_bomb_as_a_card_is_too_large_not_gigabytes() -> None:
    with bad_server(bomb_canned("application/json")) as url:
        result, peak = await bounded(fetch_card(url, max_bytes=1_048_576))
    assert peak < 32 * 1024 * 1024
    assert result.too_large and result.json is None and len(result.raw) <= 1_048_576


@pytest.mark.parametrize("pad", [0, 2 * 1024 * 1024 - 9])
def test_limits_hold_for_small_and_pieced_texts(pad: int) -> None:
    # A stream item is checked in one call, a big body piece by piece (a 19-digit run or a
    # bracket run may straddle two pieces): both must refuse the same things.
    filler = '"' + "x" * pad + '"'
    deep = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    long_int = "9" * (MAX_INTEGER_DIGITS + 1)
    for inner, needle in ((deep, "nested too deeply"), (long_int, "digits")):
        value, reason = parse_json(f"[{filler}, {inner}]")
        assert value is NOT_JSON and needle in reason
    value, reason = parse_json(f"[{filler}, {'1' * 25}]")
    assert reason == "" and value[1] == int("1" * 25)


@pytest.mark.parametrize("padding", [b"\n", b" \r\n"])
async def test_a_big_body_is_not_copied_to_check_that_it_is_not_blank(padding: bytes) -> None:
    # A body ending in a newline (most do): stripping it to test for blankness copied all
    # of it on the event loop (~5-20 ms for 25 MiB, and a second body at the peak).
    body = b"[" + b" " * (24 << 20) + b"]" + padding
    (value, error, _info), peak = await bounded(parse_body(body))
    assert (value, error) == ([], "")
    # What remains is orjson's working memory for a step (~12 MiB for a MiB of spaces).
    assert peak < len(body) * 3 // 4, f"{peak >> 20} MiB allocated for {len(body) >> 20} MiB"
    assert await parse_body(b" \n" * (1 << 20)) == (NOT_JSON, "empty body", None)
