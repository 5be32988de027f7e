"""gRPC servers on loopback serving hand-written A2A methods (raw bytes in and out), for
hostile behaviour a real server will not produce; and the app's stream reader threads."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import grpc
import grpc.aio


def a2a_service(handlers: dict[str, Any]) -> tuple[grpc.GenericRpcHandler]:
    """``handlers`` (method name → ``grpc.*_rpc_method_handler``) as the 1.0
    ``A2AService``, for ``add_generic_rpc_handlers`` of a grpc or grpc.aio server."""
    return (grpc.method_handlers_generic_handler("lf.a2a.v1.A2AService", handlers),)


@asynccontextmanager
async def hostile_grpc_server(handlers: dict[str, Any]) -> AsyncIterator[str]:
    """Serve ``handlers`` (see :func:`a2a_service`) on a grpc.aio server; yields the
    ``host:port`` target."""
    server = grpc.aio.server()
    server.add_generic_rpc_handlers(a2a_service(handlers))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        await server.stop(0)


def reader_threads() -> list[threading.Thread]:
    """The app's gRPC stream reader threads alive now (grpc_reader.ThreadedReader)."""
    return [t for t in threading.enumerate() if t.name == "grpc-stream-reader"]


async def no_reader_threads(timeout: float = 5.0) -> None:
    """Wait until no reader thread is left; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while reader_threads():
        assert time.monotonic() < deadline, "a reader thread is still running"
        await asyncio.sleep(0.01)
