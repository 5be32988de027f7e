"""The check report's tree: one group per area (in :class:`CheckArea` order), a row per
check result, and under it a row per exchange that shows it (:mod:`app.check.check_model`)."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QBrush, QStandardItem, QStandardItemModel

from app.check.check_model import CheckArea, CheckResult, CheckStatus
from app.ui.shell.theme import brushes

COLUMNS = ("Check", "Status", "Interface", "Section", "a2a-tck", "Detail")
CHECK, STATUS, INTERFACE, SECTION, TCK, DETAIL = range(6)
EXCHANGE_ROLE = Qt.ItemDataRole.UserRole + 1
"""On an exchange row: its history entry id."""
RESULT_ROLE = Qt.ItemDataRole.UserRole + 2
"""On a result row: its :class:`CheckResult`."""

SYMBOL = {
    CheckStatus.PASS: "✓ pass",
    CheckStatus.FAIL: "✗ fail",
    CheckStatus.WARN: "! warn",
    CheckStatus.SKIP: "– skip",
    CheckStatus.NA: "○ n/a",
}
_WORST_FIRST = (
    CheckStatus.FAIL, CheckStatus.WARN, CheckStatus.PASS, CheckStatus.SKIP, CheckStatus.NA,
)  # fmt: skip
AREA_TITLES = {
    CheckArea.CARD: "Agent Card",
    CheckArea.CORE: "Core methods",
    CheckArea.ERRORS: "Errors",
    CheckArea.STREAMING: "Streaming",
    CheckArea.PUSH: "Push notifications",
    CheckArea.EXTENDED_CARD: "Extended card",
    CheckArea.EXTENSIONS: "Extensions",
    CheckArea.SECURITY: "Security",
    CheckArea.PARITY: "Binding parity",
    CheckArea.GAPS: "Resubscribe gaps",
}


def status_brush(status: CheckStatus) -> QBrush:
    b = brushes()
    return {
        CheckStatus.PASS: b.ok_text,
        CheckStatus.FAIL: b.error_text,
        CheckStatus.WARN: b.warn_text,
        CheckStatus.SKIP: b.muted_text,
        CheckStatus.NA: b.muted_text,
    }[status]


def _cell(text: str, tip: str = "") -> QStandardItem:
    item = QStandardItem(text)
    item.setEditable(False)
    if tip:
        item.setToolTip(tip)
    return item


class CheckReportModel(QStandardItemModel):
    """Results grouped by area; groups appear as their first result arrives, in area order."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(0, len(COLUMNS), parent)
        self.setHorizontalHeaderLabels(list(COLUMNS))
        self._groups: dict[CheckArea, QStandardItem] = {}
        self.results: list[CheckResult] = []

    def clear_results(self) -> None:
        self.removeRows(0, self.rowCount())
        self._groups.clear()
        self.results.clear()

    def add_result(self, result: CheckResult) -> QStandardItem:
        """Add ``result`` under its area's group; returns its row's first item."""
        self.results.append(result)
        group = self._group(result.area)
        detail_lines = result.detail.splitlines()
        first = detail_lines[0] if detail_lines else ""
        more = " …" if len(detail_lines) > 1 else ""
        row = [
            _cell(result.title, result.check_id),
            _cell(SYMBOL[result.status]),
            _cell(result.interface or "card-wide", result.interface),
            _cell(result.section),
            _cell(", ".join(result.tck), "the a2a-tck requirement ids it corresponds to"),
            _cell(first + more, result.detail),
        ]
        row[STATUS].setForeground(status_brush(result.status))
        row[CHECK].setData(result, RESULT_ROLE)
        for entry_id in result.exchanges:
            link = _cell(f"exchange #{entry_id} — open in History", "Double-click or Enter")
            link.setData(entry_id, EXCHANGE_ROLE)
            link.setForeground(brushes().muted_text)
            row[CHECK].appendRow([link, *(_cell("") for _ in range(len(COLUMNS) - 1))])
        group.appendRow(row)
        self._retitle(result.area)
        return row[CHECK]

    def _group(self, area: CheckArea) -> QStandardItem:
        group = self._groups.get(area)
        if group is not None:
            return group
        order = list(CheckArea)
        at = sum(order.index(a) < order.index(area) for a in self._groups)
        group = _cell(AREA_TITLES.get(area, area.value))
        font = group.font()
        font.setBold(True)
        group.setFont(font)
        self.insertRow(at, [group, *(_cell("") for _ in range(len(COLUMNS) - 1))])
        self._groups[area] = group
        return group

    def _retitle(self, area: CheckArea) -> None:
        group = self._groups[area]
        statuses = [r.status for r in self.results if r.area is area]
        counts = ", ".join(f"{statuses.count(s)} {s.value}" for s in _WORST_FIRST if s in statuses)
        group.setText(f"{AREA_TITLES.get(area, area.value)} ({counts})")
        worst = next(s for s in _WORST_FIRST if s in statuses)
        status = self.item(group.row(), STATUS)
        status.setText(SYMBOL[worst])
        status.setForeground(status_brush(worst))

    def group_titles(self) -> list[str]:
        """The groups' titles, top to bottom (tests, the screenshot)."""
        return [self.item(r, CHECK).text() for r in range(self.rowCount())]


PROBLEMS = (CheckStatus.FAIL, CheckStatus.WARN)


class ProblemsFilter(QSortFilterProxyModel):
    """The report, or only its failures and warnings (with their groups and exchanges)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._only_problems = False

    def set_only_problems(self, only: bool) -> None:
        self.beginFilterChange()
        self._only_problems = only
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, row: int, parent: QModelIndex | QPersistentModelIndex) -> bool:
        if not self._only_problems:
            return True
        model = self.sourceModel()
        index = model.index(row, CHECK, parent)
        result = index.data(RESULT_ROLE)
        if isinstance(result, CheckResult):
            return result.status in PROBLEMS
        if index.data(EXCHANGE_ROLE) is not None:
            return True  # under a result shown
        children = (
            model.index(r, CHECK, index).data(RESULT_ROLE) for r in range(model.rowCount(index))
        )
        return any(isinstance(c, CheckResult) and c.status in PROBLEMS for c in children)
