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
  (a server that lets its JSON parser's exception escape).

Two have no defect, so the rules' passing side has a peer too: ``plain`` claims neither
streaming nor push notifications; ``extension-enforced`` requires an extension and refuses a
send without it (ExtensionSupportRequired).
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
from collections.abc import AsyncGenerator
from typing import Any

import httpx
import uvicorn
from a2a.server.context import ServerCallContext
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import (
    BasePushNotificationSender,
    InMemoryPushNotificationConfigStore,
    InMemoryTaskStore,
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
)
from a2a.utils.errors import (
    ExtensionSupportRequiredError,
    InternalError,
    TaskNotFoundError,
    UnsupportedOperationError,
)
from starlette.applications import Starlette
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.demo.agent import DemoAgentExecutor

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
)
PLAIN = "plain"
"""No defect: an agent that claims neither streaming nor push (the SDK refuses both)."""
ENFORCED = "extension-enforced"
"""No defect: an agent requiring an extension that refuses requests without it."""
PEERS = (*DEFECTS, PLAIN, ENFORCED)
EXTENSION = "https://example.invalid/a2a/ext/required-v1"


class NoStreamHandler(DefaultRequestHandler):
    """Refuses every stream although the card claims streaming."""

    async def on_message_send_stream(
        self, params: SendMessageRequest, context: ServerCallContext
    ) -> AsyncGenerator[Any, None]:
        raise UnsupportedOperationError(message="streaming is switched off")
        yield  # pragma: no cover - makes this an async generator like the base method


class WrongCodesHandler(DefaultRequestHandler):
    """Answers an unknown task id with an internal error."""

    async def on_get_task(self, params: GetTaskRequest, context: ServerCallContext) -> Task | None:
        try:
            return await super().on_get_task(params, context)
        except TaskNotFoundError:
            raise InternalError(message="no such task") from None


class ExtensionHandler(DefaultRequestHandler):
    """Refuses a send that does not activate the card's required extension."""

    async def on_message_send(self, params: SendMessageRequest, context: ServerCallContext) -> Any:
        if EXTENSION not in context.requested_extensions:
            raise ExtensionSupportRequiredError(message=f"{EXTENSION} is required")
        return await super().on_message_send(params, context)


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


def build_card(base: str, defect: str) -> AgentCard:
    url = f"{base}/{defect}"
    bindings = [("JSONRPC", url + "/"), ("HTTP+JSON", url + "/rest")]
    if defect == "open-extended":
        bindings = [("HTTP+JSON", url + "/rest")]
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


def build_peer(base: str, defect: str, client: httpx.AsyncClient) -> ASGIApp:
    card = build_card(base, defect)
    handler_class: type[DefaultRequestHandler] = {
        "no-stream": NoStreamHandler,
        "wrong-codes": WrongCodesHandler,
        ENFORCED: ExtensionHandler,
    }.get(defect, DefaultRequestHandler)
    push_store = InMemoryPushNotificationConfigStore()
    sender_class = SilentPushSender if defect == "push-silent" else BasePushNotificationSender
    handler = handler_class(
        agent_executor=DemoAgentExecutor(),
        task_store=InMemoryTaskStore(),
        agent_card=card,
        push_config_store=push_store,
        push_sender=sender_class(client, push_store),
        extended_agent_card=card if defect == "open-extended" else None,
    )
    routes = [
        *create_agent_card_routes(card, card_url=CARD_PATH),
        *create_rest_routes(handler, path_prefix="/rest"),
        *create_jsonrpc_routes(handler, "/"),
    ]
    app: ASGIApp = Starlette(routes=routes)
    prefix = f"/{defect}"
    if defect == "open-extended":
        app = BearerExceptExtendedCard(app, prefix)
    if defect == "rest-disagrees":
        app = RestSaysWorking(app, prefix)
    if defect == "parse-crash":
        app = CrashOnBadJson(app, prefix)
    return app


async def serve() -> None:
    sock = socket.create_server(("127.0.0.1", 0))
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    async with httpx.AsyncClient(timeout=5.0) as client:
        mounts = [Mount(f"/{d}", app=build_peer(base, d, client)) for d in PEERS]
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
