"""A grpc.aio server on loopback serving hand-written A2A methods (raw bytes in and out),
for hostile behaviour a real server will not produce."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import grpc
import grpc.aio


@asynccontextmanager
async def hostile_grpc_server(handlers: dict[str, Any]) -> AsyncIterator[str]:
    """Serve ``handlers`` (method name → ``grpc.*_rpc_method_handler``) as the 1.0
    ``A2AService``; yields the ``host:port`` target."""
    server = grpc.aio.server()
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("lf.a2a.v1.A2AService", handlers),)
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        await server.stop(0)
