"""A loopback HTTP/1.1 server of our own that writes exact SSE bytes with exact chunk boundaries.

Each request is answered from a *script*: a list of steps, where ``bytes`` is written as one
HTTP chunk (then drained, with a short pause so the client sees it as its own read), a
``float`` sleeps that many seconds, and ``HANG`` keeps the connection open until the client
goes away. ``b"@ID@"`` in a chunk is replaced by the JSON-RPC id of the request (JSON text).

The server runs on its own thread and event loop, so it serves pytest-asyncio and qasync
tests alike. It counts connections, and how many are open right now (leak checks).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

HANG = object()
Step = Any  # bytes | float | HANG
Script = list[Step]


@dataclass
class SseServer:
    """What the test sees: the URL, the requests received, connection counts."""

    url: str = ""
    requests: list[tuple[str, str, dict[str, str], bytes]] = field(default_factory=list)
    connections: int = 0
    open_connections: int = 0
    content_type: str = "text/event-stream"
    status: int = 200
    script: Script | Callable[[int], Script] = field(default_factory=list)
    pause: float = 0.005


async def _handle(
    server: SseServer, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    server.connections += 1
    server.open_connections += 1
    try:
        while True:  # keep-alive: several requests per connection
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            verb, path, _ = lines[0].split(" ", 2)
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    name, _, value = line.partition(":")
                    headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0") or 0))
            server.requests.append((verb, path, headers, body))
            request_id = "null"
            with contextlib.suppress(ValueError, AttributeError):
                request_id = json.dumps(json.loads(body).get("id"))
            script = server.script
            steps = script(len(server.requests)) if callable(script) else script
            writer.write(
                f"HTTP/1.1 {server.status} OK\r\nContent-Type: {server.content_type}\r\n"
                "Cache-Control: no-store\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
            )
            await writer.drain()
            for step in steps:
                if step is HANG:
                    await reader.read()  # until the client closes
                    return
                if isinstance(step, float | int) and not isinstance(step, bool):
                    await asyncio.sleep(step)
                    continue
                data = step.replace(b"@ID@", request_id.encode())
                writer.write(b"%x\r\n%s\r\n" % (len(data), data))
                await writer.drain()
                if server.pause:
                    await asyncio.sleep(server.pause)
            writer.write(b"0\r\n\r\n")
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
        pass
    except asyncio.CancelledError:
        pass  # the server is stopping (see below)
    finally:
        server.open_connections -= 1
        writer.close()
        # Ended, never cancelled, even when the stop comes while closing: Python 3.11's
        # StreamReaderProtocol asks a cancelled handler for its exception and logs it.
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await writer.wait_closed()


@contextlib.contextmanager
def sse_server(
    script: Script | Callable[[int], Script],
    *,
    content_type: str = "text/event-stream",
    status: int = 200,
    pause: float = 0.005,
) -> Iterator[SseServer]:
    """Serve ``script`` (or ``script(n)`` for the n-th request) on a free loopback port."""
    state = SseServer(script=script, content_type=content_type, status=status, pause=pause)
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    stop: asyncio.Future[None] | None = None

    async def main() -> None:
        nonlocal stop
        stop = loop.create_future()
        srv = await asyncio.start_server(
            lambda r, w: _handle(state, r, w), "127.0.0.1", 0, limit=2**24
        )
        state.url = f"http://127.0.0.1:{srv.sockets[0].getsockname()[1]}/"
        ready.set()
        async with srv:
            await stop
            srv.close()
            others = [t for t in asyncio.all_tasks(loop) if t is not asyncio.current_task()]
            for task in others:
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)

    thread = threading.Thread(target=loop.run_until_complete, args=(main(),), daemon=True)
    thread.start()
    ready.wait(10)
    try:
        yield state
    finally:
        loop.call_soon_threadsafe(lambda: stop.set_result(None) if stop else None)
        thread.join(10)
        loop.close()
