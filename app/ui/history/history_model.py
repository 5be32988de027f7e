"""The History table: one row per recorded exchange, newest first, fetched on scroll.

Backed by :class:`~app.history.store.HistoryStore`: a reset reads the count and the first
page, :meth:`HistoryModel.fetchMore` the next page by keyset (ids below the last shown),
so each query touches one page of the id index whatever the history's size (a few ms on
10 000 entries: cheap enough for the GUI thread).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from PySide6.QtCore import QObject, Qt

from app.history.store import HistoryEntry, HistoryFilter, HistoryStore
from app.ui.response.formatting import size_text
from app.ui.shell import theme
from app.ui.shell.icons import status_icon
from app.ui.shell.table_model import ROOT, Column, Index, TableModel

PAGE = 200
COL_ENDPOINT = 4
COL_OUTCOME = 5


def _error(entry: HistoryEntry) -> str | None:
    return entry.error or None


def _size(entry: HistoryEntry) -> str:
    items = f" · {entry.items} item{'s' * (entry.items != 1)}" if entry.items else ""
    return size_text(entry.size) + items


def _column(title: str, text: Callable[[HistoryEntry], str]) -> Column[HistoryEntry]:
    """A column whose tooltip is the entry's error, if any."""
    return Column(title, text, tooltip=_error)


COLUMNS: tuple[Column[HistoryEntry], ...] = (
    _column("Time", lambda e: datetime.fromtimestamp(e.started_at).strftime("%Y-%m-%d %H:%M:%S")),
    _column("Method", lambda e: e.rpc_method),
    _column("Binding", lambda e: e.binding),
    _column("Version", lambda e: e.version),
    Column("Endpoint", lambda e: e.endpoint, tooltip=lambda e: e.url or e.endpoint),
    # One colour and icon per status, as the response's badge and the timeline show it.
    Column(
        "Outcome",
        lambda e: e.outcome or "incomplete",
        tooltip=_error,
        foreground=lambda e: theme.brushes().status_text[theme.outcome_status(e.outcome or "")],
    ),
    _column("Status", lambda e: "" if e.status is None else str(e.status)),
    _column("Duration", lambda e: "" if e.duration_ms is None else f"{e.duration_ms:,.0f} ms"),
    _column("Size", _size),
)


class HistoryModel(TableModel[HistoryEntry]):
    """Entries of a :class:`HistoryStore` matching :attr:`filter`, newest first.

    ``Qt.UserRole`` of any cell is the entry's id.
    """

    COLUMNS = COLUMNS

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._store: HistoryStore | None = None
        self._filter = HistoryFilter()
        self._total = 0

    @property
    def store(self) -> HistoryStore | None:
        return self._store

    def set_store(self, store: HistoryStore | None) -> None:
        self._store = store
        self.reload()

    @property
    def filter(self) -> HistoryFilter:
        return self._filter

    def set_filter(self, where: HistoryFilter) -> None:
        if where != self._filter:
            self._filter = where
            self.reload()

    @property
    def total(self) -> int:
        """How many entries match the filter (not only those fetched)."""
        return self._total

    def reload(self) -> None:
        """Read the first page again (after recording, deleting or a new filter)."""
        if self._store is None:
            self._total = 0
            self.set_rows([])
        else:
            self._total = self._store.count(self._filter)
            self.set_rows(self._store.entries(self._filter, limit=PAGE))

    def entry(self, row: int) -> HistoryEntry | None:
        return self.row_at(row)

    # --- Qt model ---

    def canFetchMore(self, parent: Index = ROOT) -> bool:
        return not parent.isValid() and self._store is not None and len(self._rows) < self._total

    def fetchMore(self, parent: Index = ROOT) -> None:
        if not self.canFetchMore(parent) or self._store is None:
            return
        before = self._rows[-1].id if self._rows else None
        page = self._store.entries(self._filter, limit=PAGE, before=before)
        if not page:
            self._total = len(self._rows)  # deleted meanwhile
            return
        self.append_rows(page)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.UserRole:
            entry = self.row_at(index.row()) if index.isValid() else None
            return None if entry is None else entry.id
        if role == Qt.ItemDataRole.DecorationRole and index.column() == COL_OUTCOME:
            entry = self.row_at(index.row()) if index.isValid() else None
            return None if entry is None else status_icon(theme.outcome_status(entry.outcome or ""))
        return super().data(index, role)
