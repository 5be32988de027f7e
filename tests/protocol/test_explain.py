"""The explainer's annotations: each difference between the 0.3 and 1.0 shapes names its
section of docs/PROTOCOL.md; conversion is explicit and refuses what it cannot carry."""

from __future__ import annotations

import json

import pytest

from app.protocol.methods.catalog import TemplateContext, find_method
from app.protocol.methods.convert import ConversionError, convert_request
from app.protocol.methods.explain import explain_request, explain_response
from app.protocol.request import render_body
from app.protocol.types import Binding, ProtocolVersion

V1, V03 = ProtocolVersion.V1_0, ProtocolVersion.V0_3
J, R, G = Binding.JSONRPC, Binding.HTTP_JSON, Binding.GRPC


def body(version: ProtocolVersion, binding: Binding, method: str, **ctx: str) -> str:
    spec = find_method(version, method)
    assert spec is not None
    return render_body(spec, binding, TemplateContext(**ctx))


def table(explanation: object) -> set[tuple[str, str, str, str]]:
    return {(d.aspect, d.v03, d.v10, d.section) for d in explanation.differences}  # type: ignore[attr-defined]


def test_jsonrpc_send_differences() -> None:
    explained = explain_request(V03, J, "message/send", body(V03, J, "message/send"))
    assert explained.v10.method == "SendMessage"
    assert {
        ("method", "message/send", "SendMessage", "§2.3.1"),
        ("header", "(none)", "1.0", "§8.1.1"),
        ("kind discriminator", "kind: message", "(none: the member name tells)", "§5.2"),
        ("kind discriminator", "kind: text", "(none: the member name tells)", "§5.2"),
        ("role", "user", "ROLE_USER", "§5.3"),
    } <= table(explained)
    params = json.loads(explained.v10.text)["params"]
    assert params["message"]["parts"] == [{"text": "hello"}]


def test_rest_routes_content_types_and_grpc_services() -> None:
    rest = explain_request(V1, R, "GetTask", body(V1, R, "GetTask", task_id="t1"))
    assert ("REST route", "GET /v1/tasks/t1", "GET /tasks/t1", "§3.1, §3.4") in table(rest)
    assert ("header", "application/json", "application/a2a+json", "§3.1.3") in table(rest)
    assert json.loads(rest.v03.text) == {"name": "tasks/t1", "historyLength": 10}
    grpc = explain_request(V1, G, "SubscribeToTask", body(V1, G, "SubscribeToTask", task_id="t"))
    assert (
        "gRPC method", "/a2a.v1.A2AService/TaskSubscription",
        "/lf.a2a.v1.A2AService/SubscribeToTask", "§4.1",
    ) in table(grpc)  # fmt: skip
    send = explain_request(V1, R, "SendMessage", body(V1, R, "SendMessage"))
    assert ("part list", "content: [...]", "parts: [...]", "§5.2") in table(send)


def test_tenant_is_dropped_with_a_note() -> None:
    text = body(V1, J, "CancelTask", task_id="t", tenant="acme")
    converted = convert_request(V1, J, "CancelTask", text)
    assert "tenant" not in converted.body and converted.notes


def test_response_state_role_and_wrapper() -> None:
    answer = {
        "jsonrpc": "2.0", "id": 1,
        "result": {
            "kind": "task", "id": "t", "contextId": "c", "status": {"state": "input-required"},
            "history": [{"kind": "message", "role": "agent", "messageId": "m",
                         "parts": [{"kind": "text", "text": "Name?"}]}],
        },
    }  # fmt: skip
    explained = explain_response(V03, J, "message/send", json.dumps(answer))
    assert explained is not None
    assert json.loads(explained.v10.text)["result"]["task"]["status"]["state"] == (
        "TASK_STATE_INPUT_REQUIRED"
    )
    assert {
        ("task state", "input-required", "TASK_STATE_INPUT_REQUIRED", "§5.3"),
        ("role", "agent", "ROLE_AGENT", "§5.3"),
    } <= table(explained)
    assert explained.differences[0].aspect == "result"
    back = explain_response(V1, J, "SendMessage", explained.v10.text)
    assert back is not None and json.loads(back.v03.text)["result"]["kind"] == "task"


def test_error_codes_by_version() -> None:
    error = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32007, "message": "no"}}
    explained = explain_response(V1, J, "GetExtendedAgentCard", json.dumps(error))
    assert explained is not None
    assert explained.differences[0].v03 == "AuthenticatedExtendedCardNotConfiguredError"
    assert explained.differences[0].v10 == "ExtendedAgentCardNotConfiguredError"
    assert explain_response(V1, J, "ListTasks", json.dumps(error)) is None  # 1.0 only


def test_rest_and_grpc_answers_in_the_0_3_proto() -> None:
    task = {
        "id": "t", "contextId": "c", "status": {"state": "TASK_STATE_CANCELED"},
        "history": [{"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "ok"}]}],
    }  # fmt: skip
    explained = explain_response(V1, R, "SendMessage", json.dumps({"task": task}))
    assert explained is not None
    v03 = json.loads(explained.v03.text)["task"]
    assert v03["status"]["state"] == "TASK_STATE_CANCELLED"  # the 0.3 proto's spelling
    assert v03["history"][0]["content"] == [{"text": "ok"}]
    assert ("task state", "TASK_STATE_CANCELLED", "TASK_STATE_CANCELED", "§5.3") in table(explained)
    back = explain_response(V03, G, "tasks/get", json.dumps(v03))
    assert back is not None
    assert json.loads(back.v10.text)["status"]["state"] == "TASK_STATE_CANCELED"


def test_refusals() -> None:
    with pytest.raises(ConversionError, match=r"no A2A 0\.3 counterpart"):
        convert_request(V1, J, "ListTasks", body(V1, J, "ListTasks"))
    with pytest.raises(ConversionError, match="not JSON"):
        convert_request(V03, J, "message/send", "{")
    with pytest.raises(ConversionError, match=r"Not a valid 0\.3 message/send"):
        convert_request(V03, J, "message/send", '{"method": "message/send", "params": {}}')
    with pytest.raises(ConversionError, match="tasks/"):
        convert_request(V03, R, "tasks/get", '{"name": "jobs/1"}')
