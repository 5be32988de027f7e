"""How the app sets up the interpreter it runs in, once, after the first paint.

- Cyclic garbage collection on the GUI thread only (:mod:`app.ui.shell.gui_gc`).
- glibc's allocator thresholds fixed, so that a big body's memory goes back to the system
  when it is let go (:func:`app.heap.configure`).
- A thread switch interval of :data:`SWITCH_INTERVAL_S`: while a worker thread runs Python
  (a big body parsed and pretty-printed), the GUI thread waits up to this long for the GIL
  each time it asks for it, several times per frame; at the default 5 ms a 25 MiB body's
  frames came 40–90 ms apart, at 2 ms 25–35 ms (bench/large_body.py; 1 ms was no better
  and slowed the workers).

The benchmarks call :func:`configure` as the app does.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QCoreApplication

from app import heap
from app.ui.shell.gui_gc import GuiThreadCollector

SWITCH_INTERVAL_S = 0.002


def configure(app: QCoreApplication) -> None:
    """Set the interpreter up for the GUI (call it on the GUI thread, once)."""
    # Cycles holding Qt objects must never be collected in a worker thread (a crash); the
    # app owns the collector for its whole life.
    GuiThreadCollector(parent=app)
    heap.configure()
    sys.setswitchinterval(SWITCH_INTERVAL_S)
