"""Edit → Settings…: pages in a list beside a stack (Appearance, Requests, History, and any
page added with :meth:`SettingsDialog.add_page`).

A page is any widget; one with an ``apply()`` method has it called on OK and Apply, after the
dialog's own settings were emitted (:attr:`SettingsDialog.applied`).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFontComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.settings import Settings, ThemeChoice

if TYPE_CHECKING:
    from app.history.store import HistoryStore

MIB = 1024 * 1024

THEME_LABELS = {
    ThemeChoice.SYSTEM: "Follow system",
    ThemeChoice.LIGHT: "Light",
    ThemeChoice.DARK: "Dark",
}


class SettingsDialog(QDialog):
    """The settings of ``settings`` (and the history store's retention) for editing.

    Signals:
        applied: OK or Apply was pressed (arg: the new Settings).
    """

    applied = Signal(object)

    def __init__(
        self, settings: Settings, history: HistoryStore | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("settingsDialog")
        self.setWindowTitle("Settings")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self._settings = settings
        self._history = history
        self.pages = QListWidget()
        self.pages.setObjectName("settingsPageList")
        self.pages.setMaximumWidth(160)
        self.pages.setSpacing(3)
        self.stack = QStackedWidget()
        self.stack.setObjectName("settingsPages")
        self.pages.currentRowChanged.connect(self.stack.setCurrentIndex)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok
            | QDialogButtonBox.StandardButton.Cancel
            | QDialogButtonBox.StandardButton.Apply
        )
        self.buttons.setObjectName("settingsButtons")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.buttons.clicked.connect(self._on_clicked)
        row = QHBoxLayout()
        row.addWidget(self.pages)
        row.addWidget(self.stack, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(row, 1)
        layout.addWidget(self.buttons)
        self._extra: list[QWidget] = []
        self._shown_retention = (0, 0)
        self._build_appearance()
        self._build_requests()
        self._build_history()
        self.pages.setCurrentRow(0)
        self.resize(600, 340)

    def add_page(self, title: str, widget: QWidget) -> int:
        """Add ``widget`` as the page ``title``; returns its index."""
        self.pages.addItem(title)
        index = self.stack.addWidget(widget)
        self._extra.append(widget)
        return index

    def show_page(self, title: str) -> None:
        """Select the page named ``title``."""
        for row in range(self.pages.count()):
            item = self.pages.item(row)
            if item is not None and item.text() == title:
                self.pages.setCurrentRow(row)

    # --- the built-in pages ----------------------------------------------------------

    def _page(self, title: str) -> QFormLayout:
        page = QWidget()
        form = QFormLayout(page)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        self.pages.addItem(title)
        self.stack.addWidget(page)
        return form

    def _build_appearance(self) -> None:
        form = self._page("Appearance")
        self.theme_combo = QComboBox()
        self.theme_combo.setObjectName("themeCombo")
        for choice, label in THEME_LABELS.items():
            self.theme_combo.addItem(label, choice.value)
        self.theme_combo.setCurrentIndex(self.theme_combo.findData(self._settings.theme.value))
        self.theme_combo.setToolTip("“Follow system” switches with the operating system")
        form.addRow("Theme", self.theme_combo)
        system = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self._system_font = system
        self.font_combo = QFontComboBox()
        self.font_combo.setObjectName("editorFontCombo")
        self.font_combo.setFontFilters(QFontComboBox.FontFilter.MonospacedFonts)
        self.font_combo.setCurrentFont(QFont(self._settings.editor_font or system.family()))
        form.addRow("Editor font", self.font_combo)
        self.font_size_spin = QSpinBox()
        self.font_size_spin.setObjectName("editorFontSizeSpin")
        self.font_size_spin.setRange(6, 48)
        self.font_size_spin.setSuffix(" pt")
        self.font_size_spin.setValue(self._settings.editor_font_size or max(system.pointSize(), 6))
        form.addRow("Editor font size", self.font_size_spin)

    def _build_requests(self) -> None:
        form = self._page("Requests")
        # The two bounds a tab shows beside Send, named as there.
        self.timeout_spin = QDoubleSpinBox()
        self.timeout_spin.setObjectName("defaultTimeoutSpin")
        self.timeout_spin.setRange(0.1, 86400.0)
        self.timeout_spin.setDecimals(1)
        self.timeout_spin.setSuffix(" s")
        self.timeout_spin.setValue(self._settings.default_timeout)
        self.timeout_spin.setToolTip(
            "How long a request waits for the answer (or for a stream to start), unless it"
            " sets its own timeout"
        )
        form.addRow("Default network timeout", self.timeout_spin)
        self.deadline_spin = QDoubleSpinBox()
        self.deadline_spin.setObjectName("defaultDeadlineSpin")
        self.deadline_spin.setRange(0.0, 86400.0)
        self.deadline_spin.setDecimals(1)
        self.deadline_spin.setSuffix(" s")
        self.deadline_spin.setSpecialValueText("no deadline")
        self.deadline_spin.setValue(self._settings.default_deadline)
        self.deadline_spin.setToolTip(
            "A new tab's deadline for the whole exchange, streams included (0: none)"
        )
        form.addRow("Default deadline", self.deadline_spin)

    def _build_history(self) -> None:
        form = self._page("History")
        self.days_spin = QSpinBox()
        self.days_spin.setObjectName("historyDaysSpin")
        self.days_spin.setRange(1, 36500)
        self.days_spin.setSuffix(" days")
        self.size_spin = QSpinBox()
        self.size_spin.setObjectName("historyMaxMiBSpin")
        self.size_spin.setRange(1, 1024 * 1024)
        self.size_spin.setSuffix(" MiB")
        form.addRow("Keep entries for", self.days_spin)
        form.addRow("Keep at most", self.size_spin)
        note = QLabel("Oldest entries go first once either limit is reached.")
        note.setObjectName("historyRetentionNote")
        note.setWordWrap(True)
        form.addRow(note)
        if self._history is None:
            for spin in (self.days_spin, self.size_spin):
                spin.setEnabled(False)
            note.setText("The history store is not open (see the status bar).")
            return
        policy = self._history.retention
        self.days_spin.setValue(round(policy.max_age_days))
        self.size_spin.setValue(max(1, round(policy.max_bytes / MIB)))
        self._shown_retention = (self.days_spin.value(), self.size_spin.value())

    # --- applying --------------------------------------------------------------------

    def values(self) -> Settings:
        """The settings the dialog shows now."""
        family = self.font_combo.currentFont().family()
        size = self.font_size_spin.value()
        return Settings(
            theme=ThemeChoice(self.theme_combo.currentData()),
            default_timeout=self.timeout_spin.value(),
            default_deadline=self.deadline_spin.value(),
            editor_font="" if family == self._system_font.family() else family,
            editor_font_size=0 if size == self._system_font.pointSize() else size,
        )

    def apply(self) -> None:
        """Emit :attr:`applied`, set the history retention, and apply the added pages."""
        self._settings = self.values()
        self.applied.emit(self._settings)
        if self._history is not None:
            self._apply_retention(self._history)
        for page in self._extra:
            apply = getattr(page, "apply", None)
            if callable(apply):
                apply()

    def _apply_retention(self, store: HistoryStore) -> None:
        # Only what was edited changes: the spins round a policy set elsewhere (the CLI).
        days, mib = self.days_spin.value(), self.size_spin.value()
        shown_days, shown_mib = self._shown_retention
        if (days, mib) == (shown_days, shown_mib):
            return
        policy = store.retention
        store.set_retention(
            dataclasses.replace(
                policy,
                max_age_days=float(days) if days != shown_days else policy.max_age_days,
                max_bytes=mib * MIB if mib != shown_mib else policy.max_bytes,
            )
        )
        self._shown_retention = (days, mib)

    def accept(self) -> None:
        self.apply()
        super().accept()

    def _on_clicked(self, button: QAbstractButton) -> None:
        if self.buttons.buttonRole(button) is QDialogButtonBox.ButtonRole.ApplyRole:
            self.apply()
