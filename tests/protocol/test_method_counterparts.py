"""The version switch's method mapping (docs/PROTOCOL.md §2.3.1), Qt-free: every method keeps
its job across versions, and the one without a counterpart says so."""

from __future__ import annotations

import pytest

from app.protocol.methods.catalog import METHODS, MethodRole, counterpart, find_method
from app.protocol.methods.convert import counterpart as convert_counterpart
from app.protocol.types import ProtocolVersion

V1, V03 = ProtocolVersion.V1_0, ProtocolVersion.V0_3

PAIRS = [
    ("SendMessage", "message/send"),
    ("SendStreamingMessage", "message/stream"),
    ("GetTask", "tasks/get"),
    ("CancelTask", "tasks/cancel"),
    ("SubscribeToTask", "tasks/resubscribe"),
    ("CreateTaskPushNotificationConfig", "tasks/pushNotificationConfig/set"),
    ("GetTaskPushNotificationConfig", "tasks/pushNotificationConfig/get"),
    ("ListTaskPushNotificationConfigs", "tasks/pushNotificationConfig/list"),
    ("DeleteTaskPushNotificationConfig", "tasks/pushNotificationConfig/delete"),
    ("GetExtendedAgentCard", "agent/getAuthenticatedExtendedCard"),
]


@pytest.mark.parametrize(("v1_name", "v03_name"), PAIRS)
def test_each_method_maps_to_its_counterpart_both_ways(v1_name: str, v03_name: str) -> None:
    v1, v03 = find_method(V1, v1_name), find_method(V03, v03_name)
    assert v1 is not None and v03 is not None
    assert counterpart(v1, V03) is v03
    assert counterpart(v03, V1) is v1
    assert counterpart(v1, V1) is v1  # the same version: the method itself
    assert (convert_counterpart(V1, v1_name), convert_counterpart(V03, v03_name)) == (
        v03_name,
        v1_name,
    )


def test_streaming_stays_streaming() -> None:
    """Newcomer point 1: SendStreamingMessage became message/send, and back SendMessage."""
    for spec in METHODS:
        other = V03 if spec.version is V1 else V1
        found = counterpart(spec, other)
        if found is not None:
            assert found.streaming is spec.streaming, spec.name
            assert found.role is spec.role and not found.legacy


def test_list_tasks_has_no_0_3_counterpart() -> None:
    list_tasks = find_method(V1, "ListTasks")
    assert list_tasks is not None and list_tasks.role is MethodRole.LIST
    assert counterpart(list_tasks, V03) is None
    assert convert_counterpart(V1, "ListTasks") == ""


def test_legacy_names_map_to_the_current_methods() -> None:
    for legacy, current in (
        ("tasks/send", "SendMessage"),
        ("tasks/sendSubscribe", "SendStreamingMessage"),
    ):
        spec = find_method(V03, legacy)
        assert spec is not None and spec.legacy
        found = counterpart(spec, V1)
        assert found is not None and found.name == current


def test_every_method_has_a_role() -> None:
    assert all(spec.role is not None for spec in METHODS)
