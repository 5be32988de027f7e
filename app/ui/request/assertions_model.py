"""Table models of the request tab's *Assertions* page: assertions with their last result,
and captures with the value they last took (:mod:`app.spec.assertions`).

Each model owns its rows (plain dataclasses), like the headers table, and says
:attr:`edited` only for the user's changes, not for results being shown.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, TypeVar

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush

from app.spec.assertions import Assertion, AssertionOp, AssertionResult
from app.spec.xa2a_assertions import VARIABLE_NAME
from app.ui.shell.table_model import Column, Index, TableModel, no_tooltip
from app.ui.shell.theme import brushes

T = TypeVar("T")


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


class _EditedRows(TableModel[T]):
    """A table the user types into: :attr:`edited` says the rows changed by hand.

    Signals:
        edited: the user added, removed or edited a row (results shown are no edit).
    """

    edited = Signal()

    def remove_row(self, row: int) -> bool:
        removed = super().remove_row(row)
        if removed:
            self.edited.emit()
        return removed

    def _append(self, row: T, *, edited: bool) -> int:
        at = self.append_rows([row])
        if edited:
            self.edited.emit()
        return at


def _result_text(row: AssertionRow) -> str:
    result = row.result
    if result is None:
        return ""
    return "✓ pass" if result.passed else f"✗ {result.message or 'fail'}"


def _result_tooltip(row: AssertionRow) -> str | None:
    result = row.result
    if result is None:
        return None
    actual = f"actual: {value_text(result.actual) or 'nothing'}"
    return actual if result.passed else f"{result.message}\n{actual}"


def _result_brush(row: AssertionRow) -> QBrush | None:
    if row.result is None:
        return None
    return brushes().ok_text if row.result.passed else brushes().error_text


_PATH_HELP = (
    "/result/status/state (JSON Pointer), $.result.artifacts[0].parts[*].text"
    " (JSONPath), or finalState, itemCount, durationMs for the whole exchange"
)


class AssertionsModel(_EditedRows[AssertionRow]):
    """Columns: ``Path`` (a JSON Pointer, JSONPath or ``finalState``/``itemCount``/
    ``durationMs``), ``Op``, ``Value`` (JSON or bare text), ``Result`` (of the last send)."""

    PATH, OP, VALUE, RESULT = 0, 1, 2, 3
    COLUMNS = (
        Column("Path", lambda r: r.path, tooltip=lambda r: _PATH_HELP, editable=True),
        Column("Op", lambda r: r.op.value, tooltip=no_tooltip, editable=True),
        Column("Value", lambda r: r.value, tooltip=no_tooltip, editable=True),
        Column("Result", _result_text, tooltip=_result_tooltip, foreground=_result_brush),
    )

    def assertions(self) -> tuple[Assertion, ...]:
        """Every row with a path, in table order."""
        return tuple(r.assertion() for r in self._rows if r.path.strip())

    def set_assertions(self, assertions: tuple[Assertion, ...]) -> None:
        self.set_rows(AssertionRow(a.path, a.op, value_text(a.value)) for a in assertions)

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
        self.column_changed(self.RESULT)

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        row = self.row_at(index.row()) if index.isValid() else None
        if role != Qt.ItemDataRole.EditRole or row is None:
            return False
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


def _captured_brush(row: CaptureRow) -> QBrush:
    return brushes().ok_text if row.ok else brushes().error_text


def _variable_help(row: CaptureRow) -> str:
    return "Used as {{%s}} by the requests sent after this one" % (row.variable or "name")


class CapturesModel(_EditedRows[CaptureRow]):
    """Columns: ``Variable``, ``Path``, ``Captured`` (the value the last send gave it)."""

    VARIABLE, PATH, CAPTURED = 0, 1, 2
    COLUMNS = (
        Column("Variable", lambda r: r.variable, tooltip=_variable_help, editable=True),
        Column("Path", lambda r: r.path, tooltip=no_tooltip, editable=True),
        Column("Captured", lambda r: r.captured, tooltip=no_tooltip, foreground=_captured_brush),
    )

    def captures(self) -> tuple[tuple[str, str], ...]:
        return tuple((r.variable, r.path.strip()) for r in self._rows if r.variable)

    def set_captures(self, captures: tuple[tuple[str, str], ...]) -> None:
        self.set_rows(CaptureRow(name, path) for name, path in captures)

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
        self.column_changed(self.CAPTURED)

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        row = self.row_at(index.row()) if index.isValid() else None
        if role != Qt.ItemDataRole.EditRole or row is None:
            return False
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
