"""Reading a recorded stream's items back by sequence number (what a long timeline does for
rows beyond its window): packs found by their first and last seq, frames as stored
(credentials masked), nothing for a seq never stored or an entry deleted since."""

from __future__ import annotations

from pathlib import Path

from app.history.item_reader import ItemReader
from app.history.store import HistoryStore
from app.protocol.events import StreamItem
from app.protocol.request import A2ARequest
from app.protocol.secrets import MASK
from app.protocol.types import Binding, ProtocolVersion


def _frame(n: int, secret: str = "") -> bytes:
    return f'data: {{"n": {n}, "note": "{secret}"}}\r\n\r\n'.encode()


def _item(n: int, secret: str = "") -> StreamItem:
    return StreamItem(n / 1000, n, _frame(n, secret), {"n": n})


def _recorded(tmp_path: Path, count: int, per_batch: int) -> tuple[HistoryStore, int]:
    store = HistoryStore.open(tmp_path / "history.sqlite3")
    request = A2ARequest(
        "http://127.0.0.1:1/",
        "SendStreamingMessage",
        "{}",
        ProtocolVersion.V1_0,
        Binding.JSONRPC,
        headers=(("Authorization", "Bearer sekrit-token"),),
    )
    recorder = store.recorder(request, secret_headers=("authorization",))
    for start in range(1, count + 1, per_batch):
        batch = range(start, min(start + per_batch, count + 1))
        recorder.feed_all([_item(n, "sekrit-token" if n == 2 else "") for n in batch])
        assert recorder.close(10)  # one pack per batch
    exchange_id = recorder.exchange_id
    assert exchange_id is not None
    return store, exchange_id


def test_frames_by_seq_across_packs(tmp_path: Path) -> None:
    store, exchange_id = _recorded(tmp_path, 2500, 700)
    reader = ItemReader(store.path, exchange_id)
    try:
        assert reader.refresh() == 2500
        got = reader.frames([1, 2, 700, 701, 1999, 2500, 2501])
        assert got == {n: _frame(n, MASK if n == 2 else "") for n in (1, 2, 700, 701, 1999, 2500)}
        # Another thread's reader of the same entry.
        clone = reader.clone()
        assert clone.frames([1234]) == {1234: _frame(1234)}
        clone.close()
    finally:
        reader.close()
        store.close()


def test_the_entry_is_found_once_the_writer_made_it(tmp_path: Path) -> None:
    store = HistoryStore.open(tmp_path / "history.sqlite3")
    request = A2ARequest(
        "http://127.0.0.1:1/", "SendStreamingMessage", "{}", ProtocolVersion.V1_0, Binding.JSONRPC
    )
    recorder = store.recorder(request)
    reader = ItemReader(store.path, lambda: recorder.id)
    try:
        recorder.feed_all([_item(n) for n in range(1, 11)])
        assert recorder.close(10)
        assert reader.last_seq == -1 and reader.refresh() == 10
        recorder.feed_all([_item(n) for n in range(11, 21)])
        assert recorder.close(10)
        assert reader.frames([20]) == {20: _frame(20)}  # a seq beyond what it knew: refreshed
    finally:
        reader.close()
        store.close()


def test_a_deleted_entry_reads_as_nothing(tmp_path: Path) -> None:
    store, exchange_id = _recorded(tmp_path, 50, 50)
    reader = ItemReader(store.path, exchange_id)
    try:
        assert reader.refresh() == 50
        store.delete([exchange_id])
        assert reader.frames([1, 2]) == {}
    finally:
        reader.close()
        store.close()
