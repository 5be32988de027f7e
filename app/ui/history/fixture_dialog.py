"""*Export as fixture…*: how to write the selected History entries as a replay fixture.

The dialog only gathers choices (format, stable ids, values to redact, whole task, the
card file, the output file); the History panel builds and writes the fixture off the GUI
thread (:mod:`app.replay.export`). Format: docs/FIXTURES.md.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.ui.shell import theme

FORMATS = {"YAML": ".yaml", "JSON": ".json"}


class ExportFixtureDialog(QDialog):
    """Choices for one fixture export; read them once it is accepted."""

    def __init__(self, count: int, default_dir: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("exportFixtureDialog")
        self.setWindowTitle("Export as fixture")
        self.setMinimumWidth(580)
        intro = QLabel(
            f"{count} selected {'entry' if count == 1 else 'entries'} as a replay fixture for "
            "<code>a2a-workbench replay</code>. Credentials are always masked."
        )
        intro.setWordWrap(True)
        self.whole_task = QCheckBox("Whole task: every entry of the same task or context")
        self.whole_task.setObjectName("fixtureWholeTaskCheck")
        self.whole_task.setToolTip(
            "Adds the send, stream, follow-ups, polls and cancel that name the selected "
            "entries' tasks or contexts"
        )
        self.format_combo = QComboBox()
        self.format_combo.setObjectName("fixtureFormatCombo")
        self.format_combo.addItems(list(FORMATS))
        self.stable_ids = QCheckBox("Replace task, context and message ids by stable ones")
        self.stable_ids.setObjectName("fixtureStableIdsCheck")
        self.redact_edit = QPlainTextEdit()
        self.redact_edit.setObjectName("fixtureRedactEdit")
        self.redact_edit.setPlaceholderText("One value per line, replaced by **** everywhere")
        self.redact_edit.setFixedHeight(72)
        self.card_edit = QLineEdit()
        self.card_edit.setObjectName("fixtureCardEdit")
        self.card_edit.setPlaceholderText("Optional: an Agent Card JSON file the replay serves")
        self.out_edit = QLineEdit(str(default_dir / "session.a2a-fixture.yaml"))
        self.out_edit.setObjectName("fixtureOutEdit")

        form = QFormLayout()
        form.addRow("Format", self.format_combo)
        form.addRow("", self.stable_ids)
        form.addRow("", self.whole_task)
        form.addRow("Values to redact", self.redact_edit)
        form.addRow(
            "Agent Card", self._with_browse(self.card_edit, "fixtureCardBrowse", self._pick_card)
        )
        form.addRow(
            "Output file", self._with_browse(self.out_edit, "fixtureOutBrowse", self._pick_out)
        )
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.setObjectName("fixtureButtons")
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        self.error_label = QLabel("")
        self.error_label.setObjectName("fixtureErrorLabel")
        theme.style(self.error_label, "text-error")
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.error_label)
        layout.addWidget(buttons)
        self.format_combo.currentTextChanged.connect(self._format_changed)

    def _with_browse(self, edit: QLineEdit, name: str, slot: object) -> QWidget:
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(edit, 1)
        button = QPushButton("Browse…")
        button.setObjectName(name)
        button.clicked.connect(slot)
        layout.addWidget(button)
        return row

    def _format_changed(self, name: str) -> None:
        path = Path(self.out_edit.text().strip() or "session.a2a-fixture.yaml")
        self.out_edit.setText(str(path.with_suffix(FORMATS[name])))

    def _pick_card(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Agent Card", "", "JSON (*.json)")
        if path:
            self.card_edit.setText(path)

    def _pick_out(self) -> None:
        name = self.format_combo.currentText()
        path, _ = QFileDialog.getSaveFileName(
            self, "Export as fixture", self.out_edit.text(), f"{name} (*{FORMATS[name]})"
        )
        if path:
            self.out_edit.setText(path)

    def _accept(self) -> None:
        if not self.out_edit.text().strip():
            self.error_label.setText("Choose the output file.")
            return
        self.accept()

    @property
    def fmt(self) -> str:
        return self.format_combo.currentText().lower()

    @property
    def out_path(self) -> Path:
        return Path(self.out_edit.text().strip())

    @property
    def card_path(self) -> Path | None:
        text = self.card_edit.text().strip()
        return Path(text) if text else None

    @property
    def redact_values(self) -> tuple[str, ...]:
        lines = self.redact_edit.toPlainText().splitlines()
        return tuple(v for line in lines if (v := line.strip()))
