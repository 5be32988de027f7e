"""Tests of the bundled demo agent (app/demo), spoken to with plain httpx and gRPC stubs.

These pin down what the ``sdk_peer*`` fixtures serve, so protocol tests can rely on it: the
signed card, JSON-RPC / REST / gRPC in 1.0 and 0.3, the executor's behaviours, bearer auth,
and the process contract (ready line, clean SIGTERM, busy port).
"""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc
import httpx
import jwt
import pytest
from a2a.client.card_resolver import parse_agent_card
from a2a.compat.v0_3 import a2a_v0_3_pb2, a2a_v0_3_pb2_grpc
from a2a.types import a2a_pb2, a2a_pb2_grpc
from a2a.utils.signing import create_signature_verifier

from tests.peers.fixtures import REPO_ROOT, start_sdk_peer

pytestmark = pytest.mark.peer

V1 = {"A2A-Version": "1.0", "Content-Type": "application/json"}
V03 = {"Content-Type": "application/json"}  # no A2A-Version header = 0.3
READY_KEYS = {
    "event",
    "base_url",
    "card_url",
    "jsonrpc_url",
    "rest_url",
    "grpc_target",
    "jwks_path",
    "pid",
}


def _msg(text: str, **extra: Any) -> dict[str, Any]:
    return {"messageId": uuid.uuid4().hex, "role": "ROLE_USER", "parts": [{"text": text}], **extra}


def _rpc(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": uuid.uuid4().hex, "method": method, "params": params}


async def _call(peer: dict[str, Any], method: str, params: dict[str, Any]) -> dict[str, Any]:
    async with httpx.AsyncClient(timeout=10) as client:
        resp = await client.post(peer["jsonrpc_url"], json=_rpc(method, params), headers=V1)
    resp.raise_for_status()
    body = resp.json()
    assert "error" not in body, body
    result: dict[str, Any] = body["result"]
    return result


async def _sse_results(
    client: httpx.AsyncClient, url: str, body: dict[str, Any]
) -> AsyncIterator[dict[str, Any]]:
    """Yields the ``result`` of each JSON-RPC SSE event until the server closes the stream."""
    async with client.stream("POST", url, json=body, headers=V1) as resp:
        assert resp.headers["content-type"].startswith("text/event-stream")
        async for line in resp.aiter_lines():
            if line.startswith("data:"):
                event = json.loads(line[len("data:") :])
                assert "error" not in event, event
                yield event["result"]


def _grpc_msg(text: str) -> a2a_pb2.Message:
    return a2a_pb2.Message(
        message_id=uuid.uuid4().hex, role=a2a_pb2.ROLE_USER, parts=[a2a_pb2.Part(text=text)]
    )


# --------------------------------------------------------------------------- card


def test_ready_line_has_the_contract_keys(sdk_peer: dict[str, Any]) -> None:
    assert set(sdk_peer) == READY_KEYS
    assert sdk_peer["event"] == "ready"
    assert sdk_peer["base_url"].startswith("http://127.0.0.1:")
    assert sdk_peer["jsonrpc_url"] == sdk_peer["base_url"] + "/"
    assert sdk_peer["rest_url"] == sdk_peer["base_url"] + "/rest"
    assert sdk_peer["grpc_target"].startswith("127.0.0.1:")


@pytest.mark.parametrize("path", ["/.well-known/agent-card.json", "/.well-known/agent.json"])
async def test_card_served_at_both_paths(sdk_peer: dict[str, Any], path: str) -> None:
    async with httpx.AsyncClient(timeout=10) as client:
        resp = await client.get(sdk_peer["base_url"] + path)
    assert resp.status_code == 200
    card = resp.json()
    assert card["name"] == "A2A Workbench demo agent"
    assert card["capabilities"] == {
        "streaming": True,
        "pushNotifications": True,
        "extendedAgentCard": True,
    }
    assert {s["id"] for s in card["skills"]} == {"sum", "echo", "stream", "ask", "fail"}
    assert all(s["examples"] for s in card["skills"])
    interfaces = [
        (i["protocolVersion"], i["protocolBinding"], i["url"]) for i in card["supportedInterfaces"]
    ]
    urls = {
        "JSONRPC": sdk_peer["jsonrpc_url"],
        "HTTP+JSON": sdk_peer["rest_url"],
        # An absolute URL, as the 1.0 proto asks; the ready line keeps the bare target.
        "GRPC": "http://" + sdk_peer["grpc_target"],
    }
    assert interfaces == [
        (version, binding, urls[binding])
        for version in ("1.0", "0.3")
        for binding in ("JSONRPC", "HTTP+JSON", "GRPC")
    ]
    # The SDK merges the 0.3 mirror fields into the served card (hybrid card).
    assert card["url"] == sdk_peer["jsonrpc_url"]


async def test_card_signature_verifies_with_public_jwks(sdk_peer: dict[str, Any]) -> None:
    with open(sdk_peer["jwks_path"], encoding="utf-8") as f:
        jwks = json.load(f)
    (key,) = jwks["keys"]
    assert key["alg"] == "ES256" and key["use"] == "sig" and key["kid"].startswith("demo-")
    assert "d" not in key and "key_ops" not in key
    async with httpx.AsyncClient(timeout=10) as client:
        card_json = (await client.get(sdk_peer["card_url"])).json()
        served_jwks = (await client.get(sdk_peer["base_url"] + "/.well-known/jwks.json")).json()
    assert served_jwks == jwks

    def key_provider(kid: str | None, jku: str | None) -> jwt.PyJWK:
        assert kid == key["kid"]
        assert jku == sdk_peer["base_url"] + "/.well-known/jwks.json"
        return jwt.PyJWK(key)

    card = parse_agent_card(card_json)
    create_signature_verifier(key_provider, ["ES256"])(card)  # raises when invalid
    card.name = "tampered"
    with pytest.raises(Exception, match="signature"):
        create_signature_verifier(key_provider, ["ES256"])(card)


async def test_extended_card_adds_a_skill(sdk_peer: dict[str, Any]) -> None:
    result = await _call(sdk_peer, "GetExtendedAgentCard", {})
    assert [s["id"] for s in result["skills"]] == [
        "sum",
        "echo",
        "stream",
        "ask",
        "fail",
        "extended",
    ]
    assert result["signatures"]


# --------------------------------------------------------------------------- bindings


async def test_jsonrpc_v1_send_sum(sdk_peer: dict[str, Any]) -> None:
    result = await _call(sdk_peer, "SendMessage", {"message": _msg("12 30")})
    parts = result["message"]["parts"]
    assert result["message"]["role"] == "ROLE_AGENT"
    assert parts[0] == {"text": "Sum: 42"}
    assert parts[1]["data"]["total"] == 42  # the SDK sends 42.0 (protobuf Value)


async def test_jsonrpc_sum_of_floats(sdk_peer: dict[str, Any]) -> None:
    result = await _call(sdk_peer, "SendMessage", {"message": _msg("1.5, 2")})
    assert result["message"]["parts"][0]["text"] == "Sum: 3.5"


async def test_jsonrpc_v03_message_send(sdk_peer: dict[str, Any]) -> None:
    message = {
        "kind": "message",
        "messageId": uuid.uuid4().hex,
        "role": "user",
        "parts": [{"kind": "text", "text": "hello there"}],
    }
    async with httpx.AsyncClient(timeout=10) as client:
        resp = await client.post(
            sdk_peer["jsonrpc_url"], json=_rpc("message/send", {"message": message}), headers=V03
        )
    result = resp.json()["result"]
    assert result["kind"] == "message"
    assert result["role"] == "agent"
    assert result["parts"] == [{"kind": "text", "text": "Echo: hello there"}]


async def test_rest_v1_message_send(sdk_peer: dict[str, Any]) -> None:
    async with httpx.AsyncClient(timeout=10) as client:
        resp = await client.post(
            sdk_peer["rest_url"] + "/message:send", json={"message": _msg("12 30")}, headers=V1
        )
    assert resp.status_code == 200
    assert resp.json()["message"]["parts"][0]["text"] == "Sum: 42"


async def test_rest_v03_message_send(sdk_peer: dict[str, Any]) -> None:
    body = {"message": {"messageId": "m1", "role": "ROLE_USER", "content": [{"text": "fail"}]}}
    async with httpx.AsyncClient(timeout=10) as client:
        resp = await client.post(sdk_peer["rest_url"] + "/v1/message:send", json=body, headers=V03)
    assert resp.status_code == 200
    assert resp.json()["task"]["status"]["state"] == "TASK_STATE_FAILED"


async def test_grpc_v1_send_message(sdk_peer: dict[str, Any]) -> None:
    async with grpc.aio.insecure_channel(sdk_peer["grpc_target"]) as channel:
        stub = a2a_pb2_grpc.A2AServiceStub(channel)
        resp = await stub.SendMessage(a2a_pb2.SendMessageRequest(message=_grpc_msg("12 30")))
    assert resp.message.parts[0].text == "Sum: 42"
    assert resp.message.parts[1].data.struct_value.fields["total"].number_value == 42


async def test_grpc_v03_send_message(sdk_peer: dict[str, Any]) -> None:
    request = a2a_v0_3_pb2.SendMessageRequest(
        request=a2a_v0_3_pb2.Message(
            message_id=uuid.uuid4().hex,
            role=a2a_v0_3_pb2.ROLE_USER,
            content=[a2a_v0_3_pb2.Part(text="ping")],
        )
    )
    async with grpc.aio.insecure_channel(sdk_peer["grpc_target"]) as channel:
        resp = await a2a_v0_3_pb2_grpc.A2AServiceStub(channel).SendMessage(request)
    assert resp.msg.content[0].text == "Echo: ping"


# --------------------------------------------------------------------------- behaviours


async def test_stream_over_jsonrpc_sse(sdk_peer: dict[str, Any]) -> None:
    body = _rpc("SendStreamingMessage", {"message": _msg("stream 3 10")})
    async with httpx.AsyncClient(timeout=10) as client:
        events = [r async for r in _sse_results(client, sdk_peer["jsonrpc_url"], body)]
    kinds = [next(iter(e)) for e in events]
    assert kinds == [
        "task",
        "statusUpdate",
        "statusUpdate",
        "statusUpdate",
        "artifactUpdate",
        "statusUpdate",
    ]
    assert events[0]["task"]["status"]["state"] == "TASK_STATE_SUBMITTED"
    progress = [e["statusUpdate"]["status"] for e in events[1:4]]
    assert [s["state"] for s in progress] == ["TASK_STATE_WORKING"] * 3
    assert [s["message"]["parts"][0]["text"] for s in progress] == [
        "progress 1/3",
        "progress 2/3",
        "progress 3/3",
    ]
    artifact = events[4]["artifactUpdate"]["artifact"]
    assert artifact["name"] == "result"
    assert artifact["parts"] == [{"text": "done after 3 steps"}]
    assert events[5]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"


async def test_stream_can_be_cancelled(sdk_peer: dict[str, Any]) -> None:
    body = _rpc("SendStreamingMessage", {"message": _msg("stream 1000 50")})
    states: list[str] = []
    async with httpx.AsyncClient(timeout=10) as client:
        async for result in _sse_results(client, sdk_peer["jsonrpc_url"], body):
            if "task" in result:
                task_id = result["task"]["id"]
            elif "statusUpdate" in result:
                states.append(result["statusUpdate"]["status"]["state"])
                if len(states) == 2:
                    cancelled = await _call(sdk_peer, "CancelTask", {"id": task_id})
                    assert cancelled["status"]["state"] == "TASK_STATE_CANCELED"
    assert states[-1] == "TASK_STATE_CANCELED"
    assert len(states) < 20
    task = await _call(sdk_peer, "GetTask", {"id": task_id})
    assert task["status"]["state"] == "TASK_STATE_CANCELED"


async def test_ask_then_answer(sdk_peer: dict[str, Any]) -> None:
    first = (await _call(sdk_peer, "SendMessage", {"message": _msg("ask")}))["task"]
    assert first["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert first["status"]["message"]["parts"][0]["text"] == "What is your name?"
    follow_up = _msg("Ada", taskId=first["id"], contextId=first["contextId"])
    done = (await _call(sdk_peer, "SendMessage", {"message": follow_up}))["task"]
    assert done["id"] == first["id"]
    assert done["status"]["state"] == "TASK_STATE_COMPLETED"
    assert done["status"]["message"]["parts"][0]["text"] == "Hello, Ada!"


async def test_fail_ends_failed(sdk_peer: dict[str, Any]) -> None:
    task = (await _call(sdk_peer, "SendMessage", {"message": _msg("fail")}))["task"]
    assert task["status"]["state"] == "TASK_STATE_FAILED"
    assert task["status"]["message"]["parts"][0]["text"] == "Failed on purpose"


async def test_fail_streams_working_then_failed(sdk_peer: dict[str, Any]) -> None:
    body = _rpc("SendStreamingMessage", {"message": _msg("fail")})
    async with httpx.AsyncClient(timeout=10) as client:
        events = [r async for r in _sse_results(client, sdk_peer["jsonrpc_url"], body)]
    states = [e["statusUpdate"]["status"]["state"] for e in events if "statusUpdate" in e]
    assert states == ["TASK_STATE_WORKING", "TASK_STATE_FAILED"]


# --------------------------------------------------------------------------- auth


async def test_token_peer_rejects_missing_token(sdk_peer_token: dict[str, Any]) -> None:
    body = _rpc("SendMessage", {"message": _msg("12 30")})
    async with httpx.AsyncClient(timeout=10) as client:
        no_token = await client.post(sdk_peer_token["jsonrpc_url"], json=body, headers=V1)
        wrong = await client.post(
            sdk_peer_token["jsonrpc_url"],
            json=body,
            headers={**V1, "Authorization": "Bearer nope"},
        )
        rest = await client.post(
            sdk_peer_token["rest_url"] + "/message:send", json=body["params"], headers=V1
        )
        card = await client.get(sdk_peer_token["card_url"])
    assert no_token.status_code == 401
    assert wrong.status_code == 401
    assert rest.status_code == 401
    assert card.status_code == 200  # discovery stays public
    assert "bearerAuth" in card.json()["securitySchemes"]


async def test_token_peer_accepts_token(sdk_peer_token: dict[str, Any]) -> None:
    headers = {**V1, "Authorization": f"Bearer {sdk_peer_token['token']}"}
    body = _rpc("SendMessage", {"message": _msg("12 30")})
    async with httpx.AsyncClient(timeout=10) as client:
        resp = await client.post(sdk_peer_token["jsonrpc_url"], json=body, headers=headers)
    assert resp.status_code == 200
    assert resp.json()["result"]["message"]["parts"][0]["text"] == "Sum: 42"


async def test_token_peer_grpc(sdk_peer_token: dict[str, Any]) -> None:
    request = a2a_pb2.SendMessageRequest(message=_grpc_msg("12 30"))
    async with grpc.aio.insecure_channel(sdk_peer_token["grpc_target"]) as channel:
        stub = a2a_pb2_grpc.A2AServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as denied:
            await stub.SendMessage(request)
        assert denied.value.code() == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(grpc.aio.AioRpcError) as denied_stream:
            async for _ in stub.SendStreamingMessage(request):
                pass
        assert denied_stream.value.code() == grpc.StatusCode.UNAUTHENTICATED
        metadata = (("authorization", f"Bearer {sdk_peer_token['token']}"),)
        resp = await stub.SendMessage(request, metadata=metadata)
    assert resp.message.parts[0].text == "Sum: 42"


# --------------------------------------------------------------------------- process


async def test_sigterm_exits_zero_with_open_stream() -> None:
    peer = start_sdk_peer()
    try:
        body = _rpc("SendStreamingMessage", {"message": _msg("stream 1000 100")})
        async with httpx.AsyncClient(timeout=10) as client:

            async def read_stream() -> int:
                # The server ends the stream long before its 1000 events: uvicorn cuts it
                # (an HTTPError here) or, in newer releases, closes the chunked body cleanly.
                seen = 0
                try:
                    async for _ in _sse_results(client, peer.info["jsonrpc_url"], body):
                        seen += 1
                except httpx.HTTPError:
                    pass
                return seen

            reader = asyncio.create_task(read_stream())
            await asyncio.sleep(0.5)
            started = time.monotonic()
            peer.proc.send_signal(signal.SIGTERM)
            code = await asyncio.to_thread(peer.proc.wait, 5)
            elapsed = time.monotonic() - started
            seen = await asyncio.wait_for(reader, 5)
    finally:
        peer.stop()
    assert seen < 1000
    assert code == 0
    assert elapsed < 2.0


@pytest.mark.parametrize("flag", ["--port", "--grpc-port"])
def test_busy_port_is_a_one_line_error(flag: str) -> None:
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        proc = subprocess.run(
            [sys.executable, "-m", "app", "demo-agent", flag, str(port)],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.strip().count("\n") == 0, proc.stderr
    assert str(port) in proc.stderr
