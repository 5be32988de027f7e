"""One base for the app's flat table models: rows of plain values, columns as specs.

A table model here is a list of rows (frozen view objects, small dataclasses, tuples) and a
tuple of :class:`Column` specs saying, per column, its title and how a row shows in it: its
text, tooltip and colour. :class:`TableModel` answers Qt's ``rowCount`` / ``columnCount`` /
``headerData`` / ``data`` / ``flags`` from them and keeps the rows, so a model is its column
table plus whatever is its own (checkboxes, editing, paging). The stream timeline's model is
not built on it: it keeps its rows in its own bounded, batched store
(``app/ui/timeline/timeline_model.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush

from app.ui.shell.plain_text import plain_tip, shown

Index = QModelIndex | QPersistentModelIndex
ROOT = QModelIndex()
T = TypeVar("T")


def no_tooltip(_row: Any) -> None:
    """A column's ``tooltip`` for a column whose cells have none."""
    return None


@dataclass(frozen=True, slots=True)
class Column(Generic[T]):
    """How a row shows in one column.

    Attributes:
        title: the header text.
        text: the cell's text (display and, for an editable column, edit role).
        tooltip: the cell's tooltip; ``None`` (the default) shows the cell's whole text,
            which an elided or one-line cell may not; :func:`no_tooltip` shows none.
        foreground: the cell's text brush, ``None`` from it for the palette's.
        editable: the user may edit the cell (the model's ``setData`` takes the edit).
    """

    title: str
    text: Callable[[T], str]
    tooltip: Callable[[T], str | None] | None = None
    foreground: Callable[[T], QBrush | None] | None = None
    editable: bool = False


class TableModel(QAbstractTableModel, Generic[T]):
    """A flat table of ``rows`` shown through ``COLUMNS``.

    Subclasses set ``COLUMNS`` (or pass ``columns``) and may override :meth:`tooltip` and
    :meth:`foreground` for what depends on the whole row, and ``data`` / ``setData`` /
    ``flags`` for roles of their own (calling ``super()`` for the rest).

    Attributes:
        ONE_LINE: show each cell's text on one line (``⏎`` for a line break); the tooltip
            keeps the line breaks.
    """

    COLUMNS: Sequence[Column[Any]] = ()
    ONE_LINE = False

    def __init__(
        self, parent: QObject | None = None, columns: Sequence[Column[T]] | None = None
    ) -> None:
        super().__init__(parent)
        self._columns: Sequence[Column[T]] = self.COLUMNS if columns is None else columns
        self._rows: list[T] = []

    # --- the rows ---------------------------------------------------------------------

    def set_rows(self, rows: Iterable[T]) -> None:
        """Replace every row."""
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def append_rows(self, rows: Sequence[T]) -> int:
        """Add ``rows`` at the end; returns the index of the first."""
        first = len(self._rows)
        if rows:
            self.beginInsertRows(ROOT, first, first + len(rows) - 1)
            self._rows.extend(rows)
            self.endInsertRows()
        return first

    def remove_row(self, row: int) -> bool:
        """Remove row ``row``; False (and nothing done) when out of range."""
        if not 0 <= row < len(self._rows):
            return False
        self.beginRemoveRows(ROOT, row, row)
        del self._rows[row]
        self.endRemoveRows()
        return True

    def rows(self) -> list[T]:
        """The rows, in table order (a new list; the rows themselves are shared)."""
        return list(self._rows)

    def row_at(self, row: int) -> T | None:
        """Row ``row``, or ``None`` when out of range."""
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def column_changed(self, column: int) -> None:
        """Tell the views that ``column`` changed in every row."""
        if self._rows:
            self.dataChanged.emit(self.index(0, column), self.index(len(self._rows) - 1, column))

    # --- how a cell shows ---------------------------------------------------------------

    def tooltip(self, row: T, column: int) -> str | None:
        """The tooltip of a cell: its column's, else its whole text."""
        spec = self._columns[column]
        return spec.text(row) if spec.tooltip is None else spec.tooltip(row)

    def foreground(self, row: T, column: int) -> QBrush | None:
        """The text brush of a cell (``None``: the palette's)."""
        spec = self._columns[column]
        return None if spec.foreground is None else spec.foreground(row)

    # --- Qt's model API -----------------------------------------------------------------

    def rowCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else len(self._columns)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation is Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(self._columns)
        ):
            return self._columns[section].title
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = self.row_at(index.row()) if index.isValid() else None
        column = index.column()
        if row is None or not 0 <= column < len(self._columns):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            # Cells show what agents, cards and files say: control characters visible.
            text = shown(self._columns[column].text(row))
            return text.replace("\n", " ⏎ ") if self.ONE_LINE else text
        if role == Qt.ItemDataRole.EditRole and self._columns[column].editable:
            return self._columns[column].text(row)
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tip(self.tooltip(row, column))
        if role == Qt.ItemDataRole.ForegroundRole:
            return self.foreground(row, column)
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        flags = super().flags(index)
        if index.isValid() and self._columns[index.column()].editable:
            flags |= Qt.ItemFlag.ItemIsEditable
        return flags
