"""Every method's template, converted by the explainer, is accepted by the other version's
real peer (the official SDK server, 1.0 and its 0.3 compat layer; docs/PEERS.md) over
JSON-RPC, HTTP+JSON and gRPC.

"Accepted" means the peer read the body as the method's request: the answer is a result,
or an A2A error about the task's state (a cancelled task cannot be subscribed to), never a
parse, invalid-request, invalid-params or method-not-found error.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.protocol.events import ExchangeEnd, ExchangeError, ExchangeEvent, Outcome, ResponseBody
from app.protocol.exchange import run
from app.protocol.methods.catalog import WEBHOOK_PLACEHOLDER, TemplateContext, methods_for
from app.protocol.methods.convert import convert_request, counterpart
from app.protocol.request import A2ARequest, render_body
from app.protocol.types import Binding, ProtocolVersion

pytestmark = pytest.mark.peer

V1, V03 = ProtocolVersion.V1_0, ProtocolVersion.V0_3
J, R, G = Binding.JSONRPC, Binding.HTTP_JSON, Binding.GRPC
WEBHOOK = "http://127.0.0.1:9/webhook"
CONFIG_ID = "webhook-1"
SHAPE_ERRORS = {-32700, -32600, -32601, -32602}
# The 0.3 compat server's own deviations, in the other test's words (test_matrix.KNOWN;
# docs/PEERS.md Q19, Q21): not about the converted shape.
KNOWN = {
    (V03, R, "tasks/pushNotificationConfig/set"),
    (V03, R, "tasks/pushNotificationConfig/delete"),
    (V03, J, "tasks/pushNotificationConfig/delete"),
    # Subscribing to a finished task: the compat REST server opens the SSE stream and then
    # cuts it (an incomplete chunked body) instead of answering UnsupportedOperation.
    (V03, R, "tasks/resubscribe"),
}
ORDER = ("send", "stream", "get", "push set", "push get", "push list", "push delete", "card",
         "cancel", "subscribe")  # fmt: skip


def _role(name: str) -> str:
    table = {
        "SendMessage": "send", "message/send": "send",
        "SendStreamingMessage": "stream", "message/stream": "stream",
        "GetTask": "get", "tasks/get": "get", "CancelTask": "cancel", "tasks/cancel": "cancel",
        "SubscribeToTask": "subscribe", "tasks/resubscribe": "subscribe",
        "CreateTaskPushNotificationConfig": "push set",
        "tasks/pushNotificationConfig/set": "push set",
        "GetTaskPushNotificationConfig": "push get", "tasks/pushNotificationConfig/get": "push get",
        "ListTaskPushNotificationConfigs": "push list",
        "tasks/pushNotificationConfig/list": "push list",
        "DeleteTaskPushNotificationConfig": "push delete",
        "tasks/pushNotificationConfig/delete": "push delete",
        "GetExtendedAgentCard": "card", "agent/getAuthenticatedExtendedCard": "card",
    }  # fmt: skip
    return table[name]


async def _send(
    peer: dict[str, Any], version: ProtocolVersion, binding: Binding, method: str, body: str
) -> list[ExchangeEvent]:
    url = peer[{J: "jsonrpc_url", R: "rest_url", G: "grpc_target"}[binding]]
    request = A2ARequest(url, method, body, version, binding, timeout=15)
    return [event async for event in run(request)]


def _shape_errors(events: list[ExchangeEvent]) -> list[str]:
    out = []
    for e in events:
        if isinstance(e, ExchangeError) and (
            e.code in SHAPE_ERRORS or "INVALID" in (e.name or "").upper()
            or ("NOT_FOUND" in (e.name or "").upper() and "TASK" not in (e.name or "").upper())
        ):  # fmt: skip
            out.append(f"{e.code} {e.name}: {e.message}")
    return out


def _with_config_id(body: str, version: ProtocolVersion, binding: Binding) -> str:
    obj = json.loads(body.replace(WEBHOOK_PLACEHOLDER, WEBHOOK))
    params = obj["params"] if binding is J else obj
    if version is V1:
        params["id"] = CONFIG_ID
    elif binding is J:
        params["pushNotificationConfig"]["id"] = CONFIG_ID
    else:
        params["config"]["pushNotificationConfig"]["id"] = CONFIG_ID
    return json.dumps(obj)


@pytest.mark.parametrize("binding", [J, R, G], ids=lambda b: b.name)
@pytest.mark.parametrize("source", [V1, V03], ids=lambda v: f"from-{v.value}")
async def test_templates_convert_to_bodies_the_other_peer_accepts(
    sdk_peer: dict[str, Any], source: ProtocolVersion, binding: Binding
) -> None:
    target = V03 if source is V1 else V1
    specs = [s for s in methods_for(source) if not s.legacy and counterpart(source, s.name)]
    specs.sort(key=lambda s: ORDER.index(_role(s.name)))
    assert len(specs) == 10
    # A task to work on, created in the target version (the peer shares its task store).
    ask = render_body(
        next(s for s in methods_for(target) if _role(s.name) == "send"), J,
        TemplateContext(text="ask"),
    )  # fmt: skip
    events = await _send(sdk_peer, target, J, counterpart(source, specs[0].name), ask)
    (answer,) = [e for e in events if isinstance(e, ResponseBody)]
    result = answer.json["result"]
    task_id = (result.get("task") or result)["id"]
    ctx = TemplateContext(text="12 30", task_id=task_id, push_config_id=CONFIG_ID)
    for spec in specs:
        # New messages start tasks of their own: the waiting task is for the other methods.
        fresh = _role(spec.name) in ("send", "stream")
        body = render_body(spec, binding, TemplateContext(text="12 30") if fresh else ctx)
        if _role(spec.name) == "push set":
            body = _with_config_id(body, source, binding)
        converted = convert_request(source, binding, spec.name, body)
        assert converted.version is target
        events = await _send(sdk_peer, target, binding, converted.method, converted.body)
        end = events[-1]
        assert isinstance(end, ExchangeEnd)
        if (target, binding, converted.method) in KNOWN:
            if _role(spec.name) == "push set":  # create it over JSON-RPC to go on
                body = _with_config_id(render_body(spec, J, ctx), source, J)
                via = convert_request(source, J, spec.name, body)
                events = await _send(sdk_peer, target, J, via.method, via.body)
                assert events[-1].outcome is Outcome.OK  # type: ignore[attr-defined]
            continue
        assert _shape_errors(events) == [], (spec.name, converted.body)
        if _role(spec.name) == "subscribe":  # the task was cancelled just before
            assert end.outcome is Outcome.RPC_ERROR
        elif _role(spec.name) != "card":
            assert end.outcome is Outcome.OK, (spec.name, converted.body, events)
