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
