"""JSON-RPC 2.0 envelopes for A2A (spec §9; JSON-RPC 2.0 §4-5). Pure functions, no I/O."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from app.protocol.events import ErrorKind, ExchangeError
from app.protocol.wire.a2a_errors import describe_details, jsonrpc_error_name


def new_request_id() -> str:
    """A fresh JSON-RPC ``id`` (UUID4 text, as the SDK clients use)."""
    return str(uuid.uuid4())


def envelope(method: str, params: Any, request_id: str | int | None = None) -> dict[str, Any]:
    """``{"jsonrpc": "2.0", "id": ..., "method": ..., "params": ...}`` with a fresh id if None."""
    return {
        "jsonrpc": "2.0",
        "id": new_request_id() if request_id is None else request_id,
        "method": method,
        "params": params,
    }


@dataclass(frozen=True, slots=True)
class RpcResult:
    """A well-formed success response."""

    result: Any


@dataclass(frozen=True, slots=True)
class RpcErrorObject:
    """A well-formed error response: its ``error`` object (JSON-RPC 2.0 §5.1). Not an
    exception: a value the binding turns into an ``rpc`` :class:`ExchangeError`."""

    code: int | None
    message: str
    name: str
    data: Any
    details: tuple[str, ...]

    def as_error(self, t: float) -> ExchangeError:
        """This error response as an ``rpc`` exchange error at time ``t``."""
        return ExchangeError(
            t, ErrorKind.RPC, self.message or "(no message)", self.code, self.name, self.data,
            self.details,
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class RpcMalformed:
    """A response that is not a JSON-RPC response to our request; ``reason`` says why."""

    reason: str


RpcOutcome = RpcResult | RpcErrorObject | RpcMalformed


def classify_response(body: Any, request_id: Any = None) -> RpcOutcome:
    """Decide what a parsed JSON-RPC response body says.

    Args:
        body: the parsed JSON of the response.
        request_id: the id we sent; when not None, a different non-null response id is a
            protocol error (a null id is allowed on parse errors, JSON-RPC 2.0 §5).

    Returns:
        :class:`RpcResult`, :class:`RpcErrorObject` (even with HTTP 200), or :class:`RpcMalformed`.
    """
    if not isinstance(body, dict):
        return RpcMalformed(f"expected a JSON-RPC response object, got {_json_type(body)}")
    if body.get("jsonrpc") != "2.0":
        return RpcMalformed('missing or wrong "jsonrpc": "2.0" member')
    has_result, has_error = "result" in body, "error" in body
    if has_result and has_error:
        return RpcMalformed('both "result" and "error" are present')
    if has_error:
        error = body["error"]
        if not isinstance(error, dict):
            return RpcMalformed('"error" is not an object')
        code = error.get("code")
        data = error.get("data")
        return RpcErrorObject(
            code=code if isinstance(code, int) and not isinstance(code, bool) else None,
            message=str(error.get("message", "")),
            name=jsonrpc_error_name(code),
            data=data,
            details=describe_details(data) if data is not None else (),
        )
    if not has_result:
        return RpcMalformed('neither "result" nor "error" is present')
    response_id = body.get("id")
    if request_id is not None and response_id is not None and not same_id(response_id, request_id):
        return RpcMalformed(
            f"response id {_json(response_id)} is not the request's id {_json(request_id)} "
            "(JSON-RPC 2.0 §5: the response carries the request's id)"
        )
    return RpcResult(body["result"])


def same_id(a: Any, b: Any) -> bool:
    """Whether two JSON-RPC ids are the same JSON value: ``true`` is not ``1`` (Python's
    ``True == 1``), ``"1"`` is not ``1``; ``1`` and ``1.0`` are the same number."""
    return a == b and (type(a) is bool) == (type(b) is bool)


def _json(value: Any) -> str:
    # Both ids come from parsed JSON (the request's body, the answer): they serialize.
    return json.dumps(value, ensure_ascii=False)[:80]


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(
        type(value), "a number"
    )
