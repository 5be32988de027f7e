"""Table models of the request tab's *Assertions* page: assertions with their last result,
and captures with the value they last took (:mod:`app.spec.assertions`).

Each model owns its rows (plain dataclasses), like the headers table, and says
:attr:`edited` only for the user's changes, not for results being shown.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal

from app.spec.assertions import Assertion, AssertionOp, AssertionResult
from app.spec.xa2a_assertions import VARIABLE_NAME
from app.ui.shell.theme import brushes

_Index = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()
_EDIT = (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole)


def value_text(value: Any) -> str:
    """How a value is typed in the table: JSON, except a string that reads as itself."""
    if value is None:
        return ""
    if isinstance(value, str):
        try:
            json.loads(value)
        except ValueError:
            return value  # `completed`, `^t-`: typed bare
        return json.dumps(value)  # `"3"`: quoted, else it would read as the number 3
    return json.dumps(value, ensure_ascii=False)


def parse_value(text: str) -> Any:
    """The value typed: JSON when it parses (``3``, ``true``, ``"x"``), else the text."""
    if not text.strip():
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


@dataclass(slots=True)
class AssertionRow:
    path: str = ""
    op: AssertionOp = AssertionOp.EQUALS
    value: str = ""
    result: AssertionResult | None = None

    def assertion(self) -> Assertion:
        return Assertion(self.path.strip(), self.op, parse_value(self.value))


class _Rows(QAbstractTableModel):
    edited = Signal()
    _TITLES: tuple[str, ...] = ()
    _EDITABLE: tuple[int, ...] = ()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[Any] = []

    def rowCount(self, parent: _Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._TITLES)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation is Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self._TITLES[section] if 0 <= section < len(self._TITLES) else None
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        return base | Qt.ItemFlag.ItemIsEditable if index.column() in self._EDITABLE else base

    def remove_row(self, row: int) -> None:
        if 0 <= row < len(self._rows):
            self.beginRemoveRows(_ROOT, row, row)
            del self._rows[row]
            self.endRemoveRows()
            self.edited.emit()

    def _append(self, row: Any, *, edited: bool) -> int:
        at = len(self._rows)
        self.beginInsertRows(_ROOT, at, at)
        self._rows.append(row)
        self.endInsertRows()
        if edited:
            self.edited.emit()
        return at

    def _reset(self, rows: list[Any]) -> None:
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()


class AssertionsModel(_Rows):
    """Columns: ``Path`` (a JSON Pointer, JSONPath or ``finalState``/``itemCount``/
    ``durationMs``), ``Op``, ``Value`` (JSON or bare text), ``Result`` (of the last send)."""

    PATH, OP, VALUE, RESULT = 0, 1, 2, 3
    _TITLES = ("Path", "Op", "Value", "Result")
    _EDITABLE = (0, 1, 2)

    def assertions(self) -> tuple[Assertion, ...]:
        """Every row with a path, in table order."""
        return tuple(r.assertion() for r in self._rows if r.path.strip())

    def set_assertions(self, assertions: tuple[Assertion, ...]) -> None:
        self._reset([AssertionRow(a.path, a.op, value_text(a.value)) for a in assertions])

    def add_row(self, path: str = "", op: AssertionOp = AssertionOp.EQUALS, value: str = "") -> int:
        return self._append(AssertionRow(path, op, value), edited=bool(path))

    def results(self) -> list[AssertionResult | None]:
        return [r.result for r in self._rows]

    def show_results(self, results: list[AssertionResult] | None) -> None:
        """Put the results of :meth:`assertions` (same order) beside their rows; None
        clears them."""
        pending = iter(results or [])
        for row in self._rows:
            row.result = next(pending, None) if row.path.strip() and results else None
        if self._rows:
            self.dataChanged.emit(
                self.index(0, self.RESULT), self.index(len(self._rows) - 1, self.RESULT)
            )

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row: AssertionRow = self._rows[index.row()]
        column = index.column()
        if column == self.RESULT:
            return self._result_data(row.result, role)
        if role in _EDIT:
            return (row.path, row.op.value, row.value)[column]
        if role == Qt.ItemDataRole.ToolTipRole and column == self.PATH:
            return (
                "/result/status/state (JSON Pointer), $.result.artifacts[0].parts[*].text"
                " (JSONPath), or finalState, itemCount, durationMs for the whole exchange"
            )
        return None

    def _result_data(self, result: AssertionResult | None, role: int) -> Any:
        if result is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return "✓ pass" if result.passed else f"✗ {result.message or 'fail'}"
        if role == Qt.ItemDataRole.ForegroundRole:
            return brushes().ok_text if result.passed else brushes().error_text
        if role == Qt.ItemDataRole.ToolTipRole:
            actual = f"actual: {value_text(result.actual) or 'nothing'}"
            return actual if result.passed else f"{result.message}\n{actual}"
        return None

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        row: AssertionRow = self._rows[index.row()]
        column = index.column()
        if column == self.PATH:
            row.path = str(value)
        elif column == self.OP:
            try:
                row.op = AssertionOp(str(value))
            except ValueError:
                return False
        elif column == self.VALUE:
            row.value = str(value)
        else:
            return False
        row.result = None  # the result was of the assertion before this edit
        self.dataChanged.emit(self.index(index.row(), 0), self.index(index.row(), self.RESULT))
        self.edited.emit()
        return True


@dataclass(slots=True)
class CaptureRow:
    variable: str = ""
    path: str = ""
    captured: str = ""
    ok: bool = True


class CapturesModel(_Rows):
    """Columns: ``Variable``, ``Path``, ``Captured`` (the value the last send gave it)."""

    VARIABLE, PATH, CAPTURED = 0, 1, 2
    _TITLES = ("Variable", "Path", "Captured")
    _EDITABLE = (0, 1)

    def captures(self) -> tuple[tuple[str, str], ...]:
        return tuple((r.variable, r.path.strip()) for r in self._rows if r.variable)

    def set_captures(self, captures: tuple[tuple[str, str], ...]) -> None:
        self._reset([CaptureRow(name, path) for name, path in captures])

    def add_row(self, variable: str = "", path: str = "") -> int:
        return self._append(CaptureRow(variable, path), edited=bool(variable))

    def show_captured(self, values: dict[str, str], problems: list[str]) -> None:
        for row in self._rows:
            if row.variable in values:
                row.captured, row.ok = values[row.variable], True
            else:
                prefix = f"capture {row.variable}: "
                why = next((p[len(prefix) :] for p in problems if p.startswith(prefix)), "")
                row.captured, row.ok = why, not why
        if self._rows:
            last = len(self._rows) - 1
            self.dataChanged.emit(self.index(0, self.CAPTURED), self.index(last, self.CAPTURED))

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row: CaptureRow = self._rows[index.row()]
        if role in _EDIT:
            return (row.variable, row.path, row.captured)[index.column()]
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == self.CAPTURED:
            return brushes().ok_text if row.ok else brushes().error_text
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == self.VARIABLE:
            return "Used as {{%s}} by the requests sent after this one" % (row.variable or "name")
        return None

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        row: CaptureRow = self._rows[index.row()]
        text = str(value).strip()
        if index.column() == self.VARIABLE:
            if text and not VARIABLE_NAME.fullmatch(text):
                return False  # not a {{variable}} name: the edit is refused
            row.variable = text
        elif index.column() == self.PATH:
            row.path = text
        else:
            return False
        self.dataChanged.emit(index, index)
        self.edited.emit()
        return True
