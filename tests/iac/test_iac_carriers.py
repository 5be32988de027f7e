"""iac-code's custom carriers (WebSocket, Unix socket, stdio, Redis Streams): their framing, as
the fixtures' carrier client (tests/peers/iac/iac_carrier_client.py) sees it, pinned here
(docs/PEERS.md §3.3). The app speaks them as bindings: tests/iac/test_iac_carrier_send.py.
All four carriers answer without the token the card declares (Q26).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from tests.peers.iac_carrier import CarrierReply, carrier_call
from tests.peers.iac_llm_stub import REPLY_PREFIX

pytestmark = [pytest.mark.peer, pytest.mark.timeout(600)]  # a first run builds .venv-iac

CARRIERS = ["websocket", "unix", "redis-streams", "stdio"]
STREAM_END = {"jsonrpc": "2.0", "id": "s", "final": True}  # stdio and Unix socket


def send_and_stream(carrier: str, info: dict[str, Any]) -> tuple[str, CarrierReply]:
    """A ``SendMessage`` (id ``u``) then a ``SendStreamingMessage`` (id ``s``) over ``carrier``."""
    text = f"hello over {carrier} {uuid.uuid4()}"

    def request(request_id: str, method: str) -> dict[str, Any]:
        message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}]}
        return {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": method,
            "params": {"message": message},
        }

    frames: list[str | dict[str, Any]] = [request("u", "SendMessage")]
    frames.append(request("s", "SendStreamingMessage"))
    if carrier == "stdio":
        reply = carrier_call("stdio", info["url"], frames, command=info["command"],
                             env=info["env"], cwd=info["cwd"], timeout=60)  # fmt: skip
    else:
        reply = carrier_call(carrier, info["url"], frames)
    assert reply.status == 0, reply.stderr
    return text, reply


def info_of(carrier: str, request: pytest.FixtureRequest) -> dict[str, Any]:
    return dict(request.getfixturevalue("iac_" + carrier.replace("-", "_")))


def compact(frame: str) -> bool:
    """Is ``frame`` the compact UTF-8 JSON iac-code writes (no spaces between tokens)?"""
    return frame == json.dumps(json.loads(frame), ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize("carrier", ["unix", "stdio"])
def test_lines_carry_one_reply_or_a_stream_ending_in_final(
    carrier: str, request: pytest.FixtureRequest
) -> None:
    text, reply = send_and_stream(carrier, info_of(carrier, request))
    (unary,) = reply.frames(0)
    assert compact(unary)
    task = json.loads(unary)["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert REPLY_PREFIX + text in json.dumps(task)
    stream = [json.loads(frame) for frame in reply.frames(1)]
    assert all(compact(frame) for frame in reply.frames(1))
    assert "task" in stream[0]["result"] and stream[-1] == STREAM_END
    assert all(item["id"] == "s" and "result" in item for item in stream[:-1])


def test_websocket_wraps_each_reply_with_its_id_and_final(iac_websocket: dict[str, Any]) -> None:
    _, reply = send_and_stream("websocket", iac_websocket)
    (unary,) = reply.payloads(0)
    assert unary["id"] == "u" and unary["final"] is True
    assert "task" in unary["payload"]["result"]
    stream = reply.payloads(1)
    assert all(set(frame) == {"id", "payload", "final"} for frame in stream)
    assert [frame["final"] for frame in stream] == [False] * (len(stream) - 1) + [True]
    assert "task" in stream[0]["payload"]["result"]
    assert stream[-1] == {"id": "s", "payload": {"jsonrpc": "2.0", "id": "s"}, "final": True}


def test_websocket_answers_bad_frames_with_wrapped_errors(iac_websocket: dict[str, Any]) -> None:
    reply = carrier_call("websocket", iac_websocket["url"], ["not json", "[1]"])
    assert reply.status == 0, reply.stderr
    codes = [frame["payload"]["error"]["code"] for i in (0, 1) for frame in reply.payloads(i)]
    assert codes == [-32700, -32600]
    assert all(frame["id"] is None and frame["final"] for frame in reply.payloads(0))


def test_a_bad_line_on_the_unix_socket_is_an_internal_error(iac_unix: dict[str, Any]) -> None:
    # Not -32700: the stdio framing reports an undecodable line as -32603 (Q30).
    reply = carrier_call("unix", iac_unix["url"], ["not json"])
    (error,) = reply.payloads(0)
    assert error["error"]["code"] == -32603 and error["id"] is None
    assert error["error"]["message"].startswith("A2AFrameError: Invalid JSON-RPC frame")


def test_redis_streams_replies_are_entries_with_final(
    iac_redis_streams: dict[str, Any],
) -> None:
    _, reply = send_and_stream("redis-streams", iac_redis_streams)
    entries = [r["fields"] for r in reply.records]
    assert all(set(fields) == {"correlation_id", "payload", "final"} for fields in entries)
    (unary,) = [r["fields"] for r in reply.records if r["request"] == 0]
    assert unary["final"] == "true" and "task" in json.loads(unary["payload"])["result"]
    stream = [r["fields"] for r in reply.records if r["request"] == 1]
    assert [e["final"] for e in stream] == ["false"] * (len(stream) - 1) + ["true"]
    assert json.loads(stream[-1]["payload"]) == {"jsonrpc": "2.0", "id": "s"}


def test_subscribe_is_not_a_stream_on_the_custom_carriers(iac_unix: dict[str, Any]) -> None:
    # The carriers stream only the send methods: SubscribeToTask to a working task is
    # dispatched as a unary call, waits for the task's turn to end, and its SSE answer then
    # fails to parse as JSON (Q31).
    message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": "slow 2"}]}
    send = {
        "jsonrpc": "2.0",
        "id": "u",
        "method": "SendMessage",
        "params": {"message": message, "configuration": {"returnImmediately": True}},
    }
    (sent,) = carrier_call("unix", iac_unix["url"], [send]).payloads(0)
    subscribe = {"jsonrpc": "2.0", "id": "r", "method": "SubscribeToTask",
                 "params": {"id": sent["result"]["task"]["id"]}}  # fmt: skip
    (answer,) = carrier_call("unix", iac_unix["url"], [subscribe]).payloads(0)
    assert answer["id"] == "r" and answer["error"]["code"] == -32603
    assert answer["error"]["message"].startswith("JSONDecodeError")
