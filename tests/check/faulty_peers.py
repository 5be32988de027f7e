"""Agents with one planted defect each, built from the real a2a-sdk server pieces.

``python -m tests.check.faulty_peers`` serves them all on one loopback port, each under its
own path (``/<defect>/``, card at ``/<defect>/.well-known/agent-card.json``), and prints one
ready line ``{"event": "ready", "base_url": ..., "cards": {defect: card_url}}``. Every peer is
the SDK's own request handler and routes running the demo agent's executor; the defect is a
handler override or a small ASGI wrapper:

- ``no-stream``: the card claims streaming; the handler refuses every stream;
- ``wrong-codes``: an unknown task id is an internal error (-32603 / HTTP 500), not
  TaskNotFound;
- ``push-silent``: the card claims push notifications; the sender never delivers;
- ``open-extended``: the card declares bearer security, yet the extended card is served to
  callers without credentials;
- ``rest-disagrees``: the REST binding reports ``TASK_STATE_WORKING`` where JSON-RPC says
  completed;
- ``extension-ignored``: the card requires an extension; requests without it are served
  (the SDK does not enforce ``required``);
- ``parse-crash``: a JSON-RPC body that is not JSON gets a bare HTTP 500 page, not -32700
  (a server that lets its JSON parser's exception escape);
- ``filter-accepted``: ListTasks with a status no TaskState has lists every task (a2a-sdk's
  own handler and routes, whose lenient ProtoJSON parsing drops the unknown name; the others
  run with the demo agent's fixes of the SDK, ``app/demo/sdk_workarounds.py``, which refuse
  it);
- ``wrong-content-type``: the REST binding types its JSON answers ``text/plain``;
- ``no-cache``: the card is served without Cache-Control and ETag;
- ``table-mixed``: REST answers TaskNotCancelable with 409 (the v1.0.0 error table), gRPC
  follows the v1.0.1 table (FAILED_PRECONDITION where v1.0.0 says UNIMPLEMENTED).

Four have no defect, so the rules' passing side has a peer too: ``plain`` claims neither
streaming nor push notifications; ``extension-enforced`` requires an extension and refuses a
send without it (ExtensionSupportRequired); ``table-v100`` follows the v1.0.0 error table
throughout (REST 409, gRPC UNIMPLEMENTED), which is as conforming as v1.0.1; and
``fast-finish`` claims streaming but finishes every task as soon as it starts, as a generic
echo agent does (nothing is left running to cancel, resubscribe to or join).

Every card but ``no-cache``'s is served with ``Cache-Control`` (the SDK's route sends the
ETag). ``table-v100`` and ``table-mixed`` also serve gRPC, each on a port of its own.
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
from collections.abc import AsyncGenerator
from typing import Any

import grpc
import httpx
import uvicorn
from a2a.helpers import new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.context import ServerCallContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import (
    BasePushNotificationSender,
    InMemoryPushNotificationConfigStore,
    InMemoryTaskStore,
    TaskUpdater,
)
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentExtension,
    AgentInterface,
    AgentSkill,
    GetTaskRequest,
    HTTPAuthSecurityScheme,
    SecurityRequirement,
    SecurityScheme,
    SendMessageRequest,
    StringList,
    Task,
    a2a_pb2_grpc,
)
from a2a.utils.errors import (
    A2AError,
    ExtensionSupportRequiredError,
    InternalError,
    PushNotificationNotSupportedError,
    TaskNotCancelableError,
    TaskNotFoundError,
    UnsupportedOperationError,
    VersionNotSupportedError,
)
from a2a.utils.grpc_status import status_to_grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from starlette.applications import Starlette
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.demo.agent import DemoAgentExecutor
from app.demo.sdk_workarounds import RequestHandler, VersionCheckingGrpcHandler, wrap_http

CARD_PATH = "/.well-known/agent-card.json"
TOKEN = "faulty-token"
DEFECTS = (
    "no-stream",
    "wrong-codes",
    "push-silent",
    "open-extended",
    "rest-disagrees",
    "extension-ignored",
    "parse-crash",
    "filter-accepted",
    "wrong-content-type",
    "no-cache",
    "table-mixed",
)
PLAIN = "plain"
"""No defect: an agent that claims neither streaming nor push (the SDK refuses both)."""
ENFORCED = "extension-enforced"
"""No defect: an agent requiring an extension that refuses requests without it."""
TABLE_V100 = "table-v100"
"""No defect: an agent following the v1.0.0 error table."""
FAST = "fast-finish"
"""No defect: an agent that finishes every task at once."""
PEERS = (*DEFECTS, PLAIN, ENFORCED, TABLE_V100, FAST)
GRPC_PEERS = ("table-mixed", TABLE_V100)
CARD_CACHE_CONTROL = "public, max-age=60"
EXTENSION = "https://example.invalid/a2a/ext/required-v1"


class NoStreamHandler(RequestHandler):
    """Refuses every stream although the card claims streaming."""

    async def on_message_send_stream(
        self, params: SendMessageRequest, context: ServerCallContext
    ) -> AsyncGenerator[Any, None]:
        raise UnsupportedOperationError(message="streaming is switched off")
        yield  # pragma: no cover - makes this an async generator like the base method


class WrongCodesHandler(RequestHandler):
    """Answers an unknown task id with an internal error."""

    async def on_get_task(self, params: GetTaskRequest, context: ServerCallContext) -> Task | None:
        try:
            task: Task | None = await super().on_get_task(params, context)
        except TaskNotFoundError:
            raise InternalError(message="no such task") from None
        return task


class ExtensionHandler(RequestHandler):
    """Refuses a send that does not activate the card's required extension."""

    async def on_message_send(self, params: SendMessageRequest, context: ServerCallContext) -> Any:
        if EXTENSION not in context.requested_extensions:
            raise ExtensionSupportRequiredError(message=f"{EXTENSION} is required")
        return await super().on_message_send(params, context)


class FastExecutor(AgentExecutor):
    """Answers every message with a task completed at once (a generic echo agent)."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.message is not None
        task = context.current_task or new_task_from_user_message(context.message)
        if context.current_task is None:
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        text = next((p.text for p in context.message.parts if p.HasField("text")), "")
        await updater.complete(updater.new_agent_message([new_text_part(f"Echo: {text}")]))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise TaskNotCancelableError(message="every task is finished at once")


_V100_GRPC = {
    PushNotificationNotSupportedError: "PUSH_NOTIFICATION_NOT_SUPPORTED",
    UnsupportedOperationError: "UNSUPPORTED_OPERATION",
    VersionNotSupportedError: "VERSION_NOT_SUPPORTED",
}


class V100GrpcHandler(VersionCheckingGrpcHandler):
    """The SDK's gRPC handler with the v1.0.0 table's UNIMPLEMENTED for three errors."""

    async def abort_context(self, error: A2AError, context: grpc.aio.ServicerContext) -> None:
        reason = _V100_GRPC.get(type(error))
        if reason is None:
            await super().abort_context(error, context)
            return
        info = error_details_pb2.ErrorInfo(reason=reason, domain="a2a-protocol.org")
        detail = any_pb2.Any()
        detail.Pack(info)
        message = getattr(error, "message", None) or str(error)
        status = status_pb2.Status(
            code=grpc.StatusCode.UNIMPLEMENTED.value[0], message=message, details=[detail]
        )
        rich = status_to_grpc(status)
        context.set_trailing_metadata(tuple(rich.trailing_metadata))
        await context.abort(rich.code, rich.details)


class SilentPushSender(BasePushNotificationSender):
    """Keeps the configs, never POSTs a notification."""

    async def send_notification(self, task_id: str, event: Any) -> None:
        return None


class BearerExceptExtendedCard:
    """Requires the bearer token everywhere but the card and the REST extended card."""

    def __init__(self, app: ASGIApp, prefix: str) -> None:
        self.app = app
        self.open = {prefix + CARD_PATH, prefix + "/rest/extendedAgentCard"}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self.open:
            await self.app(scope, receive, send)
            return
        if dict(scope["headers"]).get(b"authorization") == f"Bearer {TOKEN}".encode():
            await self.app(scope, receive, send)
            return
        body = {"error": {"code": 401, "status": "UNAUTHENTICATED", "message": "no token"}}
        await JSONResponse(body, status_code=401)(scope, receive, send)


class RestSaysWorking:
    """Rewrites the REST binding's JSON answers: a completed task reads as working."""

    def __init__(self, app: ASGIApp, prefix: str) -> None:
        self.app = app
        self.rest = prefix + "/rest"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(self.rest):
            await self.app(scope, receive, send)
            return
        rewrite = False

        async def patched(message: Message) -> None:
            nonlocal rewrite
            if message["type"] == "http.response.start":
                headers = dict(message.get("headers", []))
                rewrite = b"json" in headers.get(b"content-type", b"")
                if rewrite:  # the length changes: let the server chunk the body
                    message = {
                        **message,
                        "headers": [
                            (k, v) for k, v in message["headers"] if k.lower() != b"content-length"
                        ],
                    }
            elif message["type"] == "http.response.body" and rewrite:
                body = message.get("body", b"").replace(
                    b"TASK_STATE_COMPLETED", b"TASK_STATE_WORKING"
                )
                message = {**message, "body": body}
            await send(message)

        await self.app(scope, receive, patched)


class CrashOnBadJson:
    """Answers a JSON-RPC POST whose body is not JSON with a plain 500 page."""

    def __init__(self, app: ASGIApp, prefix: str) -> None:
        self.app = app
        self.jsonrpc = prefix + "/"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != self.jsonrpc:
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        try:
            json.loads(body)
        except ValueError:
            await PlainTextResponse("Internal Server Error", 500)(scope, receive, send)
            return

        async def replay() -> Message:
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


class RestV100Cancel:
    """Answers the REST binding's TaskNotCancelable with HTTP 409, as the v1.0.0 table does."""

    def __init__(self, app: ASGIApp, prefix: str) -> None:
        self.app = app
        self.rest = prefix + "/rest"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(self.rest):
            await self.app(scope, receive, send)
            return
        start: Message | None = None
        chunks: list[bytes] = []

        async def held(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start" and message["status"] == 400:
                start = message
                return
            if start is None:
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body"):
                return
            body = b"".join(chunks)
            status = 400
            if b"TASK_NOT_CANCELABLE" in body:
                status = 409
                body = body.replace(b'"code":400', b'"code":409').replace(
                    b'"code": 400', b'"code": 409'
                )
            headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
            headers.append((b"content-length", str(len(body)).encode()))
            await send({**start, "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, held)


class RestTypedText:
    """Types the REST binding's JSON answers ``text/plain``."""

    def __init__(self, app: ASGIApp, prefix: str) -> None:
        self.app = app
        self.rest = prefix + "/rest"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(self.rest):
            await self.app(scope, receive, send)
            return

        async def retyped(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (
                        k,
                        b"text/plain; charset=utf-8"
                        if k.lower() == b"content-type" and b"json" in v
                        else v,
                    )
                    for k, v in message.get("headers", [])
                ]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, retyped)


class CardWithoutValidators:
    """Serves the card without ETag and Last-Modified (its route is given no Cache-Control)."""

    def __init__(self, app: ASGIApp, prefix: str) -> None:
        self.app = app
        self.card = prefix + CARD_PATH

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != self.card:
            await self.app(scope, receive, send)
            return

        async def stripped(message: Message) -> None:
            if message["type"] == "http.response.start":
                drop = (b"etag", b"last-modified")
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in drop]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, stripped)


def build_card(base: str, defect: str, grpc_url: str = "") -> AgentCard:
    url = f"{base}/{defect}"
    bindings = [("JSONRPC", url + "/"), ("HTTP+JSON", url + "/rest")]
    if defect == "open-extended":
        bindings = [("HTTP+JSON", url + "/rest")]
    if grpc_url:
        bindings.append(("GRPC", grpc_url))
    card = AgentCard(
        name=f"faulty peer: {defect}",
        description="A test agent with one planted defect.",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(url=u, protocol_binding=b, protocol_version="1.0") for b, u in bindings
        ],
        capabilities=AgentCapabilities(
            streaming=defect != PLAIN,
            push_notifications=defect == "push-silent",
            extended_agent_card=defect == "open-extended",
            extensions=[AgentExtension(uri=EXTENSION, required=True)]
            if defect in ("extension-ignored", ENFORCED)
            else [],
        ),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="demo", name="Demo", description="The demo agent.", tags=["demo"])],
    )
    if defect == "open-extended":
        card.security_schemes["bearerAuth"].CopyFrom(
            SecurityScheme(http_auth_security_scheme=HTTPAuthSecurityScheme(scheme="bearer"))
        )
        card.security_requirements.append(SecurityRequirement(schemes={"bearerAuth": StringList()}))
    return card


def build_handler(
    base: str, defect: str, client: httpx.AsyncClient, grpc_url: str = ""
) -> tuple[AgentCard, DefaultRequestHandler]:
    card = build_card(base, defect, grpc_url)
    handler_class: type[DefaultRequestHandler] = {
        "no-stream": NoStreamHandler,
        "wrong-codes": WrongCodesHandler,
        ENFORCED: ExtensionHandler,
        "filter-accepted": DefaultRequestHandler,
    }.get(defect, RequestHandler)
    push_store = InMemoryPushNotificationConfigStore()
    sender_class = SilentPushSender if defect == "push-silent" else BasePushNotificationSender
    handler = handler_class(
        agent_executor=FastExecutor() if defect == FAST else DemoAgentExecutor(),
        task_store=InMemoryTaskStore(),
        agent_card=card,
        push_config_store=push_store,
        push_sender=sender_class(client, push_store),
        extended_agent_card=card if defect == "open-extended" else None,
    )
    return card, handler


def build_peer(base: str, defect: str, card: AgentCard, handler: DefaultRequestHandler) -> ASGIApp:
    cache = None if defect == "no-cache" else CARD_CACHE_CONTROL
    routes = [
        *create_agent_card_routes(card, card_url=CARD_PATH, cache_control=cache),
        *create_rest_routes(handler, path_prefix="/rest"),
        *create_jsonrpc_routes(handler, "/"),
    ]
    app: ASGIApp = Starlette(routes=routes)
    prefix = f"/{defect}"
    if defect != "filter-accepted":
        # The demo agent's HTTP fixes of a2a-sdk (app/demo/sdk_workarounds.py): the defects
        # below are planted on an agent that is clean otherwise.
        paths = frozenset({prefix + CARD_PATH})
        app = wrap_http(
            app, jsonrpc_path=prefix + "/", rest_prefix=prefix + "/rest", card_paths=paths
        )
    if defect == "open-extended":
        app = BearerExceptExtendedCard(app, prefix)
    if defect == "rest-disagrees":
        app = RestSaysWorking(app, prefix)
    if defect == "parse-crash":
        app = CrashOnBadJson(app, prefix)
    if defect == "wrong-content-type":
        app = RestTypedText(app, prefix)
    if defect == "no-cache":
        app = CardWithoutValidators(app, prefix)
    if defect in GRPC_PEERS:
        app = RestV100Cancel(app, prefix)
    return app


def grpc_servicer(defect: str, handler: DefaultRequestHandler) -> VersionCheckingGrpcHandler:
    if defect == TABLE_V100:
        return V100GrpcHandler(handler)
    return VersionCheckingGrpcHandler(handler)


async def serve() -> None:
    sock = socket.create_server(("127.0.0.1", 0))
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    async with httpx.AsyncClient(timeout=5.0) as client:
        mounts = []
        grpc_servers = []  # referenced until the end: a collected server stops
        for d in PEERS:
            grpc_server = grpc.aio.server() if d in GRPC_PEERS else None
            grpc_url = ""
            if grpc_server is not None:
                grpc_url = f"http://127.0.0.1:{grpc_server.add_insecure_port('127.0.0.1:0')}"
            card, handler = build_handler(base, d, client, grpc_url)
            mounts.append(Mount(f"/{d}", app=build_peer(base, d, card, handler)))
            if grpc_server is not None:
                servicer = grpc_servicer(d, handler)
                a2a_pb2_grpc.add_A2AServiceServicer_to_server(servicer, grpc_server)
                await grpc_server.start()
                grpc_servers.append(grpc_server)
        config = uvicorn.Config(Starlette(routes=mounts), log_level="warning", lifespan="off")
        server = uvicorn.Server(config)
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started:
            await asyncio.sleep(0.01)
        cards = {d: f"{base}/{d}{CARD_PATH}" for d in PEERS}
        print(json.dumps({"event": "ready", "base_url": base, "cards": cards}), flush=True)
        await task


if __name__ == "__main__":
    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        sys.exit(0)
