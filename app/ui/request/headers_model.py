"""Table models for the request tab's *Headers* and *Extensions* pages.

Both are small editable lists the user types into, so each model owns its rows (plain
dataclasses) instead of adapting a separate store.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)

from app.protocol.events import Headers

_Index = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()


@dataclass(slots=True)
class HeaderRow:
    """One row of the headers table."""

    name: str = ""
    value: str = ""
    enabled: bool = True


class HeadersModel(QAbstractTableModel):
    """Rows of (enabled, name, value); column 0 carries the enable checkbox and the name.

    Columns: 0 ``Name`` (checkable: sent or not), 1 ``Value``.
    """

    NAME, VALUE = 0, 1
    _TITLES = ("Name", "Value")

    def __init__(self, rows: list[HeaderRow] | None = None, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[HeaderRow] = list(rows or [])

    # --- Qt model API -----------------------------------------------------------------

    def rowCount(self, parent: _Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = _ROOT) -> int:
        return 0 if parent.isValid() else 2

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation is Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < 2
        ):
            return self._TITLES[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        column = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return row.name if column == self.NAME else row.value
        if role == Qt.ItemDataRole.CheckStateRole and column == self.NAME:
            return Qt.CheckState.Checked if row.enabled else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.ToolTipRole and column == self.NAME:
            return "Sent" if row.enabled else "Not sent (unticked)"
        return None

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return False
        row = self._rows[index.row()]
        if role == Qt.ItemDataRole.CheckStateRole and index.column() == self.NAME:
            row.enabled = _checked(value)
        elif role == Qt.ItemDataRole.EditRole:
            if index.column() == self.NAME:
                row.name = str(value).strip()
            else:
                row.value = str(value)
        else:
            return False
        self.dataChanged.emit(index, index, [role])
        return True

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        flags |= Qt.ItemFlag.ItemIsEditable
        if index.column() == self.NAME:
            flags |= Qt.ItemFlag.ItemIsUserCheckable
        return flags

    # --- our API ----------------------------------------------------------------------

    def rows(self) -> list[HeaderRow]:
        """A copy of the rows."""
        return [HeaderRow(r.name, r.value, r.enabled) for r in self._rows]

    def add_row(self, name: str = "", value: str = "", enabled: bool = True) -> int:
        """Append a row; returns its index."""
        at = len(self._rows)
        self.beginInsertRows(QModelIndex(), at, at)
        self._rows.append(HeaderRow(name.strip(), value, enabled))
        self.endInsertRows()
        return at

    def remove_row(self, row: int) -> None:
        """Remove row ``row`` (ignored when out of range)."""
        if 0 <= row < len(self._rows):
            self.beginRemoveRows(QModelIndex(), row, row)
            del self._rows[row]
            self.endRemoveRows()

    def set_enabled(self, row: int, enabled: bool) -> None:
        """Tick or untick row ``row``."""
        self.setData(
            self.index(row, self.NAME),
            Qt.CheckState.Checked if enabled else Qt.CheckState.Unchecked,
            Qt.ItemDataRole.CheckStateRole,
        )

    def headers(self) -> Headers:
        """The enabled rows with a name, in table order."""
        return tuple((r.name, r.value) for r in self._rows if r.enabled and r.name)


class ExtensionsModel(QAbstractListModel):
    """Extension URIs, each with a checkbox: ticked ones are activated on send."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._uris: list[str] = []
        self._checked: list[bool] = []

    def rowCount(self, parent: _Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._uris)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._uris):
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return self._uris[index.row()]
        if role == Qt.ItemDataRole.CheckStateRole:
            return Qt.CheckState.Checked if self._checked[index.row()] else Qt.CheckState.Unchecked
        return None

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if (
            not index.isValid()
            or not 0 <= index.row() < len(self._uris)
            or role != Qt.ItemDataRole.CheckStateRole
        ):
            return False
        self._checked[index.row()] = _checked(value)
        self.dataChanged.emit(index, index, [role])
        return True

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return (
            Qt.ItemFlag.ItemIsEnabled
            | Qt.ItemFlag.ItemIsSelectable
            | Qt.ItemFlag.ItemIsUserCheckable
        )

    def uris(self) -> list[str]:
        """All URIs, in list order."""
        return list(self._uris)

    def selected(self) -> list[str]:
        """The ticked URIs, in list order."""
        return [u for u, c in zip(self._uris, self._checked, strict=True) if c]

    def add_uri(self, uri: str, checked: bool = True) -> int:
        """Add ``uri`` (or tick it when already listed); returns its row, -1 if empty."""
        uri = uri.strip()
        if not uri:
            return -1
        if uri in self._uris:
            row = self._uris.index(uri)
            if checked:
                self.setData(self.index(row), Qt.CheckState.Checked, Qt.ItemDataRole.CheckStateRole)
            return row
        at = len(self._uris)
        self.beginInsertRows(QModelIndex(), at, at)
        self._uris.append(uri)
        self._checked.append(checked)
        self.endInsertRows()
        return at

    def remove_row(self, row: int) -> None:
        """Remove row ``row`` (ignored when out of range)."""
        if 0 <= row < len(self._uris):
            self.beginRemoveRows(QModelIndex(), row, row)
            del self._uris[row]
            del self._checked[row]
            self.endRemoveRows()


def _checked(value: Any) -> bool:
    if isinstance(value, Qt.CheckState):
        return value is Qt.CheckState.Checked
    return bool(value == Qt.CheckState.Checked.value or value is True)
