"""Table models for the request tab's *Headers* and *Extensions* pages.

Both are small editable lists the user types into, so each model owns its rows (plain
dataclasses) instead of adapting a separate store.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, Qt

from app.protocol.events import Headers
from app.ui.shell.plain_text import plain_tip, shown
from app.ui.shell.table_model import ROOT, Column, Index, TableModel, no_tooltip


@dataclass(slots=True)
class HeaderRow:
    """One row of the headers table."""

    name: str = ""
    value: str = ""
    enabled: bool = True


def _sent(row: HeaderRow) -> str:
    return "Sent" if row.enabled else "Not sent (unticked)"


class HeadersModel(TableModel[HeaderRow]):
    """Rows of (enabled, name, value); column 0 carries the enable checkbox and the name.

    Columns: 0 ``Name`` (checkable: sent or not), 1 ``Value``.
    """

    NAME, VALUE = 0, 1
    COLUMNS = (
        Column("Name", lambda r: r.name, tooltip=_sent, editable=True),
        Column("Value", lambda r: r.value, tooltip=no_tooltip, editable=True),
    )

    def __init__(self, rows: list[HeaderRow] | None = None, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows = list(rows or [])

    # --- Qt model API -----------------------------------------------------------------

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = self.row_at(index.row()) if index.isValid() else None
        if role == Qt.ItemDataRole.CheckStateRole:
            if row is None or index.column() != self.NAME:
                return None
            return Qt.CheckState.Checked if row.enabled else Qt.CheckState.Unchecked
        return super().data(index, role)

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        row = self.row_at(index.row()) if index.isValid() else None
        if row is None:
            return False
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

    def flags(self, index: Index) -> Qt.ItemFlag:
        flags = super().flags(index)
        if index.isValid() and index.column() == self.NAME:
            flags |= Qt.ItemFlag.ItemIsUserCheckable
        return flags

    # --- our API ----------------------------------------------------------------------

    def rows(self) -> list[HeaderRow]:
        """A copy of the rows."""
        return [HeaderRow(r.name, r.value, r.enabled) for r in self._rows]

    def add_row(self, name: str = "", value: str = "", enabled: bool = True) -> int:
        """Append a row; returns its index."""
        return self.append_rows([HeaderRow(name.strip(), value, enabled)])

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

    def rowCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else len(self._uris)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._uris):
            return None
        if role == Qt.ItemDataRole.DisplayRole:  # a card's URIs: control characters shown
            return shown(self._uris[index.row()], multiline=False)
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tip(self._uris[index.row()])
        if role == Qt.ItemDataRole.CheckStateRole:
            return Qt.CheckState.Checked if self._checked[index.row()] else Qt.CheckState.Unchecked
        return None

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if (
            not index.isValid()
            or not 0 <= index.row() < len(self._uris)
            or role != Qt.ItemDataRole.CheckStateRole
        ):
            return False
        self._checked[index.row()] = _checked(value)
        self.dataChanged.emit(index, index, [role])
        return True

    def flags(self, index: Index) -> Qt.ItemFlag:
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
