"""Benchmark: process start → the main window's first paint, against a bare QMainWindow.

Both are started the same way (a fresh ``python -c`` subprocess, offscreen platform) and
report the wall-clock time of their first paint event; the parent subtracts its own clock
reading taken just before spawning. Medians of ``--runs`` alternating runs and the ratio
are printed with OK/MISS against the target (≤ 1.2×, history and themes on). The app is
started with ``--no-demo`` (the demo agent is a child process started asynchronously and
does not delay the first paint) and with a fresh data and config directory: the user's own
restored session and history are not part of the figure. Both start with their modules'
bytecode cached (in a temporary ``PYTHONPYCACHEPREFIX``, filled by a warm-up run of each),
as an installed app does (pip compiles at install): a shell with
``PYTHONDONTWRITEBYTECODE`` set would otherwise compile every app module at every start.

Usage: ``python bench/startup.py [--runs 9]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET = 1.2

BARE = """
import os, sys, time
from PySide6.QtWidgets import QApplication, QMainWindow

class Window(QMainWindow):
    def paintEvent(self, event):
        print(time.time(), flush=True)
        os._exit(0)

app = QApplication(sys.argv[:1])
window = Window()
window.resize(1280, 800)
window.show()
app.exec()
"""

APP = """
import os, time
from app.ui.shell import main_window
def first_paint(self, event):
    print(time.time(), flush=True)
    os._exit(0)

main_window.MainWindow.paintEvent = first_paint
from app.__main__ import main
main(["--no-demo"])
"""


def measure(code: str, pycache: str) -> float:
    """Seconds from spawning ``python -c code`` to the time it prints at first paint."""
    with tempfile.TemporaryDirectory(prefix="a2a-bench-") as home:
        env = {
            **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
            "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
            "XDG_DATA_HOME": home,
            "XDG_CONFIG_HOME": home,
            "PYTHONPYCACHEPREFIX": pycache,
        }
        started = time.time()
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env,
            timeout=60, check=True,
        ).stdout  # fmt: skip
    return float(out.strip().splitlines()[-1]) - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="a2a-bench-pycache-") as pycache:
        measure(BARE, pycache)  # warm the OS file cache and the bytecode cache for both
        measure(APP, pycache)
        bare, app = [], []
        for _ in range(args.runs):
            bare.append(measure(BARE, pycache))
            app.append(measure(APP, pycache))
    b, a = statistics.median(bare), statistics.median(app)
    print(f"bare QMainWindow first paint: median {b * 1000:.0f} ms over {args.runs} runs")
    print(f"A2A Workbench first paint:    median {a * 1000:.0f} ms over {args.runs} runs")
    verdict = "OK" if a / b <= TARGET else "MISS"
    print(f"ratio: {a / b:.2f}x (target <= {TARGET}x) {verdict}")
    print("runs (ms): bare " + " ".join(f"{x * 1000:.0f}" for x in bare))
    print("runs (ms): app  " + " ".join(f"{x * 1000:.0f}" for x in app))


if __name__ == "__main__":
    main()
