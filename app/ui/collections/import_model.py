"""The import preview: one row per request the source held, imported or skipped (why)."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from app.imports.build import ImportItem
from app.ui.shell import theme

COLUMNS = ("Name", "A2A?", "Version", "Binding", "Explanation", "Notes")
_Index = QModelIndex | QPersistentModelIndex


class ImportPreviewModel(QAbstractTableModel):
    """Rows of :class:`~app.imports.build.ImportItem`; skipped rows are greyed."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.items: list[ImportItem] = []

    def set_items(self, items: list[ImportItem]) -> None:
        """Show ``items`` (replacing what was shown)."""
        self.beginResetModel()
        self.items = list(items)
        self.endResetModel()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.items)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        item = self.items[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return self.cell(item, index.column(), tooltip=role == Qt.ItemDataRole.ToolTipRole)
        if role == Qt.ItemDataRole.ForegroundRole and not item.imported:
            return theme.brushes().muted_text
        return None

    @staticmethod
    def cell(item: ImportItem, column: int, *, tooltip: bool = False) -> str:
        """The text of ``column`` for ``item`` (tooltips show notes one per line)."""
        found = item.detection
        if column == 0:
            return f"{item.name}\n{item.raw.place}" if tooltip and item.raw.place else item.name
        if column == 1:
            return "yes" if item.imported else "skipped"
        if column == 2:
            return found.version.value if found.version else "—"
        if column == 3:
            return found.binding.value if found.binding else "—"
        if column == 4:
            return found.explanation
        sep = "\n" if tooltip else " · "
        return sep.join(item.notes)
