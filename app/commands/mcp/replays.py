"""The replays an MCP server started: ``a2a-workbench replay`` child processes serving a
fixture on loopback, and what each has served.

A replay runs as its own process, as on the command line: it owns its ports and signals,
and stopping it (SIGTERM) is the command's documented way out. Its JSON lines are read as
they come: the ``listening`` line gives the URLs, then ``served``, ``unmatched`` and
``card`` lines are counted (the last few kept). Every replay still running when the server
stops is stopped with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import sys
import tempfile
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.errors import UsageError

START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 5.0
KEPT_LINES = 20


@dataclass
class Replay:
    """One running replay: its id, fixture, the ``listening`` record and what it served."""

    replay_id: str
    fixture: str
    listening: dict[str, Any]
    process: asyncio.subprocess.Process
    counts: Counter[str] = field(default_factory=Counter)
    recent: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=KEPT_LINES))
    reader: asyncio.Task[None] | None = None


def replay_command(fixture: Path, speed: float, match: str) -> list[str]:
    """``a2a-workbench replay`` as this install runs it, on a free loopback port."""
    # A frozen bundle (packaging/) is its own entry point; a venv runs the package.
    prefix = [] if getattr(sys, "frozen", False) else ["-m", "app"]
    return [sys.executable, *prefix, "replay", str(fixture), "--host", "127.0.0.1",
            "--port", "0", "--speed", repr(speed), "--match", match]  # fmt: skip


class Replays:
    """The running replays, by id (``replay-1``, …)."""

    def __init__(self) -> None:
        self._running: dict[str, Replay] = {}
        self._next = 1
        self._scratch: Path | None = None

    def scratch(self) -> Path:
        """A private directory for fixtures made from the history (removed by
        :meth:`stop_all`)."""
        if self._scratch is None:
            self._scratch = Path(tempfile.mkdtemp(prefix="a2a-workbench-mcp-"))
        return self._scratch

    async def start(self, fixture: Path, speed: float, match: str) -> Replay:
        """Start serving ``fixture``; returns once it listens.

        Raises:
            UsageError: the fixture cannot be served (the command's own words).
        """
        # Its warnings go to a file: a pipe nobody reads would stall it once full.
        with tempfile.TemporaryFile() as stderr:
            process = await asyncio.create_subprocess_exec(
                *replay_command(fixture, speed, match),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=stderr,
            )
            listening = await _listening(process)
            if listening is None:
                await _stop(process)
                stderr.seek(0)
                words = stderr.read().decode("utf-8", "replace").strip()
                raise UsageError(f"the replay did not start: {words or 'no reason given'}")
        replay_id = f"replay-{self._next}"
        self._next += 1
        replay = Replay(replay_id, str(fixture), listening, process)
        replay.reader = asyncio.create_task(_read(replay), name=f"mcp {replay_id} reader")
        self._running[replay_id] = replay
        return replay

    async def stop(self, replay_id: str) -> Replay:
        """Stop the replay ``replay_id``; returns it with its final counts.

        Raises:
            UsageError: no such replay is running.
        """
        replay = self._running.pop(replay_id, None)
        if replay is None:
            known = ", ".join(self._running) or "none is running"
            raise UsageError(f"no replay {replay_id!r} ({known})")
        await _stop(replay.process)
        if replay.reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await replay.reader
        return replay

    async def stop_all(self) -> None:
        """Stop every replay still running and remove the scratch directory (the server
        is stopping)."""
        for replay_id in list(self._running):
            await self.stop(replay_id)
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def running(self) -> list[Replay]:
        return list(self._running.values())


async def _listening(process: asyncio.subprocess.Process) -> dict[str, Any] | None:
    """The replay's first line, its ``listening`` record; None when it never came."""
    assert process.stdout is not None
    try:
        async with asyncio.timeout(START_TIMEOUT_S):
            first = await process.stdout.readline()
        record = json.loads(first) if first else None
    except (TimeoutError, ValueError):
        return None
    return record if isinstance(record, dict) and record.get("event") == "listening" else None


async def _read(replay: Replay) -> None:
    stdout = replay.process.stdout
    assert stdout is not None
    async for raw in stdout:
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        if isinstance(record, dict):
            replay.counts[str(record.get("event", ""))] += 1
            replay.recent.append(record)


async def _stop(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
        try:
            async with asyncio.timeout(STOP_TIMEOUT_S):
                await process.wait()
        except TimeoutError:
            process.kill()
            await process.wait()
