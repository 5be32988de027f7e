"""A small client for iac-code's custom A2A carriers, run with ``.venv-iac``'s Python.

The app does not speak these carriers yet; the tests use this client to wait for a carrier
server, fetch its card and record each carrier's framing. It uses the libraries iac-code
itself depends on (``websockets``, ``redis``), which the app's venv does not have.

    python iac_carrier_client.py websocket ws://127.0.0.1:PORT/a2a
    python iac_carrier_client.py unix unix:///path/a2a.sock
    python iac_carrier_client.py redis-streams redis-streams://REDIS_URL/REQUESTS/REPLIES/GROUP
    python iac_carrier_client.py --timeout 60 stdio stdio://iac-code -- COMMAND...

(the Redis form as iac-code's card gives it, e.g. ``redis-streams://redis://127.0.0.1:PORT/0/
iac-code:a2a:requests/iac-code:a2a:responses/iac-code``; stdio's COMMAND starts the agent,
e.g. ``.venv-iac/bin/iac-code a2a --config FILE``).

Standard input: one frame per line, sent as is (normally a JSON-RPC request object).
Standard output: one JSON line per frame received, ``{"request": N, "frame": TEXT}``
(Redis: ``{"request": N, "fields": {...}}``), in arrival order. Exit 0 when every request got
its last frame, 1 on a timeout or a connection failure (message on stderr).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any
from urllib.parse import urlparse

# iac-code answers these with a stream (iac_code/a2a/transports/stdio.py is_streaming_request);
# every other method, SubscribeToTask included, with one reply.
STREAMING_METHODS = frozenset({"SendStreamingMessage", "message/stream", "StreamMessage"})

Emit = Callable[[int, dict[str, Any]], None]


def is_streaming(frame: str) -> bool:
    """Is this outgoing frame a request iac-code answers with a stream?"""
    try:
        payload = json.loads(frame)
    except ValueError:
        return False
    return isinstance(payload, dict) and payload.get("method") in STREAMING_METHODS


def line_is_last(text: str, streaming: bool) -> bool:
    """stdio / Unix socket: a unary answer is one line; a stream ends with ``"final": true``."""
    if not streaming:
        return True
    try:
        payload = json.loads(text)
    except ValueError:
        return True
    return not isinstance(payload, dict) or payload.get("final") is True or "error" in payload


async def _retry(connect: Callable[[], Awaitable[Any]], deadline: float) -> Any:
    """Connects, retrying while the server is still starting (refused / no socket yet)."""
    loop = asyncio.get_running_loop()
    while True:
        try:
            return await connect()
        except OSError:
            if loop.time() >= deadline:
                raise
            await asyncio.sleep(0.1)


async def over_websocket(url: str, frames: list[str], emit: Emit, deadline: float) -> None:
    import websockets

    loop = asyncio.get_running_loop()
    async with await _retry(lambda: websockets.connect(url), deadline) as ws:
        for index, frame in enumerate(frames):
            await ws.send(frame)
            while True:
                text = await asyncio.wait_for(ws.recv(), deadline - loop.time())
                emit(index, {"frame": text})
                if json.loads(text).get("final") is True:
                    break


async def _over_lines(
    reader: asyncio.StreamReader, writer: Any, frames: list[str], emit: Emit, deadline: float
) -> None:
    loop = asyncio.get_running_loop()
    for index, frame in enumerate(frames):
        writer.write(frame.encode() + b"\n")
        await writer.drain()
        streaming = is_streaming(frame)
        while True:
            raw = await asyncio.wait_for(reader.readline(), deadline - loop.time())
            if not raw:
                raise ConnectionError("the server closed the connection")
            text = raw.decode().rstrip("\n")
            emit(index, {"frame": text})
            if line_is_last(text, streaming):
                break


async def over_unix(url: str, frames: list[str], emit: Emit, deadline: float) -> None:
    path = urlparse(url).path
    reader, writer = await _retry(lambda: asyncio.open_unix_connection(path), deadline)
    try:
        await _over_lines(reader, writer, frames, emit, deadline)
    finally:
        writer.close()


async def over_stdio(command: list[str], frames: list[str], emit: Emit, deadline: float) -> None:
    proc = await asyncio.create_subprocess_exec(
        *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        await _over_lines(proc.stdout, proc.stdin, frames, emit, deadline)
    finally:
        proc.stdin.close()  # EOF on its stdin is how a stdio agent is told to stop
        try:
            await asyncio.wait_for(proc.wait(), 10)
        except TimeoutError:
            proc.kill()
            await proc.wait()


def parse_redis_streams_url(url: str) -> tuple[str, str, str, str]:
    """``redis-streams://<redis URL>/<request stream>/<response stream>/<group>`` → the parts."""
    rest = url.removeprefix("redis-streams://")
    redis_url, request_stream, response_stream, group = rest.rsplit("/", 3)
    return redis_url, request_stream, response_stream, group


async def _redis_replies(
    client: Any, stream: str, correlation_id: str, deadline: float
) -> AsyncIterator[dict[str, str]]:
    loop = asyncio.get_running_loop()
    last_id = "0-0"
    while loop.time() < deadline:
        for _stream, entries in await client.xread({stream: last_id}, count=10, block=100):
            for entry_id, raw in entries:
                last_id = entry_id
                fields = {k.decode(): v.decode() for k, v in raw.items()}
                if fields.get("correlation_id") == correlation_id:
                    yield fields
    raise TimeoutError(f"no final reply on {stream}")


async def over_redis_streams(url: str, frames: list[str], emit: Emit, deadline: float) -> None:
    import redis.asyncio as aioredis

    redis_url, request_stream, _server_default_replies, _group = parse_redis_streams_url(url)
    client = aioredis.from_url(redis_url)
    # Every request names the stream its replies go to; one of our own, never shared.
    reply_stream = f"a2a-workbench:replies:{uuid.uuid4()}"
    try:
        for index, frame in enumerate(frames):
            correlation_id = str(uuid.uuid4())
            await client.xadd(request_stream, {
                "correlation_id": correlation_id, "reply_stream": reply_stream, "payload": frame,
            })  # fmt: skip
            async for fields in _redis_replies(client, reply_stream, correlation_id, deadline):
                emit(index, {"fields": fields})
                if fields.get("final") == "true":
                    break
        await client.delete(reply_stream)
    finally:
        await client.aclose()


async def run(
    carrier: str, target: str, command: list[str], frames: list[str], timeout: float
) -> int:
    def emit(index: int, record: dict[str, Any]) -> None:
        print(json.dumps({"request": index, **record}), flush=True)

    deadline = asyncio.get_running_loop().time() + timeout
    try:
        if carrier == "websocket":
            await over_websocket(target, frames, emit, deadline)
        elif carrier == "unix":
            await over_unix(target, frames, emit, deadline)
        elif carrier == "stdio":
            await over_stdio(command, frames, emit, deadline)
        else:
            await over_redis_streams(target, frames, emit, deadline)
    except (OSError, TimeoutError, ConnectionError) as exc:
        print(f"{carrier} {target}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("carrier", choices=["websocket", "unix", "stdio", "redis-streams"])
    parser.add_argument("target", help="the interface URL from the card")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds for everything")
    parser.add_argument("command", nargs="*", help="stdio: the agent's command line, after --")
    args = parser.parse_args()
    frames = [line.rstrip("\n") for line in sys.stdin if line.strip()]
    return asyncio.run(run(args.carrier, args.target, args.command, frames, args.timeout))


if __name__ == "__main__":
    sys.exit(main())
