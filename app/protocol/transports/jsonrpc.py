"""The JSON-RPC binding over HTTP (A2A spec §9, PROTOCOL.md §2).

POST to the interface URL itself; ``A2A-Version: 1.0`` is added on 1.0 sends (PEERS.md 1:
both SDK servers treat a missing header as 0.3). An HTTP 200 carrying ``error`` is an error.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

import httpx

from app.protocol.catalog import find_method
from app.protocol.clock import Clock
from app.protocol.events import (
    NOT_JSON,
    ErrorKind,
    ExchangeError,
    ExchangeEvent,
    Headers,
    ResponseBody,
    ResponseHead,
)
from app.protocol.http import HttpCall, http_error, send_unary
from app.protocol.jsonrpc import RpcError, RpcMalformed, classify_response
from app.protocol.request import A2ARequest, header_value, parse_body
from app.protocol.results import check_result
from app.protocol.transports.sse_http import send_streaming
from app.protocol.types import A2A_VERSION_HEADER, Binding, ProtocolVersion


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


def build_call(request: A2ARequest) -> tuple[HttpCall, Any]:
    """The HTTP call for ``request`` and the JSON-RPC id it carries.

    The editor text is sent byte for byte (UTF-8) so that what the user typed is what the
    peer receives.

    Raises:
        UsageError: the body is not valid JSON.
    """
    envelope = parse_body(request.body)
    request_id = envelope.get("id") if isinstance(envelope, dict) else None
    spec = find_method(request.version, request.method)
    headers = merge_headers(
        default_headers(request, streaming=bool(spec and spec.streaming)), request.headers
    )
    call = HttpCall(
        "POST", request.endpoint, headers, request.body.encode(), request.method, request.query
    )
    return call, request_id


async def exchange(
    request: A2ARequest, client: httpx.AsyncClient, clock: Clock
) -> AsyncGenerator[ExchangeEvent, None]:
    """Send one JSON-RPC request; yield its events (without the final ExchangeEnd).

    Streaming methods (catalog ``MethodSpec.streaming``) go to
    :func:`app.protocol.transports.sse_http.send_streaming`.
    """
    call, request_id = build_call(request)
    spec = find_method(request.version, request.method)
    if spec is not None and spec.streaming:
        async for event in send_streaming(
            client,
            call,
            clock,
            timeout=request.timeout,
            max_bytes=request.max_response_bytes,
            request_id=request_id,
            jsonrpc=True,
        ):
            yield event
        return
    head: ResponseHead | None = None
    async for event in send_unary(
        client, call, clock, timeout=request.timeout, max_bytes=request.max_response_bytes
    ):
        yield event
        if isinstance(event, ResponseHead):
            head = event
        elif isinstance(event, ResponseBody) and head is not None:
            error = judge_body(head, event, request_id, clock)
            if error is None and spec is not None:
                # A well-formed envelope can still carry the wrong result (results.py).
                problem = check_result(spec, Binding.JSONRPC, event.json.get("result"))
                if problem:
                    error = ExchangeError(clock.now(), ErrorKind.PROTOCOL, problem)
            if error is not None:
                yield error


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
            return http_error(head, body, clock)
        return ExchangeError(
            clock.now(),
            ErrorKind.PROTOCOL,
            f"The response is not JSON ({body.json_error}); "
            f"Content-Type {body.content_type or 'missing'}",
        )
    outcome = classify_response(body.json, request_id)
    if isinstance(outcome, RpcError):
        return outcome.as_error(clock.now())
    if not ok_status:
        return http_error(head, body, clock)
    if isinstance(outcome, RpcMalformed):
        return ExchangeError(
            clock.now(), ErrorKind.PROTOCOL, f"Not a valid JSON-RPC response: {outcome.reason}"
        )
    return None


def version_header(headers: Headers) -> str | None:
    """The ``A2A-Version`` a call carries, if any."""
    return header_value(headers, A2A_VERSION_HEADER)
