"""The JSON-RPC binding over HTTP (A2A spec §9, docs/PROTOCOL.md §2).

POST to the interface URL itself; ``A2A-Version: 1.0`` is added on 1.0 sends (docs/PEERS.md Q1:
both SDK servers treat a missing header as 0.3). An HTTP 200 carrying ``error`` is an error.
The sending itself is :mod:`app.protocol.transports.http_exchange`; this module builds the
call and judges answers (:class:`JsonRpcJudge`).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

import httpx

from app.protocol.clock import Clock
from app.protocol.events import (
    NOT_JSON,
    ErrorKind,
    EventBatch,
    ExchangeError,
    Headers,
    ResponseBody,
    ResponseHead,
    StreamItem,
)
from app.protocol.methods.binding_errors import redirect_error
from app.protocol.methods.catalog import MethodSpec
from app.protocol.methods.results import check_result
from app.protocol.net.http import HttpCall, http_error, not_json
from app.protocol.request import A2ARequest, PreparedCall, parse_body, prepare
from app.protocol.transports import http_exchange
from app.protocol.transports.sse_http import event_error, not_a_stream
from app.protocol.types import A2A_VERSION_HEADER, Binding, ProtocolVersion
from app.protocol.wire.a2a_errors import UsageError
from app.protocol.wire.jsonrpc_envelope import (
    RpcErrorObject,
    RpcMalformed,
    classify_response,
    same_id,
)

_EXPECTED = "a JSON-RPC response"


def default_headers(request: A2ARequest, *, streaming: bool) -> Headers:
    """Headers every JSON-RPC send carries before the user's own (which override them)."""
    headers: list[tuple[str, str]] = [
        ("Content-Type", "application/json"),
        ("Accept", "text/event-stream" if streaming else "application/json"),
    ]
    if request.version is ProtocolVersion.V1_0:
        headers.append((A2A_VERSION_HEADER, "1.0"))
    return tuple(headers)


def merge_headers(defaults: Headers, user: Headers) -> Headers:
    """Defaults first, each replaced by a same-named user header (case-insensitive)."""
    user_names = {name.lower() for name, _ in user}
    kept = tuple((n, v) for n, v in defaults if n.lower() not in user_names)
    return kept + tuple(user)


def build_call(request: A2ARequest | PreparedCall) -> tuple[HttpCall, Any]:
    """The HTTP call for ``request`` and the JSON-RPC id it carries.

    The editor text is sent byte for byte (UTF-8) so that what the user typed is what the
    peer receives.

    Raises:
        UsageError: the body is not valid JSON (unless the request is ``malformed``).
    """
    prepared = prepare(request)
    request = prepared.request
    try:
        envelope = parse_body(request.body)
    except UsageError:
        if not request.malformed:
            raise
        envelope = None  # sent as typed; a parse error answers with id null
    request_id = envelope.get("id") if isinstance(envelope, dict) else None
    headers = merge_headers(default_headers(request, streaming=prepared.streaming), request.headers)
    call = HttpCall(
        "POST", request.endpoint, headers, request.body.encode(), request.method, request.query
    )
    return call, request_id


def http_call(request: A2ARequest) -> HttpCall:
    """The HTTP call for ``request`` (:func:`build_call` without the id), for snippets.

    Raises:
        UsageError: see :func:`build_call`.
    """
    return build_call(request)[0]


def exchange(
    request: A2ARequest | PreparedCall, client: httpx.AsyncClient, clock: Clock
) -> AsyncGenerator[EventBatch, None]:
    """Send one JSON-RPC request; yield its events (without the final ExchangeEnd) in batches.

    Raises:
        UsageError: the request cannot be built (nothing was sent).
    """
    prepared = prepare(request)
    call, request_id = build_call(prepared)
    judge = JsonRpcJudge(prepared.spec, request_id)
    return http_exchange.exchange(prepared, call, judge, client, clock)


class JsonRpcJudge:
    """What a JSON-RPC answer carries (:class:`app.protocol.transports.judge.Judge`).

    Args:
        spec: the method's catalog entry (results are checked against it), or None.
        request_id: the id sent; answers with another id are refused.
    """

    __slots__ = ("_request_id", "_spec")

    def __init__(self, spec: MethodSpec | None, request_id: Any) -> None:
        self._spec = spec
        self._request_id = request_id

    def body(self, head: ResponseHead, body: ResponseBody, clock: Clock) -> ExchangeError | None:
        error = judge_body(head, body, self._request_id, clock)
        if error is None and self._spec is not None:
            # A well-formed envelope can still carry the wrong result (results.py).
            problem = check_result(self._spec, Binding.JSONRPC, body.json.get("result"))
            if problem:
                error = ExchangeError(clock.now(), ErrorKind.PROTOCOL, problem)
        return error

    def plain(self, head: ResponseHead, body: ResponseBody, clock: Clock) -> ExchangeError | None:
        return judge_body(head, body, self._request_id, clock) or not_a_stream(head, body, clock)

    def item(self, item: StreamItem, clock: Clock) -> ExchangeError | None:
        """- an ``error`` member → ``rpc`` with its code; not a JSON-RPC response, or
        another request's id → ``protocol``; ``event: error`` → ``rpc``."""
        value = item.json
        request_id = self._request_id
        if (
            type(value) is dict
            and value.get("jsonrpc") == "2.0"
            and "result" in value
            and "error" not in value
            and (request_id is None or value.get("id") is None or same_id(value["id"], request_id))
            and item.sse_event != "error"
        ):
            return None  # a well-formed result for our request: the usual case, quickly
        outcome = classify_response(value, request_id)
        if isinstance(outcome, RpcErrorObject):
            return outcome.as_error(clock.now())
        if item.sse_event == "error":
            return event_error(item, clock)
        if isinstance(outcome, RpcMalformed):
            return ExchangeError(
                clock.now(),
                ErrorKind.PROTOCOL,
                f"Event #{item.seq} is not a valid JSON-RPC response: {outcome.reason}",
            )
        return None


def judge_body(
    head: ResponseHead, body: ResponseBody, request_id: Any, clock: Clock
) -> ExchangeError | None:
    """The error a JSON-RPC response body carries, or None for a well-formed result.

    - a JSON-RPC ``error`` member (whatever the HTTP status) → ``rpc`` with its code;
    - a non-2xx status without one → ``rpc`` with the HTTP status;
    - a 2xx body that is not a JSON-RPC response → ``protocol``.
    """
    ok_status = 200 <= head.status < 300
    if body.json is NOT_JSON:
        if not ok_status:
            redirect = redirect_error(head, Binding.JSONRPC, clock)
            return redirect or http_error(head, body, clock)
        return ExchangeError(clock.now(), ErrorKind.PROTOCOL, not_json(head, body, _EXPECTED))
    outcome = classify_response(body.json, request_id)
    if isinstance(outcome, RpcErrorObject):
        return outcome.as_error(clock.now())
    if not ok_status:
        return http_error(head, body, clock)
    if isinstance(outcome, RpcMalformed):
        return ExchangeError(
            clock.now(), ErrorKind.PROTOCOL, f"Not a valid JSON-RPC response: {outcome.reason}"
        )
    return None
