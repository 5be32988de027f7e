"""The timeline table's column widths: narrow columns fit their content, Summary stretches.

Widths come from the font once, from the widest text each column can hold, not from the
rows: measuring rows (``ResizeToContents``, ``resizeColumnsToContents``) walks every row
again each time a batch arrives, which a 20 000-event stream cannot afford. The columns
stay user-resizable; the Summary, last, takes the rest of the width.

The Task column repeats the header's task id on nearly every row, so it is hidden until a
row names another task (:func:`show_task_column`).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QStyle, QTableView

from app.ui.timeline_model import COL_KIND, COL_SEQ, COL_STATE, COL_TASK, COL_TIME

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
    style = view.style()
    # The item's text margins (both sides, plus the grid line) and the header's.
    cell_pad = 2 * (style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 1) + 6
    head_pad = 2 * style.pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, header) + 6
    cell, head = view.fontMetrics(), header.fontMetrics()
    model = view.model()
    for col, sample in _SAMPLES.items():
        title = str(model.headerData(col, Qt.Orientation.Horizontal) or "")
        width = max(
            cell.horizontalAdvance(sample) + cell_pad, head.horizontalAdvance(title) + head_pad
        )
        header.resizeSection(col, width)
    view.setColumnHidden(COL_TASK, True)


def show_task_column(view: QTableView) -> None:
    """Rows name more than one task: show which row is about which."""
    if view.isColumnHidden(COL_TASK):
        view.setColumnHidden(COL_TASK, False)
