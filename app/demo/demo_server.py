"""Assembles the demo agent into a running A2A server from official ``a2a-sdk`` 1.3.0 pieces.

One process serves protocol 1.0 and 0.3 over all three bindings:

* JSON-RPC at ``/`` (``SendMessage`` and ``message/send`` share the URL),
* HTTP+JSON under ``/rest`` (1.0 at ``/rest/message:send``, 0.3 at ``/rest/v1/...``),
* gRPC on a second port (``lf.a2a.v1.A2AService`` and ``a2a.v1.A2AService``, plus
  reflection v1alpha when grpcio-reflection is installed),
* the signed Agent Card at ``/.well-known/agent-card.json`` and the legacy
  ``/.well-known/agent.json``, and the public JWKS at ``/.well-known/jwks.json``.

When everything listens, one JSON line ``{"event": "ready", ...}`` goes to stdout (see
:func:`serve`); logs go to stderr, one line per request (:mod:`app.demo.request_log`).
SIGTERM/SIGINT exit 0 within about a second.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hmac
import json
import logging
import os
import secrets
import signal
import socket
import sys
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import uvicorn
from a2a.compat.v0_3 import a2a_v0_3_pb2, a2a_v0_3_pb2_grpc
from a2a.compat.v0_3.grpc_handler import CompatGrpcHandler
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import (
    create_agent_card_routes,
    create_jsonrpc_routes,
    create_rest_routes,
)
from a2a.server.tasks import (
    BasePushNotificationSender,
    InMemoryPushNotificationConfigStore,
    InMemoryTaskStore,
)
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    HTTPAuthSecurityScheme,
    SecurityRequirement,
    SecurityScheme,
    StringList,
    a2a_pb2,
    a2a_pb2_grpc,
)
from a2a.utils.signing import create_agent_card_signer
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm
from sse_starlette.sse import AppStatus
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from app.demo import demo_tls as tls
from app.demo import oauth_guard, sdk_workarounds
from app.demo.agent import DemoAgentExecutor
from app.demo.oauth_guard import IntrospectionAuthMiddleware
from app.demo.request_log import GrpcRequestLog, HttpRequestLog
from app.errors import WorkbenchError

log = logging.getLogger("a2a_workbench.demo")

CARD_PATH = "/.well-known/agent-card.json"
LEGACY_CARD_PATH = "/.well-known/agent.json"
JWKS_PATH = "/.well-known/jwks.json"
REST_PREFIX = "/rest"
# Paths anyone may read even with --token: discovery must work before auth.
PUBLIC_PATHS = frozenset({CARD_PATH, LEGACY_CARD_PATH, JWKS_PATH})


# --------------------------------------------------------------------------- card


def build_card(jsonrpc_url: str, rest_url: str, grpc_url: str, *, token: str | None) -> AgentCard:
    """Builds the public Agent Card (unsigned).

    Args:
        jsonrpc_url: absolute JSON-RPC URL, e.g. ``http://127.0.0.1:8000/``.
        rest_url: absolute REST base URL, e.g. ``http://127.0.0.1:8000/rest``.
        grpc_url: the gRPC interface's absolute URL (the 1.0 proto asks for one), e.g.
            ``http://127.0.0.1:50051``; ``https://`` with TLS.
        token: when set, the card declares a bearer security scheme.

    Returns:
        A card with six interfaces: 1.0 JSONRPC, HTTP+JSON, GRPC, then the same for 0.3.
    """
    interfaces = [
        AgentInterface(url=url, protocol_binding=binding, protocol_version=version)
        for version in ("1.0", "0.3")
        for binding, url in (
            ("JSONRPC", jsonrpc_url),
            ("HTTP+JSON", rest_url),
            ("GRPC", grpc_url),
        )
    ]
    card = AgentCard(
        name="A2A Workbench demo agent",
        description=(
            "A small agent bundled with A2A Workbench: sums numbers, echoes text, streams "
            "progress, asks a question and fails on request."
        ),
        version="1.0.0",
        supported_interfaces=interfaces,
        capabilities=AgentCapabilities(
            streaming=True, push_notifications=True, extended_agent_card=True
        ),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain", "application/json"],
        skills=[
            _skill("sum", "Sum", "Adds a list of numbers; replies with a Message.", ["12 30"]),
            _skill("echo", "Echo", "Echoes any other text as a Message.", ["hello"]),
            _skill(
                "stream",
                "Stream progress",
                "A Task with N progress updates every INTERVAL_MS, then a 'result' artifact.",
                ["stream", "stream 3 10"],
            ),
            _skill("ask", "Ask", "A Task that asks for your name (input-required).", ["ask"]),
            _skill("fail", "Fail", "A Task that ends in state FAILED.", ["fail"]),
        ],
    )
    if token is not None:
        card.security_schemes["bearerAuth"].CopyFrom(
            SecurityScheme(http_auth_security_scheme=HTTPAuthSecurityScheme(scheme="bearer"))
        )
        card.security_requirements.append(SecurityRequirement(schemes={"bearerAuth": StringList()}))
    return card


def build_extended_card(card: AgentCard) -> AgentCard:
    """Returns a copy of the unsigned public ``card`` with one extra skill."""
    extended = AgentCard()
    extended.CopyFrom(card)
    extended.skills.append(
        _skill(
            "extended",
            "Extended-card marker",
            "Listed only on the extended card, so a client can tell which card it received.",
            ["hello"],
        )
    )
    return extended


def _skill(skill_id: str, name: str, description: str, examples: list[str]) -> AgentSkill:
    return AgentSkill(
        id=skill_id, name=name, description=description, tags=["demo"], examples=examples
    )


def make_signer(jku: str) -> tuple[Callable[[AgentCard], AgentCard], dict[str, Any]]:
    """Creates a fresh ES256 key and the SDK card signer that uses it.

    Args:
        jku: absolute URL where the public JWKS is served (goes into the protected header).

    Returns:
        ``(signer, jwks)``: the SDK signer (appends a signature to a card in place) and the
        public JWKS ``{"keys": [{"kty", "crv", "x", "y", "kid", "alg", "use"}]}``.
    """
    private_key = ec.generate_private_key(ec.SECP256R1())
    kid = f"demo-{secrets.token_hex(4)}"
    jwk: dict[str, Any] = ECAlgorithm.to_jwk(private_key.public_key(), as_dict=True)
    # jose (JS) refuses a key whose key_ops lacks "verify"; a public JWKS needs none.
    jwk.pop("key_ops", None)
    jwk.update(kid=kid, alg="ES256", use="sig")
    pem = private_key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    signer = create_agent_card_signer(pem, {"alg": "ES256", "kid": kid, "typ": "JOSE", "jku": jku})
    return signer, {"keys": [jwk]}


def write_jwks(jwks: dict[str, Any], path: str | None) -> Path:
    """Writes ``jwks`` as JSON to ``path`` (or a new temp file) and returns the absolute path."""
    if path is None:
        fd, name = tempfile.mkstemp(prefix="a2a-demo-jwks-", suffix=".json")
        os.close(fd)
        path = name
    target = Path(path).resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(jwks, indent=2) + "\n", encoding="utf-8")
    return target


# --------------------------------------------------------------------------- auth


class BearerAuthMiddleware:
    """Pure-ASGI bearer check; unlike BaseHTTPMiddleware it never buffers SSE bodies.

    Requests to ``PUBLIC_PATHS`` pass; anything else without ``Authorization: Bearer
    <token>`` gets HTTP 401 with a ``google.rpc.Status``-shaped JSON body.
    """

    def __init__(self, app: ASGIApp, token: str) -> None:
        """Wraps ``app``; ``token`` is the only accepted bearer value."""
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """ASGI entry point."""
        if scope["type"] != "http" or scope["path"] in PUBLIC_PATHS:
            await self.app(scope, receive, send)
            return
        supplied = dict(scope["headers"]).get(b"authorization", b"")
        if hmac.compare_digest(supplied, self._expected):
            await self.app(scope, receive, send)
            return
        response = JSONResponse(
            {
                "error": {
                    "code": 401,
                    "status": "UNAUTHENTICATED",
                    "message": "Missing or invalid bearer token",
                }
            },
            status_code=401,
            headers={"WWW-Authenticate": 'Bearer realm="a2a-demo"'},
        )
        await response(scope, receive, send)


# grpcio ships no type stubs, so its base class is Any to mypy.
class BearerAuthInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Rejects gRPC calls without ``authorization: Bearer <token>`` as UNAUTHENTICATED.

    Reflection stays open so tools can list services before they have a token.
    """

    def __init__(self, token: str, check: Callable[[str], Awaitable[bool]] | None = None) -> None:
        """``token`` is the only accepted bearer value, unless ``check`` decides instead
        (``--oauth-issuer``: the token is introspected)."""
        self._expected = f"Bearer {token}"
        self._check = check

    async def accepts(self, supplied: str) -> bool:
        """Whether the ``authorization`` metadata value is acceptable."""
        if self._check is not None:
            scheme, _, token = supplied.partition(" ")
            return (
                scheme.lower() == "bearer"
                and bool(token.strip())
                and await self._check(token.strip())
            )
        return hmac.compare_digest(supplied.encode(), self._expected.encode())

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        """Passes authorised calls on; swaps the handler for an aborting one otherwise."""
        handler = await continuation(handler_call_details)
        method: str = handler_call_details.method
        if handler is None or method.startswith("/grpc.reflection."):
            return handler
        metadata = handler_call_details.invocation_metadata or ()
        supplied = next((str(v) for k, v in metadata if k.lower() == "authorization"), "")
        if await self.accepts(supplied):
            return handler

        async def deny(request: object, context: grpc.aio.ServicerContext) -> None:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "Missing or invalid bearer token")

        async def deny_stream(
            request: object, context: grpc.aio.ServicerContext
        ) -> AsyncIterator[None]:
            await deny(request, context)
            yield  # pragma: no cover - abort() raises; this only makes it a generator

        kwargs = {
            "request_deserializer": handler.request_deserializer,
            "response_serializer": handler.response_serializer,
        }
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(deny_stream, **kwargs)
        return grpc.unary_unary_rpc_method_handler(deny, **kwargs)


# --------------------------------------------------------------------------- serving


class _Server(uvicorn.Server):
    """uvicorn server whose signals we handle ourselves.

    uvicorn's own capture re-raises SIGTERM after the graceful stop, so the process
    would die by signal instead of exiting 0.
    """

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class PortInUseError(WorkbenchError):
    """A port could not be bound; the message is the one-line error for stderr.

    Raised while binding the HTTP and gRPC ports in ``_serve``; caught there, printed on
    stderr, exit status 1.
    """


def _bind_tcp(host: str, port: int) -> socket.socket:
    # Binding ourselves (not via uvicorn) tells us the real port before the card is built.
    return socket.create_server((host, port), family=_family(host), backlog=128)


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def bind_ports(
    host: str,
    port: int,
    grpc_port: int,
    token: str | None,
    credentials: grpc.ServerCredentials | None = None,
    guard: BearerAuthInterceptor | None = None,
) -> tuple[socket.socket, grpc.aio.Server, int]:
    """Binds the HTTP socket and the gRPC server (not yet started).

    Args:
        host: interface for both servers.
        port: HTTP port, 0 for any free one.
        grpc_port: gRPC port, 0 for any free one.
        token: bearer token the gRPC interceptor demands, or None for no auth.
        credentials: TLS credentials for the gRPC port, or None for plaintext.
        guard: the interceptor to use when there is no ``token`` (OAuth introspection).

    Returns:
        ``(http_socket, grpc_server, bound_grpc_port)``.

    Raises:
        PortInUseError: either port is busy or the host cannot be bound.
    """
    try:
        http_sock = _bind_tcp(host, port)
    except OSError as exc:
        raise PortInUseError(f"cannot listen on {host}:{port}: {exc}") from exc
    try:
        if grpc_port:
            # gRPC core logs its own multi-line bind error; a plain probe keeps ours to one line.
            _bind_tcp(host, grpc_port).close()
        interceptors = [BearerAuthInterceptor(token)] if token else [guard] if guard else []
        interceptors.insert(0, GrpcRequestLog())  # first: it sees the calls auth turns away
        # SO_REUSEPORT (gRPC's default) would let a second server share a busy port silently.
        server = grpc.aio.server(interceptors=interceptors, options=[("grpc.so_reuseport", 0)])
        address = f"{_url_host(host)}:{grpc_port}"
        if credentials is None:
            bound = server.add_insecure_port(address)
        else:
            bound = server.add_secure_port(address, credentials)
    except (OSError, RuntimeError) as exc:
        http_sock.close()
        raise PortInUseError(f"cannot listen on gRPC {host}:{grpc_port}: {exc}") from exc
    return http_sock, server, bound


def build_http_app(
    handler: DefaultRequestHandler, card: AgentCard, jwks: dict[str, Any], token: str | None
) -> ASGIApp:
    """Assembles the SDK's card, REST and JSON-RPC routes into one ASGI app.

    Args:
        handler: the request handler shared with gRPC (one task store for all bindings).
        card: the signed public card.
        jwks: the public JWKS served at ``JWKS_PATH``.
        token: when set, everything but ``PUBLIC_PATHS`` requires this bearer token.

    Returns:
        The Starlette app, wrapped in ``BearerAuthMiddleware`` when ``token`` is set.
    """

    async def serve_jwks(request: Request) -> JSONResponse:
        return JSONResponse(jwks)

    cache = sdk_workarounds.CARD_CACHE_CONTROL
    routes: list[BaseRoute] = [
        *create_agent_card_routes(card, card_url=CARD_PATH, cache_control=cache),
        *create_agent_card_routes(card, card_url=LEGACY_CARD_PATH, cache_control=cache),
        Route(JWKS_PATH, serve_jwks, methods=["GET"]),
        *create_rest_routes(handler, enable_v0_3_compat=True, path_prefix=REST_PREFIX),
        *create_jsonrpc_routes(handler, "/", enable_v0_3_compat=True),
    ]
    app = sdk_workarounds.wrap_http(
        Starlette(routes=routes),
        jsonrpc_path="/",
        rest_prefix=REST_PREFIX,
        card_paths=frozenset({CARD_PATH, LEGACY_CARD_PATH}),
    )
    return BearerAuthMiddleware(app, token) if token else app


def _add_grpc_services(server: grpc.aio.Server, handler: DefaultRequestHandler) -> None:
    a2a_pb2_grpc.add_A2AServiceServicer_to_server(
        sdk_workarounds.VersionCheckingGrpcHandler(handler), server
    )
    a2a_v0_3_pb2_grpc.add_A2AServiceServicer_to_server(CompatGrpcHandler(handler), server)
    try:
        from grpc_reflection.v1alpha import reflection
    except ImportError:
        log.info("grpcio-reflection not installed; gRPC reflection disabled")
        return
    names = (
        a2a_pb2.DESCRIPTOR.services_by_name["A2AService"].full_name,
        a2a_v0_3_pb2.DESCRIPTOR.services_by_name["A2AService"].full_name,
        reflection.SERVICE_NAME,
    )
    reflection.enable_server_reflection(names, server)


def _push_client() -> httpx.AsyncClient:
    """The client that delivers push notifications: straight to the webhook, with nothing
    from the environment (no ``.netrc``, no proxy). Webhooks given to a demo agent are the
    app's loopback receiver, which a system proxy must not stand in front of."""
    return httpx.AsyncClient(timeout=10.0, trust_env=False)


async def _introspector(args: argparse.Namespace) -> oauth_guard.Introspector | None:
    """With ``--oauth-issuer``: the provider's token checker (its metadata read once)."""
    if not args.oauth_issuer:
        return None
    client_id, _, secret = (args.oauth_client or "").partition(":")
    metadata = await oauth_guard.discover(args.oauth_issuer)
    return oauth_guard.Introspector(args.oauth_issuer, metadata, client_id, secret)


async def serve(args: argparse.Namespace) -> int:
    """Serve until SIGTERM/SIGINT, with the options of ``a2a-workbench demo-agent``
    (:mod:`app.commands.demo_agent`).

    Prints exactly one line to stdout once every port listens::

        {"event": "ready", "base_url": "http://H:P", "card_url": "http://H:P/.well-known/agent-card.json",
         "jsonrpc_url": "http://H:P/", "rest_url": "http://H:P/rest", "grpc_target": "H:G",
         "jwks_path": "/abs/jwks.json", "pid": 123}

    Returns:
        0 after a signal-initiated shutdown; 1 when a port cannot be bound (one line on
        stderr).
    """
    introspector = await _introspector(args)
    guard = BearerAuthInterceptor("", introspector.active) if introspector else None
    try:
        http_sock, grpc_server, grpc_port = bind_ports(
            args.host,
            args.port,
            args.grpc_port,
            args.token,
            tls.grpc_server_credentials(args),
            guard=guard,
        )
    except PortInUseError as exc:
        print(f"demo-agent: {exc}", file=sys.stderr)
        return 1

    scheme = "https" if args.tls_cert else "http"
    base_url = f"{scheme}://{_url_host(args.host)}:{http_sock.getsockname()[1]}"
    urls = {
        "base_url": base_url,
        "card_url": base_url + CARD_PATH,
        "jsonrpc_url": base_url + "/",
        "rest_url": base_url + REST_PREFIX,
        "grpc_target": f"{_url_host(args.host)}:{grpc_port}",
    }
    grpc_url = f"{scheme}://{urls['grpc_target']}"
    card = build_card(urls["jsonrpc_url"], urls["rest_url"], grpc_url, token=args.token)
    if introspector is not None:
        oauth_guard.declare_schemes(card, introspector.issuer, introspector.metadata)
    extended_card = build_extended_card(card)
    signer, jwks = make_signer(base_url + JWKS_PATH)
    signer(card)
    signer(extended_card)
    jwks_path = write_jwks(jwks, args.jwks_out)

    push_store = InMemoryPushNotificationConfigStore()
    handler = sdk_workarounds.RequestHandler(
        agent_executor=DemoAgentExecutor(),
        task_store=InMemoryTaskStore(),
        agent_card=card,
        push_config_store=push_store,
        push_sender=BasePushNotificationSender(_push_client(), push_store),
        extended_agent_card=extended_card,
    )
    _add_grpc_services(grpc_server, handler)
    http_app = build_http_app(handler, card, jwks, args.token)
    if introspector is not None:
        http_app = IntrospectionAuthMiddleware(http_app, introspector, PUBLIC_PATHS)
    config = uvicorn.Config(
        HttpRequestLog(http_app),  # one line per request, instead of uvicorn's access log
        access_log=False,
        log_config=None,  # app.demo.request_log configured logging; uvicorn keeps to it
        log_level=None,
        lifespan="off",
        # Bounds the wait for connections that outlive the SSE shutdown signal.
        timeout_graceful_shutdown=1,
        **tls.uvicorn_options(args),
    )
    server = _Server(config)

    def request_exit() -> None:
        server.should_exit = True
        # sse-starlette ends open streams when it sees this flag (polled every 0.5 s).
        AppStatus.should_exit = True

    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, request_exit)

    await grpc_server.start()
    http_task = asyncio.create_task(server.serve(sockets=[http_sock]))
    try:
        while not server.started:
            if http_task.done():
                print(f"demo-agent: HTTP server failed: {http_task.exception()!r}", file=sys.stderr)
                return 1
            await asyncio.sleep(0.01)

        ready = {"event": "ready", **urls, "jwks_path": str(jwks_path), "pid": os.getpid()}
        sys.stdout.write(json.dumps(ready) + "\n")
        sys.stdout.flush()
        log.info("demo agent ready at %s (gRPC %s)", base_url, urls["grpc_target"])
        await http_task
    finally:
        # A short grace lets in-flight unary calls finish; streams are cut.
        await grpc_server.stop(grace=0.2)
        if args.jwks_out is None:
            # Our own temp file; an explicit --jwks-out belongs to the caller.
            jwks_path.unlink(missing_ok=True)
    return 0
