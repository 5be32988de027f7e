"""The carriers through ``exchange.run`` in this process (the GUI's path): the stdio agent the
app owns (started once per command line, its stderr heard, a stopped stream's lines dropped
before the next answer, stopped on request), a WebSocket path the server refuses, Redis and a
Unix socket nobody serves, and a hostile Unix socket peer (an endless line, a silent close).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from app.protocol import exchange
from app.protocol.events import (
    ErrorKind,
    ExchangeEnd,
    ExchangeError,
    ExchangeEvent,
    Outcome,
    ResponseBody,
    ResponseHead,
    StreamItem,
)
from app.protocol.request import A2ARequest
from app.protocol.transports.agent_processes import AgentProcess
from app.protocol.types import Binding

pytestmark = [pytest.mark.peer, pytest.mark.timeout(600)]


def _body(method: str, params: dict[str, Any]) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": str(uuid.uuid4()), "method": method,
                       "params": params})  # fmt: skip


def _send(text: str, method: str = "SendMessage") -> str:
    message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}]}
    return _body(method, {"message": message})


async def _events(request: A2ARequest) -> list[ExchangeEvent]:
    return [event async for event in exchange.run(request)]


def _end(events: list[ExchangeEvent]) -> Outcome:
    last = events[-1]
    assert isinstance(last, ExchangeEnd)
    return last.outcome


def _errors(events: list[ExchangeEvent]) -> list[ExchangeError]:
    return [e for e in events if isinstance(e, ExchangeError)]


async def test_the_stdio_agent_is_owned_heard_and_stopped(iac_stdio: dict[str, Any]) -> None:
    heard: list[tuple[int, str]] = []

    def listen(agent: AgentProcess, line: str) -> None:
        heard.append((agent.pid, line))

    remove = exchange.add_agent_listener(listen)
    command = iac_stdio["command_line"]
    stdio = A2ARequest("stdio://iac-code", "SendStreamingMessage", _send("stop me"),
                       binding=Binding.STDIO, command=command, timeout=60)  # fmt: skip
    try:
        # A stream stopped after its first item: the agent keeps writing its lines...
        async with contextlib.aclosing(exchange.run(stdio)) as events:
            async for event in events:
                if isinstance(event, StreamItem):
                    break
        (agent,) = [a for a in exchange.agents() if a.command == command]
        assert agent.running
        # ...which are dropped: the next request gets its own answer from the same agent.
        unary = A2ARequest("stdio://iac-code", "GetExtendedAgentCard",
                           _body("GetExtendedAgentCard", {}), binding=Binding.STDIO,
                           command=command, timeout=60)  # fmt: skip
        got = await _events(unary)
        assert _end(got) is Outcome.OK, _errors(got)
        (body,) = [e for e in got if isinstance(e, ResponseBody)]
        assert body.json["result"]["supportedInterfaces"][0]["protocolBinding"] == "stdio"
        (head,) = [e for e in got if isinstance(e, ResponseHead)]
        assert head.http_version == f"stdio pid {agent.pid}"
        assert [a.pid for a in exchange.agents() if a.command == command] == [agent.pid]
        await exchange.stop_agent(command)
        assert agent.returncode is not None and not agent.running
        assert (agent.pid, "") in heard  # its start and end are told
    finally:
        remove()
        await exchange.stop_agents()


async def test_owning_agents_stops_what_the_work_started(iac_stdio: dict[str, Any]) -> None:
    command = iac_stdio["command_line"]
    request = A2ARequest("stdio://iac-code", "GetExtendedAgentCard",
                         _body("GetExtendedAgentCard", {}), binding=Binding.STDIO,
                         command=command, timeout=60)  # fmt: skip
    events = await exchange.owning_agents(_events(request))
    assert _end(events) is Outcome.OK
    assert not any(a.running for a in exchange.agents())


async def test_a_stdio_request_needs_a_command_that_starts() -> None:
    no_command = A2ARequest("stdio://x", "GetTask", _body("GetTask", {"id": "t"}),
                            binding=Binding.STDIO)  # fmt: skip
    (error,) = _errors(await _events(no_command))
    assert error.kind is ErrorKind.USAGE and "--command" in error.message
    missing = A2ARequest("stdio://x", "GetTask", _body("GetTask", {"id": "t"}),
                         binding=Binding.STDIO, command="/nonexistent/agent --stdio")  # fmt: skip
    (error,) = _errors(await _events(missing))
    assert error.kind is ErrorKind.TRANSPORT and "No such file" in error.message
    await exchange.stop_agents()


async def test_a_websocket_path_the_server_refuses(iac_websocket: dict[str, Any]) -> None:
    url = iac_websocket["url"].replace("/a2a", "/elsewhere")
    request = A2ARequest(url, "GetTask", _body("GetTask", {"id": "t"}), binding=Binding.WEBSOCKET)
    events = await _events(request)
    (error,) = _errors(events)
    assert error.kind is ErrorKind.TRANSPORT
    assert "refused the WebSocket handshake: HTTP 403" in error.message
    assert _end(events) is Outcome.TRANSPORT_ERROR


async def test_nobody_at_the_address(tmp_path: Path) -> None:
    for binding, url in (
        (Binding.UNIX, f"unix://{tmp_path}/none.sock"),
        (Binding.REDIS_STREAMS, "redis-streams://redis://127.0.0.1:1/0/a/b/c"),
        (Binding.WEBSOCKET, "ws://127.0.0.1:1/a2a"),
    ):
        request = A2ARequest(url, "GetTask", _body("GetTask", {"id": "t"}), binding=binding)
        (error,) = _errors(await _events(request))
        assert error.kind is ErrorKind.TRANSPORT and error.message.startswith(
            f"Could not reach {url}"
        ), error


@contextlib.asynccontextmanager
async def _unix_peer(path: Path, answer: bytes) -> AsyncIterator[None]:
    """A hostile peer: reads one line, writes ``answer``, closes."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readline()
        writer.write(answer)
        # The client hangs up as soon as a line passes its cap.
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()

    server = await asyncio.start_unix_server(handle, path=str(path))
    try:
        yield
    finally:
        server.close()
        await server.wait_closed()


async def test_a_hostile_unix_peer(tmp_path: Path) -> None:
    path = tmp_path / "h.sock"
    request = A2ARequest(f"unix://{path}", "GetTask", _body("GetTask", {"id": "t"}),
                         binding=Binding.UNIX, max_response_bytes=4096)  # fmt: skip
    async with _unix_peer(path, b"x" * (3 * 1024 * 1024) + b"\n"):
        events = await _events(request)
    (error,) = _errors(events)
    assert error.kind is ErrorKind.PROTOCOL and "over the size limit (4096 bytes)" in error.message
    async with _unix_peer(path, b""):
        events = await _events(request)
    (error,) = _errors(events)
    assert error.kind is ErrorKind.TRANSPORT and "closed the connection without answering" in (
        error.message
    )
    # A stream the peer closes after an item, without its final frame: judged as a stream.
    task = {"id": "t", "status": {"state": "TASK_STATE_WORKING"}}
    item = json.dumps({"jsonrpc": "2.0", "id": "s", "result": {"task": task}}).encode() + b"\n"
    body = json.loads(_send("x", "SendStreamingMessage")) | {"id": "s"}
    stream = A2ARequest(f"unix://{path}", "SendStreamingMessage", json.dumps(body),
                        binding=Binding.UNIX)  # fmt: skip
    async with _unix_peer(path, item):
        events = await _events(stream)
    assert [type(e).__name__ for e in events if isinstance(e, StreamItem)] == ["StreamItem"]
    (error,) = _errors(events)
    assert "closed the stream while the task was still working" in error.message
