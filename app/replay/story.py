"""A task's whole story in the history: the selected entries and every other entry that
names one of their tasks or contexts (the send, the stream, follow-ups, polls, the cancel).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from app.history.store import HistoryStore
from app.protocol.events import ExchangeEvent, RequestSent, ResponseBody, StreamItem
from app.protocol.wire.jsonparse import parse_json
from app.replay.matching import http_shape
from app.replay.stable_ids import ids_in

SCAN_LIMIT = 2000
"""How many of the latest entries are searched for the rest of a story."""


def _threads(events: Iterable[ExchangeEvent]) -> set[str]:
    """The task and context ids an exchange names."""
    values: list[Any] = []
    for event in events:
        if isinstance(event, RequestSent):
            value, _ = parse_json(event.body)
            values.append(value)
            task = http_shape(event.method, event.url, b"", "HTTP+JSON").task
            values.append({"taskId": task} if task else None)
        elif isinstance(event, (ResponseBody, StreamItem)):
            values.append(event.json)
    return {id_ for v in values for kind, id_ in ids_in(v) if kind in ("task", "context")}


def story_ids(store: HistoryStore, ids: Iterable[int], scan: int = SCAN_LIMIT) -> list[int]:
    """``ids`` and the entries among the latest ``scan`` sharing a task or context with
    them, oldest first."""
    chosen = set(ids)
    wanted: set[str] = set()
    for exchange_id in chosen:
        wanted |= _threads(store.iter_events(exchange_id))
    if wanted:
        for entry in store.entries(limit=scan):
            if entry.id not in chosen and _threads(store.iter_events(entry.id)) & wanted:
                chosen.add(entry.id)
    return sorted(chosen)
