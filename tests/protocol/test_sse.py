"""SSE rules (HTML standard event-stream parsing): the pure decoder, then end to end over a
loopback server of our own that writes exact bytes and chunk boundaries."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.protocol import exchange
from app.protocol.clock import Clock
from app.protocol.events import (
    NOT_JSON,
    ErrorKind,
    ExchangeEnd,
    ExchangeError,
    Outcome,
    ResponseBody,
    ResponseHead,
    StreamItem,
)
from app.protocol.net.http import HttpCall, new_client
from app.protocol.request import A2ARequest
from app.protocol.stream.stream_items import ItemKind, classify_item
from app.protocol.transports.jsonrpc_http import JsonRpcJudge
from app.protocol.transports.rest import RestJudge
from app.protocol.transports.sse_http import send_streaming
from app.protocol.types import ProtocolVersion
from app.protocol.wire.jsonparse import parse_event_data as parse_text
from app.protocol.wire.sse import SseDecoder, SseEvent
from tests.helpers.sse_server import HANG, sse_server


def decode(*chunks: bytes, close: bool = True) -> list[SseEvent]:
    decoder = SseDecoder()
    events: list[SseEvent] = []
    for chunk in chunks:
        events += decoder.feed(chunk)
    if close:
        events += decoder.close()
    return events


def every_split(data: bytes) -> list[list[bytes]]:
    """The stream cut into two chunks at every position, and one byte at a time."""
    splits = [[data[:i], data[i:]] for i in range(len(data) + 1)]
    splits.append([data[i : i + 1] for i in range(len(data))])
    return splits


# --- the decoder, one rule per test -----------------------------------------------------


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"], ids=["LF", "CRLF", "CR"])
def test_line_endings_lf_crlf_and_bare_cr(eol: bytes) -> None:
    stream = b"data: one" + eol + eol + b"data: two" + eol + eol
    for chunks in every_split(stream):
        events = decode(*chunks)
        assert [e.data for e in events] == ["one", "two"], chunks
        # A frame is dispatched on its CR; an LF arriving in the next chunk belongs to the
        # next frame's raw bytes (and is dropped at the very end of the stream).
        joined = b"".join(e.raw for e in events)
        assert joined in (stream, stream[:-1]) and stream.startswith(joined)


def test_a_cr_ending_a_frame_then_a_chunk_starting_with_crlf_blank_lines() -> None:
    # The first chunk's CR ends a line (an LF may follow); the next chunk's first blank
    # line is inside that state: the rest is read line by line, as if fed whole.
    stream = b"\r\r\n\r\ndata: a\r\nevent: x\r:c\r\rdata: b\n\n"
    whole = decode(stream)
    assert [(e.event, e.data) for e in whole] == [("x", "a"), ("", "b")]
    for chunks in every_split(stream):
        assert [(e.event, e.data) for e in decode(*chunks)] == [("x", "a"), ("", "b")], chunks


def test_crlf_split_between_chunks_is_one_line_end() -> None:
    events = decode(b"data: a\r", b"\n\r", b"\ndata: b\r\n\r\n")
    assert [e.data for e in events] == ["a", "b"]
    # Dispatched as soon as the blank line's CR arrives (no waiting for a possible LF).
    assert events[0].raw == b"data: a\r\n\r"
    assert events[1].raw == b"\ndata: b\r\n\r\n"


def test_cr_then_cr_is_a_blank_line() -> None:
    assert [e.data for e in decode(b"data: a\r", b"\r")] == ["a"]


def test_multi_line_data_is_joined_with_lf() -> None:
    (event,) = decode(b'data: {"a":\ndata: 1}\n\n')
    assert event.data == '{"a":\n1}'
    assert json.loads(event.data) == {"a": 1}


def test_event_id_and_retry_fields() -> None:
    first, second = decode(b"event: error\nid: 7\nretry: 1500\ndata: x\n\ndata: y\n\n")
    assert (first.event, first.id, first.retry) == ("error", "7", 1500)
    assert (second.event, second.id, second.last_event_id) == ("", None, "7")


def test_retry_must_be_digits_and_id_must_not_contain_nul() -> None:
    (event,) = decode(b"retry: 10s\nid: a\x00b\ndata: x\n\n")
    assert event.retry is None and event.id is None and event.last_event_id == ""


def test_one_space_after_the_colon_is_removed_and_no_colon_means_empty_value() -> None:
    (event,) = decode(b"data:no-space\ndata:  two\ndata\n\n")
    assert event.data == "no-space\n two\n"


def test_comments_and_keep_alives_are_their_own_items() -> None:
    events = decode(b": ping - 2026-01-01\r\n\r\ndata: 1\r\n\r\n:\n\n")
    assert [e.is_comment for e in events] == [True, False, True]
    assert events[0].comments == ("ping - 2026-01-01",)
    assert events[0].data is None


def test_a_comment_inside_an_event_stays_with_it() -> None:
    (event,) = decode(b"data: 1\n: note\ndata: 2\n\n")
    assert event.data == "1\n2" and event.comments == ("note",)


def test_unknown_fields_are_ignored_but_kept_in_raw() -> None:
    (event,) = decode(b"foo: bar\ndata: x\n\n")
    assert event.data == "x" and b"foo: bar" in event.raw


def test_a_frame_without_data_is_surfaced() -> None:
    (event,) = decode(b"event: ping\n\n")
    assert event.data is None and event.event == "ping"


def test_last_event_without_its_blank_line_comes_from_close() -> None:
    decoder = SseDecoder()
    assert decoder.feed(b"data: 1\n\ndata: 2") == [SseEvent(b"data: 1\n\n", "1")]
    (last,) = decoder.close()
    assert last.data == "2" and last.complete is False and last.raw == b"data: 2"
    assert decode(b"data: 3\n", close=True)[0].complete is False


def test_bom_is_skipped_even_when_split() -> None:
    events = decode(b"\xef\xbb", b"\xbfdata: x\n\n")
    assert [e.data for e in events] == ["x"]


def test_utf8_split_inside_a_character() -> None:
    data = "data: héllo ✓\n\n".encode()
    for chunks in every_split(data):
        assert decode(*chunks)[0].data == "héllo ✓"


def test_a_data_field_without_a_colon_adds_an_empty_line() -> None:
    (event,) = decode(b"data: a\ndata\n\n")
    assert event.data == "a\n"
    assert [e.data for e in decode(b"data\n\ndata\ndata: b\n\n")] == ["", "\nb"]


def test_a_bytearray_or_memoryview_chunk_makes_bytes_frames() -> None:
    decoder = SseDecoder()
    (first,) = decoder.feed(bytearray(b"data: a\n\n"))
    (second,) = decoder.feed(memoryview(b"data: b\n\n"))
    assert (first.raw, second.raw) == (b"data: a\n\n", b"data: b\n\n")
    assert type(first.raw) is bytes and type(second.raw) is bytes


def test_a_stream_of_half_a_bom_closes_as_one_incomplete_frame() -> None:
    decoder = SseDecoder()
    assert decoder.feed(b"\xef\xbb") == []  # could still be a BOM: held
    (event,) = decoder.close()
    assert event.raw == b"\xef\xbb" and event.data is None and event.complete is False


def test_extra_blank_lines_dispatch_nothing() -> None:
    events = decode(b"\n\n\ndata: x\n\n\n\n")
    assert [e.data for e in events] == ["x"]


# --- end to end over a loopback server ------------------------------------------------


def rest_call(url: str) -> HttpCall:
    return HttpCall("POST", url, (("Accept", "text/event-stream"),), b"{}", "SendStreamingMessage")


async def collect(url: str, *, request_id: Any = None, max_bytes: int = 1 << 20) -> list[Any]:
    async with new_client(5.0) as client:
        return [
            e
            async for e in send_streaming(
                client,
                rest_call(url),
                Clock(),
                JsonRpcJudge(None, request_id) if request_id is not None else RestJudge(None),
                timeout=5.0,
                max_bytes=max_bytes,
            )
        ]


def items(events: list[Any]) -> list[StreamItem]:
    return [e for e in events if isinstance(e, StreamItem)]


def errors(events: list[Any]) -> list[ExchangeError]:
    return [e for e in events if isinstance(e, ExchangeError)]


STATUS = {
    "statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}
}


async def test_e2e_frames_split_at_awkward_boundaries_keep_their_raw_bytes() -> None:
    frame = json.dumps(STATUS).encode()
    script = [
        b"data: " + frame[:10],
        frame[10:] + b"\r",  # CR at the end of a chunk, LF in the next
        b"\n\r\n: ping\r\n",
        b"\r\n",
        b"event: error\r\ndata: "
        + json.dumps({"error": {"code": 500, "message": "boom"}}).encode(),
        b"\r\n\r\ndata: {not json}\r\n\r\n",
        b"data: " + frame + b"\r\r",  # bare CR line endings
        b"data: " + frame + b"\n",  # the last event lacks its blank line
    ]
    with sse_server(script) as server:
        events = await collect(server.url)
    got = items(events)
    assert [i.seq for i in got] == [1, 2, 3, 4, 5, 6]
    assert got[0].raw == b"data: " + frame + b"\r\n\r\n"
    assert got[0].json == STATUS
    assert classify_item(got[1]).kind is ItemKind.COMMENT and got[1].raw == b": ping\r\n\r\n"
    assert got[2].sse_event == "error"
    assert got[3].json is NOT_JSON and "line 1" in got[3].json_error
    assert got[4].json == STATUS and got[4].raw.endswith(b"\r\r")
    # The last event lacks its blank line: not dispatched (WHATWG), shown raw as such.
    assert got[5].json is NOT_JSON and got[5].raw == b"data: " + frame + b"\n"
    assert got[5].info is not None and got[5].info.kind is ItemKind.INCOMPLETE
    # Each item is classified once, by the transport; consumers read that classification.
    assert all(i.info is not None and classify_item(i) is i.info for i in got)
    assert got[2].info is not None and got[2].info.kind is ItemKind.ERROR
    errs = errors(events)
    assert [e.kind for e in errs] == [ErrorKind.RPC, ErrorKind.PROTOCOL, ErrorKind.PROTOCOL]
    assert errs[0].message == "boom" and errs[0].code == 500
    assert "not valid JSON" in errs[1].message
    assert "middle of an event" in errs[2].message


async def test_e2e_a_json_rpc_error_inside_the_stream_is_an_rpc_error() -> None:
    error = {"jsonrpc": "2.0", "id": "@ID@", "error": {"code": -32001, "message": "gone"}}
    script = [b"data: " + json.dumps(error).replace(b'"@ID@"'.decode(), "@ID@").encode() + b"\n\n"]
    with sse_server(script) as server:
        events = await collect(server.url, request_id="r1")
    (err,) = errors(events)
    assert (err.kind, err.code, err.name) == (ErrorKind.RPC, -32001, "TaskNotFoundError")
    assert classify_item(items(events)[0]).kind is ItemKind.ERROR


async def test_e2e_a_json_body_on_a_streaming_call_is_shown_as_that_error() -> None:
    body = {"jsonrpc": "2.0", "id": "@ID@", "error": {"code": -32004, "message": "terminal"}}
    script = [json.dumps(body).replace('"@ID@"', "@ID@").encode()]
    with sse_server(script, content_type="application/json") as server:
        events = await collect(server.url, request_id=5)
    assert not items(events)
    (resp,) = [e for e in events if isinstance(e, ResponseBody)]
    assert resp.json["error"]["code"] == -32004
    (err,) = errors(events)
    assert (err.kind, err.code, err.message) == (ErrorKind.RPC, -32004, "terminal")


async def test_e2e_a_rest_error_body_on_a_streaming_call() -> None:
    body = {"error": {"code": 404, "status": "NOT_FOUND", "message": "Task not found"}}
    with sse_server([json.dumps(body).encode()], content_type="application/json", status=404) as s:
        events = await collect(s.url)
    heads = [e for e in events if isinstance(e, ResponseHead)]
    assert heads[0].status == 404
    (err,) = errors(events)
    assert (err.code, err.name, err.message) == (404, "NOT_FOUND", "Task not found")


async def test_e2e_an_oversized_event_stops_the_stream_with_an_error() -> None:
    with sse_server([b"data: " + b"x" * 5000, b"x" * 5000]) as server:
        events = await collect(server.url, max_bytes=4096)
    assert "larger than the 4,096 byte limit" in errors(events)[-1].message


async def test_e2e_twenty_events_in_one_chunk_are_twenty_items() -> None:
    frames = b"".join(b'data: {"n": %d}\n\n' % i for i in range(20))
    with sse_server([frames]) as server:
        events = await collect(server.url)
    assert [i.json["n"] for i in items(events)] == list(range(20))


async def test_cancelling_twenty_streams_then_a_normal_request_works() -> None:
    """No leaked pool connections (docs/ARCHITECTURE.md §7.3; encode/httpx#1461, #3782)."""

    def script(n: int) -> list[Any]:
        if n <= 20:
            return [b'data: {"n": 1}\n\n', HANG]
        message = {"messageId": "m1", "role": "ROLE_AGENT", "parts": [{"text": "ok"}]}
        body = {"jsonrpc": "2.0", "id": 1, "result": {"message": message}}
        return [json.dumps(body).encode()]

    with sse_server(script) as server:
        # A small pool: one leaked connection per cancel would exhaust it quickly.
        client = httpx.AsyncClient(
            timeout=httpx.Timeout(5.0, pool=2.0),
            limits=httpx.Limits(max_connections=4, max_keepalive_connections=2),
        )
        async with client:
            request = A2ARequest(
                server.url,
                "SendStreamingMessage",
                '{"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {}}',
                ProtocolVersion.V1_0,
            )
            for _ in range(20):
                first_item = asyncio.Event()

                async def consume(first_item: asyncio.Event) -> None:
                    async for event in exchange.run(request, http=client):
                        if isinstance(event, StreamItem):
                            first_item.set()

                task = asyncio.create_task(consume(first_item))
                await asyncio.wait_for(first_item.wait(), 5)
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task
            server.content_type = "application/json"
            unary = A2ARequest(
                server.url,
                "SendMessage",
                '{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {}}',
            )
            events = [e async for e in exchange.run(unary, http=client)]
        end = events[-1]
        assert isinstance(end, ExchangeEnd) and end.outcome is Outcome.OK, events
        for _ in range(100):
            if server.open_connections == 0:
                break
            await asyncio.sleep(0.02)
        assert server.open_connections == 0
        assert len(server.requests) == 21


@pytest.mark.parametrize(
    "data",
    ['{"a": 1, "a": [2.5, -0.0, 1e-320]}', "123456789012345678901234567890",
     "[18446744073709551616]", '"\\ud800"', "[1,]", "\ufeff{}", '"é ☃"', " 7 "],
)  # fmt: skip
def test_frame_data_parses_exactly_as_json_loads(data: str) -> None:
    # NaN and overflowing numbers are outside the JSON limits: tests/protocol/test_limits.py
    try:
        expected: Any = json.loads(data)
    except ValueError:
        assert parse_text(data)[0] is NOT_JSON and parse_text(data)[1]
    else:
        value, error = parse_text(data)
        assert error == "" and repr(value) == repr(expected)


_TOKENS = st.sampled_from(
    [b"data: ", b"data:", b'{"a":1}', b"x", b"\r\n", b"\n", b"\r", b"event: e", b"id: 7",
     b": ping", b"retry: 5", b"\xff", b"\xef\xbb\xbf", b"\r\n\r\n", b"\n\n"]
)  # fmt: skip


class _LineByLine(SseDecoder):
    """The decoder without its quick path for whole simple frames."""

    def _simple_frames(self, chunk: bytes) -> tuple[list[SseEvent], int]:
        return [], 0


def _decoded(chunks: list[bytes], decoder: SseDecoder) -> list[SseEvent]:
    events = [event for chunk in chunks for event in decoder.feed(chunk)]
    return events + decoder.close()


@given(st.lists(_TOKENS, max_size=40), st.integers(min_value=1, max_value=64))
def test_the_quick_path_decodes_as_line_by_line_does(tokens: list[bytes], size: int) -> None:
    # A chunk's usual frames (one data line each) are decoded whole; any other frame line by
    # line. Both must give the same frames, raw bytes included, however the stream is cut.
    stream = b"".join(tokens)
    for chunks in ([stream], [stream[i : i + size] for i in range(0, len(stream), size)]):
        assert _decoded(chunks, SseDecoder()) == _decoded(chunks, _LineByLine())
