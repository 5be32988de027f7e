"""The part of *Generate server* where the card the server will publish is edited in place.

Name, description, input/output modes and the skills table; everything else of the card
(provider, version, URLs) is kept as loaded. :meth:`ServerCardEditor.card` returns the
loaded card with the edits applied; ``edited`` fires on every change so the dialog can
validate as the user types.
"""

from __future__ import annotations

import copy
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

__all__ = ["SKILL_COLUMNS", "ServerCardEditor", "join_list", "split_list"]

SKILL_COLUMNS = ("id", "name", "description", "tags", "examples")
_HEADERS = ("ID", "Name", "Description", "Tags", "Examples")
_LISTS = frozenset({"tags", "examples"})
_SEPARATOR = ";"  # examples often hold commas ("1.5, 2"), so lists are ;-separated


def split_list(text: str, separator: str = _SEPARATOR) -> list[str]:
    """``"a; b;;"`` -> ``["a", "b"]``."""
    return [item.strip() for item in text.split(separator) if item.strip()]


def join_list(items: object, separator: str = _SEPARATOR) -> str:
    """The inverse of :func:`split_list` for a JSON list (anything else gives ``""``)."""
    if not isinstance(items, list):
        return ""
    return f"{separator} ".join(str(item) for item in items)


class ServerCardEditor(QWidget):
    """Edits a card's name, description, default modes and skills."""

    edited = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("serverCardEditor")
        self._base: dict[str, Any] = {}
        self._loading = False

        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("serverCardNameEdit")
        self.description_edit = QPlainTextEdit()
        self.description_edit.setObjectName("serverCardDescriptionEdit")
        self.description_edit.setTabChangesFocus(True)
        self.description_edit.setFixedHeight(self.fontMetrics().lineSpacing() * 3 + 12)
        self.input_modes_edit = QLineEdit()
        self.input_modes_edit.setObjectName("serverInputModesEdit")
        self.input_modes_edit.setPlaceholderText("text/plain, application/json")
        self.output_modes_edit = QLineEdit()
        self.output_modes_edit.setObjectName("serverOutputModesEdit")
        self.output_modes_edit.setPlaceholderText("text/plain")

        self.skills_table = QTableWidget(0, len(SKILL_COLUMNS))
        self.skills_table.setObjectName("serverSkillsTable")
        self.skills_table.setHorizontalHeaderLabels(list(_HEADERS))
        self.skills_table.verticalHeader().hide()
        self.skills_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.skills_table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        for column in (3, 4):
            item = self.skills_table.horizontalHeaderItem(column)
            if item is not None:
                item.setToolTip("Separate items with ;")
        self.skills_table.setMinimumHeight(self.fontMetrics().lineSpacing() * 7)
        self.add_skill_button = QPushButton("Add skill")
        self.add_skill_button.setObjectName("addServerSkillButton")
        self.remove_skill_button = QPushButton("Remove skill")
        self.remove_skill_button.setObjectName("removeServerSkillButton")

        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        form.addRow("&Name", self.name_edit)
        form.addRow("&Description", self.description_edit)
        form.addRow("&Input modes", self.input_modes_edit)
        form.addRow("O&utput modes", self.output_modes_edit)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_skill_button)
        buttons.addWidget(self.remove_skill_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(form)
        layout.addWidget(self.skills_table, 1)
        layout.addLayout(buttons)

        for line in (self.name_edit, self.input_modes_edit, self.output_modes_edit):
            line.textChanged.connect(self._changed)
        self.description_edit.textChanged.connect(self._changed)
        self.skills_table.itemChanged.connect(self._changed)
        self.add_skill_button.clicked.connect(self.add_skill)
        self.remove_skill_button.clicked.connect(self.remove_selected_skills)

    def _changed(self, *_args: object) -> None:
        if not self._loading:
            self.edited.emit()

    def load(self, card: dict[str, Any]) -> None:
        """Show ``card``'s fields; :meth:`card` starts from it."""
        self._loading = True
        try:
            self._base = copy.deepcopy(card)
            self.name_edit.setText(str(card.get("name") or ""))
            self.description_edit.setPlainText(str(card.get("description") or ""))
            self.input_modes_edit.setText(join_list(card.get("defaultInputModes"), ","))
            self.output_modes_edit.setText(join_list(card.get("defaultOutputModes"), ","))
            self.skills_table.setRowCount(0)
            skills = card.get("skills")
            for skill in skills if isinstance(skills, list) else []:
                if isinstance(skill, dict):
                    self._append_row(skill)
            self.skills_table.resizeColumnsToContents()
            self.skills_table.horizontalHeader().setSectionResizeMode(
                2, QHeaderView.ResizeMode.Stretch
            )
        finally:
            self._loading = False
        self.edited.emit()

    def _append_row(self, skill: dict[str, Any]) -> None:
        row = self.skills_table.rowCount()
        self.skills_table.insertRow(row)
        for column, key in enumerate(SKILL_COLUMNS):
            value = skill.get(key)
            text = join_list(value) if key in _LISTS else str(value or "")
            item = QTableWidgetItem(text)
            if column == 0:
                # Fields the table does not show (per-skill modes) travel with the row.
                item.setData(Qt.ItemDataRole.UserRole, copy.deepcopy(skill))
            self.skills_table.setItem(row, column, item)

    def add_skill(self) -> None:
        """Append an empty skill row and start editing its ID."""
        number = self.skills_table.rowCount() + 1
        self._append_row({"id": f"skill-{number}", "name": f"Skill {number}"})
        self.skills_table.setCurrentCell(self.skills_table.rowCount() - 1, 1)
        self.edited.emit()

    def remove_selected_skills(self) -> None:
        """Remove the selected skill rows."""
        rows = sorted({index.row() for index in self.skills_table.selectedIndexes()}, reverse=True)
        for row in rows:
            self.skills_table.removeRow(row)
        if rows:
            self.edited.emit()

    def skills(self) -> list[dict[str, Any]]:
        """The skills as the table shows them (rows without an ID are left out)."""
        skills: list[dict[str, Any]] = []
        for row in range(self.skills_table.rowCount()):
            first = self.skills_table.item(row, 0)
            original = first.data(Qt.ItemDataRole.UserRole) if first is not None else None
            skill: dict[str, Any] = dict(original) if isinstance(original, dict) else {}
            for column, key in enumerate(SKILL_COLUMNS):
                item = self.skills_table.item(row, column)
                text = item.text().strip() if item is not None else ""
                if key in _LISTS:
                    skill[key] = split_list(text)
                else:
                    skill[key] = text
            if skill["id"]:
                skills.append(skill)
        return skills

    def card(self) -> dict[str, Any]:
        """The loaded card with the edits applied."""
        card = copy.deepcopy(self._base)
        card["name"] = self.name_edit.text().strip()
        card["description"] = self.description_edit.toPlainText().strip()
        card["defaultInputModes"] = split_list(self.input_modes_edit.text(), ",")
        card["defaultOutputModes"] = split_list(self.output_modes_edit.text(), ",")
        card["skills"] = self.skills()
        return card
