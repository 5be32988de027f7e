"""The demo agent's stderr (app/demo/request_log.py): one line per request, saying how it
ended, and no stack trace for an A2A error it answers on purpose (issue 27, point 9: a check
filled the terminal with the SDK's traces)."""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import pytest
from a2a.types import a2a_pb2, a2a_pb2_grpc

from tests.peers.fixtures import start_sdk_peer
from tests.peers.launch import PeerProcess

pytestmark = pytest.mark.peer

V1 = {"A2A-Version": "1.0", "Content-Type": "application/json"}
LINE = re.compile(r" INFO a2a_workbench\.demo\.requests: (HTTP|gRPC) (.+) \(\d+ ms\)$")


@pytest.fixture
def peer() -> Iterator[PeerProcess]:
    """A demo agent of this test's own, so that its stderr holds only this test's requests."""
    process = start_sdk_peer()
    try:
        yield process
    finally:
        process.stop()


def _request_lines(peer: PeerProcess, count: int, timeout: float = 10.0) -> list[str]:
    # The line is written once the answer has gone out: wait for it.
    deadline = time.monotonic() + timeout
    while True:
        lines = [m.group(1) + " " + m.group(2) for m in map(LINE.search, _lines(peer)) if m]
        if len(lines) >= count or time.monotonic() > deadline:
            return lines
        time.sleep(0.05)


def _lines(peer: PeerProcess) -> list[str]:
    return peer.stderr_text().splitlines()


def _send(text: str) -> dict[str, Any]:
    message = {"messageId": uuid.uuid4().hex, "role": "ROLE_USER", "parts": [{"text": text}]}
    return {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}


async def test_one_line_per_request_and_no_trace_for_answered_errors(peer: PeerProcess) -> None:
    info = peer.info
    async with httpx.AsyncClient(timeout=10) as client:
        ok = await client.post(info["jsonrpc_url"], json=_send("12 30"), headers=V1)
        assert "Sum: 42" in ok.text
        unknown = {"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": "no-such"}}
        await client.post(info["jsonrpc_url"], json=unknown, headers=V1)
        # No "method": a2a-sdk logged this one as an ERROR with its traceback.
        await client.post(info["jsonrpc_url"], json={"jsonrpc": "2.0", "id": 3}, headers=V1)
        rest = await client.get(f"{info['rest_url']}/tasks/no-such", headers=V1)
        assert rest.status_code == 404
    async with grpc.aio.insecure_channel(info["grpc_target"]) as channel:
        stub = a2a_pb2_grpc.A2AServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError):
            await stub.GetTask(a2a_pb2.GetTaskRequest(id="no-such"))

    lines = _request_lines(peer, 5)
    assert lines == [
        "HTTP POST / SendMessage: 200",
        "HTTP POST / GetTask: 200, error -32001 Task not found",
        "HTTP POST /: 200, error -32600 Invalid Request",
        "HTTP GET /rest/tasks/no-such: 404, error NOT_FOUND Task not found",
        "gRPC lf.a2a.v1.A2AService/GetTask: NOT_FOUND Task not found",
    ]
    text = peer.stderr_text()
    assert "Traceback" not in text
    others = [line for line in _lines(peer) if not LINE.search(line)]
    # Besides the request lines, only the start-up line.
    assert len(others) == 1 and "demo agent ready at" in others[0], others
