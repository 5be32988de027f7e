"""Where the a2a-sdk 1.3.0 server pieces the demo agent is built from fall short of the
A2A spec, and what the demo agent does about it (each item names the SDK behaviour):

* gRPC: ``GrpcHandler`` serves any ``a2a-version``; the HTTP routes refuse one they do not
  speak. :class:`VersionCheckingGrpcHandler` refuses it too (VersionNotSupportedError,
  gRPC FAILED_PRECONDITION as in the A2A v1.0.1 table the SDK follows).
* ListTasks: an unknown ``status`` name is dropped by the SDK's lenient ProtoJSON parsing (every
  task is listed) and an unknown number matches nothing; both are invalid params here.
* Request media type: the SDK parses any body as JSON. A body that is not JSON-typed is
  refused: HTTP+JSON 415 Unsupported Media Type, JSON-RPC -32005 (ContentTypeNotSupported).
* HTTP+JSON answers: the SDK types them ``application/a2a+json``; the REST binding says
  ``application/json`` (spec §11.1).
* Streams that continue a task (the answer to ``input-required``) begin with an update; a
  stream begins with the Task (1.0 §3.1.2), which :class:`RequestHandler` puts first.
* Agent Card: the SDK's route sends a weak ETag and answers If-None-Match, but sends
  ``Cache-Control`` only when asked (:data:`CARD_CACHE_CONTROL`) and no ``Last-Modified``.
* 0.3 JSON-RPC: params that fail the 0.3 model are answered -32600 (invalid request) where
  JSON-RPC 2.0 says -32602 (invalid params); ``tasks/pushNotificationConfig/delete``
  answers without a ``result`` member, which a JSON-RPC success must have (``null``).
* 0.3 HTTP+JSON: subscribing to an unknown task opens an SSE stream and cuts it; the 1.0
  route answers 404 first. The 0.3 route is probed with GetTask and answers 404 the same way.
"""

from __future__ import annotations

import email.utils
import json
import re
import time
from collections.abc import AsyncGenerator
from typing import Any
from urllib.parse import parse_qsl

import grpc
from a2a.compat.v0_3.jsonrpc_adapter import JSONRPC03Adapter
from a2a.server.context import ServerCallContext
from a2a.server.events import Event
from a2a.server.request_handlers import DefaultRequestHandler, GrpcHandler
from a2a.types import (
    ListTasksRequest,
    ListTasksResponse,
    Message,
    SendMessageRequest,
    Task,
    TaskState,
)
from a2a.utils.errors import InvalidParamsError, VersionNotSupportedError
from a2a.utils.task import apply_history_length
from google.protobuf import message
from pydantic import ValidationError
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.types import Message as AsgiMessage

__all__ = [
    "CARD_CACHE_CONTROL",
    "RequestHandler",
    "VersionCheckingGrpcHandler",
    "wrap_http",
]

CARD_CACHE_CONTROL = "public, max-age=60"
"""The card changes only on restart (a new signature then): a minute's reuse is safe."""
JSON_TYPES = frozenset({"application/json", "application/a2a+json"})
_STATE_NAMES = frozenset(TaskState.keys())
_SUBSCRIBE_03 = re.compile(r"/v1/tasks/([^/]+):subscribe")


# --------------------------------------------------------------------------- gRPC, handler


class VersionCheckingGrpcHandler(GrpcHandler):
    """The SDK's 1.0 gRPC handler, refusing an ``a2a-version`` whose major is not 1.

    Without the metadata the call is served: the service name ``lf.a2a.v1`` says 1.0.
    """

    def _build_call_context(
        self, context: grpc.aio.ServicerContext, request: message.Message
    ) -> ServerCallContext:
        metadata = context.invocation_metadata() or ()
        version = next((str(v) for k, v in metadata if k.lower() == "a2a-version"), "").strip()
        if version and version.split(".", 1)[0] != "1":
            # Raised inside the SDK's own error handling, which answers with its status.
            raise VersionNotSupportedError(
                message=f"A2A version {version!r} is not supported on this service; it is 1.0"
            )
        return super()._build_call_context(context, request)


class RequestHandler(DefaultRequestHandler):
    """The SDK's request handler, refusing a ListTasks status number no TaskState has, and
    beginning a stream that continues a task with that Task."""

    async def on_message_send_stream(
        self, params: SendMessageRequest, context: ServerCallContext
    ) -> AsyncGenerator[Event, None]:
        # The SDK streams a continued task from its next update on, but a stream begins with
        # the Task (A2A 1.0 §3.1.2). An executor cannot enqueue it: the SDK drops a second
        # Task for a known id and loses the user's message with it. So the Task as it was,
        # with that message and working again, goes first here.
        task_id = params.message.task_id
        stored = await self.task_store.get(task_id, context) if task_id else None
        before = stored if isinstance(stored, Task) else getattr(stored, "task", None)
        first = True
        async for event in super().on_message_send_stream(params, context):
            if first and before is not None and not isinstance(event, Task | Message):
                yield apply_history_length(_resumed(before, params.message), params.configuration)
            first = False
            yield event

    async def on_list_tasks(
        self, params: ListTasksRequest, context: ServerCallContext
    ) -> ListTasksResponse:
        if params.status not in TaskState.values():
            raise InvalidParamsError(message=_status_text(params.status))
        answer: ListTasksResponse = await super().on_list_tasks(params, context)
        return answer


def _resumed(task: Task, message: Message) -> Task:
    """``task`` with the user's ``message`` in its history, WORKING from now."""
    resumed = Task()
    resumed.CopyFrom(task)
    if task.status.HasField("message"):
        resumed.history.append(task.status.message)
    resumed.history.append(message)
    resumed.status.Clear()
    resumed.status.state = TaskState.TASK_STATE_WORKING
    resumed.status.timestamp.GetCurrentTime()
    return resumed


# --------------------------------------------------------------------------- HTTP


def wrap_http(
    app: ASGIApp, *, jsonrpc_path: str, rest_prefix: str, card_paths: frozenset[str]
) -> ASGIApp:
    """``app`` (the SDK's routes) inside the HTTP workarounds of the module docstring."""
    app = _JsonRpcFixes(app, jsonrpc_path)
    app = _RestFixes(app, rest_prefix)
    return _CardLastModified(app, card_paths)


def _error_info(reason: str) -> dict[str, Any]:
    return {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": reason,
        "domain": "a2a-protocol.org",
        "metadata": {},
    }


def _rest_error(status: int, code_name: str, text: str, reason: str) -> dict[str, Any]:
    return {
        "error": {"code": status, "status": code_name, "message": text,
                  "details": [_error_info(reason)]}
    }  # fmt: skip


def _jsonrpc_error(request_id: Any, code: int, text: str, data: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": code, "message": text, "data": data},
    }


async def _send_json(send: Send, status: int, body: dict[str, Any]) -> None:
    data = json.dumps(body).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


def _header(scope: Scope, name: bytes) -> str:
    value: bytes = dict(scope["headers"]).get(name, b"")
    return value.decode("latin-1")


def _not_json(scope: Scope) -> bool:
    """A POST whose body is not JSON-typed (a bodiless POST needs no Content-Type)."""
    media = _header(scope, b"content-type").split(";", 1)[0].strip().lower()
    if media:
        return media not in JSON_TYPES
    length = _header(scope, b"content-length").strip()
    return bool(_header(scope, b"transfer-encoding")) or length not in ("", "0")


def _wrong_type_text(scope: Scope) -> str:
    supplied = _header(scope, b"content-type")
    return f"Unsupported Content-Type {supplied!r}; send application/json or application/a2a+json"


def _known_state(value: Any) -> bool:
    if isinstance(value, str) and value.lstrip("-").isdigit():
        return True  # a number: RequestHandler judges it
    return (isinstance(value, int) and not isinstance(value, bool)) or value in _STATE_NAMES


def _status_text(value: Any) -> str:
    return f"Invalid status filter {value!r}: not a TaskState (e.g. TASK_STATE_WORKING)"


async def _read_body(receive: Receive) -> bytes | None:
    """The whole request body, or None when the client left first."""
    body = bytearray()
    while True:
        msg = await receive()
        if msg["type"] == "http.disconnect":
            return None
        body += msg.get("body", b"")
        if not msg.get("more_body", False):
            return bytes(body)


def _replay(body: bytes, receive: Receive) -> Receive:
    replayed = False

    async def replay() -> AsgiMessage:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        # Later calls wait for the disconnect, which ends a stream the client left.
        return await receive()

    return replay


class _JsonRpcFixes:
    """JSON-RPC: media type, ListTasks status names, 0.3 params and 0.3 push-config delete."""

    def __init__(self, app: ASGIApp, path: str) -> None:
        self.app = app
        self._path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != self._path or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        if _not_json(scope):
            data = [_error_info("CONTENT_TYPE_NOT_SUPPORTED")]
            await _send_json(send, 200, _jsonrpc_error(None, -32005, _wrong_type_text(scope), data))
            return
        body = await _read_body(receive)
        if body is None:
            return
        try:
            request = json.loads(body)
        except ValueError:
            request = None  # the SDK answers the parse error
        refusal = _refusal(request) if isinstance(request, dict) else None
        if refusal is not None:
            await _send_json(send, 200, refusal)
            return
        if isinstance(request, dict) and request.get("method") == (
            "tasks/pushNotificationConfig/delete"
        ):
            send = _with_result_member(send)
        await self.app(scope, _replay(body, receive), send)


def _request_id(request: dict[str, Any]) -> Any:
    rid = request.get("id")
    return rid if isinstance(rid, (str, int)) and not isinstance(rid, bool) else None


def _refusal(request: dict[str, Any]) -> dict[str, Any] | None:
    method, params = request.get("method"), request.get("params")
    if method == "ListTasks" and isinstance(params, dict):
        status = params.get("status")
        if status is not None and not _known_state(status):
            data = [_error_info("INVALID_PARAMS")]
            return _jsonrpc_error(_request_id(request), -32602, _status_text(status), data)
        return None
    model: Any = JSONRPC03Adapter.METHOD_TO_MODEL.get(method) if isinstance(method, str) else None
    if model is None:
        return None
    try:
        model.model_validate(request)
    except ValidationError as exc:
        errors = exc.errors()
        if errors and all(e["loc"] and e["loc"][0] == "params" for e in errors):
            text = "; ".join(".".join(map(str, e["loc"])) + ": " + e["msg"] for e in errors)
            return _jsonrpc_error(_request_id(request), -32602, "Invalid params", text)
    return None


def _with_result_member(send: Send) -> Send:
    """A JSON-RPC success without ``result`` gets ``"result": null`` (JSON-RPC 2.0 §5)."""
    start: AsgiMessage | None = None
    body = bytearray()

    async def patched(msg: AsgiMessage) -> None:
        nonlocal start
        if msg["type"] == "http.response.start":
            start = msg
            return
        body.extend(msg.get("body", b""))
        if msg.get("more_body", False) or start is None:
            return
        data = bytes(body)
        try:
            answer = json.loads(data)
        except ValueError:
            answer = None
        if isinstance(answer, dict) and "result" not in answer and "error" not in answer:
            data = json.dumps({"jsonrpc": "2.0", "id": answer.get("id"), "result": None}).encode()
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(data)).encode()))
        await send({**start, "headers": headers})
        await send({"type": "http.response.body", "body": data})

    return patched


class _RestFixes:
    """HTTP+JSON: media type (415), ListTasks status names, application/json answers, and a
    0.3 subscribe to an unknown task answered 404."""

    def __init__(self, app: ASGIApp, prefix: str) -> None:
        self.app = app
        self._prefix = prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope.get("path", "")
        if scope["type"] != "http" or not path.startswith(self._prefix + "/"):
            await self.app(scope, receive, send)
            return
        verb, rest = scope["method"], path[len(self._prefix) :]
        if verb == "POST" and _not_json(scope):
            body = _rest_error(
                415, "INVALID_ARGUMENT", _wrong_type_text(scope), "CONTENT_TYPE_NOT_SUPPORTED"
            )
            await _send_json(send, 415, body)
            return
        if verb == "GET" and rest.endswith("/tasks") and rest.count("/") <= 2:
            query = parse_qsl(scope.get("query_string", b"").decode("latin-1"))
            bad = [v for k, v in query if k == "status" and not _known_state(v)]
            if bad:
                body = _rest_error(400, "INVALID_ARGUMENT", _status_text(bad[0]), "INVALID_PARAMS")
                await _send_json(send, 400, body)
                return
        match = _SUBSCRIBE_03.fullmatch(rest)
        if match and await self._answered_missing(scope, match.group(1), send):
            return
        await self.app(scope, receive, _plain_json(send))

    async def _answered_missing(self, scope: Scope, task_id: str, send: Send) -> bool:
        """Probes the 0.3 GetTask route; a 404 is forwarded and True returned."""
        path = f"{self._prefix}/v1/tasks/{task_id}"
        probe = {**scope, "method": "GET", "path": path, "raw_path": path.encode(),
                 "query_string": b""}  # fmt: skip
        answer: list[AsgiMessage] = []

        async def nothing() -> AsgiMessage:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def keep(msg: AsgiMessage) -> None:
            answer.append(msg)

        await self.app(probe, nothing, keep)
        if not answer or answer[0].get("status") != 404:
            return False
        for msg in answer:
            await send(msg)
        return True


def _plain_json(send: Send) -> Send:
    async def typed(msg: AsgiMessage) -> None:
        if msg["type"] == "http.response.start":
            headers = []
            for key, value in msg.get("headers", []):
                if key.lower() == b"content-type" and value.lower().startswith(
                    b"application/a2a+json"
                ):
                    value = b"application/json" + value[len(b"application/a2a+json") :]
                headers.append((key, value))
            msg = {**msg, "headers": headers}
        await send(msg)

    return typed


class _CardLastModified:
    """``Last-Modified`` on the card's answers: the server's start, when the card was built."""

    def __init__(self, app: ASGIApp, paths: frozenset[str]) -> None:
        self.app = app
        self._paths = paths
        self._value = email.utils.formatdate(time.time(), usegmt=True).encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] not in self._paths:
            await self.app(scope, receive, send)
            return

        async def stamped(msg: AsgiMessage) -> None:
            if msg["type"] == "http.response.start" and msg["status"] in (200, 304):
                msg = {**msg, "headers": [*msg.get("headers", []), (b"last-modified", self._value)]}
            await send(msg)

        await self.app(scope, receive, stamped)
