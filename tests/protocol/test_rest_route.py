"""REST routing from the descriptors' ``google.api.http`` rules (no peer needed)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from app.protocol.methods.catalog import METHODS, TemplateContext, find_method
from app.protocol.transports.rest import join_url
from app.protocol.types import Binding, ProtocolVersion
from app.protocol.wire.a2a_errors import UsageError
from app.protocol.wire.rest_route import RestRoute, build_route, http_rules

V1, V03 = ProtocolVersion.V1_0, ProtocolVersion.V0_3


def route(version: ProtocolVersion, method: str, obj: dict[str, Any], **kw: Any) -> RestRoute:
    spec = find_method(version, method)
    assert spec is not None
    return build_route(spec, obj, **kw)


@pytest.mark.parametrize(
    ("version", "method", "obj", "verb", "path", "query", "body"),
    [
        (V1, "SendMessage", {"message": {"messageId": "m"}}, "POST", "/message:send", (),
         {"message": {"messageId": "m"}}),
        (V1, "GetTask", {"id": "t1", "historyLength": 2}, "GET", "/tasks/t1",
         (("historyLength", "2"),), None),
        (V1, "CancelTask", {"id": "t1"}, "POST", "/tasks/t1:cancel", (), {}),
        (V1, "SubscribeToTask", {"id": "t1"}, "POST", "/tasks/t1:subscribe", (), None),
        (V1, "CreateTaskPushNotificationConfig", {"taskId": "t1", "url": "u"}, "POST",
         "/tasks/t1/pushNotificationConfigs", (), {"url": "u"}),
        (V1, "GetTaskPushNotificationConfig", {"taskId": "t1", "id": "c"}, "GET",
         "/tasks/t1/pushNotificationConfigs/c", (), None),
        (V1, "DeleteTaskPushNotificationConfig", {"task_id": "t1", "id": "c"}, "DELETE",
         "/tasks/t1/pushNotificationConfigs/c", (), None),
        (V1, "ListTaskPushNotificationConfigs", {"taskId": "t1", "pageSize": 5}, "GET",
         "/tasks/t1/pushNotificationConfigs", (("pageSize", "5"),), None),
        (V1, "GetExtendedAgentCard", {}, "GET", "/extendedAgentCard", (), None),
        (V03, "message/send", {"message": {"content": []}}, "POST", "/v1/message:send", (),
         {"message": {"content": []}}),
        (V03, "tasks/get", {"name": "tasks/t1", "historyLength": 0}, "GET", "/v1/tasks/t1",
         (("historyLength", "0"),), None),
        (V03, "tasks/cancel", {"name": "tasks/t1"}, "POST", "/v1/tasks/t1:cancel", (), {}),
        (V03, "tasks/pushNotificationConfig/get",
         {"name": "tasks/t1/pushNotificationConfigs/c"}, "GET",
         "/v1/tasks/t1/pushNotificationConfigs/c", (), None),
        (V03, "tasks/pushNotificationConfig/list", {"parent": "tasks/t1"}, "GET",
         "/v1/tasks/t1/pushNotificationConfigs", (), None),
        (V03, "agent/getAuthenticatedExtendedCard", {}, "GET", "/v1/card", (), None),
    ],
)  # fmt: skip
def test_routes(
    version: ProtocolVersion,
    method: str,
    obj: dict[str, Any],
    verb: str,
    path: str,
    query: tuple[tuple[str, str], ...],
    body: Any,
) -> None:
    got = route(version, method, obj)
    assert (got.verb, got.path, got.query, got.body) == (verb, path, query, body)


def test_rules_come_from_the_descriptors() -> None:
    spec = find_method(V1, "GetTask")
    assert spec is not None
    primary, with_tenant = http_rules(spec)
    assert (primary.verb, primary.template) == ("GET", "/tasks/{id=*}")
    assert with_tenant.template == "/{tenant}/tasks/{id=*}"


def test_every_catalog_method_with_an_rpc_routes_from_its_template() -> None:
    ctx = TemplateContext(task_id="t1", push_config_id="c1")
    for spec in METHODS:
        if spec.grpc_rpc:
            got = build_route(spec, spec.template(Binding.HTTP_JSON, ctx))
            assert got.path.startswith("/v1/" if spec.version is V03 else "/"), spec.name


def test_single_segment_ids_are_percent_encoded_whole() -> None:
    assert route(V1, "GetTask", {"id": "a b/c?d"}).path == "/tasks/a%20b%2Fc%3Fd"


def test_resource_names_keep_slashes_and_encode_segments() -> None:
    assert route(V03, "tasks/get", {"name": "tasks/a b"}).path == "/v1/tasks/a%20b"


def test_a_resource_name_of_the_wrong_form_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match=re.escape("'name' must look like 'tasks/{id}'")):
        route(V03, "tasks/get", {"name": "t1"})


def test_0_3_create_push_parent_accepts_the_documented_tasks_id_form() -> None:
    """The proto rule says {parent=tasks/*/pushNotificationConfigs}; the field says tasks/{id}."""
    obj = {"parent": "tasks/t1", "configId": "c", "config": {"name": "x"}}
    got = route(V03, "tasks/pushNotificationConfig/set", obj)
    assert got.path == "/v1/tasks/t1/pushNotificationConfigs"
    assert got.body == {"name": "x"}  # body: "config"
    assert got.query == (("configId", "c"),)  # unbound fields go to the query


def test_tenant_selects_the_prefixed_binding() -> None:
    got = route(V1, "CancelTask", {"id": "t1"}, tenant="acme corp")
    assert got.path == "/acme%20corp/tasks/t1:cancel"
    assert got.body == {}
    assert route(V1, "GetTask", {"id": "t1", "tenant": "own"}, tenant="x").path == "/own/tasks/t1"
    empty = route(V1, "GetTask", {"id": "t1", "tenant": ""})
    assert (empty.path, empty.query) == ("/tasks/t1", ())


def test_tenant_is_ignored_for_0_3() -> None:
    assert route(V03, "tasks/get", {"name": "tasks/t1"}, tenant="acme").path == "/v1/tasks/t1"


def test_query_encoding() -> None:
    obj = {
        "status": 6,
        "include_artifacts": True,
        "pageSize": 2,
        "contextId": "c",
        "statusTimestampAfter": "2026-01-01T00:00:00Z",
    }
    assert route(V1, "ListTasks", obj).query == (
        ("status", "TASK_STATE_INPUT_REQUIRED"),
        ("includeArtifacts", "true"),
        ("pageSize", "2"),
        ("contextId", "c"),
        ("statusTimestampAfter", "2026-01-01T00:00:00Z"),
    )
    assert route(V1, "ListTasks", {"x": ["a", "b"]}).query == (("x", "a"), ("x", "b"))


def test_nested_objects_cannot_be_query_parameters() -> None:
    with pytest.raises(UsageError, match="'metadata' is a nested object"):
        route(V1, "GetTask", {"id": "t", "metadata": {"a": 1}})


def test_a_missing_path_field_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="needs 'taskId'"):
        route(V1, "GetTaskPushNotificationConfig", {"id": "c"})


def test_subscribe_verb_is_selectable() -> None:
    assert route(V1, "SubscribeToTask", {"id": "t"}, subscribe_verb="GET").verb == "GET"
    assert route(V03, "tasks/resubscribe", {"name": "tasks/t"}).verb == "POST"


def test_the_body_is_the_whole_object_only_when_nothing_moved() -> None:
    assert route(V1, "SendMessage", {"message": {}}).body_is_whole_object
    assert not route(V1, "SendMessage", {"message": {}}, tenant="t").body_is_whole_object


def test_legacy_names_have_no_rest_form() -> None:
    with pytest.raises(UsageError, match="only in the JSON-RPC binding"):
        route(V03, "tasks/send", {})


def test_join_url_keeps_the_encoded_path_and_base_query() -> None:
    url = join_url("http://h:1/rest/?k=1", "/tasks/a%2Fb", (("x", "a b"),))
    assert url == "http://h:1/rest/tasks/a%2Fb?k=1&x=a%20b"
    with pytest.raises(UsageError):
        join_url("h:1", "/tasks", ())
