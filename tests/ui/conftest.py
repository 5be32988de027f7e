"""GUI test fixtures: a main window shut down the way the app does it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from app.ui.shell.main_window import MainWindow


@pytest.fixture
def window(qtbot: Any, qloop: Any) -> Iterator[MainWindow]:
    """A shown 1280×800 main window; afterwards its exchanges are cancelled and it closes."""
    win = MainWindow()
    win.resize(1280, 800)
    win.show()
    yield win
    qloop.run_until_complete(win.shutdown())
    win.close_now()
    win.deleteLater()
