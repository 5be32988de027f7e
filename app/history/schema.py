"""The history database's schema and its migrations.

``PRAGMA user_version`` holds the schema version. :data:`MIGRATIONS` are applied in order,
each in its own transaction, from the version a file has up to :data:`SCHEMA_VERSION`; a
new file goes through all of them. Never edit a released migration: append one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from app.errors import WorkbenchError


class NewerSchemaError(WorkbenchError):
    """The file was written by a newer version of the app (its schema is unknown here).

    Raised by :func:`migrate`; caught by ``HistoryStore.open``, which turns it into
    ``HistoryUnavailable``."""


def _v1(db: sqlite3.Connection) -> None:
    db.execute(
        """CREATE TABLE exchanges (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            started_at REAL NOT NULL,          -- Unix time, seconds
            source TEXT NOT NULL DEFAULT '',   -- 'gui', 'cli'
            operation TEXT NOT NULL DEFAULT '',
            method TEXT NOT NULL DEFAULT '',   -- HTTP verb or 'gRPC'
            rpc_method TEXT NOT NULL DEFAULT '',
            binding TEXT NOT NULL DEFAULT '',
            version TEXT NOT NULL DEFAULT '',
            endpoint TEXT NOT NULL DEFAULT '',
            url TEXT NOT NULL DEFAULT '',
            outcome TEXT,                      -- NULL until the exchange ends
            status INTEGER,
            duration_ms REAL,
            size INTEGER NOT NULL DEFAULT 0,   -- response bytes (body or stream frames)
            items INTEGER NOT NULL DEFAULT 0,
            error TEXT NOT NULL DEFAULT ''
        )"""
    )
    db.execute("CREATE INDEX exchanges_started ON exchanges (started_at)")
    db.execute(
        """CREATE TABLE events (
            exchange_id INTEGER NOT NULL REFERENCES exchanges (id) ON DELETE CASCADE,
            n INTEGER NOT NULL,
            kind TEXT NOT NULL,
            t REAL NOT NULL,
            meta TEXT NOT NULL,
            payload BLOB NOT NULL,
            PRIMARY KEY (exchange_id, n)
        )"""
    )
    db.execute("CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)")


def _v2(db: sqlite3.Connection) -> None:
    # ``context``: what the sender knows beyond the wire (e.g. the tab that sent it), JSON.
    db.execute("ALTER TABLE exchanges ADD COLUMN context TEXT NOT NULL DEFAULT '{}'")
    db.execute("CREATE INDEX exchanges_endpoint ON exchanges (endpoint)")


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_v1, _v2]
"""``MIGRATIONS[i]`` takes a file from version ``i`` to ``i + 1``."""
SCHEMA_VERSION = len(MIGRATIONS)


def migrate(db: sqlite3.Connection) -> int:
    """Bring ``db`` (in autocommit mode) to :data:`SCHEMA_VERSION`; returns its old version.

    Raises:
        NewerSchemaError: the file's version is newer than this app knows.
        sqlite3.DatabaseError: the file is not a database, or is locked.
    """
    found = int(db.execute("PRAGMA user_version").fetchone()[0])
    if found > SCHEMA_VERSION:
        raise NewerSchemaError(
            f"its schema version {found} is newer than this app's ({SCHEMA_VERSION})"
        )
    for version in range(found, SCHEMA_VERSION):
        # One transaction per step (``db`` is in autocommit mode): a failed step leaves the
        # file at the previous version.
        db.execute("BEGIN IMMEDIATE")
        try:
            MIGRATIONS[version](db)
            db.execute(f"PRAGMA user_version = {version + 1}")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    return found


def connect(path: str, timeout: float) -> sqlite3.Connection:
    """A connection to ``path`` in autocommit mode (transactions are explicit), WAL journal.

    ``timeout`` bounds the wait for another connection's lock. Usable from any thread, one
    at a time (callers hold a lock).

    Raises:
        sqlite3.DatabaseError: not a database, or locked for longer than ``timeout``.
    """
    db = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
    try:
        db.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
        # Takes effect only in a new file, before its first table: lets retention hand freed
        # pages back to the disk (``PRAGMA incremental_vacuum``).
        db.execute("PRAGMA auto_vacuum = INCREMENTAL")
        mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise sqlite3.OperationalError(f"database is locked (journal mode stays {mode})")
        # WAL with NORMAL sync: durable across app crashes, and a commit costs no fsync.
        db.execute("PRAGMA synchronous = NORMAL")
    except BaseException:
        db.close()
        raise
    return db
