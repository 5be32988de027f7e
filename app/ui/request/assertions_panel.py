"""The request tab's *Assertions* page: checks of the response and the values it captures.

``objectName`` ``assertionsPanel``; inside: ``assertionsTable``, ``addAssertionButton``,
``removeAssertionButton``, ``assertionsSummary``, ``capturesTable``, ``addCaptureButton``,
``removeCaptureButton``. Saved as ``x-a2a.assertions`` / ``x-a2a.captures``.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.spec.assertions import Assertion, AssertionOp, AssertionResult
from app.ui.request.assertions_model import AssertionsModel, CapturesModel
from app.ui.shell import theme

_Index = QModelIndex | QPersistentModelIndex


class _OpDelegate(QStyledItemDelegate):
    """The *Op* column is a choice, not free text."""

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: _Index) -> QWidget:
        combo = QComboBox(parent)
        combo.setObjectName("assertionOpCombo")
        combo.addItems([op.value for op in AssertionOp])
        return combo

    def setEditorData(self, editor: QWidget, index: _Index) -> None:
        assert isinstance(editor, QComboBox)
        editor.setCurrentText(str(index.data()))

    def setModelData(self, editor: QWidget, model: QAbstractItemModel, index: _Index) -> None:
        assert isinstance(editor, QComboBox)
        model.setData(index, editor.currentText())


def _table(name: str, model: AssertionsModel | CapturesModel) -> QTableView:
    table = QTableView()
    table.setObjectName(name)
    table.setModel(model)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.verticalHeader().hide()
    table.horizontalHeader().setStretchLastSection(True)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    return table


def _button(text: str, name: str, tip: str) -> QPushButton:
    button = QPushButton(text)
    button.setObjectName(name)
    button.setToolTip(tip)
    return button


class AssertionsPanel(QWidget):
    """Assertions over the response (pass/fail after each send) and captures.

    Signals:
        changed: the user edited an assertion or a capture.
    """

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("assertionsPanel")
        self.model = AssertionsModel(self)
        self.table = _table("assertionsTable", self.model)
        self.table.setItemDelegateForColumn(AssertionsModel.OP, _OpDelegate(self.table))
        for column, width in ((AssertionsModel.PATH, 180), (AssertionsModel.OP, 76),
                              (AssertionsModel.VALUE, 120)):  # fmt: skip
            self.table.setColumnWidth(column, width)
        self.captures_model = CapturesModel(self)
        self.captures_table = _table("capturesTable", self.captures_model)
        self.captures_table.setColumnWidth(CapturesModel.VARIABLE, 120)
        self.captures_table.setColumnWidth(CapturesModel.PATH, 200)
        self.add_button = _button("Add assertion", "addAssertionButton", "Add a row")
        self.remove_button = _button("Remove", "removeAssertionButton", "Remove the selected rows")
        self.add_capture_button = _button("Add capture", "addCaptureButton", "Add a row")
        self.remove_capture_button = _button(
            "Remove", "removeCaptureButton", "Remove the selected rows"
        )
        self.summary = QLabel("Not sent yet")
        self.summary.setObjectName("assertionsSummary")
        note = QLabel(
            "Paths point into the response as received: a JSON-RPC envelope "
            "(<code>/result/…</code>), a REST or gRPC body (<code>/status/state</code>); for a "
            "stream, its last item. <code>finalState</code>, <code>itemCount</code> and "
            "<code>durationMs</code> check the whole exchange. Values are JSON or plain text."
        )
        note.setWordWrap(True)
        captures_note = QLabel(
            "Captures keep a value of the response as a <code>{{variable}}</code> for the "
            "requests sent after this one (a task id, a context id)."
        )
        captures_note.setWordWrap(True)

        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addWidget(self.table, 3)
        row = QHBoxLayout()
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        row.addWidget(self.summary)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addWidget(captures_note)
        layout.addWidget(self.captures_table, 2)
        row = QHBoxLayout()
        row.addWidget(self.add_capture_button)
        row.addWidget(self.remove_capture_button)
        row.addStretch(1)
        layout.addLayout(row)

        self.model.edited.connect(self.changed)
        self.captures_model.edited.connect(self.changed)
        self.add_button.clicked.connect(lambda: self._add(self.table, self.model.add_row()))
        self.add_capture_button.clicked.connect(
            lambda: self._add(self.captures_table, self.captures_model.add_row())
        )
        self.remove_button.clicked.connect(lambda: self._remove(self.table, self.model))
        self.remove_capture_button.clicked.connect(
            lambda: self._remove(self.captures_table, self.captures_model)
        )

    # --- the draft ------------------------------------------------------------------

    def assertions(self) -> tuple[Assertion, ...]:
        return self.model.assertions()

    def captures(self) -> tuple[tuple[str, str], ...]:
        return self.captures_model.captures()

    def show_saved(
        self, assertions: tuple[Assertion, ...], captures: tuple[tuple[str, str], ...]
    ) -> None:
        """Replace every row (a saved request was opened)."""
        self.model.set_assertions(assertions)
        self.captures_model.set_captures(captures)
        self.summary.setText("Not sent yet")
        theme.style(self.summary, "plain")

    # --- results --------------------------------------------------------------------

    def show_results(self, results: list[AssertionResult]) -> None:
        """Show each result beside its row, and the count."""
        self.model.show_results(results)
        failed = sum(not r.passed for r in results)
        if not results:
            self.summary.setText("No assertions")
            theme.style(self.summary, "plain")
            return
        passed = len(results) - failed
        self.summary.setText(
            f"{passed} of {len(results)} passed" + (f", {failed} failed" if failed else "")
        )
        theme.style(self.summary, "badge-error" if failed else "badge-ok", theme.BADGE_SHAPE)

    def show_captured(self, values: dict[str, str], problems: list[str]) -> None:
        self.captures_model.show_captured(values, problems)

    def clear_results(self) -> None:
        self.model.show_results(None)
        self.captures_model.show_captured({}, [])
        self.summary.setText("Sending…")
        theme.style(self.summary, "plain")

    # --- buttons --------------------------------------------------------------------

    @staticmethod
    def _add(table: QTableView, row: int) -> None:
        index = table.model().index(row, 0)
        table.setCurrentIndex(index)
        table.edit(index)

    @staticmethod
    def _remove(table: QTableView, model: AssertionsModel | CapturesModel) -> None:
        rows = sorted({i.row() for i in table.selectionModel().selectedIndexes()})
        for row in reversed(rows):
            model.remove_row(row)
