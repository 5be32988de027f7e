"""A layout that places its widgets left to right and wraps onto a new row when the width
runs out, like words in a paragraph.

For rows of buttons that must show whole at any pane width: a narrow pane gets two rows
instead of cut texts or a pane pushed wider (which moved the splitters beside it). The
layout asks only for the width of its widest item and answers ``heightForWidth``, so the
box layout it sits in gives it the rows it needs.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QSizePolicy, QWidget

from app.ui.shell import spacing


class FlowLayout(QLayout):
    """Items in rows of their preferred sizes, wrapped at the layout's width."""

    def __init__(self, parent: QWidget | None = None, *, gap: int = spacing.GAP) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._gap = gap
        self.setContentsMargins(0, 0, 0, 0)

    # --- QLayout -------------------------------------------------------------------------

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._place(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._place(rect, move=True)

    def sizeHint(self) -> QSize:
        """Everything on one row."""
        width = sum(i.sizeHint().width() for i in self._shown()) + self._gap * max(
            len(self._shown()) - 1, 0
        )
        height = max((i.sizeHint().height() for i in self._shown()), default=0)
        margins = self.contentsMargins()
        return QSize(
            width + margins.left() + margins.right(), height + margins.top() + margins.bottom()
        )

    def minimumSize(self) -> QSize:
        """The widest item: every other one may go to a row of its own."""
        size = QSize()
        for item in self._shown():
            size = size.expandedTo(item.minimumSize())
        margins = self.contentsMargins()
        return size + QSize(margins.left() + margins.right(), margins.top() + margins.bottom())

    # --- placing -------------------------------------------------------------------------

    def _shown(self) -> list[QLayoutItem]:
        return [i for i in self._items if not i.isEmpty()]

    def _place(self, rect: QRect, *, move: bool) -> int:
        """Lay the items out in ``rect`` (only measure unless ``move``); returns the height."""
        margins = self.contentsMargins()
        area = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        x, y, row_height = area.x(), area.y(), 0
        row: list[tuple[QLayoutItem, QSize]] = []
        rows: list[tuple[int, int, list[tuple[QLayoutItem, QSize]]]] = []
        for item in self._shown():
            hint = item.sizeHint()
            if row and x + hint.width() > area.right() + 1:
                rows.append((y, row_height, row))
                x, y, row_height, row = area.x(), y + row_height + self._gap, 0, []
            row.append((item, hint))
            x += hint.width() + self._gap
            row_height = max(row_height, hint.height())
        if row:
            rows.append((y, row_height, row))
        if move:
            for top, height, items in rows:
                left = area.x()
                for item, hint in items:
                    width = min(hint.width(), area.width())
                    # Vertically centred in its row, as a box layout does.
                    offset = (height - hint.height()) // 2
                    item.setGeometry(QRect(QPoint(left, top + offset), QSize(width, hint.height())))
                    left += width + self._gap
        used = (rows[-1][0] + rows[-1][1] - area.y()) if rows else 0
        return used + margins.top() + margins.bottom()


def flow_row(*widgets: QWidget, gap: int = spacing.GAP) -> QWidget:
    """``widgets`` in a :class:`FlowLayout` on a widget of their own (for a box layout)."""
    box = QWidget()
    layout = FlowLayout(box, gap=gap)
    for widget in widgets:
        layout.addWidget(widget)
    policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
    policy.setHeightForWidth(True)
    box.setSizePolicy(policy)
    return box
