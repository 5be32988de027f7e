"""The stdio agents the app runs: one process per command line, kept for the exchanges that
follow, stopped by the user or when the app (or a CLI command) ends.

A stdio agent (docs/PROTOCOL.md §12.3) reads one JSON-RPC request a line on its stdin and
answers each in order on its stdout; its stderr is its log. The app starts it on the first
exchange with its command line and keeps it: the tasks live in that process, so a GetTask,
a cancel or a resubscription must reach the same one. Each request registers its id; a
reader routes every stdout line to the request it answers (by id, else to the oldest
waiting one), so a stream the user stopped keeps being read and dropped while the next
request waits behind it, as the agent serves them in order. Stderr lines are kept (the last
:data:`STDERR_LINES`) and handed to listeners (the GUI's agent pane, the CLI's stderr).

Processes belong to the event loop that started them: another loop (a later
``asyncio.run``) gets a new process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shlex
import signal
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.protocol.request import DEFAULT_MAX_RESPONSE_BYTES
from app.protocol.transports.line_channel import BUFFER, LineReader
from app.protocol.wire.a2a_errors import UsageError
from app.protocol.wire.carrier_frames import CarrierReply, oversize_reply, reply_id

log = logging.getLogger(__name__)

STDERR_LINES = 2000
"""Stderr lines kept per agent."""
STDERR_LINE_BYTES = 4096
"""The most of one stderr line kept (a longer one is cut, the rest skipped)."""
STOP_GRACE_S = 5.0
"""Seconds an agent has to exit after its stdin closes, then after SIGTERM."""

AgentListener = Callable[["AgentProcess", str], None]
"""Called with an agent and a stderr line (``""``: it started or stopped)."""

_LISTENERS: list[AgentListener] = []
_AGENTS: dict[str, AgentProcess] = {}


@dataclass(eq=False)
class _Waiting:
    """A request waiting for its replies."""

    request_id: Any
    streaming: bool
    cap: int = DEFAULT_MAX_RESPONSE_BYTES
    replies: asyncio.Queue[CarrierReply | None] = field(default_factory=asyncio.Queue)
    abandoned: bool = False


class AgentProcess:
    """One running stdio agent.

    Attributes:
        command: the command line as the user gave it.
        stderr: its last stderr lines.
        returncode: its exit status once it ended, else None.
    """

    def __init__(self, command: str, proc: asyncio.subprocess.Process) -> None:
        self.command = command
        self.stderr: deque[str] = deque(maxlen=STDERR_LINES)
        self._proc = proc
        self._loop = asyncio.get_running_loop()
        self._waiting: list[_Waiting] = []
        self._send_lock = asyncio.Lock()
        assert proc.stdout is not None
        self._lines = LineReader(proc.stdout, DEFAULT_MAX_RESPONSE_BYTES)
        self._tasks = [
            asyncio.create_task(self._read_stdout(), name=f"stdio agent stdout {proc.pid}"),
            asyncio.create_task(self._read_stderr(), name=f"stdio agent stderr {proc.pid}"),
        ]

    @property
    def pid(self) -> int:
        """The process id."""
        return self._proc.pid

    @property
    def returncode(self) -> int | None:
        return self._proc.returncode

    @property
    def running(self) -> bool:
        """Whether it runs (and on the running loop)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        return (
            self._proc.returncode is None
            and not self._tasks[0].done()  # its stdout ended before it was reaped
            and loop is self._loop
            and not self._loop.is_closed()
        )

    async def request(
        self,
        frame: bytes,
        request_id: Any,
        *,
        streaming: bool,
        cap: int = DEFAULT_MAX_RESPONSE_BYTES,
    ) -> _Waiting:
        """Write ``frame`` as one line; the returned entry receives its replies, each line
        at most ``cap`` bytes.

        Raises:
            ConnectionError: the agent's stdin or stdout is closed (it ended).
        """
        waiting = _Waiting(request_id, streaming, cap)
        stdin = self._proc.stdin
        if (
            stdin is None
            or stdin.is_closing()
            or self._proc.returncode is not None
            or self._tasks[0].done()
        ):
            raise ConnectionError(f"the stdio agent {self.pid} has ended")
        async with self._send_lock:
            self._waiting.append(waiting)
            self._lines.cap = max(w.cap for w in self._waiting)
            stdin.write(frame + b"\n")
            await stdin.drain()
        return waiting

    def abandon(self, waiting: _Waiting) -> None:
        """The exchange is gone: its remaining replies are read and dropped (the agent
        answers in order, so the next request's replies come after them)."""
        waiting.abandoned = True

    async def stop(self) -> None:
        """Close its stdin (how a stdio agent is told to stop), then SIGTERM, then SIGKILL;
        then whatever it started and left running (its process group) is killed."""
        proc = self._proc
        if proc.stdin is not None and not proc.stdin.is_closing():
            proc.stdin.close()
        for step in (None, signal.SIGTERM, signal.SIGKILL):
            if proc.returncode is not None:
                break
            if step is not None:
                self._signal(step)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), STOP_GRACE_S)
        self._signal(signal.SIGKILL)
        for task in self._tasks:
            # A process that left the group may still hold a pipe open: no EOF to wait for.
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(task, STOP_GRACE_S)
        if proc.stdin is not None:
            with contextlib.suppress(OSError):
                await proc.stdin.wait_closed()

    def _signal(self, sig: signal.Signals) -> None:
        # The agent leads a process group of its own (agent_for): its children get it too.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._proc.pid, sig)

    async def _read_stdout(self) -> None:
        try:
            while (reply := await self._lines.next_reply()) is not None:
                self._route(reply)
        finally:
            for waiting in self._waiting:
                waiting.replies.put_nowait(None)
            self._waiting.clear()

    def _route(self, reply: CarrierReply) -> None:
        if not self._waiting:
            log.debug("stdio agent %s: a reply nobody waits for", self.pid)
            return
        answered = reply_id(reply)
        waiting = next(
            (w for w in self._waiting if answered is not None and w.request_id == answered),
            self._waiting[0],
        )
        if len(reply.raw) > waiting.cap:  # read under another request's larger cap
            reply = oversize_reply(reply.raw, waiting.cap, "line")
        if not waiting.abandoned:
            waiting.replies.put_nowait(reply)
        if reply.final or reply.has_error or not waiting.streaming:
            self._waiting.remove(waiting)
            self._lines.cap = max((w.cap for w in self._waiting), default=self._lines.cap)

    async def _read_stderr(self) -> None:
        assert self._proc.stderr is not None
        _tell(self, "")
        try:
            while (line := await _log_line(self._proc.stderr)) is not None:
                text = line.decode("utf-8", "replace").rstrip("\r\n")
                self.stderr.append(text)
                _tell(self, text)
        finally:
            await self._proc.wait()
            _tell(self, "")


async def _log_line(stream: asyncio.StreamReader) -> bytes | None:
    """The next stderr line, at most :data:`STDERR_LINE_BYTES` of it (the rest skipped:
    ``readline`` fails on a line longer than the buffer); None at EOF."""
    line = b""
    while True:
        try:
            piece = await stream.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:
            piece = exc.partial
            if not piece and not line:
                return None
        except asyncio.LimitOverrunError as exc:
            piece = await stream.readexactly(exc.consumed)
            line = (line + piece[: STDERR_LINE_BYTES - len(line)])[:STDERR_LINE_BYTES]
            continue
        return (line + piece[: STDERR_LINE_BYTES - len(line)])[:STDERR_LINE_BYTES]


def _tell(agent: AgentProcess, line: str) -> None:
    for listener in list(_LISTENERS):
        try:
            listener(agent, line)
        except Exception:  # a view's failure must not stop the agent's reader
            log.exception("agent listener failed")


def argv_of(command: str) -> list[str]:
    """The command line split as a POSIX shell would (no shell runs it).

    Raises:
        UsageError: empty, or unbalanced quotes.
    """
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise UsageError(f"The agent's command line cannot be split: {exc}") from None
    if not argv:
        raise UsageError(
            "A stdio interface needs the command line that starts the agent (--command)"
        )
    return argv


async def agent_for(command: str) -> AgentProcess:
    """The running agent of ``command``, started when there is none (on this loop).

    Raises:
        UsageError: no command line.
        OSError: the program cannot be started (not found, not executable).
    """
    argv = argv_of(command)
    agent = _AGENTS.get(command)
    if agent is not None and agent.running:
        return agent
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=BUFFER,
        start_new_session=True,  # a process group of its own, stopped as one (stop)
    )
    agent = AgentProcess(command, proc)
    _AGENTS[command] = agent
    return agent


def agents() -> list[AgentProcess]:
    """The agents started, running or ended, oldest first."""
    return list(_AGENTS.values())


async def stop_agent(command: str) -> None:
    """Stop the agent of ``command`` (nothing when there is none)."""
    agent = _AGENTS.get(command)
    if agent is not None and agent.running:
        await agent.stop()  # kept in the list, ended: its log stays readable


async def stop_agents() -> None:
    """Stop every agent this loop started (the CLI at its end, the GUI at quit)."""
    for command in list(_AGENTS):
        await stop_agent(command)


def add_listener(listener: AgentListener) -> Callable[[], None]:
    """Hear every agent's stderr lines and its start and end; returns the remover."""
    _LISTENERS.append(listener)
    return lambda: _LISTENERS.remove(listener) if listener in _LISTENERS else None
