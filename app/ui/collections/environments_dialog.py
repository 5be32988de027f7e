"""The Environments dialog (``environmentsDialog``): named environments and their variables.

Left, the environments (``environmentsList``; double-click renames); right, the selected
one's variables in ``environmentsTable`` (Name / Value / Secret). Secret values are
masked, in the table and while editing, unless *Show secret values*
(``showSecretsCheck``) is ticked. The dialog edits a copy: nothing changes until OK, which
also selects the environment shown (as the toolbar's environment).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.spec.environments import NAME, Environment, Variable, snapshot, valid_environment_name
from app.ui.request.variable_marks import MASK
from app.ui.shell import theme

NAME_COL, VALUE_COL, SECRET_COL = 0, 1, 2
_UNLOADED = Qt.ItemDataRole.UserRole + 1
"""On a value cell: True while a secret was found in no store (empty, left as stored)."""


class _MaskingDelegate(QStyledItemDelegate):
    """Draws and edits the value column masked on rows whose Secret box is ticked."""

    def __init__(self, dialog: EnvironmentsDialog) -> None:
        super().__init__(dialog)
        self.dialog = dialog

    def _masked(self, index: QModelIndex | QPersistentModelIndex) -> bool:
        secret = index.model().index(index.row(), SECRET_COL).data(Qt.ItemDataRole.CheckStateRole)
        return secret == Qt.CheckState.Checked.value and not self.dialog.showing_secrets

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        super().initStyleOption(option, index)
        if index.column() == VALUE_COL and self._masked(index):
            unloaded = index.data(_UNLOADED) and not option.text
            option.text = "(not stored here)" if unloaded else MASK

    def createEditor(
        self,
        parent: QWidget,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> QWidget:
        editor = super().createEditor(parent, option, index)
        if isinstance(editor, QLineEdit) and index.column() == VALUE_COL and self._masked(index):
            editor.setEchoMode(QLineEdit.EchoMode.Password)
        return editor


class EnvironmentsDialog(QDialog):
    """Edits a copy of ``environments``; :meth:`result_environments` after OK."""

    def __init__(
        self, environments: list[Environment], active: str = "", parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("environmentsDialog")
        self.setWindowTitle("Environments")
        self.resize(720, 420)
        self._environments = snapshot(environments)
        self._current: Environment | None = None
        self.showing_secrets = False

        self.env_list = QListWidget()
        self.env_list.setObjectName("environmentsList")
        self.env_list.setMaximumWidth(200)
        self.add_env_button = QPushButton("Add environment")
        self.add_env_button.setObjectName("addEnvironmentButton")
        self.remove_env_button = QPushButton("Remove environment")
        self.remove_env_button.setObjectName("removeEnvironmentButton")
        left = QVBoxLayout()
        left.addWidget(QLabel("Environments"))
        left.addWidget(self.env_list, 1)
        left.addWidget(self.add_env_button)
        left.addWidget(self.remove_env_button)

        self.table = QTableWidget(0, 3)
        self.table.setObjectName("environmentsTable")
        self.table.setHorizontalHeaderLabels(["Name", "Value", "Secret"])
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(NAME_COL, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(NAME_COL, 150)
        header.setSectionResizeMode(VALUE_COL, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(SECRET_COL, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setItemDelegate(_MaskingDelegate(self))
        self.add_var_button = QPushButton("Add variable")
        self.add_var_button.setObjectName("addVariableButton")
        self.remove_var_button = QPushButton("Remove variable")
        self.remove_var_button.setObjectName("removeVariableButton")
        self.show_secrets = QCheckBox("Show secret values")
        self.show_secrets.setObjectName("showSecretsCheck")
        row = QHBoxLayout()
        row.addWidget(self.add_var_button)
        row.addWidget(self.remove_var_button)
        row.addStretch(1)
        row.addWidget(self.show_secrets)
        right = QVBoxLayout()
        self.heading = QLabel()
        right.addWidget(self.heading)
        right.addWidget(self.table, 1)
        right.addLayout(row)
        note = QLabel(
            "Values are saved in the document (x-a2a-environments); secret values only in "
            "the OS keyring (or the private secrets file), never in the document."
        )
        note.setWordWrap(True)
        right.addWidget(note)

        self.problem_label = QLabel()
        self.problem_label.setObjectName("environmentsProblemLabel")
        theme.style(self.problem_label, "text-error")
        self.problem_label.hide()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        body = QHBoxLayout()
        body.addLayout(left)
        body.addLayout(right, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(body, 1)
        layout.addWidget(self.problem_label)
        layout.addWidget(self.buttons)

        self.add_env_button.clicked.connect(lambda: self.add_environment())
        self.remove_env_button.clicked.connect(self.remove_environment)
        self.add_var_button.clicked.connect(lambda: self.add_variable())
        self.remove_var_button.clicked.connect(self.remove_variable)
        self.show_secrets.toggled.connect(self._on_show_secrets_toggled)
        self.env_list.currentRowChanged.connect(self._on_env_row_changed)
        self.env_list.itemChanged.connect(self._on_env_renamed)
        self.buttons.accepted.connect(self._on_accepted)
        self.buttons.rejected.connect(self.reject)

        for env in self._environments:
            self._add_list_item(env)
        names = [e.name for e in self._environments]
        self.env_list.setCurrentRow(names.index(active) if active in names else 0)
        self._update_buttons()

    # --- environments ----------------------------------------------------------------

    def _add_list_item(self, env: Environment) -> QListWidgetItem:
        item = QListWidgetItem(env.name)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
        item.setData(Qt.ItemDataRole.UserRole, env.name)
        self.env_list.blockSignals(True)
        self.env_list.addItem(item)
        self.env_list.blockSignals(False)
        return item

    def add_environment(self, name: str = "") -> Environment:
        """Add an environment (``new``, ``new-2``… when no name is given) and select it."""
        taken = {e.name for e in self._environments}
        base = name or "new"
        name, n = base, 2
        while name in taken:
            name, n = f"{base}-{n}", n + 1
        env = Environment(name)
        self._environments.append(env)
        item = self._add_list_item(env)
        self.env_list.setCurrentItem(item)
        self._update_buttons()
        return env

    def remove_environment(self) -> None:
        """Remove the selected environment."""
        row = self.env_list.currentRow()
        if row < 0:
            return
        self._current = None  # its table rows go with it
        del self._environments[row]
        self.env_list.takeItem(row)
        self._update_buttons()

    def _on_env_renamed(self, item: QListWidgetItem) -> None:
        old = str(item.data(Qt.ItemDataRole.UserRole))
        new = item.text().strip()
        env = next(e for e in self._environments if e.name == old)
        taken = {e.name for e in self._environments} - {old}
        if not valid_environment_name(new) or new in taken:
            self._say(f"{new!r} cannot name an environment (empty, '/', or already used)")
            self.env_list.blockSignals(True)
            item.setText(old)
            self.env_list.blockSignals(False)
            return
        self._say("")
        env.name = new
        item.setData(Qt.ItemDataRole.UserRole, new)
        self.heading.setText(f"Variables of {new}")

    def _on_env_row_changed(self, row: int) -> None:
        self._commit_table()
        self._current = self._environments[row] if 0 <= row < len(self._environments) else None
        self._fill_table()
        self._update_buttons()

    # --- variables -------------------------------------------------------------------

    def _fill_table(self) -> None:
        self.table.blockSignals(True)
        self.table.setRowCount(0)
        env = self._current
        self.heading.setText(f"Variables of {env.name}" if env else "No environment")
        for var in env.variables if env else []:
            self._append_row(var)
        self.table.blockSignals(False)

    def _append_row(self, var: Variable) -> int:
        row = self.table.rowCount()
        self.table.insertRow(row)
        self.table.setItem(row, NAME_COL, QTableWidgetItem(var.name))
        value = QTableWidgetItem(var.value)
        value.setData(_UNLOADED, var.secret and not var.loaded)
        self.table.setItem(row, VALUE_COL, value)
        secret = QTableWidgetItem()
        secret.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
        secret.setCheckState(Qt.CheckState.Checked if var.secret else Qt.CheckState.Unchecked)
        secret.setToolTip("Secret: kept in the OS keyring, never in the document")
        self.table.setItem(row, SECRET_COL, secret)
        return row

    def add_variable(self, name: str = "", value: str = "", *, secret: bool = False) -> int:
        """Add a row to the selected environment (and start editing its name when no name
        is given); returns its row."""
        if self._current is None:
            return -1
        row = self._append_row(Variable(name, value, secret))
        item = self.table.item(row, NAME_COL)
        if not name and item is not None:
            self.table.setCurrentCell(row, NAME_COL)
            self.table.editItem(item)
        return row

    def remove_variable(self) -> None:
        """Remove the selected variable row."""
        row = self.table.currentRow()
        if row >= 0:
            self.table.removeRow(row)

    def _commit_table(self) -> list[str]:
        """Copy the table into the current environment; returns the problems found."""
        env = self._current
        if env is None:
            return []
        variables: list[Variable] = []
        problems: list[str] = []
        for row in range(self.table.rowCount()):
            name = (self.table.item(row, NAME_COL) or QTableWidgetItem()).text().strip()
            cell = self.table.item(row, VALUE_COL) or QTableWidgetItem()
            secret_item = self.table.item(row, SECRET_COL)
            secret = secret_item is not None and secret_item.checkState() == Qt.CheckState.Checked
            if not name and not cell.text():
                continue  # an empty row added and never filled
            if not NAME.fullmatch(name) or any(v.name == name for v in variables):
                problems.append(f"{env.name}: {name!r} is not a usable (or unique) variable name")
                continue
            unloaded = bool(cell.data(_UNLOADED)) and not cell.text()
            variables.append(Variable(name, cell.text(), secret, loaded=not unloaded))
        env.variables = variables
        return problems

    def _on_show_secrets_toggled(self, checked: bool) -> None:
        self.showing_secrets = checked
        self.table.viewport().update()

    # --- result ----------------------------------------------------------------------

    def _on_accepted(self) -> None:
        problems = self._commit_table()
        if problems:
            self._say("; ".join(problems))
            return
        self.accept()

    def result_environments(self) -> list[Environment]:
        """The edited environments (after OK)."""
        return snapshot(self._environments)

    @property
    def current_name(self) -> str:
        """The environment selected in the list ("" for none)."""
        return self._current.name if self._current else ""

    def _say(self, text: str) -> None:
        self.problem_label.setText(text)
        self.problem_label.setVisible(bool(text))

    def _update_buttons(self) -> None:
        has_env = self._current is not None
        for widget in (self.remove_env_button, self.add_var_button, self.remove_var_button):
            widget.setEnabled(has_env)
        self.table.setEnabled(has_env)

    def cell(self, row: int, column: int) -> Any:
        """The table item at ``row``, ``column`` (tests, accessibility)."""
        return self.table.item(row, column)
