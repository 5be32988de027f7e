"""The main window fits a 1280×800 screen with a request tab and its Agent Card page open."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QDockWidget

from app.ui.shell.main_window import MainWindow

pytestmark = pytest.mark.gui


def test_window_fits_a_1280_px_screen(qtbot: Any, window: MainWindow) -> None:
    window.complete_setup()  # the spec docks are part of the width
    tab = window.new_a2a_tab()
    tab.result_tabs.setCurrentWidget(tab.card_panel)
    tab.editor_tabs.setCurrentWidget(tab.tls_panel)
    spec_dock = window.findChild(QDockWidget, "specDock")
    assert spec_dock is not None and spec_dock.isVisible()
    qtbot.waitUntil(tab.card_panel.isVisible)

    assert window.minimumSizeHint().width() <= 1200
    window.setGeometry(0, 0, 1280, 800)
    qtbot.waitUntil(lambda: window.width() == 1280)
    # The request tab gets at least the width its pages need: nothing is squeezed.
    assert tab.width() >= tab.minimumSizeHint().width()
