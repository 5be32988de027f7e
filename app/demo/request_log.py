"""The demo agent's log: one line per request, and no stack trace for an error it answers.

Each HTTP request and gRPC call ends in one INFO line on the ``a2a_workbench.demo.requests``
logger — the binding, what was called, how it ended, how long it took::

    HTTP POST / SendMessage: 200 (4 ms)
    HTTP POST / GetTask: 200, error -32001 Task not found (2 ms)
    HTTP GET /rest/tasks/t-1: 404, error NOT_FOUND Task not found (1 ms)
    gRPC lf.a2a.v1.A2AService/GetTask: NOT_FOUND Task not found (1 ms)

An A2A error the agent returns on purpose (unknown task, invalid request, wrong version) is
said there, in that one line. a2a-sdk 1.3.0 also logs such errors itself, some as ERROR with
the stack of the exception it turned into the answer (``Failed to validate base JSON-RPC
request``); :class:`AnsweredErrors` drops those records. Anything else the SDK logs — an
unexpected exception included, with its trace — still goes to stderr.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("a2a_workbench.demo.requests")

PEEK_BYTES = 64 * 1024
"""How much of a request or response body is kept to name the method and the error."""

ANSWERED = {
    "a2a.utils.error_handlers": ("Request error:", "Parse error:"),
    "a2a.server.routes.jsonrpc_dispatcher": (
        "Request Error (ID:",
        "Failed to validate base JSON-RPC request",
        "Failed to parse request params",
    ),
    "a2a.utils.version_validator": ("Version mismatch",),
}
"""a2a-sdk 1.3.0's records about an error it then answers with (logger → message starts)."""


class AnsweredErrors(logging.Filter):
    """Drops the SDK's records of :data:`ANSWERED` (the request line says the error)."""

    def filter(self, record: logging.LogRecord) -> bool:
        starts = ANSWERED.get(record.name)
        return not (starts and str(record.msg).startswith(starts))


def configure(level: str) -> None:
    """The demo agent's stderr log at ``level`` (``info``: the request lines and warnings).

    Other libraries' INFO lines (uvicorn's start-up banner, the SDK's task bookkeeping) stay
    out unless ``level`` is ``debug``.
    """
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(AnsweredErrors())
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level.upper())
    if root.level > logging.DEBUG:
        # httpx: the push deliveries the agent sends, one INFO line each.
        for name in ("a2a", "uvicorn", "sse_starlette", "httpx"):
            logging.getLogger(name).setLevel(max(root.level, logging.WARNING))


def _elapsed(start: float) -> str:
    return f"({(time.monotonic() - start) * 1000:.0f} ms)"


# --- HTTP ------------------------------------------------------------------------------


class HttpRequestLog:
    """ASGI middleware: one line per HTTP request (method, path, A2A method, status, error)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.monotonic()
        request = bytearray()
        response = bytearray()
        head: dict[str, Any] = {}

        async def peek_receive() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                _keep(request, message.get("body", b""))
            return message

        async def peek_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                head["status"] = message["status"]
                types = [v for k, v in message.get("headers", []) if k.lower() == b"content-type"]
                head["json"] = bool(types) and b"json" in types[0].lower()
                head["stream"] = bool(types) and b"event-stream" in types[0].lower()
            elif message["type"] == "http.response.body" and head.get("json"):
                _keep(response, message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, peek_receive, peek_send)
        finally:
            log.info("%s", _http_line(scope, head, bytes(request), bytes(response), start))


def _keep(kept: bytearray, chunk: bytes) -> None:
    kept.extend(chunk[: max(0, PEEK_BYTES - len(kept))])


def _http_line(
    scope: Scope, head: dict[str, Any], request: bytes, response: bytes, start: float
) -> str:
    method = _json_field(request, "method")
    called = f"{scope['method']} {scope['path']}" + (f" {method}" if method else "")
    if "status" not in head:
        return f"HTTP {called}: no answer (the client left) {_elapsed(start)}"
    outcome = str(head["status"])
    if head.get("stream"):
        outcome += ", stream"
    error = _json_field(response, "error")
    if isinstance(error, dict):
        code = error.get("status") or error.get("code")
        outcome += f", error {code} {error.get('message', '')}".rstrip()
    return f"HTTP {called}: {outcome} {_elapsed(start)}"


def _json_field(body: bytes, name: str) -> Any:
    """``body``'s top-level field ``name`` when it is a whole JSON object, else None."""
    if not body.lstrip().startswith(b"{"):
        return None
    try:
        value = json.loads(body)
    except ValueError:  # cut off at PEEK_BYTES, or not JSON at all
        return None
    return value.get(name) if isinstance(value, dict) else None


# --- gRPC ------------------------------------------------------------------------------

_KINDS = ("unary_unary", "unary_stream", "stream_unary", "stream_stream")

Continuation = Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]]


class GrpcRequestLog(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """gRPC interceptor: one line per call (method, status code, details). Put it first, so
    that it also sees the calls a later interceptor turns away."""

    async def intercept_service(
        self, continuation: Continuation, handler_call_details: grpc.HandlerCallDetails
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        name = str(handler_call_details.method).lstrip("/")
        kind = next(k for k in _KINDS if getattr(handler, k) is not None)
        kwargs = {
            "request_deserializer": handler.request_deserializer,
            "response_serializer": handler.response_serializer,
        }
        make, behaviour = {
            "unary_unary": (grpc.unary_unary_rpc_method_handler, _unary),
            "unary_stream": (grpc.unary_stream_rpc_method_handler, _stream),
            "stream_unary": (grpc.stream_unary_rpc_method_handler, _unary),
            "stream_stream": (grpc.stream_stream_rpc_method_handler, _stream),
        }[kind]
        return make(behaviour(name, getattr(handler, kind)), **kwargs)


def _grpc_line(name: str, context: grpc.aio.ServicerContext, start: float) -> None:
    code = context.code() or grpc.StatusCode.OK
    details = context.details() or ""
    if isinstance(details, bytes):
        details = details.decode("utf-8", "replace")
    outcome = f"{code.name} {details}".rstrip()
    log.info("gRPC %s: %s %s", name, outcome, _elapsed(start))


def _unary(name: str, behaviour: Callable[..., Any]) -> Callable[..., Any]:
    async def logged(request: Any, context: grpc.aio.ServicerContext) -> Any:
        start = time.monotonic()
        try:
            return await behaviour(request, context)
        finally:
            _grpc_line(name, context, start)

    return logged


def _stream(name: str, behaviour: Callable[..., Any]) -> Callable[..., Any]:
    async def logged(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        start = time.monotonic()
        try:
            async for item in behaviour(request, context):
                yield item
        finally:
            _grpc_line(name, context, start)

    return logged
