"""The demo agent where a2a-sdk 1.3.0 falls short (app/demo/sdk_workarounds.py): each test
is a behaviour of the SDK the demo agent corrects, seen from a client on loopback."""

from __future__ import annotations

import json
import uuid
from typing import Any

import grpc
import httpx
import pytest
from a2a.types import a2a_pb2, a2a_pb2_grpc
from google.rpc import error_details_pb2, status_pb2

pytestmark = pytest.mark.peer

V1 = {"A2A-Version": "1.0"}


def _rpc(peer: dict[str, Any], method: str, params: Any, **headers: str) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 9, "method": method, "params": params}
    response = httpx.post(peer["jsonrpc_url"], json=body, headers=headers, timeout=10)
    assert response.status_code == 200, response.text
    return dict(response.json())


def _message(text: str, **ids: str) -> dict[str, Any]:
    return {"messageId": uuid.uuid4().hex, "role": "ROLE_USER", "parts": [{"text": text}], **ids}


def _grpc_error(peer: dict[str, Any], method: str, request: Any, version: str) -> grpc.RpcError:
    with grpc.insecure_channel(peer["grpc_target"]) as channel:
        call = getattr(a2a_pb2_grpc.A2AServiceStub(channel), method)
        with pytest.raises(grpc.RpcError) as caught:
            call(request, metadata=[("a2a-version", version)], timeout=10)
    return caught.value


def _grpc_reason(error: grpc.RpcError) -> str:
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for detail in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return str(info.reason)
    return ""


def _rest_reason(response: httpx.Response) -> str:
    return str(response.json()["error"]["details"][0]["reason"])


def test_grpc_refuses_an_a2a_version_it_does_not_speak(sdk_peer: dict[str, Any]) -> None:
    error = _grpc_error(sdk_peer, "GetTask", a2a_pb2.GetTaskRequest(id="x"), "99.0")
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert _grpc_reason(error) == "VERSION_NOT_SUPPORTED"
    # 1.x is served: an unknown task is the answer, not the version.
    assert _grpc_error(sdk_peer, "GetTask", a2a_pb2.GetTaskRequest(id="x"), "1.0").code() == (
        grpc.StatusCode.NOT_FOUND
    )


def test_follow_up_stream_begins_with_the_task_and_history_keeps_the_answer(
    sdk_peer: dict[str, Any],
) -> None:
    task = _rpc(sdk_peer, "SendMessage", {"message": _message("ask")}, **V1)["result"]["task"]
    follow_up = _message("Ann", taskId=task["id"], contextId=task["contextId"])
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage",
            "params": {"message": follow_up}}  # fmt: skip
    with httpx.stream("POST", sdk_peer["jsonrpc_url"], json=body, headers=V1, timeout=10) as r:
        events = [json.loads(line[5:])["result"] for line in r.iter_lines() if line[:5] == "data:"]
    first, last = events[0], events[-1]
    assert first["task"]["id"] == task["id"]
    assert first["task"]["status"]["state"] == "TASK_STATE_WORKING"
    assert first["task"]["history"][-1]["messageId"] == follow_up["messageId"]
    assert last["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    stored = _rpc(sdk_peer, "GetTask", {"id": task["id"]}, **V1)["result"]
    assert [m["parts"][0]["text"] for m in stored["history"]] == [
        "ask",
        "What is your name?",
        "Ann",
    ]


def test_card_caching_headers_and_absolute_grpc_url(sdk_peer: dict[str, Any]) -> None:
    first = httpx.get(sdk_peer["card_url"], timeout=10)
    assert "max-age=" in first.headers["cache-control"]
    assert first.headers["last-modified"].endswith(" GMT")
    again = httpx.get(sdk_peer["card_url"], headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304 and again.headers["last-modified"]
    grpc_urls = {
        i["url"] for i in first.json()["supportedInterfaces"] if i["protocolBinding"] == "GRPC"
    }
    assert grpc_urls == {"http://" + sdk_peer["grpc_target"]}


def test_rest_answers_application_json_and_refuses_other_bodies(sdk_peer: dict[str, Any]) -> None:
    rest = sdk_peer["rest_url"]
    sent = httpx.post(f"{rest}/message:send", json={"message": _message("hi")}, headers=V1)
    assert sent.status_code == 200
    assert sent.headers["content-type"] == "application/json"
    body = json.dumps({"message": _message("hi")})
    typed = {**V1, "Content-Type": "text/plain"}
    refused = httpx.post(f"{rest}/message:send", content=body, headers=typed, timeout=10)
    assert refused.status_code == 415
    assert _rest_reason(refused) == "CONTENT_TYPE_NOT_SUPPORTED"
    rpc = httpx.post(sdk_peer["jsonrpc_url"], content=body, headers=typed, timeout=10)
    assert rpc.json()["error"]["code"] == -32005


@pytest.mark.parametrize("status", ["TASK_STATE_BOGUS", 99])
def test_list_tasks_refuses_an_unknown_status(sdk_peer: dict[str, Any], status: Any) -> None:
    assert _rpc(sdk_peer, "ListTasks", {"status": status}, **V1)["error"]["code"] == -32602
    response = httpx.get(f"{sdk_peer['rest_url']}/tasks", params={"status": status}, headers=V1)
    assert response.status_code == 400 and _rest_reason(response) == "INVALID_PARAMS"
    if isinstance(status, int):
        request = a2a_pb2.ListTasksRequest(status=status)  # type: ignore[arg-type]
        error = _grpc_error(sdk_peer, "ListTasks", request, "1.0")
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_v03_invalid_params_are_32602(sdk_peer: dict[str, Any]) -> None:
    reply = _rpc(sdk_peer, "message/send", {"message": "a string, not a Message"})
    assert reply["error"]["code"] == -32602 and reply["id"] == 9
    assert "params.message" in reply["error"]["data"]
    # A broken envelope stays an invalid request.
    envelope = {"jsonrpc": "1.0", "id": 1, "method": "message/send", "params": {"message": 1}}
    response = httpx.post(sdk_peer["jsonrpc_url"], json=envelope)
    assert response.json()["error"]["code"] == -32600


def test_v03_push_config_delete_answers_with_a_result(sdk_peer: dict[str, Any]) -> None:
    message = {"messageId": uuid.uuid4().hex, "role": "user", "kind": "message",
               "parts": [{"kind": "text", "text": "ask"}]}  # fmt: skip
    task = _rpc(sdk_peer, "message/send", {"message": message})["result"]
    config = {"id": "hook", "url": "http://127.0.0.1:9/hook"}
    params = {"taskId": task["id"], "pushNotificationConfig": config}
    assert "result" in _rpc(sdk_peer, "tasks/pushNotificationConfig/set", params)
    deleted = _rpc(
        sdk_peer,
        "tasks/pushNotificationConfig/delete",
        {"id": task["id"], "pushNotificationConfigId": "hook"},
    )
    assert deleted == {"jsonrpc": "2.0", "id": 9, "result": None}


@pytest.mark.parametrize("verb", ["GET", "POST"])
def test_v03_rest_subscribe_to_an_unknown_task_is_404(sdk_peer: dict[str, Any], verb: str) -> None:
    url = f"{sdk_peer['rest_url']}/v1/tasks/{uuid.uuid4()}:subscribe"
    response = httpx.request(verb, url, timeout=10)
    assert response.status_code == 404
    assert _rest_reason(response) == "TASK_NOT_FOUND"
