"""The check report's rows: a row per check result, under it a row per exchange that shows it
(:mod:`app.check.check_model`), and the order and filter the report shows them in.

The columns are one table, :data:`COLUMNS`: a column is one :class:`ReportColumn` line
(its title, its text, its width in characters, optionally its tooltip, colour and sort
key). :class:`ReportOrder` shows the results worst first — failures, warnings, skips,
passes, not applicable — in the order the run made them within each status, or sorted by
whichever column header the user clicks; it can hide everything but the failures and
warnings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QBrush

from app.check.check_model import CheckArea, CheckResult, CheckStatus
from app.ui.shell.plain_text import plain_tip, shown
from app.ui.shell.table_model import Column
from app.ui.shell.theme import brushes

Index = QModelIndex | QPersistentModelIndex
ROOT = QModelIndex()

SYMBOL = {
    CheckStatus.FAIL: "✗ fail",
    CheckStatus.WARN: "! warn",
    CheckStatus.SKIP: "– skip",
    CheckStatus.PASS: "✓ pass",
    CheckStatus.NA: "○ n/a",
}
WORST_FIRST = tuple(SYMBOL)
"""The report's order of statuses: what needs a look first."""
_RANK = {status: rank for rank, status in enumerate(WORST_FIRST)}
PROBLEMS = (CheckStatus.FAIL, CheckStatus.WARN)
_AREA_ORDER = {area: rank for rank, area in enumerate(CheckArea)}

EXCHANGE_ROLE = Qt.ItemDataRole.UserRole + 1
"""On an exchange row: its history entry id."""
RESULT_ROLE = Qt.ItemDataRole.UserRole + 2
"""On a result row: its :class:`CheckResult`."""


def status_brush(status: CheckStatus) -> QBrush:
    b = brushes()
    return {
        CheckStatus.PASS: b.ok_text,
        CheckStatus.FAIL: b.error_text,
        CheckStatus.WARN: b.warn_text,
        CheckStatus.SKIP: b.muted_text,
        CheckStatus.NA: b.muted_text,
    }[status]


def _first_line(result: CheckResult) -> str:
    lines = result.detail.splitlines()
    return (lines[0] + (" …" if len(lines) > 1 else "")) if lines else ""


@dataclass(frozen=True, slots=True)
class ReportColumn(Column[CheckResult]):
    """A :class:`~app.ui.shell.table_model.Column` of the report, with its width in average
    characters (``chars``; 0: the last column, which takes the width left), how wide it may
    grow in a wide window (``most`` characters; 0: it does not), and its sort key (``None``:
    the text, case-folded)."""

    chars: int = 12
    most: int = 0
    key: Callable[[CheckResult], Any] | None = None


COLUMNS: tuple[ReportColumn, ...] = (
    ReportColumn("Status", lambda r: SYMBOL[r.status], foreground=lambda r: status_brush(r.status),
                 tooltip=lambda r: r.status.value, chars=8, key=lambda r: _RANK[r.status]),
    ReportColumn("Check", lambda r: r.title, tooltip=lambda r: f"{r.check_id}\n{r.title}",
                 chars=44, most=76, key=lambda r: _AREA_ORDER[r.area]),
    ReportColumn("Interface", lambda r: r.interface or "card-wide",
                 tooltip=lambda r: r.interface or "once for the whole card", chars=26, most=44),
    ReportColumn("Section", lambda r: r.section, chars=18),
    ReportColumn("a2a-tck", lambda r: ", ".join(r.tck),
                 tooltip=lambda r: "\n".join(r.tck) or "no a2a-tck requirement", chars=16),
    ReportColumn("Detail", _first_line, tooltip=lambda r: r.detail, chars=0),
)  # fmt: skip


def column_named(title: str) -> int:
    """The index of the column titled ``title``."""
    return next(i for i, c in enumerate(COLUMNS) if c.title == title)


STATUS, CHECK, INTERFACE, SECTION, TCK, DETAIL = (
    column_named(t) for t in ("Status", "Check", "Interface", "Section", "a2a-tck", "Detail")
)


class CheckReportModel(QAbstractItemModel):
    """The results of one run in arrival order, each with its exchanges as children.

    An index's internal id says its level: 0 for a result row, the result's row + 1 for
    one of its exchange rows.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.results: list[CheckResult] = []

    # --- the rows ---------------------------------------------------------------------

    def clear_results(self) -> None:
        self.beginResetModel()
        self.results = []
        self.endResetModel()

    def add_result(self, result: CheckResult) -> QModelIndex:
        """Append ``result``; returns its row's first index."""
        row = len(self.results)
        self.beginInsertRows(ROOT, row, row)
        self.results.append(result)
        self.endInsertRows()
        return self.index(row, 0)

    def result_at(self, index: Index) -> CheckResult | None:
        """The result of a result row or of an exchange row's parent."""
        if not index.isValid():
            return None
        parent = index.internalId()
        row = index.row() if parent == 0 else parent - 1
        return self.results[row] if 0 <= row < len(self.results) else None

    def exchange_at(self, index: Index) -> int | None:
        """The history entry id of an exchange row (None for a result row)."""
        parent = index.internalId() if index.isValid() else 0
        if parent == 0:
            return None
        exchanges = self.results[parent - 1].exchanges
        return exchanges[index.row()] if 0 <= index.row() < len(exchanges) else None

    def sort_key(self, index: Index) -> tuple[Any, ...]:
        """What :class:`ReportOrder` sorts ``index`` by: its column's key, then the order
        the run made the results in (exchange rows keep their order)."""
        if index.internalId() != 0:
            return (index.row(),)
        result = self.results[index.row()]
        column = COLUMNS[index.column()]
        key = column.key(result) if column.key is not None else column.text(result).casefold()
        return (key, index.row())

    # --- Qt's model API -----------------------------------------------------------------

    def index(self, row: int, column: int, parent: Index = ROOT) -> QModelIndex:
        if not self.hasIndex(row, column, parent):
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, 0)
        return self.createIndex(row, column, parent.row() + 1)

    def parent(self, child: Index = ROOT) -> QModelIndex:  # type: ignore[override]
        if not child.isValid() or child.internalId() == 0:
            return QModelIndex()
        return self.createIndex(child.internalId() - 1, 0, 0)

    def rowCount(self, parent: Index = ROOT) -> int:
        if not parent.isValid():
            return len(self.results)
        if parent.internalId() != 0 or parent.column() != 0:
            return 0
        return len(self.results[parent.row()].exchanges)

    def columnCount(self, parent: Index = ROOT) -> int:
        return len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        horizontal = orientation is Qt.Orientation.Horizontal
        if horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(COLUMNS):
            return COLUMNS[section].title
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        result = self.result_at(index)
        if result is None:
            return None
        if index.internalId() != 0:
            return self._exchange_data(index, role)
        column = COLUMNS[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:  # an agent's words: control characters escaped
            return shown(column.text(result), multiline=False)
        if role == Qt.ItemDataRole.ToolTipRole:
            tip = column.text(result) if column.tooltip is None else column.tooltip(result)
            return plain_tip(tip or "")
        if role == Qt.ItemDataRole.ForegroundRole and column.foreground is not None:
            return column.foreground(result)
        if role == RESULT_ROLE:
            return result
        return None

    def _exchange_data(self, index: Index, role: int) -> Any:
        entry_id = self.exchange_at(index)
        if index.column() != CHECK or entry_id is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return f"exchange #{entry_id}"
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"History entry #{entry_id}: click to show it below, read-only"
        if role == Qt.ItemDataRole.ForegroundRole:
            return brushes().muted_text
        if role == EXCHANGE_ROLE:
            return entry_id
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable


class ReportOrder(QSortFilterProxyModel):
    """The report as shown: sorted (worst first until a header is clicked), all rows or
    only the failures and warnings with their exchanges."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._only_problems = False

    @property
    def only_problems(self) -> bool:
        return self._only_problems

    def set_only_problems(self, only: bool) -> None:
        self.beginFilterChange()
        self._only_problems = only
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def report(self) -> CheckReportModel:
        model = self.sourceModel()
        assert isinstance(model, CheckReportModel)
        return model

    def result_at(self, index: Index) -> CheckResult | None:
        return self.report().result_at(self.mapToSource(index))

    def exchange_at(self, index: Index) -> int | None:
        return self.report().exchange_at(self.mapToSource(index))

    def lessThan(self, left: Index, right: Index) -> bool:
        report = self.report()
        return report.sort_key(left) < report.sort_key(right)

    def filterAcceptsRow(self, row: int, parent: Index) -> bool:
        if not self._only_problems or parent.isValid():
            return True  # an exchange shows whenever its result does
        result = self.report().result_at(self.report().index(row, 0))
        return result is not None and result.status in PROBLEMS
