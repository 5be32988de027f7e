"""Assertions and captures of saved requests: paths, ops, stream subjects, the x-a2a form."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from app.protocol.events import NOT_JSON, ExchangeEnd, Outcome, ResponseBody, StreamItem
from app.protocol.types import Binding, ProtocolVersion
from app.protocol.wire.item_json import json_of_raw
from app.spec import assertions
from app.spec.assertions import Assertion, AssertionOp, Observed, capture, evaluate, problem
from app.spec.json_paths import PathError, select
from app.spec.xa2a import SavedRequest, XA2AError, from_x_a2a, to_x_a2a

TASK = {
    "jsonrpc": "2.0",
    "id": 1,
    "result": {
        "task": {
            "id": "t-1",
            "contextId": "c-1",
            "status": {"state": "TASK_STATE_COMPLETED"},
            "artifacts": [{"artifactId": "a", "parts": [{"text": "Sum: 42"}, {"text": "ok"}]}],
        }
    },
}


def unary(document: Any, ms: float = 120.0) -> Observed:
    observed = Observed()
    raw = json.dumps(document).encode()
    observed.feed(ResponseBody(0.1, raw, "application/json", json=document))
    observed.feed(ExchangeEnd(ms / 1000, Outcome.OK))
    return observed


def check(path: str, op: str, value: Any = None, document: Any = TASK) -> tuple[bool, Any, str]:
    (result,) = evaluate([Assertion(path, AssertionOp(op), value)], unary(document))
    return result.passed, result.actual, result.message


def test_json_pointer_and_jsonpath_select_the_same_values() -> None:
    assert select(TASK, "/result/task/status/state").value == "TASK_STATE_COMPLETED"
    assert select(TASK, "$.result.task.status.state").value == "TASK_STATE_COMPLETED"
    assert select(TASK, "$['result']['task'].artifacts[-1].artifactId").value == "a"
    assert select(TASK, "$.result.task.artifacts[0].parts[*].text").value == ["Sum: 42", "ok"]
    assert select({"a/b": {"~": 1}}, "/a~1b/~0").value == 1
    assert select(TASK, "").value is TASK
    assert not select(TASK, "/result/task/artifacts/5").found
    assert not select(TASK, "/result/task/artifacts/-").found
    with pytest.raises(PathError, match="starts with"):
        select(TASK, "result.task")
    with pytest.raises(PathError, match="unsupported JSONPath"):
        select(TASK, "$..id")


@pytest.mark.parametrize(
    ("path", "op", "value", "passed"),
    [
        ("/result/task/id", "equals", "t-1", True),
        ("/id", "equals", 1.0, True),
        ("/id", "equals", True, False),  # JSON: true is not 1
        ("/result/task/artifacts/0/parts/0/text", "contains", "42", True),
        ("$.result.task.artifacts[0].parts[*].text", "contains", "Sum", True),
        ("/result/task", "contains", "contextId", True),
        ("/result/task/id", "matches", r"^t-\d$", True),
        ("/result/task/id", "matches", r"^x", False),
        ("/error", "exists", False, True),
        ("/result", "exists", None, True),
        ("/result/task/artifacts", "type", "array", True),
        ("/id", "type", "number", True),
        ("/id", "type", "integer", True),
        ("/result/task/id", "type", "object", False),
        ("/id", "lessThan", 2, True),
        ("/id", "lessThan", 1, False),
    ],
)
def test_each_op(path: str, op: str, value: Any, passed: bool) -> None:
    assert check(path, op, value)[0] is passed


def test_a_failure_says_what_was_found() -> None:
    passed, actual, message = check("/result/task/status/state", "equals", "completed")
    assert (passed, actual) == (False, "TASK_STATE_COMPLETED")
    assert message == 'expected equals "completed", got "TASK_STATE_COMPLETED"'
    assert check("/result/nothing", "equals", 1)[2] == "nothing there"
    assert check("/result/task/id", "lessThan", 3)[2] == '"t-1" is not a number'
    assert check("/error", "exists", None)[2] == "nothing there"


def test_stream_subjects_and_paths_on_the_last_item() -> None:
    observed = Observed()
    items = [
        {"task": {"id": "t-9", "status": {"state": "TASK_STATE_SUBMITTED"}}},
        {"statusUpdate": {"taskId": "t-9", "status": {"state": "TASK_STATE_WORKING"}}},
        {"statusUpdate": {"taskId": "t-9", "status": {"state": "TASK_STATE_COMPLETED"}}},
    ]
    for seq, item in enumerate(items):
        observed.feed(StreamItem(0.1 * seq, seq, json.dumps(item).encode(), json=item))
    observed.feed(ExchangeEnd(0.5, Outcome.OK))
    results = evaluate(
        [
            Assertion("finalState", AssertionOp.EQUALS, "TASK_STATE_COMPLETED"),
            Assertion("finalState", AssertionOp.EQUALS, "completed"),
            Assertion("itemCount", AssertionOp.EQUALS, 3),
            Assertion("itemCount", AssertionOp.LESS_THAN, 3),
            Assertion("durationMs", AssertionOp.LESS_THAN, 1000),
            Assertion("/statusUpdate/taskId", AssertionOp.EQUALS, "t-9"),
        ],
        observed,
    )
    assert [r.passed for r in results] == [True, True, True, False, True, True]
    assert results[4].actual == 500.0
    values, problems = capture({"taskId": "/task/id", "last": "/statusUpdate/taskId"}, observed)
    assert values == {"taskId": "t-9", "last": "t-9"}  # the last item holding each
    assert problems == []


def test_no_body_and_variables_in_values() -> None:
    observed = Observed()
    observed.feed(ExchangeEnd(0.0, Outcome.TRANSPORT_ERROR))
    (result,) = evaluate([Assertion("/result", AssertionOp.EQUALS, 1)], observed)
    assert result.message == "no response body"
    (result,) = evaluate(
        [Assertion("/result/task/id", AssertionOp.EQUALS, "{{taskId}}")],
        unary(TASK),
        lambda text: text.replace("{{taskId}}", "t-1"),
    )
    assert result.passed and result.assertion.value == "t-1"


def test_captures_store_strings_as_they_are_and_the_rest_as_json() -> None:
    values, problems = capture(
        [("taskId", "/result/task/id"), ("status", "/result/task/status"), ("x", "/nope")],
        unary(TASK),
    )
    assert values == {"taskId": "t-1", "status": '{"state": "TASK_STATE_COMPLETED"}'}
    assert problems == ["capture x: nothing at /nope"]


def test_invalid_assertions_are_named_and_fail_when_evaluated() -> None:
    bad = from_x_a2a(
        {"version": "1.0", "binding": "JSONRPC", "endpoint": "e", "method": "SendMessage",
         "example": {}, "assertions": [{"path": "result", "op": "lessThan", "value": "x"}],
         "captures": {"taskId": "id"}},
        path="x",
    )  # fmt: skip
    (result,) = evaluate(bad.assertions, unary(TASK))
    assert not result.passed and "starts with '/'" in result.message
    assert capture(bad.captures, unary(TASK))[1] == [
        "capture taskId: 'id': a path starts with '/' (JSON Pointer) or '$' (JSONPath)"
    ]
    assert "regular expression" in problem(Assertion("/a", AssertionOp.MATCHES, "("))
    assert "one of string" in problem(Assertion("/a", AssertionOp.TYPE, "text"))
    assert problem(Assertion("/a", AssertionOp.LESS_THAN, "3")) == "lessThan takes a number"
    assert problem(Assertion("/a", AssertionOp.EXISTS, 1)) == "exists takes true or false"
    assert problem(Assertion("finalState", AssertionOp.EQUALS, "completed")) == ""


def saved(**changes: Any) -> SavedRequest:
    base = SavedRequest(
        name="n", version=ProtocolVersion.V1_0, binding=Binding.JSONRPC,
        endpoint="{{baseUrl}}/", method="SendMessage", body="{}",
    )  # fmt: skip
    return dataclasses.replace(base, **changes)


def test_x_a2a_round_trip_and_shorthands() -> None:
    x = {
        "version": "1.0", "binding": "JSONRPC", "endpoint": "{{baseUrl}}/",
        "method": "SendMessage", "example": {},
        "assertions": [
            {"path": "/result/task/id", "op": "matches", "value": "^t-"},
            {"path": "/error"},  # no value: exists
            {"finalState": "completed"},
            {"itemCount": {"op": "lessThan", "value": 10}},
            {"durationMs": 2000},  # lessThan
        ],
        "captures": {"taskId": "/result/task/id"},
    }  # fmt: skip
    request = from_x_a2a(x, path="x")
    assert request.assertions == (
        Assertion("/result/task/id", AssertionOp.MATCHES, "^t-"),
        Assertion("/error", AssertionOp.EXISTS, None),
        Assertion("finalState", AssertionOp.EQUALS, "completed"),
        Assertion("itemCount", AssertionOp.LESS_THAN, 10),
        Assertion("durationMs", AssertionOp.LESS_THAN, 2000),
    )
    assert request.captures == (("taskId", "/result/task/id"),)
    written = to_x_a2a(request, None, None)
    assert written["assertions"] == [
        {"path": "/result/task/id", "op": "matches", "value": "^t-"},
        {"path": "/error", "op": "exists"},
        {"finalState": "completed"},
        {"itemCount": {"op": "lessThan", "value": 10}},
        {"durationMs": {"op": "lessThan", "value": 2000}},
    ]
    assert from_x_a2a(written, path="x") == request
    assert "assertions" not in to_x_a2a(saved(), None, None)


@pytest.mark.parametrize(
    ("assertions", "captures", "where", "says"),
    [
        ({"path": "/a"}, None, "x.assertions", "must be a list"),
        ([{"path": "/a", "op": "near"}], None, "x.assertions[0].op", "'near' is not one of"),
        ([{"pth": "/a"}], None, "x.assertions[0].pth", "is not a known key"),
        ([{"finalState": "x", "op": "equals"}], None, "x.assertions[0]", "stands alone"),
        ([{"path": 3}], None, "x.assertions[0].path", "is required"),
        (None, ["/a"], "x.captures", "must be an object"),
        (None, {"task id": "/a"}, "x.captures.task id", "not a variable name"),
        (None, {"taskId": 3}, "x.captures.taskId", "must be a JSON Pointer"),
    ],
)
def test_bad_x_a2a_is_a_clear_error(assertions: Any, captures: Any, where: str, says: str) -> None:
    x: dict[str, Any] = {"version": "1.0", "binding": "JSONRPC", "endpoint": "e",
                         "method": "SendMessage", "example": {}}  # fmt: skip
    if assertions is not None:
        x["assertions"] = assertions
    if captures is not None:
        x["captures"] = captures
    with pytest.raises(XA2AError) as caught:
        from_x_a2a(x, path="x")
    assert caught.value.path == where
    assert says in caught.value.message


def test_a_kept_tab_keeps_its_assertions_and_captures() -> None:
    from app.session import request_from_dict, request_to_dict

    request = saved(
        assertions=(
            Assertion("/result/task/id", AssertionOp.MATCHES, "^t-"),
            Assertion("durationMs", AssertionOp.LESS_THAN, 2000),
        ),
        captures=(("taskId", "/result/task/id"),),
    )
    data = json.loads(json.dumps(request_to_dict(request)))
    assert request_from_dict(data) == request


def test_the_bundled_scenario_is_a_valid_openapi_document() -> None:
    import yaml
    from openapi_spec_validator import validate

    from app.shipped import resource_path
    from app.spec.document import load

    path = resource_path("examples/demo-scenario.a2a.yaml")
    validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    doc = load(path)
    assert doc.problems == []
    operations = [op.request for op in doc.operations()]
    assert [op.operation_id for op in operations] == ["stream", "ask", "get-task", "cancel-task"]
    assert all(op.assertions for op in operations)
    assert operations[1].captures == (("taskId", "/result/task/id"),
                                      ("contextId", "/result/task/contextId"))  # fmt: skip


def test_captures_parse_the_stream_items_only_as_far_as_they_look(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    observed = Observed()
    for seq in range(2000):
        item = {"statusUpdate": {"taskId": f"t-{seq}"}, **({"first": 1} if seq == 0 else {})}
        observed.feed(StreamItem(seq, seq, b"data: " + json.dumps(item).encode() + b"\n\n", item))
    observed.feed(StreamItem(2000, 2000, b"data: nope\n\n", NOT_JSON, "not JSON"))
    parsed: list[bytes] = []

    def counted(raw: bytes) -> Any:
        parsed.append(raw)
        return json_of_raw(raw)

    monkeypatch.setattr(assertions, "json_of_raw", counted)
    values, problems = capture({"last": "/statusUpdate/taskId", "again": "/statusUpdate"}, observed)
    assert values == {"last": "t-1999", "again": '{"taskId": "t-1999"}'} and problems == []
    assert len(parsed) == 1  # the newest item only, once for both captures
    assert capture({"first": "/first"}, observed)[0] == {"first": "1"}  # the oldest still found
    assert capture({"x": "/x"}, observed)[1] == ["capture x: nothing at /x"]
    # No item parsed as JSON: the document (a body) is looked in.
    only_bad = Observed()
    only_bad.feed(StreamItem(0, 0, b"data: nope\n\n", NOT_JSON, "not JSON"))
    only_bad.feed(ResponseBody(1, b'{"a": 2}', "application/json", {"a": 2}))
    assert capture({"a": "/a"}, only_bad)[0] == {"a": "2"}
