"""The HTTP+JSON (REST) binding, protocol 1.0 and 0.3 (A2A spec §11, docs/PROTOCOL.md §3).

The editor holds the method's request object (ProtoJSON, no JSON-RPC envelope). Verb, path,
query and body come from the official descriptors' ``google.api.http`` rules
(:mod:`app.protocol.wire.rest_route`): 1.0 paths have no prefix, 0.3 paths sit under ``/v1``,
and a tenant is a leading path segment. The paths are joined onto the interface URL
(``http://host:port/rest`` + ``/tasks/t1``).

Errors: ``{"error": {code, status, message, details}}`` bodies (1.0, and the 1.3.0 SDK's
0.3 compat routes) and 0.3 ``{"message": …}`` bodies become ``rpc`` errors with the HTTP
status as code; plain-text or HTML error pages are shown as text with their status.
The sending itself is :mod:`app.protocol.transports.http_exchange`; this module builds the
call and judges answers (:class:`RestJudge`).
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import Any
from urllib.parse import quote, urlencode

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
from app.protocol.methods.results import allows_empty_body, check_result
from app.protocol.net.http import HttpCall, not_json
from app.protocol.net.http import http_error as plain_http_error
from app.protocol.request import A2ARequest, PreparedCall, parse_body, prepare
from app.protocol.transports import http_exchange
from app.protocol.transports.jsonrpc_http import merge_headers
from app.protocol.transports.sse_http import event_error, not_a_stream
from app.protocol.types import A2A_VERSION_HEADER, Binding, ProtocolVersion
from app.protocol.wire.a2a_errors import UsageError, describe_details, jsonrpc_error_name
from app.protocol.wire.rest_route import JSON, RestRoute, build_route, media_type


def method_spec(request: A2ARequest | PreparedCall) -> MethodSpec:
    """The catalog entry of ``request.method`` that has a REST/gRPC form.

    Raises:
        UsageError: unknown method, or a JSON-RPC-only legacy name.
    """
    prepared = prepare(request)
    spec, request = prepared.spec, prepared.request
    if spec is None:
        raise UsageError(
            f"{request.method!r} is not a {request.version.value} method; the "
            f"{request.binding.value} binding needs a method from the catalog"
        )
    if not spec.grpc_rpc:
        raise UsageError(f"{spec.name} exists only in the JSON-RPC binding")
    return spec


def request_object(request: A2ARequest) -> dict[str, Any]:
    """The editor text parsed as the request object.

    Raises:
        UsageError: not JSON, or not a JSON object.
    """
    obj = parse_body(request.body) if request.body.strip() else {}
    if not isinstance(obj, dict):
        raise UsageError(
            f"The {request.binding.value} request body must be the request object "
            f"(a JSON object), not {type(obj).__name__}"
        )
    return obj


def default_headers(request: A2ARequest, *, streaming: bool, has_body: bool) -> Headers:
    """Headers a REST send carries before the user's own (which override them).

    Bodies go as :func:`media_type`; a unary 1.0 answer is accepted as
    ``application/a2a+json`` or plain ``application/json`` (what SDK servers answer,
    docs/PEERS.md Q5). ``A2A-Version: 1.0`` on 1.0 sends only (docs/PEERS.md Q1).
    """
    media = media_type(request.version)
    accept = media if media == JSON else f"{media}, {JSON}"
    headers: list[tuple[str, str]] = []
    if has_body:
        headers.append(("Content-Type", media))
    headers.append(("Accept", "text/event-stream" if streaming else accept))
    if request.version is ProtocolVersion.V1_0:
        headers.append((A2A_VERSION_HEADER, "1.0"))
    return tuple(headers)


def join_url(base: str, path: str, query: Headers) -> str:
    """``base`` + encoded ``path`` + ``query`` (appended to any query ``base`` has).

    The path is already percent-encoded, so it is joined onto the raw path (httpx would
    otherwise re-encode ``%``).

    Raises:
        UsageError: ``base`` is not an http(s) URL.
    """
    try:
        url = httpx.URL(base)
    except httpx.InvalidURL as exc:
        raise UsageError(f"Invalid URL {base!r}: {exc}") from exc
    if url.scheme not in ("http", "https") or not url.host:
        raise UsageError(
            f"The HTTP+JSON interface URL must be http(s)://host[:port]/…, got {base!r}"
        )
    raw_path = url.raw_path.split(b"?", 1)[0].rstrip(b"/") + path.encode("ascii")
    parts = [
        part for part in (url.query.decode("ascii"), urlencode(query, quote_via=quote)) if part
    ]
    if parts:
        raw_path += b"?" + "&".join(parts).encode("ascii")
    return str(url.copy_with(raw_path=raw_path))


def build_call(request: A2ARequest | PreparedCall) -> tuple[MethodSpec, HttpCall]:
    """The HTTP call for ``request``: route from the descriptors, headers, body bytes.

    When the body is the editor's object unchanged (``SendMessage``), the editor text is
    sent byte for byte, so numbers and key order reach the peer as typed.

    Raises:
        UsageError: see :func:`method_spec`, :func:`request_object`,
            :func:`app.protocol.wire.rest_route.build_route`, :func:`join_url`.
    """
    prepared = prepare(request)
    spec, request = method_spec(prepared), prepared.request
    obj = request_object(request)
    route: RestRoute = build_route(
        spec, obj, tenant=request.tenant, subscribe_verb=request.rest_subscribe_verb
    )
    if route.body is None:
        content = b""
    elif route.body_is_whole_object and request.body.strip():
        content = request.body.encode()
    else:
        content = json.dumps(route.body, ensure_ascii=False).encode()
    headers = merge_headers(
        default_headers(request, streaming=spec.streaming, has_body=route.body is not None),
        request.headers,
    )
    url = join_url(request.endpoint, route.path, route.query + tuple(request.query))
    return spec, HttpCall(route.verb, url, headers, content, request.method)


def http_call(request: A2ARequest) -> HttpCall:
    """The HTTP call for ``request`` (:func:`build_call` without the spec), for snippets.

    Raises:
        UsageError: see :func:`build_call`.
    """
    return build_call(request)[1]


def exchange(
    request: A2ARequest | PreparedCall, client: httpx.AsyncClient, clock: Clock
) -> AsyncGenerator[EventBatch, None]:
    """Send one REST request; yield its events (without the final ExchangeEnd) in batches.

    Streams are bare ``StreamResponse`` frames, no JSON-RPC envelope.

    Raises:
        UsageError: the request cannot be built (nothing was sent).
    """
    prepared = prepare(request)
    spec, call = build_call(prepared)
    return http_exchange.exchange(prepared, call, RestJudge(spec), client, clock)


class RestJudge:
    """What a REST answer carries (:class:`app.protocol.transports.judge.Judge`)."""

    __slots__ = ("_spec",)

    def __init__(self, spec: MethodSpec | None) -> None:
        self._spec = spec

    def body(self, head: ResponseHead, body: ResponseBody, clock: Clock) -> ExchangeError | None:
        if self._spec is None:
            return http_error(head, body, clock) if not 200 <= head.status < 300 else None
        return judge_body(self._spec, head, body, clock)

    def plain(self, head: ResponseHead, body: ResponseBody, clock: Clock) -> ExchangeError | None:
        error = error_object(body.json, clock, head.status) if body.json is not NOT_JSON else None
        if error is not None:
            return error
        if not 200 <= head.status < 300:
            return plain_http_error(head, body, clock)
        return not_a_stream(head, body, clock)

    def item(self, item: StreamItem, clock: Clock) -> ExchangeError | None:
        """An ``{"error": …}`` object → ``rpc``; ``event: error`` → ``rpc``."""
        error = error_object(item.json, clock)
        if error is None and item.sse_event == "error":
            return event_error(item, clock)
        return error


def judge_body(
    spec: MethodSpec, head: ResponseHead, body: ResponseBody, clock: Clock
) -> ExchangeError | None:
    """The error a REST response carries, or None for a result the method promises.

    - non-2xx → ``rpc`` with the HTTP status as code, decoded from the error body;
    - 2xx that is not JSON (or empty, except for deletes) → ``protocol``;
    - 2xx JSON of the wrong shape → ``protocol``
    (:func:`app.protocol.methods.results.check_result`).
    """
    if not 200 <= head.status < 300:
        return http_error(head, body, clock)
    if body.json is NOT_JSON:
        if not body.body.strip() and allows_empty_body(spec):
            return None
        expected = f"the JSON {spec.name} answer"
        return ExchangeError(clock.now(), ErrorKind.PROTOCOL, not_json(head, body, expected))
    problem = check_result(spec, Binding.HTTP_JSON, body.json)
    if problem:
        return ExchangeError(clock.now(), ErrorKind.PROTOCOL, problem)
    return None


def http_error(head: ResponseHead, body: ResponseBody, clock: Clock) -> ExchangeError:
    """An ``rpc`` error for a non-2xx REST answer, code = HTTP status.

    Recognised bodies: ``{"error": {code, status, message, details}}`` (name = ``status``,
    e.g. ``NOT_FOUND``; details decoded), ``{"message": …}`` / ``{"type": …, "message": …}``
    (0.3 servers); anything else is quoted as text after ``HTTP <status> <reason>``.
    """
    value = body.json
    if isinstance(value, dict) and isinstance(value.get("error"), dict):
        error = value["error"]
        details = error.get("details")
        return ExchangeError(
            clock.now(),
            ErrorKind.RPC,
            str(error.get("message") or f"HTTP {head.status} {head.reason}".strip()),
            head.status,
            str(error.get("status") or head.reason),
            error,
            describe_details(details) if details is not None else (),
        )
    if isinstance(value, dict) and isinstance(value.get("message"), str):
        return ExchangeError(
            clock.now(),
            ErrorKind.RPC,
            value["message"],
            head.status,
            str(value.get("type") or head.reason),
            value,
        )
    return redirect_error(head, Binding.HTTP_JSON, clock) or plain_http_error(head, body, clock)


def error_object(value: Any, clock: Clock, status: int | None = None) -> ExchangeError | None:
    """The error in a REST ``{"error": {code, status, message, details}}`` object
    (docs/PROTOCOL.md §3.2) that stands where a stream was due (an SSE item, a plain body of a
    streaming call).

    Unlike :func:`http_error` its code is the object's own ``code`` (``status`` only when it
    has none): a stream item has no HTTP status of its own.
    """
    if not isinstance(value, dict) or not isinstance(value.get("error"), dict):
        return None
    error = value["error"]
    code = error.get("code")
    if isinstance(code, bool) or not isinstance(code, int):
        code = status
    name = str(error.get("status") or "") or jsonrpc_error_name(code)
    details = error.get("details")
    return ExchangeError(
        clock.now(),
        ErrorKind.RPC,
        str(error.get("message") or "(no message)"),
        code,
        name,
        details,
        describe_details(details) if details is not None else (),
    )
