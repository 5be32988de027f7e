"""The timeline table's column widths: narrow columns fit their content, Summary stretches.

Widths come from the font once, from the widest text each column can hold, not from the
rows: measuring rows (``ResizeToContents``, ``resizeColumnsToContents``) walks every row
again each time a batch arrives, which a 20 000-event stream cannot afford. The columns
stay user-resizable; the Summary, last, takes the rest of the width.

The Task column repeats the header's task id on nearly every row, so it is hidden until a
row names another task (:func:`set_task_column`).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QStyle, QTableView

from app.ui.timeline.timeline_model import COL_KIND, COL_SEQ, COL_STATE, COL_TASK, COL_TIME

# The widest text each narrow column shows (row numbers to 99 999, times to 999 s).
_SAMPLES = {
    COL_SEQ: "00000",
    COL_TIME: "000,000.0",
    COL_KIND: "artifact-update",
    COL_TASK: "01234567…abcd",
    COL_STATE: "input-required",
}


def size_columns(view: QTableView) -> None:
    """Size the narrow columns of ``view`` (a timeline table) and stretch the last."""
    header = view.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setStretchLastSection(True)
    for col in _SAMPLES:
        header.resizeSection(col, _width(view, col))
    set_task_column(view, shown=False)


def set_task_column(view: QTableView, *, shown: bool) -> None:
    """Show the Task column (rows name more than one task) or hide it (a new stream)."""
    if view.isColumnHidden(COL_TASK) != shown:
        return
    view.setColumnHidden(COL_TASK, not shown)
    header = view.horizontalHeader()
    # A hidden section's size reads 0, and the filter restores sizes as it read them.
    if shown and header.sectionSize(COL_TASK) < _width(view, COL_TASK) // 2:
        header.resizeSection(COL_TASK, _width(view, COL_TASK))


def _width(view: QTableView, col: int) -> int:
    header = view.horizontalHeader()
    style = view.style()
    # The item's text margins (both sides, plus the grid line) and the header's.
    cell_pad = 2 * (style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 1) + 6
    head_pad = 2 * style.pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, header) + 6
    title = str(view.model().headerData(col, Qt.Orientation.Horizontal) or "")
    return max(
        view.fontMetrics().horizontalAdvance(_SAMPLES[col]) + cell_pad,
        header.fontMetrics().horizontalAdvance(title) + head_pad,
    )
