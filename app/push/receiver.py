"""A webhook on loopback that A2A push notifications are delivered to, for the client to read.

An agent delivers push notifications by POSTing to the URL of a push config (1.0 §4.3.3:
the body is a ``StreamResponse`` — ``{"task"}``, ``{"statusUpdate"}``, ``{"artifactUpdate"}``
or ``{"message"}``; the Python SDK sends that envelope for 0.3 registrations too, the JS SDK a
bare 0.3 ``Task``: docs/PEERS.md Q15), with the config's token in
``X-A2A-Notification-Token`` and its ``authentication`` as an ``Authorization`` header.

:class:`PushReceiver` is a small Starlette app served by uvicorn inside the caller's event
loop (the GUI's qasync loop, the CLI's asyncio loop). It records every request it gets as
a :class:`PushDelivery`, whatever the path or body: a misdirected or malformed delivery is
what a debugger wants to see. Bodies over :data:`MAX_BODY_BYTES` are refused with 413.

Tokens are secrets: :meth:`PushDelivery.as_record` (what the CLI prints, what views show)
masks them in the headers and wherever the body echoes one.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import json
import logging
import secrets
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import uvicorn
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from app.protocol.events import NOT_JSON, Headers
from app.protocol.records import record
from app.protocol.secrets import mask_headers, redact_bytes, redact_json
from app.protocol.stream.stream_items import ItemKind, classify_json

log = logging.getLogger(__name__)

TOKEN_HEADER = "X-A2A-Notification-Token"
"""Where an agent puts a push config's ``token`` (1.0 §4.3.3; the same header in 0.3)."""

PUSH_PATH = "/push"
MAX_BODY_BYTES = 1024 * 1024
"""A delivery body bigger than this is answered 413 and recorded without its body."""

# Every verb is recorded: an agent that PUTs its notifications is worth seeing too.
_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

LOOPBACK_NOTE = "Loopback only: an agent on another machine cannot reach 127.0.0.1"

Listener = Callable[["PushDelivery"], None]


@dataclass(frozen=True)
class PushDelivery:
    """One request the receiver got.

    Attributes:
        seq: 1 for the first delivery of this receiver, then 2, …
        received_at: wall-clock time (``time.time()``) it arrived.
        method, path: the HTTP verb and the path (with its query string, if any).
        headers: as received (names lower-case, as ASGI gives them); secrets in clear:
            show :meth:`masked_headers`.
        body: the bytes received (empty when over :data:`MAX_BODY_BYTES`).
        body_json: the parsed body, or :data:`app.protocol.events.NOT_JSON`.
        token: the ``X-A2A-Notification-Token`` received, None without one.
        token_ok: whether ``token`` is one the receiver issued (:meth:`PushReceiver.new_token`);
            False for a missing or unknown token once any was issued; None when the receiver
            issued none and none came (nothing to check).
        scheme: the authentication scheme word of the ``Authorization`` header
            (``Bearer``, ``Basic``), ``""`` without one.
        task_id: the task the body is about (Task, StreamResponse or status/artifact
            update, 1.0 and 0.3 shapes), None when it names none.
        too_large: the body was refused (413) for its size.
    """

    seq: int
    received_at: float
    method: str
    path: str
    headers: Headers
    body: bytes
    body_json: Any
    token: str | None
    token_ok: bool | None
    scheme: str
    task_id: str | None
    too_large: bool = False

    def __repr__(self) -> str:
        # Logs and tracebacks show deliveries: never with the token or credentials.
        return (
            f"PushDelivery(seq={self.seq}, {self.method} {self.path!r}, "
            f"headers={self.masked_headers()!r}, token_ok={self.token_ok}, "
            f"scheme={self.scheme!r}, task_id={self.task_id!r}, bytes={len(self.body)})"
        )

    @property
    def kind(self) -> str:
        """What the body is (``task``, ``status-update``, ``artifact-update``, ``message``),
        ``""`` when it is not a recognised A2A object."""
        if self.body_json is NOT_JSON:
            return ""
        info = classify_json(self.body_json)
        return "" if info.kind is ItemKind.ERROR else info.kind.value

    @property
    def token_check(self) -> str:
        """The token check in words: ``matches the token we set``, ``missing``, ``wrong``
        (a token the receiver never issued), or ``not checked`` (none issued, none came)."""
        if self.token_ok is True:
            return "matches the token we set"
        if self.token_ok is None:
            return "not checked"
        return "missing" if self.token is None else "wrong"

    @property
    def auth_seen(self) -> str:
        """How the agent authenticated: ``Bearer in Authorization``, the token header, both,
        or ``none``."""
        seen = [f"{self.scheme} in Authorization"] if self.scheme else []
        if self.token is not None:
            seen.append(TOKEN_HEADER)
        return " and ".join(seen) or "none"

    def masked_headers(self) -> Headers:
        """:attr:`headers` with credential values masked (the token, ``Authorization``)."""
        return mask_headers(self.headers)

    def _secrets(self) -> tuple[str, ...]:
        values = [self.token or ""]
        for name, value in self.headers:
            if name.lower() == "authorization":
                values += [value, value.partition(" ")[2]]
        return tuple(sorted({v for v in values if len(v) >= 4}, key=len, reverse=True))

    def masked_body(self) -> tuple[bytes, Any]:
        """:attr:`body` and :attr:`body_json` with any echo of the token or credentials masked."""
        found = self._secrets()
        if not found:
            return self.body, self.body_json
        parsed = self.body_json
        if parsed is not NOT_JSON:
            parsed = redact_json(parsed, found)
        return redact_bytes(self.body, found), parsed

    def as_record(self) -> dict[str, Any]:
        """This delivery as the CLI's ``delivery`` jsonl record (secrets masked).

        ``body`` is the parsed JSON when the body is JSON, else the text received.
        """
        raw, parsed = self.masked_body()
        fields = {
            "seq": self.seq,
            "receivedAt": self.received_at,
            "method": self.method,
            "path": self.path,
            "headers": [list(pair) for pair in self.masked_headers()],
            "body": raw.decode("utf-8", "replace") if parsed is NOT_JSON else parsed,
            "token_ok": self.token_ok,
            "scheme": self.scheme,
            "task_id": self.task_id,
            **({"tooLarge": True} if self.too_large else {}),
        }
        return record("delivery", fields, with_type=True)

    def summary(self) -> str:
        """One line: what arrived, for whom, and the token check."""
        what = self.kind or ("not JSON" if self.body_json is NOT_JSON else "unrecognised JSON")
        if self.too_large:
            what = f"body over {MAX_BODY_BYTES // 1024} KiB refused"
        check = {True: "token ok", False: "token wrong or missing", None: "no token"}
        auth = f" · {self.scheme} auth" if self.scheme else ""
        return f"{self.method} {self.path}: {what} · {check[self.token_ok]}{auth}"


def with_push_path(public_url: str) -> str:
    """``public_url`` with ``/push`` as its path when it has none (the receiver answers on
    every path; a tunnel forwards the path it is given)."""
    text = public_url.strip()
    if not text:
        return ""
    parts = urlsplit(text)
    if parts.path in ("", "/"):
        parts = parts._replace(path=PUSH_PATH)
    return urlunsplit(parts)


def is_loopback_url(url: str) -> bool:
    """Whether ``url``'s host is this machine's loopback (only an agent here can call it)."""
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class PushReceiver:
    """The loopback webhook. ``async with PushReceiver() as receiver:`` or start/stop.

    Attributes:
        url: where agents deliver: the public URL when one is given, else the local one;
            empty until started.
        local_url: where it listens (``http://127.0.0.1:PORT/push``); empty until started.
        public_url: the address agents should call instead (a tunnel or proxy the user runs
            to this receiver; a strict agent refuses loopback callbacks, docs/PEERS.md Q29);
            ``/push`` is added when it has no path.
        deliveries: every request received, oldest first.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, public_url: str = "") -> None:
        self.host = host
        self.port = port
        self.public_url = with_push_path(public_url)
        self.url = ""
        self.local_url = ""
        self.deliveries: list[PushDelivery] = []
        self._tokens: set[str] = set()
        self._listeners: list[Listener] = []
        self._changed = asyncio.Event()
        self._server: _QuietServer | None = None
        self._task: asyncio.Task[None] | None = None

    # --- lifecycle ---------------------------------------------------------------

    async def __aenter__(self) -> PushReceiver:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    @property
    def running(self) -> bool:
        """The receiver listens."""
        return self._server is not None

    async def start(self) -> None:
        """Bind the port and serve in the running loop; returns once it listens.

        Raises:
            OSError: the port cannot be bound.
        """
        if self._server is not None:
            return
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        bound = socket.create_server((self.host, self.port), family=family, backlog=64)
        sock = _ListeningSocket(fileno=bound.detach())
        self.port = sock.getsockname()[1]
        host = f"[{self.host}]" if ":" in self.host else self.host
        self.local_url = f"http://{host}:{self.port}{PUSH_PATH}"
        self.url = self.public_url or self.local_url
        config = uvicorn.Config(
            self._app(),
            log_level="warning",
            access_log=False,  # the access log would print paths; deliveries are the log
            log_config=None,
            lifespan="off",
            timeout_graceful_shutdown=1,
            http=_Connection,
        )
        server = _QuietServer(config, sock)
        self._server = server
        self._task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started:
            if self._task.done():
                self._server = None
                sock.close()
                error = self._task.exception()
                raise OSError(f"the push receiver did not start: {error!r}")
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        """Stop listening (open connections get a second to finish); returns once every
        connection accepted is closed."""
        server, task = self._server, self._task
        self._server = self._task = None
        if server is None or task is None:
            return
        await server.stop_accepting()
        server.request_exit()
        try:
            await task
        except asyncio.CancelledError:
            pass
        except Exception:  # the server already died: stopping is done all the same
            log.exception("push receiver failed while serving")
        await server.close_connections()

    # --- tokens and deliveries -------------------------------------------------------

    def new_token(self) -> str:
        """A fresh random token, accepted from now on (put it in a push config's ``token``)."""
        token = secrets.token_urlsafe(24)
        self._tokens.add(token)
        return token

    @property
    def tokens(self) -> tuple[str, ...]:
        """Every token issued (secrets: register them where the app masks credentials)."""
        return tuple(self._tokens)

    def add_listener(self, callback: Listener) -> Callable[[], None]:
        """Call ``callback`` with each delivery as it arrives; returns the remover."""
        self._listeners.append(callback)

        def remove() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(callback)

        return remove

    async def wait_for(
        self, predicate: Callable[[PushDelivery], bool], timeout: float
    ) -> PushDelivery | None:
        """The first delivery (received already or within ``timeout`` s) that satisfies
        ``predicate``; None when none does in time."""
        checked = 0
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            for delivery in self.deliveries[checked:]:
                if predicate(delivery):
                    return delivery
            checked = len(self.deliveries)
            left = deadline - loop.time()
            if left <= 0:
                return None
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(left):
                    await self._changed.wait()

    def _token_ok(self, token: str | None) -> bool | None:
        if not self._tokens:
            return None if token is None else False
        if token is None:
            return False
        given = token.encode()
        # Compared in constant time: the token authenticates the agent to us.
        return any(hmac.compare_digest(given, known.encode()) for known in self._tokens)

    def _record(self, request: Request, body: bytes, too_large: bool) -> PushDelivery:
        headers = tuple((k.decode("latin-1"), v.decode("latin-1")) for k, v in request.headers.raw)
        token = request.headers.get(TOKEN_HEADER)
        authorization = request.headers.get("authorization", "")
        scheme = authorization.partition(" ")[0] if authorization.strip() else ""
        parsed = _parse(body)
        path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        delivery = PushDelivery(
            seq=len(self.deliveries) + 1,
            received_at=time.time(),
            method=request.method,
            path=path,
            headers=headers,
            body=body,
            body_json=parsed,
            token=token,
            token_ok=self._token_ok(token),
            scheme=scheme,
            task_id=_task_id(parsed),
            too_large=too_large,
        )
        self.deliveries.append(delivery)
        self._changed.set()
        for callback in list(self._listeners):
            try:
                callback(delivery)
            except Exception:  # a listener's bug must not fail the agent's delivery
                log.exception("push delivery listener failed")
        return delivery

    # --- the ASGI app ---------------------------------------------------------------

    def _app(self) -> Starlette:
        async def receive(request: Request) -> Response:
            if request.method in ("GET", "HEAD"):
                # Lets a person (or a curl) check the URL is reachable; not a delivery.
                return PlainTextResponse("A2A Workbench push receiver: POST deliveries here\n")
            try:
                body, too_large = await _read_bounded(request)
            except ClientDisconnect:
                return Response(status_code=400)
            delivery = self._record(request, body, too_large)
            if too_large:
                return PlainTextResponse("body too large", status_code=413)
            return JSONResponse({"received": delivery.seq})

        return Starlette(routes=[Route("/{path:path}", receive, methods=_METHODS)])


class _ListeningSocket(socket.socket):
    """The listening socket, counting the connections the loop accepts from it."""

    accepted = 0

    def accept(self) -> tuple[socket.socket, Any]:
        conn, address = super().accept()
        self.accepted += 1
        return conn, address


class _State(ServerState):
    """uvicorn's server state, plus how many connections were made (``connection_made``)."""

    def __init__(self) -> None:
        super().__init__()
        self.made = 0
        self.changed = asyncio.Event()


class _Connection(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, counting itself in when made and out when lost."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if isinstance(self.server_state, _State):
            self.server_state.made += 1
            self.server_state.changed.set()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if isinstance(self.server_state, _State):
            self.server_state.changed.set()


class _QuietServer(uvicorn.Server):
    """uvicorn without its signal capture (the app, GUI or CLI, owns SIGINT and SIGTERM),
    with a stop that leaves no connection open.

    asyncio (3.11) accepts a connection in one loop turn and makes its transport in a later
    one; when the server closes in between, the transport's creation fails and its socket is
    left to the garbage collector (an unclosed-transport ResourceWarning). And a connection
    made after uvicorn's shutdown asked the open ones to close is never asked: it stays open,
    idle, past the graceful second. So the stop first stops accepting, waits until every
    connection accepted is made (no wait at all in the usual case: none in flight), lets
    uvicorn shut down, then closes whatever is still open and waits until it is lost.
    """

    exit_requested: asyncio.Event | None = None

    def __init__(self, config: uvicorn.Config, sock: _ListeningSocket) -> None:
        super().__init__(config)
        self.server_state = self.state = _State()
        self._sock = sock

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield

    async def main_loop(self) -> None:
        # Waits for stop() instead of uvicorn's 0.1 s polling: no timer runs while idle, so
        # a qasync loop that Qt steps outside run_until_complete (GUI tests) cannot wake it
        # with no running loop. The Date header is set once, at start: good enough here.
        self.exit_requested = asyncio.Event()
        await self.on_tick(0)
        if not self.should_exit:
            await self.exit_requested.wait()

    def request_exit(self) -> None:
        self.should_exit = True
        if self.exit_requested is not None:
            self.exit_requested.set()

    async def stop_accepting(self) -> None:
        """No connection is accepted from now on, and every one accepted is made."""
        if self._sock.fileno() >= 0:
            # Also drops an accept already queued for this turn: that connection stays in
            # the kernel's queue and is refused when the socket closes.
            asyncio.get_running_loop().remove_reader(self._sock.fileno())
        await self._until(lambda: self.state.made >= self._sock.accepted)

    async def close_connections(self) -> None:
        """Abort the connections uvicorn's shutdown left open; return once all are lost."""
        for connection in list(self.state.connections):
            connection.transport.abort()
        await self._until(lambda: not self.state.connections)

    async def _until(self, condition: Callable[[], bool], timeout: float = 2.0) -> None:
        # Wakes on connection_made / connection_lost only: no loop turn when already true.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                while not condition():
                    self.state.changed.clear()
                    await self.state.changed.wait()


async def _read_bounded(request: Request) -> tuple[bytes, bool]:
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        return b"", True
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return b"", True
        chunks.append(chunk)
    return b"".join(chunks), False


def _parse(body: bytes) -> Any:
    if not body:
        return NOT_JSON
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return NOT_JSON


def _task_id(value: Any) -> str | None:
    """The task a delivery body concerns: ``id`` of a Task, ``taskId`` of an update or a
    message, in a StreamResponse envelope, a JSON-RPC result or bare (1.0 and 0.3)."""
    if value is NOT_JSON or not isinstance(value, dict):
        return None
    info = classify_json(value)
    return info.task_id or None
