"""Follow-up, cancel and resubscribe requests are built from catalog roles (1.0 and 0.3)."""

from __future__ import annotations

import json

import pytest

from app.protocol.methods.catalog import METHODS, MethodRole, find_method, method_for_role
from app.protocol.request import A2ARequest
from app.protocol.stream.followups import (
    follow_up_method,
    is_send,
    is_streaming,
    task_request,
    template_context,
)
from app.protocol.types import Binding, ProtocolVersion

V1 = ProtocolVersion.V1_0
V03 = ProtocolVersion.V0_3


@pytest.mark.parametrize(
    ("version", "role", "name"),
    [
        (V1, MethodRole.SEND, "SendMessage"),
        (V1, MethodRole.STREAM, "SendStreamingMessage"),
        (V1, MethodRole.GET, "GetTask"),
        (V1, MethodRole.CANCEL, "CancelTask"),
        (V1, MethodRole.SUBSCRIBE, "SubscribeToTask"),
        (V1, MethodRole.EXTENDED_CARD, "GetExtendedAgentCard"),
        (V03, MethodRole.SEND, "message/send"),
        (V03, MethodRole.STREAM, "message/stream"),
        (V03, MethodRole.GET, "tasks/get"),
        (V03, MethodRole.CANCEL, "tasks/cancel"),
        (V03, MethodRole.SUBSCRIBE, "tasks/resubscribe"),
        (V03, MethodRole.EXTENDED_CARD, "agent/getAuthenticatedExtendedCard"),
    ],
)
def test_every_role_has_one_current_method(
    version: ProtocolVersion, role: MethodRole, name: str
) -> None:
    assert method_for_role(version, role).name == name


def test_streaming_roles_agree_with_the_streaming_flag() -> None:
    for spec in METHODS:
        if spec.role in (MethodRole.STREAM, MethodRole.SUBSCRIBE):
            assert spec.streaming, spec.name
        elif spec.role is not None:
            assert not spec.streaming, spec.name


def test_send_methods_include_legacy_names() -> None:
    assert is_send(V03, "tasks/send") and is_send(V03, "tasks/sendSubscribe")
    assert is_send(V1, "SendMessage") and not is_send(V1, "GetTask")
    assert not is_send(V1, "message/send")  # a 0.3 name is not a 1.0 method
    assert is_streaming(V03, "tasks/resubscribe") and not is_streaming(V1, "nope")


@pytest.mark.parametrize(
    ("version", "current", "expected"),
    [
        (V1, "GetTask", "SendStreamingMessage"),
        (V1, "SendMessage", "SendMessage"),
        (V03, "tasks/get", "message/stream"),
        (V03, "tasks/send", "tasks/send"),
    ],
)
def test_follow_up_keeps_a_send_method(
    version: ProtocolVersion, current: str, expected: str
) -> None:
    assert follow_up_method(version, current) == expected


def test_template_context_continues_only_after_follow_up() -> None:
    send = find_method(V1, "SendMessage")
    get = find_method(V1, "GetTask")
    assert send is not None and get is not None
    fresh = template_context(send, "hi", follow_up=None, last_task_id="t", last_context_id="c")
    assert (fresh.text, fresh.task_id, fresh.context_id) == ("hi", "", "")
    turn = template_context(
        send, "hi", follow_up=("c2", "t2"), last_task_id="t", last_context_id="c"
    )
    assert (turn.task_id, turn.context_id) == ("t2", "c2")
    other = template_context(
        get, "hi", follow_up=("c2", "t2"), last_task_id="t", last_context_id="c"
    )
    assert (other.task_id, other.context_id) == ("t", "c")


def _base(version: ProtocolVersion, binding: Binding) -> A2ARequest:
    return A2ARequest(
        endpoint="http://127.0.0.1:9/",
        method="SendMessage" if version is V1 else "message/send",
        body="{}",
        version=version,
        binding=binding,
        headers=(("Authorization", "Bearer x"),),
    )


def test_cancel_request_1_0_jsonrpc() -> None:
    request = task_request(_base(V1, Binding.JSONRPC), MethodRole.CANCEL, "task-1", "ctx-1")
    assert request.method == "CancelTask"
    assert request.headers == (("Authorization", "Bearer x"),)
    body = json.loads(request.body)
    assert body["method"] == "CancelTask" and body["params"] == {"id": "task-1"}


def test_subscribe_request_0_3_jsonrpc_and_rest() -> None:
    rpc = task_request(_base(V03, Binding.JSONRPC), MethodRole.SUBSCRIBE, "task-2")
    assert rpc.method == "tasks/resubscribe"
    assert json.loads(rpc.body)["params"] == {"id": "task-2"}
    rest = task_request(_base(V03, Binding.HTTP_JSON), MethodRole.SUBSCRIBE, "task-2")
    assert rest.method == "tasks/resubscribe" and rest.binding is Binding.HTTP_JSON
    assert json.loads(rest.body) == {"name": "tasks/task-2"}


def test_cancel_request_1_0_rest() -> None:
    rest = task_request(_base(V1, Binding.HTTP_JSON), MethodRole.CANCEL, "task-3")
    assert json.loads(rest.body) == {"id": "task-3"}
