"""The import preview: one row per request the source held, imported or skipped (why)."""

from __future__ import annotations

from PySide6.QtGui import QBrush

from app.imports.build import ImportItem
from app.ui.shell import theme
from app.ui.shell.table_model import Column, TableModel


def _name_tooltip(item: ImportItem) -> str:
    return f"{item.name}\n{item.raw.place}" if item.raw.place else item.name


class ImportPreviewModel(TableModel[ImportItem]):
    """Rows of :class:`~app.imports.build.ImportItem`; skipped rows are greyed."""

    COLUMNS = (
        Column("Name", lambda i: i.name, tooltip=_name_tooltip),
        Column("A2A?", lambda i: "yes" if i.imported else "skipped"),
        Column("Version", lambda i: i.detection.version.value if i.detection.version else "—"),
        Column("Binding", lambda i: i.detection.binding.value if i.detection.binding else "—"),
        Column("Explanation", lambda i: i.detection.explanation),
        # One line in the cell, one note per line in the tooltip.
        Column("Notes", lambda i: " · ".join(i.notes), tooltip=lambda i: "\n".join(i.notes)),
    )

    def foreground(self, row: ImportItem, column: int) -> QBrush | None:
        return None if row.imported else theme.brushes().muted_text
