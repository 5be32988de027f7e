"""JSON-lines export of recorded exchanges: the records ``send`` printed, read back.

The records come from :class:`app.protocol.records.ExchangeRecords`, the one encoder of
the command line, so ``history show``, ``history export --format jsonl`` and the History
view's *Export…* write what ``send`` wrote. Stored events are already masked
(:mod:`app.history.codec`), so nothing here reveals a credential.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TextIO

from app.history.store import HistoryStore
from app.protocol.events import ExchangeEvent
from app.protocol.records import ExchangeRecords, Record, line
from app.protocol.visible_text import json_for


def event_records(events: Iterable[ExchangeEvent]) -> list[Record]:
    """The records ``send`` prints for ``events``."""
    encoder = ExchangeRecords()
    return [r for e in events if (r := encoder.record(e)) is not None]


def write_jsonl(store: HistoryStore, ids: Iterable[int], out: TextIO) -> None:
    """Every event record of the entries ``ids``, each with ``"exchange": id``."""
    for exchange_id in ids:
        for each in event_records(store.iter_events(exchange_id)):
            out.write(json_for(line({**each, "exchange": exchange_id}), out) + "\n")
