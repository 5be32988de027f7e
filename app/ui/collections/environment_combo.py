"""The main toolbar's environment switch (``environmentCombo``) and the toolbar itself."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QMainWindow, QToolBar, QWidget

NO_ENVIRONMENT = "No environment"
TOOLBAR_NAME = "mainToolBar"


def main_toolbar(window: QMainWindow) -> QToolBar:
    """The window's main toolbar (``mainToolBar``), created on first use."""
    bar = window.findChild(QToolBar, TOOLBAR_NAME)
    if bar is None:
        # Its title names it in View and in the toolbar's context menu: what it holds.
        bar = window.addToolBar("Environment toolbar")
        bar.setObjectName(TOOLBAR_NAME)
        bar.setMovable(False)
    return bar


class EnvironmentCombo(QComboBox):
    """``No environment`` plus one entry per environment of the open document; the entry's
    data is the environment name (``""`` for none).

    Signals:
        chosen: the user picked an entry (arg: environment name, ``""`` for none).
    """

    chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("environmentCombo")
        self.setToolTip("The environment whose variables fill in {{variables}} when sending")
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.setMinimumContentsLength(14)
        self.addItem(NO_ENVIRONMENT, "")
        self.activated.connect(lambda index: self.chosen.emit(str(self.itemData(index) or "")))

    def set_environments(self, names: Iterable[str], active: str) -> None:
        """Show ``names`` with ``active`` selected (no ``chosen`` signal)."""
        self.blockSignals(True)
        try:
            self.clear()
            self.addItem(NO_ENVIRONMENT, "")
            for name in names:
                self.addItem(name, name)
            self.setCurrentIndex(max(0, self.findData(active)))
        finally:
            self.blockSignals(False)

    @property
    def active(self) -> str:
        """The selected environment's name ("" for none)."""
        return str(self.currentData() or "")

    def choose(self, name: str) -> None:
        """Select ``name`` as the user would (emits ``chosen``)."""
        index = self.findData(name)
        if index >= 0:
            self.setCurrentIndex(index)
            self.chosen.emit(name)
