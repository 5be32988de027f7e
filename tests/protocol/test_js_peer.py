"""Smoke tests of the @a2a-js/sdk test peer (tests/peers/js/server.mjs).

They pin down what the peer serves, so protocol tests built on the ``js_peer*``
fixtures can rely on it: the card, JSON-RPC / REST / gRPC in 1.0 and 0.3, the
demo executor's behaviours, bearer auth and card signing.
"""

from __future__ import annotations

import asyncio
import base64
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import jwt
import pytest
from a2a.client.card_resolver import parse_agent_card
from a2a.types import a2a_pb2, a2a_pb2_grpc
from a2a.utils.signing import create_signature_verifier

pytestmark = pytest.mark.peer

V1 = {"A2A-Version": "1.0", "Content-Type": "application/json"}
V03 = {"Content-Type": "application/json"}  # no A2A-Version header = 0.3


def _msg(text: str, **extra: Any) -> dict[str, Any]:
    return {"messageId": uuid.uuid4().hex, "role": "ROLE_USER", "parts": [{"text": text}], **extra}


def _rpc(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": uuid.uuid4().hex, "method": method}
    if params is not None:
        body["params"] = params
    return body


def _texts(parts: list[dict[str, Any]]) -> list[str]:
    return [p["text"] for p in parts if "text" in p]


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=15.0) as c:
        yield c


async def _call(
    client: httpx.AsyncClient, url: str, method: str, params: dict[str, Any] | None = None
) -> dict[str, Any]:
    resp = await client.post(url, json=_rpc(method, params), headers=V1)
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert "error" not in body, body
    return body["result"]


async def _sse_events(
    resp: httpx.Response,
) -> AsyncIterator[dict[str, Any]]:
    assert resp.status_code == 200
    assert resp.headers["content-type"].startswith("text/event-stream")
    async for line in resp.aiter_lines():
        if line.startswith("data:"):
            yield json.loads(line[5:].strip())


def _kind(result: dict[str, Any]) -> str:
    (kind,) = result.keys()
    return kind


# --------------------------------------------------------------------- card


async def test_card_v1_and_v03(js_peer: dict[str, Any], client: httpx.AsyncClient) -> None:
    resp = await client.get(js_peer["card_url"], headers={"A2A-Version": "1.0"})
    assert resp.status_code == 200
    card = resp.json()
    assert card["capabilities"]["streaming"] is True
    assert card["capabilities"]["pushNotifications"] is True
    assert card["capabilities"]["extendedAgentCard"] is True
    interfaces = {
        (i["protocolBinding"], i["protocolVersion"]): i["url"] for i in card["supportedInterfaces"]
    }
    assert interfaces[("JSONRPC", "1.0")] == js_peer["jsonrpc_url"]
    assert interfaces[("JSONRPC", "0.3")] == js_peer["jsonrpc_url"]
    assert interfaces[("HTTP+JSON", "1.0")] == js_peer["rest_url"]
    assert interfaces[("GRPC", "1.0")] == js_peer["grpc_target"]
    assert interfaces[("GRPC", "0.3")] == js_peer["grpc_target"]
    assert "signatures" not in card or card["signatures"] == []

    # Without A2A-Version the compat layer serves the 0.3 shape (docs/PEERS.md Q10).
    legacy = (await client.get(js_peer["card_url"])).json()
    assert legacy["protocolVersion"] == "0.3"
    assert legacy["url"] == js_peer["jsonrpc_url"]
    assert legacy["preferredTransport"] == "JSONRPC"
    assert legacy["supportsAuthenticatedExtendedCard"] is True


async def test_extended_card(js_peer: dict[str, Any], client: httpx.AsyncClient) -> None:
    card = await _call(client, js_peer["jsonrpc_url"], "GetExtendedAgentCard", {})
    assert {s["id"] for s in card["skills"]} == {"demo", "extended"}


# ----------------------------------------------------------------- JSON-RPC


async def test_jsonrpc_v1_send_sum(js_peer: dict[str, Any], client: httpx.AsyncClient) -> None:
    result = await _call(client, js_peer["jsonrpc_url"], "SendMessage", {"message": _msg("12 30")})
    message = result["message"]
    assert message["role"] == "ROLE_AGENT"
    assert _texts(message["parts"]) == ["Sum: 42"]
    data = [p["data"] for p in message["parts"] if "data" in p]
    assert data == [{"total": 42}]


async def test_jsonrpc_v1_requires_version_header(
    js_peer: dict[str, Any], client: httpx.AsyncClient
) -> None:
    # No header = 0.3, where SendMessage does not exist (docs/PEERS.md Q1).
    resp = await client.post(
        js_peer["jsonrpc_url"], json=_rpc("SendMessage", {"message": _msg("x")})
    )
    assert resp.json()["error"]["code"] == -32601


async def test_jsonrpc_v03_message_send(js_peer: dict[str, Any], client: httpx.AsyncClient) -> None:
    params = {
        "message": {
            "kind": "message",
            "messageId": uuid.uuid4().hex,
            "role": "user",
            "parts": [{"kind": "text", "text": "1.5, 2"}],
        }
    }
    resp = await client.post(js_peer["jsonrpc_url"], json=_rpc("message/send", params), headers=V03)
    result = resp.json()["result"]
    assert result["kind"] == "message"
    assert result["role"] == "agent"
    assert [p["text"] for p in result["parts"] if p["kind"] == "text"] == ["Sum: 3.5"]
    assert [p["data"] for p in result["parts"] if p["kind"] == "data"] == [{"total": 3.5}]


async def test_jsonrpc_echo_ask_fail(js_peer: dict[str, Any], client: httpx.AsyncClient) -> None:
    url = js_peer["jsonrpc_url"]
    echo = await _call(client, url, "SendMessage", {"message": _msg("  hello there ")})
    assert _texts(echo["message"]["parts"]) == ["Echo: hello there"]

    asked = (await _call(client, url, "SendMessage", {"message": _msg("ask")}))["task"]
    assert asked["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert _texts(asked["status"]["message"]["parts"]) == ["What is your name?"]
    follow = _msg("Ada", taskId=asked["id"], contextId=asked["contextId"])
    done = (await _call(client, url, "SendMessage", {"message": follow}))["task"]
    assert done["id"] == asked["id"]
    assert done["status"]["state"] == "TASK_STATE_COMPLETED"
    assert _texts(done["status"]["message"]["parts"]) == ["Hello, Ada!"]

    failed = (await _call(client, url, "SendMessage", {"message": _msg("fail")}))["task"]
    assert failed["status"]["state"] == "TASK_STATE_FAILED"
    assert _texts(failed["status"]["message"]["parts"]) == ["Failed on purpose"]


async def test_jsonrpc_v1_stream(js_peer: dict[str, Any], client: httpx.AsyncClient) -> None:
    body = _rpc("SendStreamingMessage", {"message": _msg("stream 3 10")})
    async with client.stream("POST", js_peer["jsonrpc_url"], json=body, headers=V1) as resp:
        results = [event["result"] async for event in _sse_events(resp)]
    kinds = [_kind(r) for r in results]
    assert kinds == [
        "task",
        "statusUpdate",
        "statusUpdate",
        "statusUpdate",
        "artifactUpdate",
        "statusUpdate",
    ]
    assert results[0]["task"]["status"]["state"] == "TASK_STATE_SUBMITTED"
    progress = [_texts(r["statusUpdate"]["status"]["message"]["parts"]) for r in results[1:4]]
    assert progress == [["progress 1/3"], ["progress 2/3"], ["progress 3/3"]]
    assert all(r["statusUpdate"]["status"]["state"] == "TASK_STATE_WORKING" for r in results[1:4])
    artifact = results[4]["artifactUpdate"]["artifact"]
    assert artifact["name"] == "result"
    assert _texts(artifact["parts"]) == ["done after 3 steps"]
    assert results[5]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert "final" not in results[5]["statusUpdate"]


async def test_jsonrpc_v03_stream(js_peer: dict[str, Any], client: httpx.AsyncClient) -> None:
    params = {
        "message": {
            "kind": "message",
            "messageId": uuid.uuid4().hex,
            "role": "user",
            "parts": [{"kind": "text", "text": "stream 2 10"}],
        }
    }
    body = _rpc("message/stream", params)
    async with client.stream("POST", js_peer["jsonrpc_url"], json=body, headers=V03) as resp:
        results = [event["result"] async for event in _sse_events(resp)]
    assert [r["kind"] for r in results] == [
        "task",
        "status-update",
        "status-update",
        "artifact-update",
        "status-update",
    ]
    assert results[-1]["status"]["state"] == "completed"
    assert results[-1]["final"] is True


async def test_jsonrpc_cancel_while_streaming(
    js_peer: dict[str, Any], client: httpx.AsyncClient
) -> None:
    url = js_peer["jsonrpc_url"]
    body = _rpc("SendStreamingMessage", {"message": _msg("stream 50 100")})
    seen: list[dict[str, Any]] = []
    async with client.stream("POST", url, json=body, headers=V1) as resp:
        events = _sse_events(resp)
        first = (await anext(events))["result"]
        task_id = first["task"]["id"]
        canceled = await _call(client, url, "CancelTask", {"id": task_id})
        assert canceled["status"]["state"] == "TASK_STATE_CANCELED"
        async with asyncio.timeout(10):
            seen = [event["result"] async for event in events]
    assert seen, "stream ended without a terminal event"
    assert seen[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_CANCELED"
    assert len(seen) < 50
    task = await _call(client, url, "GetTask", {"id": task_id})
    assert task["status"]["state"] == "TASK_STATE_CANCELED"


# --------------------------------------------------------------------- REST


async def test_rest_v1_message_send(js_peer: dict[str, Any], client: httpx.AsyncClient) -> None:
    resp = await client.post(
        f"{js_peer['rest_url']}/message:send", json={"message": _msg("12 30")}, headers=V1
    )
    assert resp.status_code == 200, resp.text
    assert resp.headers["content-type"].startswith("application/a2a+json")
    assert _texts(resp.json()["message"]["parts"]) == ["Sum: 42"]


async def test_rest_v03_message_send(js_peer: dict[str, Any], client: httpx.AsyncClient) -> None:
    body = {
        "message": {"messageId": uuid.uuid4().hex, "role": "ROLE_USER", "content": [{"text": "hi"}]}
    }
    resp = await client.post(f"{js_peer['rest_url']}/v1/message:send", json=body, headers=V03)
    assert resp.status_code in (200, 201), resp.text  # JS answers 201 (docs/PEERS.md Q5)
    message = resp.json()["message"]
    assert [p["text"] for p in message["content"]] == ["Echo: hi"]


async def test_rest_v1_stream(js_peer: dict[str, Any], client: httpx.AsyncClient) -> None:
    url = f"{js_peer['rest_url']}/message:stream"
    async with client.stream(
        "POST", url, json={"message": _msg("stream 2 10")}, headers=V1
    ) as resp:
        results = [event async for event in _sse_events(resp)]
    assert [_kind(r) for r in results] == [
        "task",
        "statusUpdate",
        "statusUpdate",
        "artifactUpdate",
        "statusUpdate",
    ]


# --------------------------------------------------------------------- gRPC


def _grpc_request(text: str) -> a2a_pb2.SendMessageRequest:
    return a2a_pb2.SendMessageRequest(
        message=a2a_pb2.Message(
            message_id=uuid.uuid4().hex, role=a2a_pb2.ROLE_USER, parts=[a2a_pb2.Part(text=text)]
        )
    )


async def test_grpc_v1_send_message(js_peer: dict[str, Any]) -> None:
    async with grpc.aio.insecure_channel(js_peer["grpc_target"]) as channel:
        stub = a2a_pb2_grpc.A2AServiceStub(channel)
        resp = await stub.SendMessage(
            _grpc_request("12 30"), metadata=[("a2a-version", "1.0")], timeout=10
        )
    assert resp.WhichOneof("payload") == "message"
    parts = resp.message.parts
    assert [p.text for p in parts if p.WhichOneof("content") == "text"] == ["Sum: 42"]
    data = [p.data for p in parts if p.WhichOneof("content") == "data"]
    assert len(data) == 1
    assert data[0].struct_value.fields["total"].number_value == 42


async def test_grpc_v1_stream(js_peer: dict[str, Any]) -> None:
    async with grpc.aio.insecure_channel(js_peer["grpc_target"]) as channel:
        stub = a2a_pb2_grpc.A2AServiceStub(channel)
        call = stub.SendStreamingMessage(_grpc_request("stream 2 10"), timeout=10)
        kinds = [item.WhichOneof("payload") async for item in call]
    assert kinds == ["task", "status_update", "status_update", "artifact_update", "status_update"]


# --------------------------------------------------------------------- auth


async def test_token_peer(js_peer_token: dict[str, Any], client: httpx.AsyncClient) -> None:
    token = js_peer_token["token"]
    auth = {"Authorization": f"Bearer {token}"}
    body = _rpc("SendMessage", {"message": _msg("12 30")})

    denied = await client.post(js_peer_token["jsonrpc_url"], json=body, headers=V1)
    assert denied.status_code == 401
    wrong = await client.post(
        js_peer_token["jsonrpc_url"], json=body, headers={**V1, "Authorization": "Bearer nope"}
    )
    assert wrong.status_code == 401
    ok = await client.post(js_peer_token["jsonrpc_url"], json=body, headers={**V1, **auth})
    assert ok.status_code == 200
    assert _texts(ok.json()["result"]["message"]["parts"]) == ["Sum: 42"]

    rest_url = f"{js_peer_token['rest_url']}/message:send"
    rest_body = {"message": _msg("hi")}
    assert (await client.post(rest_url, json=rest_body, headers=V1)).status_code == 401
    assert (await client.post(rest_url, json=rest_body, headers={**V1, **auth})).status_code == 200

    # The card stays public and advertises the bearer scheme.
    card = await client.get(js_peer_token["card_url"], headers={"A2A-Version": "1.0"})
    assert card.status_code == 200
    assert "bearerAuth" in card.json()["securitySchemes"]


async def test_token_peer_grpc(js_peer_token: dict[str, Any]) -> None:
    token = js_peer_token["token"]
    async with grpc.aio.insecure_channel(js_peer_token["grpc_target"]) as channel:
        stub = a2a_pb2_grpc.A2AServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await stub.SendMessage(_grpc_request("1 2"), timeout=10)
        assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
        resp = await stub.SendMessage(
            _grpc_request("1 2"), metadata=[("authorization", f"Bearer {token}")], timeout=10
        )
    assert resp.message.parts[0].text == "Sum: 3"


# ------------------------------------------------------------------ signing


async def test_signed_card(js_peer_signed: dict[str, Any], client: httpx.AsyncClient) -> None:
    resp = await client.get(js_peer_signed["card_url"], headers={"A2A-Version": "1.0"})
    card = resp.json()
    assert len(card["signatures"]) == 1
    signature = card["signatures"][0]
    padded = signature["protected"] + "=" * (-len(signature["protected"]) % 4)
    header = json.loads(base64.urlsafe_b64decode(padded))
    assert header["alg"] == "RS256"
    assert header["typ"] == "JOSE"
    assert header["jku"] == f"{js_peer_signed['base_url']}/.well-known/jwks.json"

    jwks = json.loads(Path(js_peer_signed["jwks_path"]).read_text())
    (key,) = jwks["keys"]
    assert key["kid"] == header["kid"]
    assert "d" not in key and "key_ops" not in key
    served = (await client.get(header["jku"])).json()
    assert served == jwks

    # The Python SDK's verifier accepts it (docs/PEERS.md Q12).
    verifier = create_signature_verifier(lambda _kid, _jku: jwt.PyJWK(key), ["RS256"])
    verifier(parse_agent_card(card))
