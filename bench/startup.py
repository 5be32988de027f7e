"""Benchmark: process start → the main window's first paint, against a bare QMainWindow.

Both are started the same way (a fresh ``python -c`` subprocess, offscreen platform) and
report the wall-clock time of their first paint event; the parent subtracts its own clock
reading taken just before spawning. Medians of ``--runs`` alternating runs and the ratio
are printed with OK/MISS against the target (≤ 1.2×, history and themes on) and every
run's figure. The app is started with ``--no-demo`` (the demo agent is a child process
started asynchronously and does not delay the first paint), in two states, each from a
data and config directory of its own (never the user's):

- *first start*: nothing saved yet; the app opens the Welcome tab and the example
  collection;
- *restored*: a session the app saved itself, beforehand, in a throwaway run: two
  collections open (the two example specs, copied), a request tab, and the History dock
  visible in the saved window layout.

Beside the first paint, each app line has a *ready* figure: until the window has painted
that state whole (the Welcome tab; the History dock and both collections in the spec
tree), which the app assembles after its first paint (app/ui/shell/application.py). Both
start with their modules' bytecode cached (in a temporary ``PYTHONPYCACHEPREFIX``, filled
by a warm-up run of each), as an installed app does (pip compiles at install): a shell with
``PYTHONDONTWRITEBYTECODE`` set would otherwise compile every app module at every start.

``--scale`` adds the restored start at 1 / 4 / 16 collections (copies of the example
specs) to show how its cost grows with what a session holds.

Usage: ``python bench/startup.py [--runs 9] [--scale]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
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
import os, sys, time
from app.ui.shell import main_window

WANT = os.environ["A2A_BENCH_READY"]  # "welcome" or "restored:N"
painted = [None]

def first_paint(self, event):
    # The first paint's time, then the frames after it until the state is painted whole.
    if painted[0] is None:
        painted[0] = time.time()
        from PySide6.QtCore import QObject, QEvent, QTimer
        from PySide6.QtWidgets import QApplication, QWidget

        window, seen = self, set()

        def ready():
            # (widgets that must paint from now on, widgets that must have painted)
            if not hasattr(window, "session"):
                return None
            if WANT == "welcome":  # built, and the front tab painted (with --no-demo an
                # empty request tab opens in front of it)
                pages = [window.tabs.widget(n) for n in range(window.tabs.count())]
                if not any(p.objectName() == "welcomeTab" for p in pages):
                    return None
                return (window.tabs.currentWidget(),), ()
            count = int(WANT.split(":")[1])
            spec = getattr(window, "spec", None)
            if spec is None or len(spec.collections) < count:
                return None
            dock = window.history_dock
            return ((spec.dock.tree.viewport(),), (dock,)) if dock.isVisible() else None

        class Watch(QObject):
            def eventFilter(self, obj, event):
                if event.type() != QEvent.Type.Paint:
                    return False
                if isinstance(obj, QWidget) and obj.window() is window:
                    seen.add(obj)  # painted at least once (a dock shown before the rest)
                state = ready()
                if state is None:
                    return False
                now, before = state
                fresh = getattr(window, "_bench_fresh", set())
                fresh.update(p for p in now if obj is p or p.isAncestorOf(obj))
                window._bench_fresh = fresh
                done = all(p in fresh for p in now) and all(
                    p in seen or any(p.isAncestorOf(w) for w in seen) for p in before
                )
                if done:
                    print(painted[0], time.time(), flush=True)
                    os._exit(0)
                return False

        watch = Watch()
        QApplication.instance().installEventFilter(watch)
        window._bench_watch = watch
        QTimer.singleShot(20000, lambda: os._exit(3))
    main_window.QMainWindow.paintEvent(self, event)

main_window.MainWindow.paintEvent = first_paint
from app.__main__ import main
main(["--no-demo"])
"""

PREPARE = """
import asyncio, os, sys
from pathlib import Path
from PySide6.QtWidgets import QApplication
from app.ui.shell import runtime
from app.ui.shell.event_loop import WorkbenchLoop
from app.ui.shell.main_window import MainWindow

app = QApplication(sys.argv[:1])
runtime.configure(app)
loop = WorkbenchLoop(app)
asyncio.set_event_loop(loop)
window = MainWindow()
window.resize(1280, 800)
window.show()

async def prepare():
    for path in sys.argv[1:]:
        assert window.spec.open_spec(Path(path)) is not None, path
    window.new_a2a_tab("http://127.0.0.1:9/a2a", "restored")
    window.history_dock.show()
    await asyncio.sleep(0.3)
    await window.session.flush()
    window.desktop.save_layout()
    await window.shutdown()

with loop:
    loop.run_until_complete(prepare())
os._exit(0)
"""


def _env(home: str, pycache: str, ready: str = "") -> dict[str, str]:
    return {
        **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
        "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
        "XDG_DATA_HOME": home,
        "XDG_CONFIG_HOME": home,
        "PYTHONPYCACHEPREFIX": pycache,
        "A2A_BENCH_READY": ready,
    }


def prepare(home: Path, pycache: str, collections: int) -> None:
    """Save a session in ``home`` (the app's own save): ``collections`` copies of the example
    specs open, a request tab, the History dock visible."""
    examples = sorted((REPO / "resources" / "examples").glob("*.a2a.yaml"))
    specs = home / "specs"
    specs.mkdir(parents=True, exist_ok=True)
    paths = []
    for n in range(collections):
        source = examples[n % len(examples)]
        target = specs / f"{n + 1:02d}-{source.name}"
        shutil.copyfile(source, target)
        paths.append(str(target))
    subprocess.run(
        [sys.executable, "-c", PREPARE, *paths], cwd=REPO, env=_env(str(home), pycache),
        timeout=120, check=True, capture_output=True,
    )  # fmt: skip


def measure(code: str, pycache: str, saved: Path | None = None, ready: str = "") -> list[float]:
    """Seconds from spawning ``python -c code`` to each time it prints (the first paint; for
    the app also the time its state was painted whole), from a copy of ``saved`` (a data
    and config directory) or an empty one."""
    with tempfile.TemporaryDirectory(prefix="a2a-bench-") as home:
        if saved is not None:
            shutil.copytree(saved, home, dirs_exist_ok=True)
        started = time.time()
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
            env=_env(home, pycache, ready), timeout=60, check=True,
        ).stdout  # fmt: skip
    return [float(t) - started for t in out.strip().splitlines()[-1].split()]


def _ms(values: list[float]) -> str:
    return " ".join(f"{x * 1000:.0f}" for x in values)


def report(label: str, bare: list[float], paints: list[float], readies: list[float]) -> None:
    b, a, r = statistics.median(bare), statistics.median(paints), statistics.median(readies)
    ratios = [p / q for p, q in zip(paints, bare, strict=True)]
    ratio = statistics.median(ratios)
    verdict = "OK" if ratio <= TARGET else "MISS"
    print(f"{label}: first paint {a * 1000:.0f} ms, ratio {ratio:.2f}x (target <= {TARGET}x) "
          f"{verdict}  [{' '.join(f'{x:.2f}' for x in ratios)}]")  # fmt: skip
    print(f"  {'':<10} runs (ms): {_ms(paints)}")
    print(f"  ready (state painted whole) {r * 1000:.0f} ms, {r / b:.2f}x bare  runs (ms): "
          f"{_ms(readies)}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--scale", action="store_true", help="restored at 1 / 4 / 16 collections")
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory(prefix="a2a-bench-pycache-") as pycache,
        tempfile.TemporaryDirectory(prefix="a2a-bench-saved-") as saved_dir,
    ):
        saved = Path(saved_dir)
        prepare(saved, pycache, 2)
        restored = "restored:2"
        # Warm the OS file cache and the bytecode cache for every kind of run.
        measure(BARE, pycache)
        measure(APP, pycache, None, "welcome")
        measure(APP, pycache, saved, restored)
        bare: list[float] = []
        first: list[list[float]] = []
        back: list[list[float]] = []
        for _ in range(args.runs):  # back to back, so load from other processes hits all
            bare.append(measure(BARE, pycache)[0])
            first.append(measure(APP, pycache, None, "welcome"))
            back.append(measure(APP, pycache, saved, restored))
        b = statistics.median(bare)
        print(f"bare QMainWindow first paint: median {b * 1000:.0f} ms over {args.runs} runs")
        print(f"  {'':<10} runs (ms): {_ms(bare)}")
        report("first start (Welcome, example collection)", bare, *zip(*first, strict=True))
        report("restored (2 collections, History dock, a tab)", bare, *zip(*back, strict=True))
        if args.scale:
            scale(pycache, max(3, args.runs // 3))


def scale(pycache: str, runs: int) -> None:
    """The restored start at 1 / 4 / 16 collections: first paint and ready, medians."""
    parts = []
    for count in (1, 4, 16):
        with tempfile.TemporaryDirectory(prefix="a2a-bench-saved-") as saved_dir:
            saved = Path(saved_dir)
            prepare(saved, pycache, count)
            ready = f"restored:{count}"
            measure(APP, pycache, saved, ready)
            runs_ = [measure(APP, pycache, saved, ready) for _ in range(runs)]
        paint = statistics.median(r[0] for r in runs_)
        whole = statistics.median(r[1] for r in runs_)
        parts.append(f"{count}: {paint * 1000:.0f} / {whole * 1000:.0f} ms")
    print(f"scale, restored collections (first paint / ready, {runs} runs each): "
          + " · ".join(parts))  # fmt: skip


if __name__ == "__main__":
    main()
