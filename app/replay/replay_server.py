"""Serving a fixture as a mock agent on loopback: HTTP (card, JSON-RPC, HTTP+JSON) on
uvicorn and gRPC on ``grpc.aio``, until SIGTERM/SIGINT (then exit 0).

The gRPC port opens when the fixture recorded gRPC exchanges, its card lists a gRPC
interface, or ``grpc_port`` is given. Once both listen, :func:`serve` emits one
``listening`` record with the URLs and the served card's interfaces; every request is
then reported as ``served``, ``unmatched`` or ``card`` (:class:`app.replay.answers.Replay`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
from collections.abc import Iterator
from typing import Any

import grpc.aio
import uvicorn

from app.errors import WorkbenchError
from app.replay.answers import Emit, Replay
from app.replay.fixture import Fixture
from app.replay.grpc_app import ReplayHandler
from app.replay.http_app import CARD_PATHS, MAX_BODY_BYTES, build_http_app
from app.replay.matching import Matcher
from app.replay.replay_card import interfaces, served_card


class ListenError(WorkbenchError):
    """A port could not be bound (raised by :func:`serve`; the command exits 1)."""


class _Server(uvicorn.Server):
    """Signals are ours: uvicorn's capture would re-raise SIGTERM after stopping."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _wants_grpc(fixture: Fixture, grpc_port: int | None) -> bool:
    if grpc_port is not None:
        return True
    if any(x.binding == "GRPC" for x in fixture.exchanges):
        return True
    card = fixture.card or {}
    listed = [*(card.get("supportedInterfaces") or []), *(card.get("additionalInterfaces") or [])]
    bindings = {
        str(i.get("protocolBinding") or i.get("transport") or "")
        for i in listed
        if isinstance(i, dict)
    }
    return "GRPC" in bindings or card.get("preferredTransport") == "GRPC"


async def serve(
    fixture: Fixture,
    emit: Emit,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    grpc_port: int | None = None,
    speed: float = 1.0,
    match: str = "method+text",
) -> int:
    """Serve ``fixture`` until a signal; returns the exit status (0).

    Raises:
        ListenError: a port is busy or the host cannot be bound.
    """
    replay = Replay(fixture, Matcher(fixture.exchanges, match), speed, emit)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        http_sock = socket.create_server((host, port), family=family, backlog=128)
    except OSError as exc:
        raise ListenError(f"cannot listen on {host}:{port}: {exc}") from exc
    grpc_server: grpc.aio.Server | None = None
    grpc_target = ""
    if _wants_grpc(fixture, grpc_port):
        grpc_server = grpc.aio.server(
            options=[
                ("grpc.so_reuseport", 0),
                # The HTTP side's bound: a larger request message is RESOURCE_EXHAUSTED.
                ("grpc.max_receive_message_length", MAX_BODY_BYTES),
            ]
        )
        grpc_server.add_generic_rpc_handlers([ReplayHandler(replay)])
        try:
            bound = grpc_server.add_insecure_port(f"{_url_host(host)}:{grpc_port or 0}")
        except RuntimeError as exc:
            http_sock.close()
            raise ListenError(f"cannot listen on gRPC {host}:{grpc_port}: {exc}") from exc
        grpc_target = f"{_url_host(host)}:{bound}"
    base_url = f"http://{_url_host(host)}:{http_sock.getsockname()[1]}"
    card = served_card(fixture, base_url, grpc_target)
    app = build_http_app(replay, lambda: card)
    config = uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1)
    server = _Server(config)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: setattr(server, "should_exit", True))
    if grpc_server is not None:
        await grpc_server.start()
    http_task = asyncio.create_task(server.serve(sockets=[http_sock]))
    try:
        while not server.started:
            if http_task.done():
                raise ListenError(f"HTTP server failed: {http_task.exception()!r}")
            await asyncio.sleep(0.01)
        listening: dict[str, Any] = {
            "event": "listening", "base_url": base_url, "card_url": base_url + CARD_PATHS[0],
            "grpc_target": grpc_target, "interfaces": interfaces(card),
            "exchanges": len(fixture.exchanges),
            "speed": speed, "match": match, "pid": os.getpid(),
        }  # fmt: skip
        emit(listening)
        await http_task
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
        if grpc_server is not None:
            await grpc_server.stop(grace=0.2)
        http_sock.close()
    return 0
