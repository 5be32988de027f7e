"""The controller's coalescing of small batches (a gRPC stream hands over one message per
batch): fewer emissions, nothing lost or reordered, the end never kept waiting."""

from __future__ import annotations

import asyncio

from app.protocol.events import ExchangeEnd, Outcome, StreamItem
from app.ui.request.request_controller import _COALESCE_EVENTS, _Coalescer


def _item(n: int) -> StreamItem:
    return StreamItem(n / 1000, n, b"{}", {})


async def test_small_batches_close_together_are_emitted_together() -> None:
    emitted: list[list[object]] = []
    coalesced = _Coalescer(emitted.append)
    for n in range(1, 31):
        coalesced.add([_item(n)])
    assert len(emitted) == 1  # the first at once; the rest wait for the timer
    await asyncio.sleep(0.02)
    assert len(emitted) == 2
    assert [e.seq for batch in emitted for e in batch] == list(range(1, 31))  # type: ignore[attr-defined]


async def test_the_end_and_a_full_batch_are_not_kept_waiting() -> None:
    emitted: list[list[object]] = []
    coalesced = _Coalescer(emitted.append)
    coalesced.add([_item(1)])
    coalesced.add([_item(2)])
    coalesced.add([ExchangeEnd(0.1, Outcome.OK)])
    assert [len(batch) for batch in emitted] == [1, 2]
    coalesced.add([_item(n) for n in range(_COALESCE_EVENTS)])
    assert len(emitted) == 3  # a batch this large goes at once


async def test_flush_emits_what_waits_and_stops_the_timer() -> None:
    emitted: list[list[object]] = []
    coalesced = _Coalescer(emitted.append)
    coalesced.add([_item(1)])
    coalesced.add([_item(2)])
    coalesced.flush()
    await asyncio.sleep(0.02)
    assert [len(batch) for batch in emitted] == [1, 1]
