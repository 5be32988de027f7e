"""What a replay says: the pacing of recorded answers and the loud words of a mismatch.

Shared by the HTTP and the gRPC side of :mod:`app.replay.replay_server`.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.replay.fixture import Fixture, RecordedExchange
from app.replay.matching import Matcher, Shape, Verdict

Emit = Callable[[dict[str, Any]], None]
"""Where the replay reports each request (one JSON lines record)."""

# Recomputed for the bytes actually sent, or meaningless on a new connection.
HOP_HEADERS = frozenset({"content-length", "transfer-encoding", "connection", "keep-alive",
                         "date", "server", "content-encoding"})  # fmt: skip


class Pacer:
    """Sleeps until a recorded offset, scaled: ``speed`` 2 plays twice as fast, 0 at once."""

    def __init__(self, speed: float) -> None:
        self.speed = speed
        self.start = time.monotonic()

    async def until(self, t: float) -> None:
        if self.speed <= 0:
            return
        delay = self.start + t / self.speed - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)


@dataclass
class Replay:
    """A fixture being served: its matcher (which remembers what was served) and options."""

    fixture: Fixture
    matcher: Matcher
    speed: float
    emit: Emit

    def lookup(self, shape: Shape) -> tuple[RecordedExchange | None, Verdict]:
        verdict = self.matcher.match(shape)
        if verdict.index is None:
            return None, verdict
        x = self.fixture.exchanges[verdict.index]
        self.emit({"event": "served", "binding": shape.binding, "method": x.method,
                   "exchange": verdict.index, "name": x.name})  # fmt: skip
        return x, verdict

    def unmatched(self, shape: Shape, verdict: Verdict) -> tuple[str, dict[str, Any]]:
        """The error message and its data for a request no exchange answers (also emitted)."""
        message = f"replay: no recorded {shape.binding} request matches {_describe(shape)}"
        data: dict[str, Any] = {"replay": "unmatched", "method": shape.method}
        if verdict.closest is None:
            message += "; the fixture recorded no request on this binding"
        else:
            x = self.fixture.exchanges[verdict.closest]
            diffs = "; ".join(str(d) for d in verdict.differences)
            message += f"; closest recorded request: {x.name} (exchange {verdict.closest}): {diffs}"
            data["closest"] = {"exchange": verdict.closest, "name": x.name, "method": x.method}
            data["differences"] = [d.as_record() for d in verdict.differences]
        self.emit({"event": "unmatched", "binding": shape.binding, "message": message, **data})
        return message, data


def _describe(shape: Shape) -> str:
    text = f" text {json.dumps(list(shape.text), ensure_ascii=False)}" if shape.text else ""
    task = f" task {shape.task!r}" if shape.task else ""
    return f"{shape.method}{text}{task}"


def with_request_id(data: bytes, recorded: Any, client: Any) -> bytes:
    """``data`` (a JSON-RPC answer or SSE frame) with the recorded request id replaced by
    the client's: the ``"id"`` member holding exactly the recorded value."""
    if recorded == client or recorded is None:
        return data
    old = re.escape(json.dumps(recorded).encode())
    new = json.dumps(client).encode()
    return re.sub(rb'("id"\s*:\s*)' + old + rb"(?=\s*[,}])", lambda m: m.group(1) + new, data)
