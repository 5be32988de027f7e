"""Hostile agents on the custom carriers (docs/PROTOCOL.md §12): garbage, gigantic and
never-ending frames, frames for other ids, closes mid-frame, terminal escapes; stdio agents
that exit at once, flood stderr, never read stdin or leave a child behind. Each ends with a
clear error, in bounded memory, by its deadline, leaving no process or task behind.

Hand-made peers: no real agent behaves like this (the real carrier peers are iac-code's,
``tests/iac/``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import signal
import sys
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve

from app.protocol import exchange
from app.protocol.events import (
    ErrorKind,
    ExchangeEnd,
    ExchangeError,
    ExchangeEvent,
    Outcome,
    ResponseBody,
    StreamItem,
)
from app.protocol.request import A2ARequest
from app.protocol.types import Binding

pytestmark = pytest.mark.timeout(120)

MIB = 1024 * 1024


def _body(method: str, params: dict[str, Any], request_id: str = "r1") -> str:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})


def _get(request_id: str = "r1") -> str:
    return _body("GetTask", {"id": "t"}, request_id)


def _stream(request_id: str = "s1") -> str:
    message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": "x"}]}
    return _body("SendStreamingMessage", {"message": message}, request_id)


def _task(request_id: Any, state: str = "TASK_STATE_WORKING") -> bytes:
    task = {"id": "t", "contextId": "c", "status": {"state": state}}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {"task": task}}).encode()


async def _events(request: A2ARequest) -> list[ExchangeEvent]:
    return [event async for event in exchange.run(request)]


def _end(events: list[ExchangeEvent]) -> Outcome:
    last = events[-1]
    assert isinstance(last, ExchangeEnd)
    return last.outcome


def _errors(events: list[ExchangeEvent]) -> list[ExchangeError]:
    return [e for e in events if isinstance(e, ExchangeError)]


Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@contextlib.asynccontextmanager
async def _unix_peer(path: Path, handle: Handler) -> AsyncIterator[None]:
    handlers: set[asyncio.Task[None]] = set()

    async def guarded(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        handlers.add(task)
        try:
            with contextlib.suppress(ConnectionError, asyncio.CancelledError):
                await handle(reader, writer)
        finally:
            writer.close()
            handlers.discard(task)

    server = await asyncio.start_unix_server(guarded, path=str(path))
    try:
        yield
    finally:
        server.close()
        for task in list(handlers):  # Python 3.11's Server has no close_clients()
            task.cancel()
        await asyncio.gather(*handlers, return_exceptions=True)
        await server.wait_closed()


# --- Unix socket -------------------------------------------------------------------------


async def test_a_unix_peer_that_never_answers_ends_at_the_timeout(tmp_path: Path) -> None:
    path = tmp_path / "silent.sock"

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readline()
        await asyncio.sleep(60)

    request = A2ARequest(f"unix://{path}", "GetTask", _get(), binding=Binding.UNIX, timeout=0.5)
    began = time.monotonic()
    async with _unix_peer(path, silent):
        events = await _events(request)
    assert time.monotonic() - began < 5
    (error,) = _errors(events)
    assert error.kind is ErrorKind.TRANSPORT and _end(events) is Outcome.TRANSPORT_ERROR


async def test_a_never_ending_unix_line_is_cut_at_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "endless.sock"

    async def endless(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readline()
        chunk = b"x" * 65536
        while True:  # no newline, ever
            writer.write(chunk)
            await writer.drain()

    request = A2ARequest(f"unix://{path}", "GetTask", _get(), binding=Binding.UNIX,
                         timeout=10, max_response_bytes=MIB)  # fmt: skip
    async with _unix_peer(path, endless):
        events = await _events(request)
    errors = _errors(events)
    assert errors and "over the size limit" in errors[0].message, errors
    assert _end(events) is not Outcome.OK


async def test_unix_garbage_escapes_and_a_close_mid_frame(tmp_path: Path) -> None:
    path = tmp_path / "garbage.sock"
    answers = iter(
        [
            b"\x1b]0;pwned\x07\x1b[2J<script>alert(1)</script>\n",
            b'{"jsonrpc":"2.0","id":"r1","result":{"id":"t","status":{"state"',  # then EOF
            b"\xff\xfe\x00garbage\n",
        ]
    )

    async def garbage(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readline()
        writer.write(next(answers))
        await writer.drain()

    request = A2ARequest(f"unix://{path}", "GetTask", _get(), binding=Binding.UNIX, timeout=5)
    async with _unix_peer(path, garbage):
        for _ in range(3):
            events = await _events(request)
            (body,) = [e for e in events if isinstance(e, ResponseBody)]
            assert body.json_error, body
            (error,) = _errors(events)
            assert error.kind is ErrorKind.PROTOCOL and "\x1b" not in error.message
            assert _end(events) is Outcome.PROTOCOL_ERROR


async def test_unix_answers_for_other_ids(tmp_path: Path) -> None:
    path = tmp_path / "others.sock"

    async def others(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readline()
        writer.write(_task("someone-else") + b"\n")
        await writer.drain()
        await asyncio.sleep(60)

    request = A2ARequest(f"unix://{path}", "GetTask", _get(), binding=Binding.UNIX, timeout=5)
    async with _unix_peer(path, others):
        events = await _events(request)
    assert _end(events) is not Outcome.OK
    assert any("id" in e.message for e in _errors(events)), _errors(events)


async def test_a_never_ending_unix_stream_stops_at_the_deadline(tmp_path: Path) -> None:
    path = tmp_path / "forever.sock"

    async def forever(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readline()
        while True:
            writer.write(_task("s1") + b"\n")
            await writer.drain()
            await asyncio.sleep(0.001)

    request = A2ARequest(f"unix://{path}", "SendStreamingMessage", _stream(),
                         binding=Binding.UNIX, timeout=5, deadline=1.0)  # fmt: skip
    began = time.monotonic()
    items = 0
    ended: ExchangeEnd | None = None
    async with _unix_peer(path, forever):
        async for event in exchange.run(request):
            items += isinstance(event, StreamItem)
            if isinstance(event, ExchangeEnd):
                ended = event
    assert time.monotonic() - began < 5 and items > 10
    assert ended is not None and ended.outcome is Outcome.TRANSPORT_ERROR


# --- WebSocket -----------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def _ws_peer(
    handler: Callable[[ServerConnection], Awaitable[None]],
) -> AsyncIterator[str]:
    async def guarded(ws: ServerConnection) -> None:
        with contextlib.suppress(Exception):
            await handler(ws)

    async with serve(guarded, "127.0.0.1", 0, max_size=None, compression=None) as server:
        port = server.sockets[0].getsockname()[1]
        yield f"ws://127.0.0.1:{port}/a2a"


async def test_a_websocket_frame_over_the_cap_says_so(tmp_path: Path) -> None:
    async def gigantic(ws: ServerConnection) -> None:
        await ws.recv()
        await ws.send("x" * (50 * MIB))
        await asyncio.sleep(5)

    async with _ws_peer(gigantic) as url:
        request = A2ARequest(url, "GetTask", _get(), binding=Binding.WEBSOCKET, timeout=20,
                             max_response_bytes=MIB)  # fmt: skip
        events = await _events(request)
    (error,) = _errors(events)
    assert "size limit" in error.message or "too big" in error.message, error
    assert _end(events) is not Outcome.OK


async def test_websocket_garbage_binary_and_other_ids() -> None:
    frames = iter(
        [
            "\x1b[31mnot json<html>",
            b"\x00\x01\x02",
            json.dumps({"id": "zzz", "payload": json.loads(_task("zzz")), "final": True}),
        ]
    )

    async def garbage(ws: ServerConnection) -> None:
        await ws.recv()
        await ws.send(next(frames))
        await asyncio.sleep(1)

    async with _ws_peer(garbage) as url:
        request = A2ARequest(url, "GetTask", _get(), binding=Binding.WEBSOCKET, timeout=5)
        for _ in range(3):
            events = await _events(request)
            assert _end(events) is Outcome.PROTOCOL_ERROR, _errors(events)


async def test_a_websocket_closed_mid_stream() -> None:
    async def closes(ws: ServerConnection) -> None:
        await ws.recv()
        payload = json.loads(_task("s1"))
        await ws.send(json.dumps({"id": "s1", "payload": payload, "final": False}))
        await ws.close(1011, "gone")

    async with _ws_peer(closes) as url:
        request = A2ARequest(url, "SendStreamingMessage", _stream(), binding=Binding.WEBSOCKET,
                             timeout=5)  # fmt: skip
        events = await _events(request)
    assert [type(e).__name__ for e in events if isinstance(e, StreamItem)] == ["StreamItem"]
    assert _end(events) is Outcome.PROTOCOL_ERROR


# --- stdio -----------------------------------------------------------------------------------


def _command(script: str) -> str:
    return shlex.join([sys.executable, "-c", script])


@contextlib.asynccontextmanager
async def _owned() -> AsyncIterator[None]:
    try:
        yield
    finally:
        await exchange.stop_agents()


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for our purposes.
    with contextlib.suppress(OSError):
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        return state != "Z"
    return True


async def test_a_stdio_agent_that_exits_at_once() -> None:
    command = _command("import sys; sys.exit(3)")
    request = A2ARequest("stdio://quitter", "GetTask", _get(), binding=Binding.STDIO,
                         command=command, timeout=10)  # fmt: skip
    async with _owned():
        for _ in range(3):  # a fresh process each time: the last one has ended
            began = time.monotonic()
            events = await _events(request)
            assert time.monotonic() - began < 5, "waited for an agent that had ended"
            (error,) = _errors(events)
            assert error.kind is ErrorKind.TRANSPORT, error


async def test_a_stdio_agent_with_one_endless_stderr_line_still_answers() -> None:
    script = (
        "import sys, json\n"
        "sys.stderr.write('e' * (3 * 1024 * 1024) + '\\n'); sys.stderr.flush()\n"
        "line = sys.stdin.readline()\n"
        "rid = json.loads(line)['id']\n"
        "print(json.dumps({'jsonrpc': '2.0', 'id': rid, 'result': {'id': 't', 'contextId': 'c',"
        " 'status': {'state': 'TASK_STATE_WORKING'}}}), flush=True)\n"
        "sys.stderr.write('\\x1b[2Jdone\\n'); sys.stderr.flush()\n"
        "sys.stdin.readline()\n"
    )
    request = A2ARequest("stdio://noisy", "GetTask", _get(), binding=Binding.STDIO,
                         command=_command(script), timeout=15)  # fmt: skip
    async with _owned():
        events = await _events(request)
        assert _end(events) is Outcome.OK, _errors(events)
        (agent,) = [a for a in exchange.agents() if a.command == request.command]
        for _ in range(50):
            if any("done" in line for line in agent.stderr):
                break
            await asyncio.sleep(0.1)
        assert any("done" in line for line in agent.stderr)
        assert all(len(line) <= 64 * 1024 for line in agent.stderr)


async def test_a_stdio_agent_printing_to_stderr_forever_is_stopped() -> None:
    script = "import sys\nwhile True:\n    sys.stderr.write('log line\\n')\n"
    request = A2ARequest("stdio://chatty", "GetTask", _get(), binding=Binding.STDIO,
                         command=_command(script), timeout=1)  # fmt: skip
    async with _owned():
        events = await _events(request)
        assert _end(events) is Outcome.TRANSPORT_ERROR
        (agent,) = [a for a in exchange.agents() if a.command == request.command]
        assert len(agent.stderr) <= 2000
        pid = agent.pid
    assert not _pid_alive(pid)


async def test_a_stdio_agent_that_never_reads_stdin() -> None:
    script = "import time\ntime.sleep(60)\n"
    big = json.loads(_get())
    big["params"]["pad"] = "x" * (4 * MIB)  # more than a pipe holds
    request = A2ARequest("stdio://deaf", "GetTask", json.dumps(big), binding=Binding.STDIO,
                         command=_command(script), timeout=1)  # fmt: skip
    began = time.monotonic()
    async with _owned():
        events = await _events(request)
        assert _end(events) is Outcome.TRANSPORT_ERROR
        (agent,) = [a for a in exchange.agents() if a.command == request.command]
        pid = agent.pid
    assert time.monotonic() - began < 20
    assert not _pid_alive(pid)


async def test_a_gigantic_stdio_line_is_cut_at_the_requests_cap() -> None:
    script = (  # a 50 MiB line that never ends
        "import sys, time\n"
        "sys.stdin.readline()\n"
        "sys.stdout.buffer.write(b'x' * (50 * 1024 * 1024)); sys.stdout.flush()\n"
        "time.sleep(60)\n"
    )
    request = A2ARequest("stdio://gigantic", "GetTask", _get(), binding=Binding.STDIO,
                         command=_command(script), timeout=10,
                         max_response_bytes=MIB)  # fmt: skip
    async with _owned():
        events = await _events(request)
    errors = _errors(events)
    assert errors and "over the size limit" in errors[0].message, errors


async def test_stopping_a_stdio_agent_ends_its_children_too(tmp_path: Path) -> None:
    marker = tmp_path / "child.pid"
    script = (
        "import subprocess, sys, time\n"
        f"child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
        f"open({str(marker)!r}, 'w').write(str(child.pid))\n"
        "signal_ignored = __import__('signal').signal(15, lambda *a: None)\n"
        "time.sleep(120)\n"
    )
    request = A2ARequest("stdio://parent", "GetTask", _get(), binding=Binding.STDIO,
                         command=_command(script), timeout=1)  # fmt: skip
    began = time.monotonic()
    async with _owned():
        await _events(request)
        for _ in range(50):
            if marker.exists() and marker.read_text():
                break
            await asyncio.sleep(0.1)
    child = int(marker.read_text())
    try:
        assert time.monotonic() - began < 30, "stopping waited on the child's pipes"
        assert not _pid_alive(child), "the agent's child was left running"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signal.SIGKILL)


# --- Redis Streams ---------------------------------------------------------------------------


Replies = Callable[[str], list[dict[str, Any]]]


@contextlib.asynccontextmanager
async def _redis_agent(redis_url: str, requests: str, replies: Replies) -> AsyncIterator[None]:
    """A hostile agent on ``requests``: each request entry answered with ``replies(its
    correlation id)`` on the reply stream it names."""
    import redis.asyncio as aioredis

    client = aioredis.Redis.from_url(redis_url)
    # Stopped by a flag, not a cancel: redis-py can lose a cancel that lands mid-reply.
    stop = asyncio.Event()

    async def serve() -> None:
        last = "$"
        while not stop.is_set():
            rows = await client.xread({requests: last}, block=200)
            for _stream, entries in rows or ():
                for entry_id, fields in entries:
                    last = entry_id
                    correlation = fields[b"correlation_id"].decode()
                    for reply in replies(correlation):
                        if stop.is_set():
                            return
                        await client.xadd(fields[b"reply_stream"], reply)

    task = asyncio.create_task(serve())
    await asyncio.sleep(0.3)  # its first XREAD is waiting
    try:
        yield
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)
        await client.aclose()


def _redis_request(redis_url: str, requests: str, **kwargs: Any) -> A2ARequest:
    url = f"redis-streams://{redis_url}/{requests}/unused/group"
    return A2ARequest(url, "GetTask", _get(), binding=Binding.REDIS_STREAMS, **kwargs)


async def test_redis_replies_that_are_not_json_or_for_others(
    redis_server: dict[str, Any],
) -> None:
    redis_url = redis_server["redis_url"]
    requests = f"hostile:{uuid.uuid4()}"

    def replies(correlation: str) -> list[dict[str, Any]]:
        return [
            {"correlation_id": "someone-else", "payload": _task("r1"), "final": "true"},
            {"correlation_id": correlation, "payload": b"\x1b[2J<html>not json", "final": "1"},
        ]

    async with _redis_agent(redis_url, requests, replies):
        events = await _events(_redis_request(redis_url, requests, timeout=5))
    (body,) = [e for e in events if isinstance(e, ResponseBody)]
    assert body.json_error and _end(events) is Outcome.PROTOCOL_ERROR


async def test_a_redis_payload_over_the_cap_says_so(redis_server: dict[str, Any]) -> None:
    redis_url = redis_server["redis_url"]
    requests = f"hostile:{uuid.uuid4()}"

    def replies(correlation: str) -> list[dict[str, Any]]:
        big = b'{"jsonrpc":"2.0","id":"r1","result":"' + b"x" * (8 * MIB) + b'"}'
        return [{"correlation_id": correlation, "payload": big, "final": "true"}]

    async with _redis_agent(redis_url, requests, replies):
        request = _redis_request(redis_url, requests, timeout=10, max_response_bytes=MIB)
        events = await _events(request)
    errors = _errors(events)
    assert errors and "over the size limit" in errors[0].message, errors


async def test_a_redis_stream_that_never_ends_stops_at_the_deadline(
    redis_server: dict[str, Any],
) -> None:
    redis_url = redis_server["redis_url"]
    requests = f"hostile:{uuid.uuid4()}"

    def replies(correlation: str) -> list[dict[str, Any]]:
        item = {"correlation_id": correlation, "payload": _task("s1"), "final": "false"}
        return [item] * 5000  # and never a final one

    url = f"redis-streams://{redis_url}/{requests}/unused/group"
    request = A2ARequest(url, "SendStreamingMessage", _stream(), binding=Binding.REDIS_STREAMS,
                         timeout=5, deadline=1.5)  # fmt: skip
    began = time.monotonic()
    async with _redis_agent(redis_url, requests, replies):
        events = await _events(request)
    assert time.monotonic() - began < 10
    assert _end(events) is Outcome.TRANSPORT_ERROR


async def test_a_redis_server_that_speaks_garbage() -> None:
    async def garbage(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(100)
        writer.write(b"\x1b[2J<html>hello</html>\r\n" * 10)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(garbage, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        request = _redis_request(f"redis://127.0.0.1:{port}/0", "q", timeout=5)
        events = await _events(request)
    finally:
        server.close()
        await server.wait_closed()
    (error,) = _errors(events)
    assert error.kind is ErrorKind.TRANSPORT and "Redis" in error.message, error
    assert "\x1b" not in error.message
