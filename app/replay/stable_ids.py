"""Stable ids for a fixture: every task, context and message id replaced, consistently
across the file, by ``task-1``, ``context-1``, ``message-1``… in order of first appearance.

Ids are found in the JSON of requests and answers (``taskId``, ``contextId``, ``messageId``,
``referenceTaskIds``, a task object's ``id``, a 0.3 gRPC ``name`` of ``tasks/ID``), then
replaced as text everywhere — bodies, SSE frames, REST paths, gRPC messages — so the same
id reads the same in every place it occurs. JSON-RPC request ids are left alone: the replay
answers with the id the client sent (docs/FIXTURES.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from app.protocol.wire.sse import SseDecoder
from app.replay.fixture import Fixture, RecordedExchange

_KEYS = {"taskId": "task", "contextId": "context", "messageId": "message"}


def stable_ids(fixture: Fixture) -> Fixture:
    """``fixture`` with its ids made stable (see the module docstring)."""
    found: dict[str, str] = {}
    counts: dict[str, int] = {}
    for value in _json_values(fixture):
        for kind, id_ in ids_in(value):
            if id_ not in found and len(id_) >= 4:
                counts[kind] = counts.get(kind, 0) + 1
                found[id_] = f"{kind}-{counts[kind]}"
    if not found:
        return fixture
    table = {k.encode(): v.encode() for k, v in found.items()}
    pattern = re.compile(b"|".join(re.escape(k) for k in sorted(table, key=len, reverse=True)))
    return fixture.map_bytes(lambda data: pattern.sub(lambda m: table[m.group(0)], data))


def _json_values(fixture: Fixture) -> Iterator[Any]:
    for x in fixture.exchanges:
        yield from _parsed(x.body)
        yield from _answer_values(x)


def _answer_values(x: RecordedExchange) -> Iterator[Any]:
    answer = x.answer
    if answer.body is not None:
        yield from _parsed(answer.body)
    for frame in answer.frames:
        decoder = SseDecoder()
        for event in [*decoder.feed(frame.data), *decoder.close()]:
            if event.data is not None:
                yield from _parsed(event.data.encode())
    for message in answer.messages:
        yield message.json


def _parsed(data: bytes) -> Iterator[Any]:
    try:
        yield json.loads(data)
    except ValueError:
        return


def ids_in(value: Any) -> Iterator[tuple[str, str]]:
    """``(kind, id)`` of every task, context and message id in a JSON value."""
    if isinstance(value, list):
        for item in value:
            yield from ids_in(item)
        return
    if not isinstance(value, dict):
        return
    task_like = "status" in value and ("contextId" in value or value.get("kind") == "task")
    for key, item in value.items():
        if key in _KEYS and isinstance(item, str):
            yield _KEYS[key], item
        elif key == "referenceTaskIds" and isinstance(item, list):
            yield from (("task", i) for i in item if isinstance(i, str))
        elif key == "id" and task_like and isinstance(item, str):
            yield "task", item
        elif key == "name" and isinstance(item, str) and item.startswith("tasks/"):
            yield "task", item.split("/")[1]
        else:
            yield from ids_in(item)
