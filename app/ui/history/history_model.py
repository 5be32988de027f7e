"""The History table: one row per recorded exchange, newest first, fetched on scroll.

Backed by :class:`~app.history.store.HistoryStore`: a reset reads the count and the first
page, :meth:`HistoryModel.fetchMore` the next page by keyset (ids below the last shown),
so each query touches one page of the id index whatever the history's size (a few ms on
10 000 entries: cheap enough for the GUI thread).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)

from app.history.store import HistoryEntry, HistoryFilter, HistoryStore
from app.ui.response.formatting import size_text

PAGE = 200
COLUMNS = ("Time", "Method", "Binding", "Version", "Endpoint", "Outcome", "Status",
           "Duration", "Size")  # fmt: skip
COL_ENDPOINT = 4

Index = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()


def _cell(entry: HistoryEntry, column: int) -> str:
    match column:
        case 0:
            return datetime.fromtimestamp(entry.started_at).strftime("%Y-%m-%d %H:%M:%S")
        case 1:
            return entry.rpc_method
        case 2:
            return entry.binding
        case 3:
            return entry.version
        case 4:
            return entry.endpoint
        case 5:
            return entry.outcome or "incomplete"
        case 6:
            return "" if entry.status is None else str(entry.status)
        case 7:
            return "" if entry.duration_ms is None else f"{entry.duration_ms:,.0f} ms"
        case 8:
            items = f" · {entry.items} item{'s' * (entry.items != 1)}" if entry.items else ""
            return size_text(entry.size) + items
    return ""


class HistoryModel(QAbstractTableModel):
    """Entries of a :class:`HistoryStore` matching :attr:`filter`, newest first."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._store: HistoryStore | None = None
        self._filter = HistoryFilter()
        self._rows: list[HistoryEntry] = []
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
        self.beginResetModel()
        if self._store is None:
            self._rows, self._total = [], 0
        else:
            self._total = self._store.count(self._filter)
            self._rows = self._store.entries(self._filter, limit=PAGE)
        self.endResetModel()

    def entry(self, row: int) -> HistoryEntry | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    # --- Qt model ---

    def rowCount(self, parent: Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def canFetchMore(self, parent: Index = _ROOT) -> bool:
        return not parent.isValid() and self._store is not None and len(self._rows) < self._total

    def fetchMore(self, parent: Index = _ROOT) -> None:
        if not self.canFetchMore(parent) or self._store is None:
            return
        before = self._rows[-1].id if self._rows else None
        page = self._store.entries(self._filter, limit=PAGE, before=before)
        if not page:
            self._total = len(self._rows)  # deleted meanwhile
            return
        first = len(self._rows)
        self.beginInsertRows(QModelIndex(), first, first + len(page) - 1)
        self._rows.extend(page)
        self.endInsertRows()

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        entry = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return _cell(entry, index.column())
        if role == Qt.ItemDataRole.ToolTipRole:
            if index.column() == COL_ENDPOINT:
                return entry.url or entry.endpoint
            if entry.error:
                return entry.error
        if role == Qt.ItemDataRole.UserRole:
            return entry.id
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(COLUMNS)
        ):
            return COLUMNS[section]
        return None
