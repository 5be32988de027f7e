"""The custom carriers' frames, sans-IO (app/protocol/wire/carrier_frames.py): what iac-code
writes on each carrier (docs/PEERS.md §3.3) read into replies, and the endpoints parsed."""

from __future__ import annotations

import pytest

from app.errors import UsageError
from app.protocol.events import NOT_JSON
from app.protocol.wire.carrier_frames import (
    DEFAULT_GROUP,
    line_reply,
    redis_reply,
    redis_streams_address,
    reply_id,
    request_frame,
    unix_path,
    websocket_reply,
)


def test_a_request_goes_as_one_compact_line() -> None:
    frame, request_id = request_frame('{"jsonrpc": "2.0",\n "id": "a", "params": {"t": "é"}}')
    assert frame == '{"jsonrpc":"2.0","id":"a","params":{"t":"é"}}'.encode()
    assert request_id == "a" and b"\n" not in frame
    # Not JSON (sent on purpose): as typed, its line breaks made spaces.
    assert request_frame('{"jsonrpc": \n') == (b'{"jsonrpc":  ', None)
    assert request_frame("[1]") == (b"[1]", None)


def test_lines_end_a_stream_with_a_final_frame() -> None:
    item = line_reply(b'{"jsonrpc":"2.0","id":"s","result":{"task":{}}}\n')
    assert item.has_result and not item.final and not item.closing and reply_id(item) == "s"
    end = line_reply(b'{"jsonrpc":"2.0","id":"s","final":true}\r\n')
    assert end.final and end.closing and not end.has_result
    error = line_reply(b'{"jsonrpc":"2.0","id":"s","error":{"code":-32603},"final":true}')
    assert error.final and not error.closing and error.has_error
    broken = line_reply(b"not json")
    assert broken.json is NOT_JSON and broken.json_error and reply_id(broken) is None


def test_websocket_replies_are_unwrapped() -> None:
    frame = b'{"id":"u","payload":{"jsonrpc":"2.0","id":"u","result":{"x":1}},"final":true}'
    reply = websocket_reply(frame)
    assert reply.raw == b'{"jsonrpc":"2.0","id":"u","result":{"x":1}}' and reply.frame == frame
    assert reply.final and not reply.closing and reply.has_result
    end = websocket_reply('{"id":"s","payload":{"jsonrpc":"2.0","id":"s"},"final":true}')
    assert end.final and end.closing
    # A server that sends bare JSON-RPC: the frame is the message, and final.
    bare = websocket_reply('{"jsonrpc":"2.0","id":1,"result":{}}')
    assert bare.final and bare.has_result and bare.frame == b""


def test_redis_entries_carry_final_as_text() -> None:
    fields = {b"correlation_id": b"c", b"payload": b'{"jsonrpc":"2.0","id":"s"}', b"final": b"true"}
    end = redis_reply(fields)
    assert end.final and end.closing and end.raw == b'{"jsonrpc":"2.0","id":"s"}'
    item = redis_reply({"payload": '{"jsonrpc":"2.0","id":"s","result":{}}', "final": "false"})
    assert not item.final and item.has_result


def test_redis_streams_urls_as_iac_code_writes_them() -> None:
    url = "redis-streams://redis://127.0.0.1:6379/0/req/replies/group"
    address = redis_streams_address(url)
    assert address.redis_url == "redis://127.0.0.1:6379/0"
    assert (address.request_stream, address.reply_stream, address.group) == (
        "req",
        "replies",
        "group",
    )
    bare = redis_streams_address("redis-streams://127.0.0.1:6379")
    assert bare.redis_url == "redis://127.0.0.1:6379" and bare.group == DEFAULT_GROUP
    secure = redis_streams_address("redis-streams://rediss://:pw@host:6380/2/a")
    assert secure.redis_url == "rediss://:pw@host:6380/2" and secure.request_stream == "a"
    for bad in ("redis://h:1", "redis-streams://", "redis-streams://h:1/0/a/b/c/d"):
        with pytest.raises(UsageError):
            redis_streams_address(bad)


def test_unix_urls_name_a_file() -> None:
    assert unix_path("unix:///tmp/a%20b.sock") == "/tmp/a b.sock"
    assert unix_path("/run/agent.sock") == "/run/agent.sock"
    with pytest.raises(UsageError):
        unix_path("unix://")
