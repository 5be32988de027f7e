"""Pure checks that a parsed unary result is what the method promises."""

from __future__ import annotations

from typing import Any

import pytest

from app.protocol.methods.catalog import find_method
from app.protocol.methods.results import allows_empty_body, check_result
from app.protocol.types import Binding, ProtocolVersion

V1, V03 = ProtocolVersion.V1_0, ProtocolVersion.V0_3
J, R, G = Binding.JSONRPC, Binding.HTTP_JSON, Binding.GRPC
TASK = {"id": "t", "status": {"state": "TASK_STATE_WORKING"}}
MSG = {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}


def check(version: ProtocolVersion, method: str, binding: Binding, value: Any) -> str | None:
    spec = find_method(version, method)
    assert spec is not None
    return check_result(spec, binding, value)


@pytest.mark.parametrize("binding", [J, R, G])
def test_1_0_send_message_needs_exactly_one_of_task_or_message(binding: Binding) -> None:
    assert check(V1, "SendMessage", binding, {"task": TASK}) is None
    assert check(V1, "SendMessage", binding, {"message": MSG}) is None
    both = check(V1, "SendMessage", binding, {"task": TASK, "message": MSG})
    assert both == 'SendMessage result has "task" and "message"; exactly one is expected'
    assert "has none of" in (check(V1, "SendMessage", binding, {}) or "")
    assert "is an array" in (check(V1, "SendMessage", binding, []) or "")


def test_0_3_jsonrpc_send_result_is_discriminated_by_kind() -> None:
    task = {"kind": "task", "id": "t", "status": {"state": "completed"}}
    assert check(V03, "message/send", J, task) is None
    assert check(V03, "message/send", J, {**MSG, "kind": "message"}) is None
    assert check(V03, "message/send", J, {"task": task}) == (
        'message/send result has kind None, expected "task" or "message"'
    )
    # A 1.0 state in a 0.3 JSON-RPC task is understood: a finding, not a protocol error
    # (tests/protocol/test_findings.py); a state that is no value at all is refused.
    other = {**task, "status": {"state": "TASK_STATE_COMPLETED"}}
    assert check(V03, "tasks/get", J, other) is None
    bad = {**task, "status": {"state": {"x": 1}}}
    assert "not a 0.3 JSON-RPC state" in (check(V03, "tasks/get", J, bad) or "")


def test_0_3_proto_dialect_for_rest_and_grpc() -> None:
    task = {"id": "t", "status": {"state": "TASK_STATE_CANCELLED"}}
    assert check(V03, "message/send", R, {"task": task}) is None
    assert check(V03, "tasks/cancel", G, task) is None
    msg = {"messageId": "m", "role": "ROLE_AGENT", "content": [{"text": "x"}]}
    assert check(V03, "message/send", G, {"message": msg}) is None
    assert (
        check(V03, "tasks/get", R, {"id": "t", "status": {"state": "TASK_STATE_CANCELED"}}) is None
    )
    assert "not a 0.3 proto state" in (
        check(V03, "tasks/get", R, {"id": "t", "status": {"state": None}}) or ""
    )


@pytest.mark.parametrize(
    ("version", "method", "binding", "value", "problem"),
    [
        (V1, "GetTask", G, {"status": {"state": "TASK_STATE_WORKING"}}, 'without an "id"'),
        (V1, "GetTask", J, {"id": "t"}, 'without a "status"'),
        (V1, "CancelTask", R, "ok", "is a string"),
        (V1, "ListTasks", R, {"tasks": [TASK, {"id": "x"}]}, "item 1 is a Task without"),
        (V1, "GetTaskPushNotificationConfig", J, {"id": "c"}, 'without "url"'),
        (V1, "DeleteTaskPushNotificationConfig", R, {"x": 1}, "expected an empty answer"),
        (V1, "GetExtendedAgentCard", G, {}, 'without "name"'),
        (V03, "tasks/pushNotificationConfig/list", J, {"configs": []}, "expected an array"),
        (V03, "tasks/pushNotificationConfig/get", R, {"taskId": "t"}, 'without "name"'),
    ],
)
def test_mismatches_say_what_is_wrong(
    version: ProtocolVersion, method: str, binding: Binding, value: Any, problem: str
) -> None:
    found = check(version, method, binding, value)
    assert found is not None and found.startswith(f"{method} result ") and problem in found


@pytest.mark.parametrize(
    ("version", "method", "binding", "value"),
    [
        (V1, "ListTasks", G, {}),  # ProtoJSON omits an empty repeated field
        (V1, "DeleteTaskPushNotificationConfig", J, None),
        (V1, "DeleteTaskPushNotificationConfig", G, {}),
        (V03, "tasks/pushNotificationConfig/list", J, []),
        (V03, "tasks/pushNotificationConfig/delete", J, None),
        (V03, "agent/getAuthenticatedExtendedCard", R, {"name": "Demo"}),
        (V1, "SendStreamingMessage", J, "anything: streams are checked per item"),
    ],
)
def test_good_results_pass(
    version: ProtocolVersion, method: str, binding: Binding, value: Any
) -> None:
    assert check(version, method, binding, value) is None


def test_only_deletes_may_answer_with_an_empty_body() -> None:
    delete = find_method(V1, "DeleteTaskPushNotificationConfig")
    get = find_method(V1, "GetTask")
    assert delete is not None and get is not None
    assert allows_empty_body(delete) and not allows_empty_body(get)
