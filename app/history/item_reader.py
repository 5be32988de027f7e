"""One recorded exchange's stream items, read back by sequence number.

The recorder stores a stream's items in packs: one ``events`` row of kind ``items`` per
writer batch (:func:`app.history.codec.pack_items`), in the order they arrived, so their
sequence numbers rise from pack to pack. A view of a long stream keeps only its recent
frames in memory and reads older ones back from here when they are shown, selected or
filtered (the timeline, ``app/ui/timeline/timeline_rows.py``).

Which pack holds which sequence numbers is read with SQLite's JSON functions (the first and
last entry of each pack's ``meta``), so no pack is parsed until one of its items is asked
for. The index grows as the writer commits (:meth:`ItemReader.refresh`). A reader has a
connection of its own, opened on first use: one reader per thread (:meth:`ItemReader.clone`).
"""

from __future__ import annotations

import bisect
import logging
import sqlite3
import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

import orjson

log = logging.getLogger(__name__)

READ_TIMEOUT = 1.0
"""How long a read waits for a lock (WAL readers seldom wait at all)."""

CACHED_PACKS = 4
"""Packs kept decoded: a screenful of rows, or a filter's pass, reads each pack once."""


class _Pack:
    """One stored pack: its payload and where each item's frame is in it."""

    __slots__ = ("payload", "places")

    def __init__(self, meta: list[list[int]], payload: bytes) -> None:
        self.payload = payload
        self.places: dict[int, tuple[int, int]] = {}
        offset = 0
        for seq, _t, size, *_rest in meta:
            self.places[seq] = (offset, size)
            offset += size

    def frame(self, seq: int) -> bytes | None:
        place = self.places.get(seq)
        if place is None:
            return None
        start, size = place
        return self.payload[start : start + size]


class ItemReader:
    """Frames of one history entry's stream items by sequence number.

    ``exchange_id`` is the entry's id, or a callable that returns it once the writer has
    made the entry (None until then: nothing is stored yet).
    """

    def __init__(self, path: str | Path, exchange_id: int | Callable[[], int | None]) -> None:
        self._path = str(path)
        self._source = exchange_id
        self._id: int | None = exchange_id if isinstance(exchange_id, int) else None
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self._failed = False
        self._ns = array("q")
        self._firsts = array("q")
        self._lasts = array("q")
        self._packs: OrderedDict[int, _Pack] = OrderedDict()

    @property
    def last_seq(self) -> int:
        """The highest sequence number known to be stored (-1: none); see :meth:`refresh`."""
        return self._lasts[-1] if self._lasts else -1

    def clone(self) -> ItemReader:
        """A reader of the same entry for another thread."""
        return ItemReader(self._path, self._id if self._id is not None else self._source)

    def refresh(self) -> int:
        """Learn the packs committed since the last call; returns :attr:`last_seq`."""
        with self._lock:
            db = self._connection()
            if db is None:
                return self.last_seq
            after = self._ns[-1] if self._ns else 0
            try:
                rows = db.execute(
                    "SELECT n, json_extract(meta, '$[0][0]'), json_extract(meta, '$[#-1][0]') "
                    "FROM events WHERE exchange_id = ? AND kind = 'items' AND n > ? ORDER BY n",
                    (self._id, after),
                ).fetchall()
            except sqlite3.Error as exc:
                log.warning("history items not indexed: %s", exc)
                return self.last_seq
            for n, first, last in rows:
                if first is None or last is None:
                    continue  # an empty pack (never written, but harmless)
                self._ns.append(n)
                self._firsts.append(first)
                self._lasts.append(last)
            return self.last_seq

    def frames(self, seqs: list[int]) -> dict[int, bytes]:
        """The stored frames of ``seqs`` (ascending is fastest); a seq not stored is absent."""
        if seqs and max(seqs) > self.last_seq:
            self.refresh()
        found: dict[int, bytes] = {}
        with self._lock:
            for seq in seqs:
                index = bisect.bisect_left(self._lasts, seq)
                if index == len(self._lasts) or self._firsts[index] > seq:
                    continue
                pack = self._pack(self._ns[index])
                if pack is not None:
                    frame = pack.frame(seq)
                    if frame is not None:
                        found[seq] = frame
        return found

    def close(self) -> None:
        with self._lock:
            self._packs.clear()
            if self._db is not None:
                self._db.close()
                self._db = None

    # --- under the lock ---

    def _connection(self) -> sqlite3.Connection | None:
        if self._id is None and callable(self._source):
            self._id = self._source()
        if self._id is None or self._failed:
            return None
        if self._db is None:
            try:
                db = sqlite3.connect(
                    self._path, timeout=READ_TIMEOUT, isolation_level=None, check_same_thread=False
                )
                db.execute("PRAGMA query_only = 1")
            except sqlite3.Error as exc:
                log.warning("history cannot be read back: %s", exc)
                self._failed = True
                return None
            self._db = db
        return self._db

    def _pack(self, n: int) -> _Pack | None:
        pack = self._packs.get(n)
        if pack is not None:
            self._packs.move_to_end(n)
            return pack
        db = self._connection()
        if db is None:
            return None
        try:
            row = db.execute(
                "SELECT meta, payload FROM events WHERE exchange_id = ? AND n = ?", (self._id, n)
            ).fetchone()
        except sqlite3.Error as exc:
            log.warning("history items not read: %s", exc)
            return None
        if row is None:  # deleted since (retention, Clear history)
            return None
        pack = _Pack(orjson.loads(row[0]), bytes(row[1]))
        self._packs[n] = pack
        if len(self._packs) > CACHED_PACKS:
            self._packs.popitem(last=False)
        return pack
