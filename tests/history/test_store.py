"""The history file itself: migrations, retention, queries, and files that cannot be opened
(corrupt or locked) — set aside, never emptied. Real SQLite files in a temporary data dir."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pytest

from app.history.retention import Retention
from app.history.schema import SCHEMA_VERSION
from app.history.store import HistoryFilter, HistoryStore, HistoryUnavailable
from app.paths import history_path
from app.protocol.events import (
    ErrorKind,
    ExchangeEnd,
    ExchangeError,
    Outcome,
    RequestSent,
    ResponseBody,
    ResponseHead,
)
from app.protocol.request import A2ARequest


def _record(store: HistoryStore, endpoint: str, method: str, outcome: Outcome,
            body: bytes = b'{"ok": true}') -> int:  # fmt: skip
    rec = store.recorder(A2ARequest(endpoint, method, "{}"), source="test")
    rec.feed(RequestSent(0.0, "POST", endpoint, (("Content-Type", "application/json"),), b"{}",
                         method))  # fmt: skip
    rec.feed(ResponseHead(0.01, 200, "OK", "HTTP/1.1", (("content-type", "application/json"),)))
    rec.feed(ResponseBody(0.02, body, "application/json", json.loads(body)))
    if outcome is not Outcome.OK:
        rec.feed(ExchangeError(0.02, ErrorKind.RPC, "Task not found", -32001, "TaskNotFoundError"))
    rec.feed(ExchangeEnd(0.03, outcome))
    rec.close()
    exchange_id = rec.exchange_id
    assert exchange_id is not None
    return exchange_id


def test_default_file_is_in_the_user_data_dir(tmp_path: Path) -> None:
    path = history_path()
    assert path.name == "history.sqlite3" and path.parent.name == "a2a-workbench"
    store = HistoryStore.open()
    try:
        assert store.path == path and path.exists()
        db = sqlite3.connect(path)
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        db.close()
    finally:
        store.close()


def test_list_filter_page_delete(tmp_path: Path) -> None:
    store = HistoryStore.open(tmp_path / "h.sqlite3")
    try:
        ids = [
            _record(
                store,
                f"http://127.0.0.1:{9000 + n % 3}/",
                "SendMessage" if n % 2 else "GetTask",
                Outcome.OK if n % 4 else Outcome.RPC_ERROR,
            )
            for n in range(30)
        ]
        assert store.count() == 30
        newest = store.entries(limit=10)
        assert [e.id for e in newest] == ids[::-1][:10]
        # Keyset paging (what a table model's fetchMore asks for) meets offset paging.
        second = store.entries(limit=10, before=newest[-1].id)
        assert [e.id for e in second] == [e.id for e in store.entries(limit=10, offset=10)]
        assert store.count(HistoryFilter(method="GetTask")) == 15
        assert store.count(HistoryFilter(outcome="rpc_error")) == 8
        assert store.count(HistoryFilter(endpoint="http://127.0.0.1:9001/")) == 10
        assert store.count(HistoryFilter(text=":9002")) == 10
        assert store.count(HistoryFilter(text="not found")) == 8
        assert store.count(HistoryFilter(text="100%_")) == 0  # LIKE wildcards are literal
        both = HistoryFilter(method="SendMessage", outcome="ok", endpoint="http://127.0.0.1:9000/")
        assert all(e.rpc_method == "SendMessage" and e.outcome == "ok"
                   for e in store.entries(both))  # fmt: skip
        entry = store.entry(ids[0])
        assert entry is not None
        assert (entry.status, entry.size, entry.binding, entry.version) == (200, 12, "JSONRPC",
                                                                            "1.0")  # fmt: skip
        assert entry.duration_ms == pytest.approx(30.0)
        assert store.distinct("endpoint") == [f"http://127.0.0.1:{p}/" for p in (9000, 9001, 9002)]
        events = store.events(ids[0])
        assert isinstance(events[0], RequestSent) and isinstance(events[-1], ExchangeEnd)
        assert events[2] == ResponseBody(0.02, b'{"ok": true}', "application/json", {"ok": True})
        assert store.delete([ids[0]]) == 1
        assert store.entry(ids[0]) is None and store.events(ids[0]) == []
        assert store.ids() == ids[1:]  # every entry, oldest first: an export of them all
        assert store.clear() == 29
        assert store.count() == 0
    finally:
        store.close()


def test_migrates_a_version_1_file(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    # The schema as version 1 shipped it (no ``context`` column, no endpoint index).
    db.executescript(
        """
        CREATE TABLE exchanges (id INTEGER PRIMARY KEY AUTOINCREMENT, started_at REAL NOT NULL,
            source TEXT NOT NULL DEFAULT '', operation TEXT NOT NULL DEFAULT '',
            method TEXT NOT NULL DEFAULT '', rpc_method TEXT NOT NULL DEFAULT '',
            binding TEXT NOT NULL DEFAULT '', version TEXT NOT NULL DEFAULT '',
            endpoint TEXT NOT NULL DEFAULT '', url TEXT NOT NULL DEFAULT '', outcome TEXT,
            status INTEGER, duration_ms REAL, size INTEGER NOT NULL DEFAULT 0,
            items INTEGER NOT NULL DEFAULT 0, error TEXT NOT NULL DEFAULT '');
        CREATE INDEX exchanges_started ON exchanges (started_at);
        CREATE TABLE events (exchange_id INTEGER NOT NULL REFERENCES exchanges (id)
            ON DELETE CASCADE, n INTEGER NOT NULL, kind TEXT NOT NULL, t REAL NOT NULL,
            meta TEXT NOT NULL, payload BLOB NOT NULL, PRIMARY KEY (exchange_id, n));
        CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO exchanges (started_at, rpc_method, binding, version, endpoint, outcome)
            VALUES (strftime('%s', 'now'), 'GetTask', 'JSONRPC', '1.0', 'http://old/', 'ok');
        INSERT INTO events VALUES (1, 1, 'end', 0.5, '{"outcome": "ok"}', x'');
        PRAGMA user_version = 1;
        """
    )
    db.close()
    store = HistoryStore.open(path)
    try:
        assert not store.notices
        (entry,) = store.entries()
        assert (entry.rpc_method, entry.endpoint, entry.context) == ("GetTask", "http://old/", "{}")
        assert store.events(entry.id) == [ExchangeEnd(0.5, Outcome.OK)]
        assert store.count(HistoryFilter(endpoint="http://old/")) == 1
    finally:
        store.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    indexes = {row[1] for row in db.execute("PRAGMA index_list(exchanges)")}
    assert "exchanges_endpoint" in indexes
    db.close()


def test_newer_schema_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite3"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(HistoryUnavailable, match="newer"):
        HistoryStore.open(path)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1  # not migrated
    assert db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
    db.close()
    assert not list(tmp_path.glob("new.sqlite3.*"))  # not set aside either


def test_corrupt_file_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    garbage = b"this is not a database, but it is the user's file " * 100
    path.write_bytes(garbage)
    store = HistoryStore.open(path)
    try:
        (notice,) = store.notices
        (aside,) = tmp_path.glob("history.sqlite3.*.corrupt")
        assert aside.read_bytes() == garbage  # kept, never emptied
        assert aside.name in notice and "could not be opened" in notice
        assert store.count() == 0
        _record(store, "http://x/", "GetTask", Outcome.OK)
        assert store.count() == 1
    finally:
        store.close()


def test_locked_file_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    first = HistoryStore.open(path)
    _record(first, "http://kept/", "GetTask", Outcome.OK)
    first.close()
    # Another process holding the file exclusively (an exclusive-mode connection in a write).
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("UPDATE settings SET value = value")
    try:
        started = time.monotonic()
        store = HistoryStore.open(path, timeout=0.3)
        assert time.monotonic() - started < 5
        try:
            (notice,) = store.notices
            assert "locked" in notice
            assert store.count() == 0
            _record(store, "http://new/", "GetTask", Outcome.OK)
            assert store.count() == 1
        finally:
            store.close()
    finally:
        holder.execute("COMMIT")
        holder.close()
    (aside,) = tmp_path.glob("history.sqlite3.*.locked")
    kept = HistoryStore.open(aside)
    try:
        assert [e.endpoint for e in kept.entries()] == ["http://kept/"]  # data intact
    finally:
        kept.close()


def test_retention_by_age_and_size(tmp_path: Path) -> None:
    store = HistoryStore.open(tmp_path / "h.sqlite3")
    try:
        assert store.retention == Retention(90.0, 500 * 1024 * 1024)
        old = _record(store, "http://old/", "GetTask", Outcome.OK)
        db = sqlite3.connect(store.path)
        db.execute("UPDATE exchanges SET started_at = ? WHERE id = ?",
                   (time.time() - 91 * 86400, old))  # fmt: skip
        db.commit()
        db.close()
        recent = _record(store, "http://recent/", "GetTask", Outcome.OK)  # enforced after writes
        assert store.entry(old) is None and store.entry(recent) is not None
        big = [_record(store, "http://big/", "GetTask", Outcome.OK, b"\"" + b"x" * 200_000 + b"\"")
               for _ in range(10)]  # fmt: skip
        store.set_retention(Retention(max_age_days=90, max_bytes=1_000_000))
        kept = [e.id for e in store.entries(limit=100)]
        assert kept and kept == sorted(kept, reverse=True)
        assert big[-1] in kept and recent not in kept  # oldest first
        assert 3 <= len(kept) <= 5
        assert store.path.stat().st_size < 2_000_000  # freed pages went back to the disk
    finally:
        store.close()
    reopened = HistoryStore.open(tmp_path / "h.sqlite3")
    try:
        assert reopened.retention == Retention(90.0, 1_000_000)
    finally:
        reopened.close()
