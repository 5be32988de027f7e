"""Pure parts of the check: errors in each binding's form, parity normalisation."""

from __future__ import annotations

from typing import Any

import pytest

from app.check.calls import CallResult
from app.check.checks_parity import differences, normalise
from app.check.target import (
    METHOD_NOT_FOUND,
    TASK_NOT_CANCELABLE,
    TASK_NOT_FOUND,
    VERSION_NOT_SUPPORTED,
    Target,
    classify,
    matches,
)
from app.protocol.events import ErrorKind, ExchangeError, Outcome
from app.protocol.types import Binding, ProtocolVersion

V1, V03 = ProtocolVersion.V1_0, ProtocolVersion.V0_3


def _error(code: int | str, message: str = "x", details: tuple[str, ...] = ()) -> ExchangeError:
    return ExchangeError(0.0, ErrorKind.RPC, message, code, details=details)


@pytest.mark.parametrize(
    ("binding", "error", "body", "form", "expected"),
    [
        (Binding.JSONRPC, _error(-32001), None, TASK_NOT_FOUND, True),
        (Binding.JSONRPC, _error(-32603), None, TASK_NOT_FOUND, False),
        (Binding.HTTP_JSON, _error(404), None, TASK_NOT_FOUND, True),
        (Binding.HTTP_JSON, _error(500), None, TASK_NOT_FOUND, False),
        # HTTP 400 is shared: the ErrorInfo reason decides.
        (
            Binding.HTTP_JSON,
            _error(400),
            {"error": {"details": [{"reason": "VERSION_NOT_SUPPORTED"}]}},
            TASK_NOT_CANCELABLE,
            False,
        ),
        (
            Binding.HTTP_JSON,
            _error(400),
            {"error": {"details": [{"reason": "TASK_NOT_CANCELABLE"}]}},
            TASK_NOT_CANCELABLE,
            True,
        ),
        (Binding.GRPC, _error("NOT_FOUND"), None, TASK_NOT_FOUND, True),
        (
            Binding.GRPC,
            _error("FAILED_PRECONDITION", details=("ErrorInfo: reason=VERSION_NOT_SUPPORTED",)),
            None,
            VERSION_NOT_SUPPORTED,
            True,
        ),
        # A 0.3 gRPC server names the error class in the message.
        (Binding.GRPC, _error("NOT_FOUND", "TaskNotFoundError: gone"), None, TASK_NOT_FOUND, True),
        (
            Binding.GRPC,
            _error("FAILED_PRECONDITION", "UnsupportedOperationError: no"),
            None,
            TASK_NOT_CANCELABLE,
            False,
        ),
    ],
)
def test_an_error_is_judged_in_its_bindings_form(
    binding: Binding, error: ExchangeError, body: Any, form: Any, expected: bool
) -> None:
    assert matches(binding, form, error, body) is expected


def test_a_0_3_grpc_class_name_settles_a_shared_status() -> None:
    error = _error("NOT_FOUND", "TaskNotFoundError: Task not found")
    assert classify(Binding.GRPC, error) == "TaskNotFoundError"
    assert classify(Binding.GRPC, _error("NOT_FOUND")) == "gRPC NOT_FOUND"
    assert matches(Binding.GRPC, METHOD_NOT_FOUND, _error("NOT_FOUND"))


def _ok(value: Any) -> CallResult:
    return CallResult(outcome=Outcome.OK, status=200, body=value, value=value)


def test_parity_reads_every_dialect_alike_and_names_what_differs() -> None:
    v1 = {
        "task": {
            "id": "a",
            "contextId": "c",
            "status": {"state": "TASK_STATE_COMPLETED"},
            "artifacts": [{"artifactId": "1", "name": "result", "parts": [{"text": "ok"}]}],
        }
    }
    v03 = {
        "kind": "task",
        "id": "b",
        "contextId": "d",
        "status": {"state": "completed"},
        "artifacts": [
            {"artifactId": "2", "name": "result", "parts": [{"kind": "text", "text": "ok"}]}
        ],
    }
    proto03 = {
        "task": {
            "id": "e",
            "contextId": "f",
            "status": {"state": "TASK_STATE_COMPLETED"},
            "artifacts": [{"artifactId": "3", "name": "result", "parts": [{"text": "ok"}]}],
        }
    }
    working = {"task": {"id": "g", "contextId": "h", "status": {"state": "TASK_STATE_WORKING"}}}
    target = Target(0, "u", Binding.JSONRPC, V03)
    normals = {
        "JSONRPC": normalise(_ok(v03), target),
        "HTTP+JSON": normalise(_ok(proto03), Target(1, "u", Binding.HTTP_JSON, V03)),
        "GRPC": normalise(_ok(v1), Target(2, "u", Binding.GRPC, V1)),
    }
    assert differences(normals) == []
    normals["HTTP+JSON"] = normalise(_ok(working), Target(1, "u", Binding.HTTP_JSON, V1))
    lines = differences(normals)
    assert lines[0] == "state: JSONRPC: 'completed', HTTP+JSON: 'working', GRPC: 'completed'"
    assert any(line.startswith("artifacts:") for line in lines)


def test_a_relative_interface_url_is_resolved_against_the_card_url() -> None:
    from app.check.runner import _absolute

    card = "http://127.0.0.1:8000/agents/a/.well-known/agent-card.json"
    assert _absolute("/a2a", "JSONRPC", card) == "http://127.0.0.1:8000/a2a"
    assert _absolute("http://h/x", "HTTP+JSON", card) == "http://h/x"
    assert _absolute("h:50051", "GRPC", card) == "h:50051"
    assert _absolute("/a2a", "JSONRPC", "card.json") == "/a2a"  # a file names no host


def test_both_error_tables_are_accepted_and_told_apart() -> None:
    from app.check.target import (
        PUSH_NOT_SUPPORTED,
        UNSUPPORTED_OPERATION,
        ErrorTable,
        expected_form,
        tables_matched,
    )

    reason = {"error": {"details": [{"reason": "TASK_NOT_CANCELABLE"}]}}
    v100, v101 = frozenset({ErrorTable.V1_0_0}), frozenset({ErrorTable.V1_0_1})
    assert tables_matched(Binding.HTTP_JSON, TASK_NOT_CANCELABLE, _error(409), reason) == v100
    assert tables_matched(Binding.HTTP_JSON, TASK_NOT_CANCELABLE, _error(400), reason) == v101
    assert not tables_matched(Binding.HTTP_JSON, TASK_NOT_CANCELABLE, _error(404), reason)
    unimplemented = _error("UNIMPLEMENTED", details=("ErrorInfo: reason=UNSUPPORTED_OPERATION",))
    assert tables_matched(Binding.GRPC, UNSUPPORTED_OPERATION, unimplemented) == v100
    assert not tables_matched(Binding.GRPC, PUSH_NOT_SUPPORTED, unimplemented)  # reason differs
    # Where the tables agree, an answer fits both.
    assert tables_matched(Binding.HTTP_JSON, TASK_NOT_FOUND, _error(404)) == frozenset(ErrorTable)
    assert tables_matched(Binding.JSONRPC, TASK_NOT_CANCELABLE, _error(-32002)) == frozenset(
        ErrorTable
    )
    assert expected_form(Binding.HTTP_JSON, TASK_NOT_CANCELABLE) == (
        "HTTP 400 (v1.0.1) or 409 (v1.0.0) (TASK_NOT_CANCELABLE)"
    )
    assert expected_form(Binding.GRPC, TASK_NOT_FOUND) == "gRPC NOT_FOUND (TASK_NOT_FOUND)"


def test_an_empty_protojson_list_is_a_task_list() -> None:
    # gRPC's ListTasks answer without tasks is {}: ProtoJSON omits empty fields.
    grpc = normalise(_ok({}), Target(2, "u", Binding.GRPC, V1))
    jsonrpc = normalise(
        _ok({"tasks": [], "nextPageToken": ""}), Target(0, "u", Binding.JSONRPC, V1)
    )
    assert grpc == jsonrpc == {"answer": "task list"}
    assert differences({"GRPC": grpc, "JSONRPC": jsonrpc}) == []


def test_snake_case_member_names_are_found_outside_user_data() -> None:
    from app.check.checks_wire import snake_case_keys

    answer = {
        "task": {
            "id": "t",
            "context_id": "c",
            "metadata": {"my_key": 1},
            "artifacts": [{"parts": [{"data": {"user_field": 2}}], "artifact_id": "a"}],
        }
    }
    assert snake_case_keys(answer) == ["task.context_id", "task.artifacts[0].artifact_id"]


def test_a_requirement_id_of_one_binding_goes_with_that_binding_only() -> None:
    from app.check.registry import CHECKS

    spec = next(s for s in CHECKS if s.check_id == "errors.task-not-found")
    assert spec.tck_for(Binding.GRPC) == ("CORE-GET-002", "GRPC-ERR-002")
    assert spec.tck_for(Binding.HTTP_JSON) == ("CORE-GET-002", "HTTP_JSON-STATUS-001")
    assert spec.tck_for(None) == spec.tck
