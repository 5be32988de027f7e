"""The history store: one SQLite file in the user data directory (``history.sqlite3``).

Opening never destroys data: a file that is corrupt, or locked by another process for
longer than the timeout, is *set aside* — renamed ``history.sqlite3.<UTC time>.<reason>``
with its ``-wal``/``-shm`` files — and reported in :attr:`HistoryStore.notices`, and a new
empty store takes its place. A file from a newer version of the app is left alone and
:class:`HistoryUnavailable` is raised.

Queries suit a table model that fetches on scroll: :meth:`HistoryStore.entries` pages
newest first by keyset (``before`` = the last id shown), :meth:`HistoryStore.count` sizes
the table, and filters are :class:`HistoryFilter` values.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.errors import WorkbenchError
from app.history.codec import decode
from app.history.recorder import Recorder, Writer
from app.history.retention import Retention, delete, enforce
from app.history.schema import NewerSchemaError, connect, migrate
from app.paths import history_path
from app.protocol.bindings import Framing, from_value, traits
from app.protocol.events import ExchangeEvent
from app.protocol.request import A2ARequest

OPEN_TIMEOUT = 5.0


class HistoryUnavailable(WorkbenchError):
    """History cannot be used (newer schema, or no store could be made at all).

    Raised by :meth:`HistoryStore.open`; caught by the GUI (history off, a notice shown) and
    by the ``history`` command (exit 2)."""


@dataclass(frozen=True, slots=True)
class HistoryFilter:
    """Which entries to list; empty fields match everything.

    ``text`` matches a substring of the endpoint, URL, A2A method, operation or error;
    ``method`` the A2A method or the HTTP verb; ``outcome`` an :class:`Outcome` value or
    ``"incomplete"`` (never ended: the sender stopped); ``endpoint`` exactly.
    """

    text: str = ""
    method: str = ""
    outcome: str = ""
    endpoint: str = ""

    def where(self) -> tuple[str, list[Any]]:
        clauses: list[str] = []
        args: list[Any] = []
        if self.text:
            clauses.append(
                "(endpoint LIKE ?1 ESCAPE '\\' OR url LIKE ?1 ESCAPE '\\' "
                "OR rpc_method LIKE ?1 ESCAPE '\\' OR operation LIKE ?1 ESCAPE '\\' "
                "OR error LIKE ?1 ESCAPE '\\')".replace("?1", f"?{len(args) + 1}")
            )
            escaped = self.text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            args.append(f"%{escaped}%")
        if self.method:
            clauses.append(f"(rpc_method = ?{len(args) + 1} OR method = ?{len(args) + 1})")
            args.append(self.method)
        if self.outcome == "incomplete":
            clauses.append("outcome IS NULL")
        elif self.outcome:
            clauses.append(f"outcome = ?{len(args) + 1}")
            args.append(self.outcome)
        if self.endpoint:
            clauses.append(f"endpoint = ?{len(args) + 1}")
            args.append(self.endpoint)
        return " AND ".join(clauses) or "1", args


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One recorded exchange, as a History table row shows it."""

    id: int
    started_at: float
    """Unix time."""
    source: str
    operation: str
    method: str
    rpc_method: str
    binding: str
    version: str
    endpoint: str
    url: str
    outcome: str | None
    """None while recording, or when the sender stopped before the end."""
    status: int | None
    duration_ms: float | None
    size: int
    items: int
    error: str
    context: str

    @property
    def started(self) -> datetime:
        return datetime.fromtimestamp(self.started_at, UTC)

    def as_record(self) -> dict[str, Any]:
        """A JSON-able object (``history list --output jsonl``)."""
        return {
            "id": self.id,
            "started_at": self.started.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "source": self.source,
            "operation": self.operation,
            "method": self.method,
            "rpc_method": self.rpc_method,
            "binding": self.binding,
            "version": self.version,
            "endpoint": self.endpoint,
            "url": self.url,
            "outcome": self.outcome,
            "status": self.status,
            "duration_ms": self.duration_ms,
            "size": self.size,
            "items": self.items,
            "error": self.error,
        }


_COLUMNS = ", ".join(HistoryEntry.__slots__)


class HistoryStore:
    """The history database: queries here, recording through :meth:`recorder`."""

    def __init__(self, path: Path, db: sqlite3.Connection, notices: list[str]) -> None:
        self.path = path
        self._db = db
        self._lock = threading.Lock()
        self.notices = notices
        """Problems met when opening (a file set aside), for the user to read."""
        self._retention = self._read_retention()
        self._writer: Writer | None = None
        self.enforce_retention()

    @classmethod
    def open(cls, path: Path | None = None, *, timeout: float = OPEN_TIMEOUT) -> HistoryStore:
        """Open (or create) the store at ``path`` (default :func:`app.paths.history_path`).

        Raises:
            HistoryUnavailable: a newer app's file, or no usable file could be made.
        """
        path = history_path() if path is None else path
        notices: list[str] = []
        for attempt in range(2):
            try:
                return cls(path, _open_db(path, timeout), notices)
            except NewerSchemaError as exc:
                raise HistoryUnavailable(f"History {path} is not used: {exc}") from exc
            except (sqlite3.Error, OSError) as exc:
                if attempt or not path.exists():
                    raise HistoryUnavailable(f"History {path} cannot be opened: {exc}") from exc
                reason = "locked" if "locked" in str(exc) else "corrupt"
                try:
                    aside = set_aside(path, reason)
                except OSError as rename_error:
                    raise HistoryUnavailable(
                        f"History {path} cannot be opened ({exc}) nor set aside: {rename_error}"
                    ) from exc
                notices.append(
                    f"History {path} could not be opened ({exc}); it was kept as {aside.name} "
                    "and a new history was started."
                )
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Store everything recorded, then close."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        with self._lock:
            self._db.close()

    # --- recording ---

    def recorder(
        self,
        request: A2ARequest,
        *,
        secret_headers: Iterable[str] = (),
        secret_query: Iterable[str] = (),
        source: str = "",
        operation: str = "",
        context: dict[str, Any] | None = None,
    ) -> Recorder:
        """A recorder for one exchange of ``request`` (credentials named as for masking)."""
        if self._writer is None:
            self._writer = Writer(str(self.path), OPEN_TIMEOUT, lambda: self._retention)
        return Recorder(
            self._writer,
            request,
            secret_headers=secret_headers,
            secret_query=secret_query,
            source=source,
            operation=operation,
            context=context,
        )

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until everything recorded so far is stored."""
        return self._writer.flush(timeout) if self._writer is not None else True

    @property
    def write_problems(self) -> list[str]:
        """What went wrong while recording (empty when all was stored)."""
        return list(self._writer.problems) if self._writer is not None else []

    # --- queries ---

    def entries(
        self,
        where: HistoryFilter = HistoryFilter(),
        *,
        limit: int = 100,
        before: int | None = None,
        offset: int = 0,
    ) -> list[HistoryEntry]:
        """Entries newest first; ``before`` an id (keyset paging) or ``offset`` rows."""
        sql, args = where.where()
        if before is not None:
            sql += f" AND id < ?{len(args) + 1}"
            args.append(before)
        query = (
            f"SELECT {_COLUMNS} FROM exchanges WHERE {sql} ORDER BY id DESC "
            f"LIMIT {int(limit)} OFFSET {int(offset)}"
        )
        with self._lock:
            return [HistoryEntry(*row) for row in self._db.execute(query, args)]

    def count(self, where: HistoryFilter = HistoryFilter()) -> int:
        sql, args = where.where()
        with self._lock:
            return int(self._db.execute(f"SELECT count(*) FROM exchanges WHERE {sql}", args)
                       .fetchone()[0])  # fmt: skip

    def ids(self) -> list[int]:
        """Every entry's id, oldest first (an export of the whole history)."""
        with self._lock:
            return [row[0] for row in self._db.execute("SELECT id FROM exchanges ORDER BY id")]

    def entry(self, exchange_id: int) -> HistoryEntry | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {_COLUMNS} FROM exchanges WHERE id = ?", (exchange_id,)
            ).fetchone()
        return HistoryEntry(*row) if row else None

    def events(self, exchange_id: int) -> list[ExchangeEvent]:
        """The entry's events, in order, as the exchange yielded them (credentials masked)."""
        return list(self.iter_events(exchange_id))

    def iter_events(self, exchange_id: int) -> Iterator[ExchangeEvent]:
        entry = self.entry(exchange_id)
        if entry is None:
            return
        binding = from_value(entry.binding)
        # Items of an SSE stream are stored as their frames, the others as their JSON.
        messages = binding is not None and traits(binding).framing is Framing.MESSAGES
        with self._lock:
            rows = self._db.execute(
                "SELECT kind, t, meta, payload FROM events WHERE exchange_id = ? ORDER BY n",
                (exchange_id,),
            ).fetchall()
        for kind, t, meta, payload in rows:
            yield from decode(kind, t, meta, payload, grpc=messages)

    def distinct(self, column: str) -> list[str]:
        """The values of ``endpoint``, ``rpc_method`` or ``outcome`` present (filter menus)."""
        if column not in ("endpoint", "rpc_method", "outcome", "binding"):
            raise ValueError(column)
        with self._lock:
            rows = self._db.execute(
                f"SELECT DISTINCT {column} FROM exchanges WHERE {column} IS NOT NULL "
                f"ORDER BY {column}"
            ).fetchall()
        return [row[0] for row in rows]

    # --- deleting, retention ---

    def delete(self, exchange_ids: Iterable[int]) -> int:
        with self._lock:
            return delete(self._db, list(exchange_ids))

    def clear(self) -> int:
        with self._lock:
            ids = [row[0] for row in self._db.execute("SELECT id FROM exchanges")]
            deleted = delete(self._db, ids)
            self._db.execute("PRAGMA incremental_vacuum")
            return deleted

    @property
    def retention(self) -> Retention:
        return self._retention

    def set_retention(self, policy: Retention) -> None:
        """Keep ``policy`` (saved in the store) and apply it now."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany(
                "INSERT OR REPLACE INTO settings VALUES (?, ?)",
                [("retention.max_age_days", str(policy.max_age_days)),
                 ("retention.max_bytes", str(policy.max_bytes))],
            )  # fmt: skip
            self._db.execute("COMMIT")
            self._retention = policy
            enforce(self._db, policy, keep=self._recording())

    def enforce_retention(self) -> int:
        with self._lock:
            return enforce(self._db, self._retention, keep=self._recording())

    def _recording(self) -> set[int]:
        # Entries still being recorded (no end yet, maybe by another process) are kept.
        return {r[0] for r in self._db.execute("SELECT id FROM exchanges WHERE outcome IS NULL")}

    def _read_retention(self) -> Retention:
        with self._lock:
            values = dict(self._db.execute("SELECT key, value FROM settings").fetchall())
        default = Retention()
        try:
            return Retention(
                float(values.get("retention.max_age_days", default.max_age_days)),
                int(values.get("retention.max_bytes", default.max_bytes)),
            )
        except ValueError:
            return default


def _open_db(path: Path, timeout: float) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = connect(str(path), timeout)
    try:
        migrate(db)
        db.execute("SELECT count(*) FROM exchanges").fetchone()
    except BaseException:
        db.close()
        raise
    return db


def set_aside(path: Path, reason: str) -> Path:
    """Rename ``path`` (and its ``-wal``/``-shm`` files) out of the way; returns the new path."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    aside = path.with_name(f"{path.name}.{stamp}.{reason}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.{stamp}-{n}.{reason}")
    path.rename(aside)
    for suffix in ("-wal", "-shm"):
        companion = path.with_name(path.name + suffix)
        if companion.exists():
            companion.rename(aside.with_name(aside.name + suffix))
    return aside
