"""Cyclic garbage is collected on the main (GUI) thread only, for the whole session.

Each GUI test closes its qasync loop, which stays in a reference cycle with its
``QTimer`` and ``QThread`` objects (and closed windows may sit in cycles too). Left to the
automatic collector, that garbage is destroyed by whichever thread allocates next: a
signature-verification worker, a peer's output pump. Qt then deletes the objects off the
GUI thread and the GUI thread crashes on the next timer event (see ``app/ui/shell/gui_gc.py``).
So, as in the app, automatic collection is off and the main thread collects: after every
test, and on a timer while a Qt event loop runs.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from PySide6.QtCore import QCoreApplication

from app.ui.shell.gui_gc import GuiThreadCollector, collect_due

_collector: list[GuiThreadCollector] = []


def pytest_configure(config: pytest.Config) -> None:
    gc.disable()


@pytest.fixture(autouse=True)
def _collect_on_the_main_thread() -> Iterator[None]:
    yield
    collect_due()
    app = QCoreApplication.instance()
    if app is not None and not _collector:  # pytest-qt made it during this test
        _collector.append(GuiThreadCollector(parent=app))
