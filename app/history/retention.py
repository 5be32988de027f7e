"""How much history is kept: entries younger than an age, in a file under a size, oldest
dropped first. Cheap enough to run after every exchange (two indexed queries when nothing
is due)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Collection
from dataclasses import dataclass

DEFAULT_MAX_AGE_DAYS = 90.0
DEFAULT_MAX_BYTES = 500 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Retention:
    """Keep entries at most ``max_age_days`` old while the data fits in ``max_bytes``."""

    max_age_days: float = DEFAULT_MAX_AGE_DAYS
    max_bytes: int = DEFAULT_MAX_BYTES


def used_bytes(db: sqlite3.Connection) -> int:
    """Bytes of the database's pages in use (free pages not counted)."""
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    free = db.execute("PRAGMA freelist_count").fetchone()[0]
    size = db.execute("PRAGMA page_size").fetchone()[0]
    return int((pages - free) * size)


def enforce(
    db: sqlite3.Connection,
    policy: Retention,
    *,
    keep: Collection[int] = (),
    now: float | None = None,
) -> int:
    """Delete what ``policy`` does not keep, never the entries in ``keep`` (being recorded).

    ``db`` is in autocommit mode. Returns how many entries were deleted.
    """
    cutoff = (time.time() if now is None else now) - policy.max_age_days * 86400.0
    doomed = [
        row[0]
        for row in db.execute("SELECT id FROM exchanges WHERE started_at < ?", (cutoff,))
        if row[0] not in keep
    ]
    deleted = delete(db, doomed)
    # Oldest first until the data fits; an entry's size column is its response bytes,
    # so a step frees about the excess (the loop corrects the estimate).
    for _ in range(64):
        excess = used_bytes(db) - policy.max_bytes
        if excess <= 0:
            break
        doomed, freed = [], 0
        for row_id, size in db.execute("SELECT id, size FROM exchanges ORDER BY id"):
            if row_id in keep:
                continue
            doomed.append(row_id)
            freed += size + 512
            if freed >= excess:
                break
        if not doomed:
            break
        deleted += delete(db, doomed)
        db.execute("PRAGMA incremental_vacuum")
    return deleted


def delete(db: sqlite3.Connection, ids: list[int]) -> int:
    """Delete the entries ``ids`` and their events in one transaction; returns how many."""
    if not ids:
        return 0
    db.execute("BEGIN IMMEDIATE")
    try:
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            db.execute(f"DELETE FROM events WHERE exchange_id IN ({marks})", chunk)
            db.execute(f"DELETE FROM exchanges WHERE id IN ({marks})", chunk)
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
    return len(ids)
