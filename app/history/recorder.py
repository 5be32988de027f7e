"""Recording exchanges as they happen, on a writer thread, in batches.

:meth:`Recorder.feed` only puts the event on a queue, so recording costs the sender (the
GUI thread, the CLI's event loop) next to nothing, however fast a stream runs. The
:class:`Writer` thread masks and encodes the events (:mod:`app.history.codec`) and commits
every :data:`BATCH_EVENTS` events or every :data:`BATCH_SECONDS`, whichever comes first. Nothing
is dropped: the queue is unbounded, and :meth:`Writer.flush` waits until all that was fed
before it is committed.
"""

from __future__ import annotations

import json
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from app.history import retention
from app.history.codec import ItemRecord, Masker, encode, item_record, pack_items
from app.history.schema import connect
from app.protocol.events import (
    ExchangeEnd,
    ExchangeError,
    ExchangeEvent,
    ExchangeFinding,
    RequestSent,
    ResponseBody,
    ResponseHead,
    StreamItem,
)
from app.protocol.request import A2ARequest

log = logging.getLogger(__name__)

BATCH_EVENTS = 1000
BATCH_SECONDS = 0.02


class Recorder:
    """Records one exchange: feed it every event of the stream, in order."""

    def __init__(
        self,
        writer: Writer,
        request: A2ARequest,
        *,
        secret_headers: Iterable[str] = (),
        secret_query: Iterable[str] = (),
        source: str = "",
        operation: str = "",
        context: dict[str, Any] | None = None,
    ) -> None:
        self._writer = writer
        self._id_ready = threading.Event()
        self.mask = Masker(request, secret_headers, secret_query)
        # Everything below is the writer thread's.
        self.id: int | None = None
        self.n = 0
        self.ended = False
        self.pack: list[ItemRecord] = []
        """Stream items waiting to be stored as one row."""
        self.columns: dict[str, Any] = {
            "started_at": time.time(),
            "source": source,
            "operation": operation,
            "method": "",
            "rpc_method": request.method,
            "binding": request.binding.value,
            "version": request.version.value,
            "endpoint": self.mask.url(request.endpoint),
            "url": "",
            "context": self.mask.text(json.dumps(context or {}, ensure_ascii=False)),
        }
        self.status: int | None = None
        self.outcome: str | None = None
        self.duration_ms: float | None = None
        self.size = 0
        self.items = 0
        self.error = ""
        writer.put((self, None))

    def feed(self, event: ExchangeEvent) -> None:
        """Record ``event`` (returns at once; any thread)."""
        self._writer.put((self, event))

    def feed_all(self, events: Iterable[ExchangeEvent]) -> None:
        """Record ``events`` in order (a batch of a fast stream: one queue entry; its
        stream items queued as plain :data:`~app.history.codec.ItemRecord` s)."""
        self._writer.put((self, [item_record(e) if type(e) is StreamItem else e for e in events]))

    def close(self, timeout: float | None = None) -> bool:
        """Wait until everything fed is stored; False if ``timeout`` ran out first."""
        return self._writer.flush(timeout)

    @property
    def exchange_id(self) -> int | None:
        """The stored entry's id (waits for the writer); None if it could not be stored."""
        self._id_ready.wait(10.0)
        return self.id

    # --- the writer thread ---

    def began(self, exchange_id: int | None) -> None:
        self.id = exchange_id
        self._id_ready.set()

    def account(self, event: ExchangeEvent, payload_size: int, meta: str) -> None:
        """Update the entry's summary columns for one stored event (stream items are
        counted as they are packed)."""
        if isinstance(event, ResponseBody):
            self.size += payload_size
        elif isinstance(event, RequestSent):
            self.columns["method"] = event.method
            self.columns["url"] = json.loads(meta)["url"]
        elif isinstance(event, ResponseHead):
            self.status = event.status
        elif isinstance(event, ExchangeError):
            self.error = self.error or json.loads(meta)["message"]
        elif isinstance(event, ExchangeEnd):
            self.outcome = event.outcome.value
            self.duration_ms = round(event.elapsed_ms, 3)
            self.ended = True


_FLUSH = "flush"
_STOP = "stop"


class Writer:
    """The thread that writes every recorder's events to the database."""

    def __init__(
        self, path: str, timeout: float, policy: Callable[[], retention.Retention]
    ) -> None:
        self._path = path
        self._timeout = timeout
        self._policy = policy
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._active: dict[int, Recorder] = {}
        self._urgent = threading.Event()  # a flush or stop is waiting
        self.problems: list[str] = []
        """What went wrong while writing (shown to the user); appended by the thread."""
        self.lost = 0
        """Events that could not be stored."""
        self._thread = threading.Thread(target=self._loop, name="history-writer", daemon=True)
        self._thread.start()

    def put(self, message: Any) -> None:
        self._queue.put(message)

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until everything put before is committed."""
        if not self._thread.is_alive():
            return False
        done = threading.Event()
        self._queue.put((_FLUSH, done))
        self._urgent.set()
        return done.wait(timeout)

    def close(self, timeout: float = 30.0) -> None:
        """Store what is queued, then stop the thread."""
        if self._thread.is_alive():
            self._queue.put((_STOP, None))
            self._urgent.set()
            self._thread.join(timeout)

    def _loop(self) -> None:
        try:
            db = connect(self._path, self._timeout)
        except sqlite3.Error as exc:
            self.problems.append(f"History cannot be written: {exc}")
            db = None
        try:
            while True:
                batch = [self._queue.get()]
                deadline = time.monotonic() + BATCH_SECONDS
                while not self._drain(batch):
                    # Sleep rather than wait on the queue: a thread woken by every put would
                    # take the GIL from the stream thousands of times a second.
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        break
                    if self._urgent.wait(remaining):
                        self._urgent.clear()
                events = [m for m in batch if not isinstance(m[0], str)]
                if events:
                    self._write(db, events)
                for kind, payload in (m for m in batch if isinstance(m[0], str)):
                    if kind == _FLUSH:
                        payload.set()
                    else:
                        return
        finally:
            if db is not None:
                db.close()

    def _pack_row(self, rec: Recorder, rows: list[tuple[int, int, str, float, str, bytes]]) -> None:
        """Add the row of ``rec``'s waiting stream items to ``rows``."""
        if not rec.pack or rec.id is None:
            return
        try:
            kind, t, meta, payload = pack_items(rec.pack, rec.mask)
        except Exception:
            log.exception("cannot record %d stream items", len(rec.pack))
            self.lost += len(rec.pack)
        else:
            rec.n += 1
            rows.append((rec.id, rec.n, kind, t, meta, payload))
        rec.pack = []

    def _drain(self, batch: list[Any]) -> bool:
        """Move what is queued into ``batch``; True when it is due (full, or a flush/stop)."""
        while len(batch) < BATCH_EVENTS and not isinstance(batch[-1][0], str):
            try:
                batch.append(self._queue.get_nowait())
            except queue.Empty:
                return False
        return True

    def _store_event(
        self, rec: Recorder, event: Any, rows: list[tuple[int, int, str, float, str, bytes]]
    ) -> None:
        """One event of ``rec`` (a stored entry): a stream item joins its pack, anything
        else becomes a row of its own (after the pack waiting before it)."""
        if isinstance(event, ExchangeFinding):
            return  # derived from the body or item it follows, which is stored
        if isinstance(event, tuple | StreamItem):
            record = event if isinstance(event, tuple) else item_record(event)
            rec.pack.append(record)
            rec.items += 1
            rec.size += len(record[2])
            return
        self._pack_row(rec, rows)
        try:
            kind, t, meta, payload = encode(event, rec.mask)
        except Exception:
            log.exception("cannot record %r", event)
            self.lost += 1
            return
        assert rec.id is not None
        rec.n += 1
        rows.append((rec.id, rec.n, kind, t, meta, payload))
        rec.account(event, len(payload), meta)

    def _write(self, db: sqlite3.Connection | None, batch: list[tuple[Recorder, Any]]) -> None:
        if db is None:
            self.lost += sum(
                len(event) if type(event) is list else 1
                for _rec, event in batch
                if event is not None
            )
            for rec, event in batch:
                if event is None:
                    rec.began(None)
            return
        rows: list[tuple[int, int, str, float, str, bytes]] = []
        touched: dict[int, Recorder] = {}
        began: list[Recorder] = []
        ended = False
        try:
            db.execute("BEGIN IMMEDIATE")
            for rec, event in batch:
                if event is None:
                    columns = rec.columns
                    cursor = db.execute(
                        f"INSERT INTO exchanges ({', '.join(columns)}) "
                        f"VALUES ({', '.join('?' * len(columns))})",
                        tuple(columns.values()),
                    )
                    rec.id = cursor.lastrowid
                    began.append(rec)
                    continue
                if rec.id is None:
                    self.lost += len(event) if type(event) is list else 1
                    continue
                if type(event) is list:  # fed with feed_all: mostly item records
                    for one in event:
                        if type(one) is tuple:
                            rec.pack.append(one)
                            rec.items += 1
                            rec.size += len(one[2])
                        else:
                            self._store_event(rec, one, rows)
                    touched[rec.id] = rec
                    continue
                self._store_event(rec, event, rows)
                touched[rec.id] = rec
            ended_ids: list[int] = []
            for rec in touched.values():
                self._pack_row(rec, rows)
            _insert_events(db, rows)
            for rec in touched.values():
                db.execute(
                    "UPDATE exchanges SET method = ?, url = ?, status = ?, outcome = ?, "
                    "duration_ms = ?, size = ?, items = ?, error = ? WHERE id = ?",
                    (rec.columns["method"], rec.columns["url"], rec.status, rec.outcome,
                     rec.duration_ms, rec.size, rec.items, rec.error, rec.id),
                )  # fmt: skip
                if rec.ended and rec.id is not None:
                    ended_ids.append(rec.id)
            db.execute("COMMIT")
            for exchange_id in ended_ids:
                self._active.pop(exchange_id, None)
            ended = bool(ended_ids)
        except sqlite3.Error as exc:
            log.warning("history batch not stored: %s", exc)
            if db.in_transaction:
                db.execute("ROLLBACK")
            self.lost += len(batch)
            self.problems.append(f"History could not store {len(batch)} events: {exc}")
            for rec in began:
                rec.id = None
            ended = False
        for rec in began:
            if rec.id is not None and not rec.ended:
                self._active[rec.id] = rec
            rec.began(rec.id)
        if ended:
            try:
                retention.enforce(db, self._policy(), keep=self._active.keys())
            except sqlite3.Error as exc:
                self.problems.append(f"History retention failed: {exc}")


_BLOB_STEP = 1 << 20
"""Payloads bigger than this are written into the row piece by piece."""


def _insert_events(
    db: sqlite3.Connection, rows: list[tuple[int, int, str, float, str, bytes]]
) -> None:
    """Insert event ``rows``; a big payload (a 25 MiB body) through incremental blob I/O.

    Bound as a parameter, a blob is copied by the binding and again into the row record:
    twice its size in memory at once. A ``zeroblob`` row filled a MiB at a time holds
    no more than a page cache's worth."""
    db.executemany(
        "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)",
        [row for row in rows if len(row[5]) <= _BLOB_STEP],
    )
    for row in rows:
        payload = row[5]
        if len(payload) <= _BLOB_STEP:
            continue
        cursor = db.execute(
            "INSERT INTO events VALUES (?, ?, ?, ?, ?, zeroblob(?))", (*row[:5], len(payload))
        )
        assert cursor.lastrowid is not None
        view = memoryview(payload)
        with db.blobopen("events", "payload", cursor.lastrowid) as blob:
            for start in range(0, len(payload), _BLOB_STEP):
                blob.write(view[start : start + _BLOB_STEP])
