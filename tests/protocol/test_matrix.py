"""The method × binding × version matrix against real peers (docs/PEERS.md §1.5).

Every unary method is sent through :func:`app.protocol.exchange.run` — the same path the GUI
and the CLI use — over JSON-RPC, HTTP+JSON and gRPC, protocol 1.0 and 0.3, to the official
Python SDK server (``sdk_peer``, 0.3 through its compat layer) and the official JavaScript
SDK server (``js_peer``). Bodies come from the catalog's own templates, so the templates are
exercised too. Each check reads the parsed result (task id and state, message parts,
push-config fields), not just the status.

A lifecycle runs once per rotation of the three bindings: the task is created (``ask``
parks it in INPUT_REQUIRED) over one binding, fetched over the next and cancelled over the
third, and the push-config methods rotate the same way, so every method meets every
binding. Both peers share one task store across bindings (docs/PEERS.md Q18).

Streaming methods have their own matrix (``test_streaming_peers.py``) and are not sent here.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from app.protocol.events import (
    ErrorKind,
    ExchangeEnd,
    ExchangeError,
    ExchangeEvent,
    Outcome,
    RequestSent,
    ResponseBody,
    ResponseHead,
)
from app.protocol.exchange import run
from app.protocol.methods.catalog import WEBHOOK_PLACEHOLDER, TemplateContext, find_method
from app.protocol.request import A2ARequest, render_body
from app.protocol.types import Binding, ProtocolVersion

pytestmark = pytest.mark.peer

V1 = ProtocolVersion.V1_0
V03 = ProtocolVersion.V0_3
J, R, G = Binding.JSONRPC, Binding.HTTP_JSON, Binding.GRPC
ROTATIONS = [(J, R, G), (R, G, J), (G, J, R)]
WEBHOOK = "http://127.0.0.1:9/webhook"  # nothing listens there; registering is enough
CONFIG_ID = "webhook-1"

# Method names per version: (send, get, cancel, push set, push get, push list, push delete, card)
NAMES = {
    V1: (
        "SendMessage", "GetTask", "CancelTask", "CreateTaskPushNotificationConfig",
        "GetTaskPushNotificationConfig", "ListTaskPushNotificationConfigs",
        "DeleteTaskPushNotificationConfig", "GetExtendedAgentCard",
    ),
    V03: (
        "message/send", "tasks/get", "tasks/cancel", "tasks/pushNotificationConfig/set",
        "tasks/pushNotificationConfig/get", "tasks/pushNotificationConfig/list",
        "tasks/pushNotificationConfig/delete", "agent/getAuthenticatedExtendedCard",
    ),
}  # fmt: skip
STATES = {
    # version, binding dialect → (input required, canceled)
    (V1, True): ("TASK_STATE_INPUT_REQUIRED", "TASK_STATE_CANCELED"),
    (V1, False): ("TASK_STATE_INPUT_REQUIRED", "TASK_STATE_CANCELED"),
    (V03, True): ("input-required", "canceled"),
    (V03, False): ("TASK_STATE_INPUT_REQUIRED", "TASK_STATE_CANCELLED"),
}

# Cells where a peer is known not to do what the method promises, with the outcome the
# debugger reports instead (docs/PEERS.md Q19–Q21):
KNOWN: dict[tuple[str, ProtocolVersion, Binding, str], Outcome] = {
    # The 1.3.0 Python compat server parses the POST body as the whole
    # CreateTaskPushNotificationConfigRequest; the 0.3 proto's rule (and a2a-js) say
    # body = `config` → 400 "No task for " (docs/PROTOCOL.md §3.4, §11 #8; docs/PEERS.md Q19).
    ("sdk", V03, R, "tasks/pushNotificationConfig/set"): Outcome.RPC_ERROR,
    # ... and does not route DELETE /v1/tasks/{id}/pushNotificationConfigs/{configId}.
    ("sdk", V03, R, "tasks/pushNotificationConfig/delete"): Outcome.RPC_ERROR,
    # (Its 0.3 JSON-RPC delete answers without a "result" member; the demo agent adds
    # "result": null, app/demo/sdk_workarounds.py.)
}


def known(
    name: str, version: ProtocolVersion, binding: Binding, method: str, events: list[ExchangeEvent]
) -> bool:
    """True (after checking the outcome) when this cell is a known peer deviation."""
    expected = KNOWN.get((name, version, binding, method))
    if expected is None:
        return False
    assert outcome(events) is expected, errors(events)
    return True


def endpoint(peer: dict[str, Any], binding: Binding) -> str:
    return str(peer[{J: "jsonrpc_url", R: "rest_url", G: "grpc_target"}[binding]])


def body_for(version: ProtocolVersion, binding: Binding, method: str, **ctx: str) -> str:
    spec = find_method(version, method)
    assert spec is not None, method
    text = render_body(spec, binding, TemplateContext(**ctx))
    return text.replace(WEBHOOK_PLACEHOLDER, WEBHOOK)


async def send(
    peer: dict[str, Any],
    binding: Binding,
    version: ProtocolVersion,
    method: str,
    body: str,
) -> list[ExchangeEvent]:
    request = A2ARequest(endpoint(peer, binding), method, body, version, binding, timeout=15)
    return [event async for event in run(request)]


def outcome(events: list[ExchangeEvent]) -> Outcome:
    end = events[-1]
    assert isinstance(end, ExchangeEnd)
    return end.outcome


def errors(events: list[ExchangeEvent]) -> list[ExchangeError]:
    return [e for e in events if isinstance(e, ExchangeError)]


def result(events: list[ExchangeEvent], binding: Binding) -> Any:
    """The parsed result of a successful exchange (JSON-RPC ``result`` or the bare body)."""
    assert outcome(events) is Outcome.OK, [
        (e.kind, e.code, e.name, e.message, e.details) for e in errors(events)
    ] + [e.body[:500] for e in events if isinstance(e, ResponseBody)]
    (body,) = [e for e in events if isinstance(e, ResponseBody)]
    if binding is J:
        return body.json["result"]
    return body.json


def send_result_task(value: Any, version: ProtocolVersion, binding: Binding) -> dict[str, Any]:
    if version is V03 and binding is J:
        assert value["kind"] == "task", value
        return dict(value)
    assert set(value) == {"task"}, value
    return dict(value["task"])


def push_fields(value: Any, version: ProtocolVersion, binding: Binding) -> tuple[str, str, str]:
    """(task id, config id, url) from a push config in any of the three dialects."""
    if version is V1:
        return value["taskId"], value["id"], value["url"]
    config = value["pushNotificationConfig"]
    if binding is J:
        return value["taskId"], config["id"], config["url"]
    # 0.3 proto: name = tasks/{task}/pushNotificationConfigs/{config}
    _, task_id, _, config_id = value["name"].split("/")
    return task_id, config_id, config["url"]


def push_list(value: Any, version: ProtocolVersion, binding: Binding) -> list[Any]:
    if version is V03 and binding is J:
        assert isinstance(value, list)
        return value
    return list(value.get("configs", []))


def with_config_id(body: str, version: ProtocolVersion, binding: Binding) -> str:
    """Give the created push config a fixed id (the SDKs otherwise pick the task id or a UUID)."""
    obj = json.loads(body)
    if version is V1:
        params = obj["params"] if binding is J else obj
        params["id"] = CONFIG_ID
    elif binding is J:
        obj["params"]["pushNotificationConfig"]["id"] = CONFIG_ID
    else:
        # The template names the config in `configId` and `config.name`; the Python SDK
        # ignores both and reads `config.pushNotificationConfig.id` (else the task id).
        obj["config"]["pushNotificationConfig"]["id"] = CONFIG_ID
    return json.dumps(obj)


PEERS = [
    pytest.param(("sdk_peer", V1), id="sdk-1.0"),
    pytest.param(("sdk_peer", V03), id="sdk-0.3"),
    pytest.param(("js_peer", V1), id="js-1.0"),
    pytest.param(("js_peer", V03), id="js-0.3"),
]


@pytest.fixture(params=PEERS)
def target(request: pytest.FixtureRequest) -> tuple[str, dict[str, Any], ProtocolVersion]:
    fixture, version = request.param
    peer: dict[str, Any] = request.getfixturevalue(fixture)
    return fixture.removesuffix("_peer"), peer, version


@pytest.mark.parametrize("bindings", ROTATIONS, ids=lambda r: "-".join(b.name for b in r))
async def test_task_lifecycle(
    target: tuple[str, dict[str, Any], ProtocolVersion],
    bindings: tuple[Binding, Binding, Binding],
) -> None:
    """Send (ask) over A, get over B, push configs around A/B/C, cancel over C."""
    name, peer, version = target
    a, b, c = bindings
    send_m, get_m, cancel_m, set_m, pget_m, plist_m, pdel_m, _ = NAMES[version]

    events = await send(peer, a, version, send_m, body_for(version, a, send_m, text="ask"))
    task = send_result_task(result(events, a), version, a)
    waiting = STATES[(version, a is J)][0]
    assert task["status"]["state"] == waiting
    question = task["status"]["message"]
    parts = question.get("parts") or question.get("content")
    assert parts[0]["text"] == "What is your name?"
    task_id = task["id"]

    events = await send(peer, b, version, get_m, body_for(version, b, get_m, task_id=task_id))
    fetched = result(events, b)
    assert fetched["id"] == task_id
    assert fetched["status"]["state"] == STATES[(version, b is J)][0]

    # Push configs: create over A, get over B, list over C, delete over A.
    body = with_config_id(body_for(version, a, set_m, task_id=task_id), version, a)
    events = await send(peer, a, version, set_m, body)
    if known(name, version, a, set_m, events):
        # Create it over JSON-RPC to go on with the other cells.
        body = with_config_id(body_for(version, J, set_m, task_id=task_id), version, J)
        events = await send(peer, J, version, set_m, body)
        created = push_fields(result(events, J), version, J)
    else:
        created = push_fields(result(events, a), version, a)
    assert created == (task_id, CONFIG_ID, WEBHOOK)

    ctx = {"task_id": task_id, "push_config_id": CONFIG_ID}
    events = await send(peer, b, version, pget_m, body_for(version, b, pget_m, **ctx))
    assert push_fields(result(events, b), version, b) == (task_id, CONFIG_ID, WEBHOOK)

    events = await send(peer, c, version, plist_m, body_for(version, c, plist_m, **ctx))
    listed = [push_fields(v, version, c) for v in push_list(result(events, c), version, c)]
    assert (task_id, CONFIG_ID, WEBHOOK) in listed

    events = await send(peer, a, version, pdel_m, body_for(version, a, pdel_m, **ctx))
    if not known(name, version, a, pdel_m, events):
        result(events, a)  # success; an empty answer is fine
        events = await send(peer, b, version, plist_m, body_for(version, b, plist_m, **ctx))
        listed = [push_fields(v, version, b) for v in push_list(result(events, b), version, b)]
        assert (task_id, CONFIG_ID, WEBHOOK) not in listed

    events = await send(peer, c, version, cancel_m, body_for(version, c, cancel_m, task_id=task_id))
    cancelled = result(events, c)
    assert cancelled["id"] == task_id
    assert cancelled["status"]["state"] == STATES[(version, c is J)][1]

    events = await send(peer, a, version, get_m, body_for(version, a, get_m, task_id=task_id))
    assert result(events, a)["status"]["state"] == STATES[(version, a is J)][1]


@pytest.mark.parametrize("binding", [J, R, G], ids=lambda b: b.name)
async def test_send_message_reply(
    target: tuple[str, dict[str, Any], ProtocolVersion], binding: Binding
) -> None:
    """A plain text gets a Message (no task): ``Echo: <text>`` in its parts."""
    _, peer, version = target
    method = NAMES[version][0]
    events = await send(
        peer, binding, version, method, body_for(version, binding, method, text="hi")
    )
    value = result(events, binding)
    if version is V03 and binding is J:
        assert value["kind"] == "message"
        message = value
    else:
        assert set(value) == {"message"}, value
        message = value["message"]
    parts = message.get("parts") or message.get("content")
    assert parts[0]["text"] == "Echo: hi"
    assert message["role"] in ("agent", "ROLE_AGENT")


@pytest.mark.parametrize("binding", [J, R, G], ids=lambda b: b.name)
async def test_extended_card(
    target: tuple[str, dict[str, Any], ProtocolVersion], binding: Binding
) -> None:
    _, peer, version = target
    method = NAMES[version][7]
    events = await send(peer, binding, version, method, body_for(version, binding, method))
    card = result(events, binding)
    assert isinstance(card["name"], str) and card["name"]


@pytest.mark.parametrize("binding", [J, R, G], ids=lambda b: b.name)
@pytest.mark.parametrize("fixture", ["sdk_peer", "js_peer"])
async def test_list_tasks_1_0(
    binding: Binding, fixture: str, request: pytest.FixtureRequest
) -> None:
    """ListTasks filtered by the context of a fresh task finds exactly that task."""
    peer = request.getfixturevalue(fixture)
    events = await send(peer, J, V1, "SendMessage", body_for(V1, J, "SendMessage", text="ask"))
    task = result(events, J)["task"]
    body = body_for(V1, binding, "ListTasks", context_id=task["contextId"])
    events = await send(peer, binding, V1, "ListTasks", body)
    listed = result(events, binding)
    assert [t["id"] for t in listed["tasks"]] == [task["id"]]
    assert listed["tasks"][0]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    if binding is R:
        (sent,) = [e for e in events if isinstance(e, RequestSent)]
        assert sent.method == "GET"
        assert f"contextId={task['contextId']}" in sent.url and "pageSize=20" in sent.url


# ------------------------------------------------------------------ errors, usage


async def test_grpc_unknown_field_is_a_usage_error_naming_it(sdk_peer: dict[str, Any]) -> None:
    events = await send(sdk_peer, G, V1, "GetTask", '{"id": "x", "histryLength": 3}')
    assert outcome(events) is Outcome.USAGE_ERROR
    (error,) = errors(events)
    assert error.kind is ErrorKind.USAGE and "histryLength" in error.message
    assert not [e for e in events if isinstance(e, RequestSent)]


@pytest.mark.parametrize("fixture", ["sdk_peer", "js_peer"])
async def test_grpc_not_found_decodes_error_info(
    fixture: str, request: pytest.FixtureRequest
) -> None:
    peer = request.getfixturevalue(fixture)
    events = await send(peer, G, V1, "GetTask", json.dumps({"id": f"no-such-{uuid.uuid4()}"}))
    assert outcome(events) is Outcome.RPC_ERROR
    (head,) = [e for e in events if isinstance(e, ResponseHead)]
    assert (head.status, head.reason) == (5, "NOT_FOUND")
    (error,) = errors(events)
    assert error.kind is ErrorKind.RPC and error.code == "NOT_FOUND"
    assert error.message
    assert any(line.startswith("ErrorInfo: reason=TASK_NOT_FOUND") for line in error.details)
    assert any(key == "grpc-status-details-bin" for key, _ in error.trailers)
    assert error.data[0]["reason"] == "TASK_NOT_FOUND"
    # The CLI's error record carries all of it (README, jsonl records).
    record = error.as_record()
    assert record["data"] == error.data and record["details"] == list(error.details)
    assert record["trailers"] == [list(pair) for pair in error.trailers]


async def test_grpc_0_3_not_found_has_the_class_name_in_details(sdk_peer: dict[str, Any]) -> None:
    body = json.dumps({"name": f"tasks/no-such-{uuid.uuid4()}"})
    events = await send(sdk_peer, G, V03, "tasks/get", body)
    (error,) = errors(events)
    assert error.code == "NOT_FOUND"
    assert error.message.startswith("TaskNotFoundError")


@pytest.mark.parametrize("fixture", ["sdk_peer", "js_peer"])
async def test_rest_error_body_is_decoded(fixture: str, request: pytest.FixtureRequest) -> None:
    peer = request.getfixturevalue(fixture)
    task_id = f"no such {uuid.uuid4()}"
    events = await send(peer, R, V1, "GetTask", json.dumps({"id": task_id}))
    (sent,) = [e for e in events if isinstance(e, RequestSent)]
    assert "/tasks/no%20such%20" in sent.url
    assert outcome(events) is Outcome.RPC_ERROR
    (error,) = errors(events)
    assert (error.code, error.name) == (404, "NOT_FOUND")
    assert any(line.startswith("ErrorInfo: reason=TASK_NOT_FOUND") for line in error.details)


async def test_rest_plain_text_error_page_is_shown_as_text(sdk_peer: dict[str, Any]) -> None:
    """A wrong base URL hits Starlette's plain ``404 Not Found`` (docs/PEERS.md Q22)."""
    wrong = {**sdk_peer, "rest_url": sdk_peer["rest_url"] + "/nowhere"}
    events = await send(wrong, R, V1, "GetTask", '{"id": "x"}')
    (error,) = errors(events)
    assert error.kind is ErrorKind.RPC and error.code == 404
    assert error.message == "HTTP 404 Not Found: Not Found"


async def test_rest_tenant_is_a_leading_path_segment(sdk_peer: dict[str, Any]) -> None:
    request = A2ARequest(
        sdk_peer["rest_url"], "GetTask", '{"id": "t1"}', V1, R, tenant="acme", timeout=15
    )
    events = [event async for event in run(request)]
    (sent,) = [e for e in events if isinstance(e, RequestSent)]
    assert sent.url == sdk_peer["rest_url"] + "/acme/tasks/t1"
    assert outcome(events) is Outcome.RPC_ERROR  # the task does not exist in any tenant


async def test_grpc_connection_refused_is_a_transport_error() -> None:
    events = await send({"grpc_target": "127.0.0.1:9"}, G, V1, "GetTask", '{"id": "x"}')
    (error,) = errors(events)
    assert error.kind is ErrorKind.TRANSPORT and error.code == "UNAVAILABLE"
    assert not [e for e in events if isinstance(e, ResponseHead)]


async def test_grpc_sends_metadata_lower_case_with_a2a_version(sdk_peer: dict[str, Any]) -> None:
    request = A2ARequest(
        "http://" + sdk_peer["grpc_target"],
        "GetExtendedAgentCard",
        "{}",
        V1,
        G,
        headers=(("X-Debug", "1"),),
        timeout=15,
    )
    events = [event async for event in run(request)]
    (sent,) = [e for e in events if isinstance(e, RequestSent)]
    assert sent.headers == (("a2a-version", "1.0"), ("x-debug", "1"))
    assert sent.url.endswith("/lf.a2a.v1.A2AService/GetExtendedAgentCard")
    assert outcome(events) is Outcome.OK
