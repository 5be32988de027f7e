"""The SSE baselines of bench/stream.py, each in a warmed process of its own.

- ``raw``: httpx-sse ``aiter_sse`` + ``json.loads`` per event, no UI: the ceiling any client
  could reach on this transport;
- ``sdk``: the official A2A Python client, a2a-sdk's streaming ``Client`` (what the Handler
  CLI and the web inspector build on), ``send_message`` over JSON-RPC, every event parsed
  into its ``StreamResponse``.

A consumer process imports its libraries, makes its HTTP client and runs one whole stream
before it reports ready (so imports, connection set-up and first-call costs stay out of the
figures), then runs one measured stream per ``go URL`` line on stdin and answers with a JSON
line ``{"count": N, "seconds": S}``. Each run starts after ``gc.collect()``. In the bench
process, :class:`Consumer` drives one.

    python bench/stream_consumers.py raw|sdk URL   # (started by bench/stream.py)
"""

from __future__ import annotations

import asyncio
import gc
import json
import subprocess
import sys
import time
from typing import Any

KINDS = ("raw", "sdk")


async def raw_sse(client: Any, url: str) -> tuple[int, float]:
    """One stream from ``url`` through httpx-sse and ``json.loads``."""
    from httpx_sse import aconnect_sse

    body = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {}}
    count = 0
    started = time.perf_counter()
    async with aconnect_sse(client, "POST", url, json=body) as source:
        async for event in source.aiter_sse():
            json.loads(event.data)
            count += 1
    return count, time.perf_counter() - started


async def sdk_stream(client: Any, url: str) -> tuple[int, float]:
    """One stream from ``url`` through a2a-sdk's streaming ``Client`` (``send_message``)."""
    from a2a.client import ClientConfig, ClientFactory
    from a2a.types import a2a_pb2

    card = a2a_pb2.AgentCard(
        name="bench",
        version="1",
        supported_interfaces=[
            a2a_pb2.AgentInterface(protocol_binding="JSONRPC", url=url, protocol_version="1.0")
        ],
        capabilities=a2a_pb2.AgentCapabilities(streaming=True),
    )
    sdk = ClientFactory(ClientConfig(streaming=True, httpx_client=client)).create(card)
    request = a2a_pb2.SendMessageRequest(
        message=a2a_pb2.Message(
            message_id="b", role=a2a_pb2.ROLE_USER, parts=[a2a_pb2.Part(text="bench")]
        )
    )
    count = 0
    started = time.perf_counter()
    async for _response in sdk.send_message(request):
        count += 1
    return count, time.perf_counter() - started


async def _serve(kind: str, warm_url: str) -> None:
    import httpx

    run = raw_sse if kind == "raw" else sdk_stream
    async with httpx.AsyncClient(timeout=60) as client:
        await run(client, warm_url)  # warm: imports, connection pool, first calls
        print(json.dumps({"ready": kind}), flush=True)
        loop = asyncio.get_running_loop()
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            command, _, url = line.strip().partition(" ")
            if command != "go":
                break
            gc.collect()
            count, seconds = await run(client, url)
            print(json.dumps({"count": count, "seconds": seconds}), flush=True)


class Consumer:
    """A warmed baseline process (``kind``: ``raw`` or ``sdk``)."""

    def __init__(self, kind: str, warm_url: str) -> None:
        self.kind = kind
        self.process = subprocess.Popen(
            [sys.executable, __file__, kind, warm_url],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        ready = json.loads(self.process.stdout.readline())
        assert ready == {"ready": kind}, ready

    def run(self, url: str) -> tuple[int, float]:
        """One measured stream from ``url``: (events, seconds)."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(f"go {url}\n")
        self.process.stdin.flush()
        result = json.loads(self.process.stdout.readline())
        return int(result["count"]), float(result["seconds"])

    def stop(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        self.process.wait(30)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in KINDS:
        sys.exit(__doc__)
    asyncio.run(_serve(sys.argv[1], sys.argv[2]))
