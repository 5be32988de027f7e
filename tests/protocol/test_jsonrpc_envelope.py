"""JSON-RPC 2.0 response envelopes (§5), classified without a socket: a result, an error
object, or what makes the envelope malformed."""

from __future__ import annotations

from typing import Any

import pytest

from app.protocol.wire.jsonrpc_envelope import (
    RpcErrorObject,
    RpcMalformed,
    RpcResult,
    classify_response,
)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ([1], "expected a JSON-RPC response object, got an array"),
        (None, "expected a JSON-RPC response object, got null"),
        ({"jsonrpc": "1.0", "id": 1, "result": {}}, 'missing or wrong "jsonrpc": "2.0" member'),
        ({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {}}, 'both "result" and "error"'),
        ({"jsonrpc": "2.0", "id": 1, "error": "boom"}, '"error" is not an object'),
        ({"jsonrpc": "2.0", "id": 1}, 'neither "result" nor "error" is present'),
        ({"jsonrpc": "2.0", "id": 2, "result": {}}, "response id 2 is not the request's id 1"),
    ],
)
def test_a_malformed_envelope_says_why(body: Any, reason: str) -> None:
    outcome = classify_response(body, 1)
    assert isinstance(outcome, RpcMalformed) and outcome.reason.startswith(reason)


def test_a_result_and_an_error_object() -> None:
    assert classify_response({"jsonrpc": "2.0", "id": None, "result": 7}, 1) == RpcResult(7)
    error = classify_response({"jsonrpc": "2.0", "id": 1, "error": {"code": True}}, 1)
    assert isinstance(error, RpcErrorObject) and error.code is None  # a boolean is no code
