"""Take the screenshots of README and docs/GUI.md from the real window, with the bundled demo
agent.

    xvfb-run -a -s "-screen 0 1920x1080x24" env QT_QPA_PLATFORM=xcb \\
        .venv/bin/python docs/screenshots/take.py [--out FOLDER] [--size 1920x1080]

(``QT_QPA_PLATFORM=offscreen`` works too, without a screen.) The app starts the way
``a2a-workbench`` starts it — the main window at 1280×800 (``--size``), the demo agent as a child
process, the example spec in the Collections dock — in a fresh, temporary home, so the
user's session, history and settings neither show up in the pictures nor are touched.
Then, each in the light and the dark theme (``NAME-light.png``, ``NAME-dark.png``):

- ``welcome``: the first start's Welcome tab, once the demo agent is ready;
- ``send``: the demo tab's request sent as it opens (``SendMessage`` ``12 30``) and its
  answer ``Sum: 42``;
- ``stream``: a ``SendStreamingMessage`` of ``stream 8 700`` while it streams, its events
  on the Timeline, the last one selected;
- ``card``: the demo agent's Agent Card fetched, its Signatures section in front, and its
  signature verified against the demo agent's JWKS (the *Verify signature* window moved to
  the left, as a person would, and drawn over the main window: no window manager runs);
- ``check``: *Check this agent* on the demo agent, the report's tab, the first result with
  exchanges picked;
- ``collections``: a second collection (``resources/examples/demo-scenario.a2a.yaml``)
  beside the example, one of its requests selected and opened.

Each is grabbed with ``QWidget.grab()`` and saved as a PNG of 256 opaque colours (no alpha).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SCENARIO = ROOT / "resources" / "examples" / "demo-scenario.a2a.yaml"
SIZE = (1280, 800)
THEMES = ("light", "dark")


def _fresh_home() -> Path:
    """Point every per-user directory the app uses at a new temporary folder (returned)."""
    home = Path(tempfile.mkdtemp(prefix="a2a-workbench-shots-"))
    os.environ["HOME"] = str(home)
    dirs = {
        "XDG_CONFIG_HOME": ".config",
        "XDG_DATA_HOME": ".local/share",
        "XDG_CACHE_HOME": ".cache",
        "XDG_STATE_HOME": ".local/state",
    }
    for name, sub in dirs.items():
        os.environ[name] = str(home / sub)
    return home


async def _until(predicate: Callable[[], Any], timeout: float = 60.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise TimeoutError("the window did not get there in time")
        await asyncio.sleep(0.05)


async def _settle() -> None:
    """Let the window lay out and paint what just changed."""
    await asyncio.sleep(0.6)


class Camera:
    """Grabs the window (and any of its dialogs shown over it) in both themes."""

    def __init__(self, window: Any, out: Path) -> None:
        self.window = window
        self.out = out
        self.saved: list[str] = []

    async def shoot(self, name: str, over: Sequence[Any] = ()) -> None:
        """Save ``NAME-light.png`` and ``NAME-dark.png``; ``over``: dialogs drawn on top."""
        from app.settings import ThemeChoice

        for theme in THEMES:
            self.window.desktop.theme.apply(ThemeChoice(theme))
            await _settle()
            file = f"{name}-{theme}.png"
            _indexed(self._grab(over)).save(str(self.out / file), "PNG", 0)  # 0: smallest
            self.saved.append(file)
        self.window.desktop.theme.apply(ThemeChoice.LIGHT)
        await _settle()

    def _grab(self, over: Sequence[Any]) -> Any:
        from PySide6.QtCore import QPoint
        from PySide6.QtGui import QImage, QPainter, QPalette

        image = self.window.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
        painter = QPainter(image)
        origin = self.window.mapToGlobal(QPoint(0, 0))
        for dialog in over:
            if dialog is None or not dialog.isVisible():
                continue
            # No window manager under Xvfb draws its frame: a line in the palette's dark
            # role sets it apart from the window below.
            at = dialog.mapToGlobal(QPoint(0, 0)) - origin
            painter.drawPixmap(at, dialog.grab())
            painter.setPen(dialog.palette().color(QPalette.ColorRole.Dark))
            painter.drawRect(at.x() - 1, at.y() - 1, dialog.width() + 1, dialog.height() + 1)
        painter.end()
        return image


async def _shoot(window: Any, demo: Any, camera: Camera) -> None:
    from PySide6.QtCore import QPoint

    from app.ui.help.welcome_steps import check_agent, demo_tab, fetch_and_verify

    await window.warm_up()
    await _until(lambda: window.demo_info is not None and len(window.request_tabs()) == 1)

    # The first start: the Welcome tab in front.
    await _settle()
    await camera.shoot("welcome")

    # The demo tab's request, as the first start offers it: press Send.
    (tab,) = window.request_tabs()
    window.tabs.setCurrentWidget(tab)
    tab.send_or_cancel()
    await _until(lambda: not tab.busy and tab.response_view.outcome is not None)
    await camera.shoot("send")

    # A stream in a new tab, on its Timeline, taken while it streams.
    stream = demo_tab(window, "SendStreamingMessage", "stream 8 700")
    assert stream is not None
    stream.send_or_cancel()
    rows = stream.timeline.view.model().rowCount
    await _until(lambda: rows() >= 4)
    stream.timeline.view.selectRow(rows() - 1)
    await camera.shoot("stream")
    await _until(lambda: not stream.busy)

    # The demo agent's card, fetched and verified (Welcome's third step does both).
    card = fetch_and_verify(window, window)
    assert card is not None
    panel = card.card_panel
    await _until(lambda: panel.verify_dialog is not None)
    dialog = panel.verify_dialog
    await _until(lambda: dialog.verification is not None and not dialog.verifying)
    sections = panel.sections
    for index in range(sections.count()):
        if sections.tabText(index).startswith("Signatures"):
            sections.setCurrentIndex(index)
    # Moved aside, as a person would: the card page and its signatures beside the verdict.
    dialog.resize(dialog.minimumSizeHint().width(), 470)
    dialog.move(window.mapToGlobal(QPoint(12, 300)))
    await camera.shoot("card", over=[dialog])
    dialog.close()

    # Check this agent, the report in its tab, the first result with exchanges picked.
    check_agent(window, window)
    report = window.check.view
    await _until(lambda: report.ended is not None, timeout=180)
    _pick_first_with_exchanges(report)
    await _until(lambda: report.detail.viewer.isVisible() or report.detail.result is None)
    await camera.shoot("check")

    # A second collection beside the example; one of its requests selected and opened.
    spec = window.spec
    doc = spec.open_spec(SCENARIO, remember=False)
    assert doc is not None
    key = spec.dock.current_key()
    index = spec.dock.model.find(key, "stream")
    spec.dock.tree.setCurrentIndex(index)
    spec.dock.tree.activated.emit(index)  # a double-click
    window.messages.clear()  # "Opened <this machine's path>"
    await camera.shoot("collections")

    await window.shutdown()
    await demo.stop()
    await asyncio.get_running_loop().shutdown_asyncgens()
    window.close_now()


def _indexed(image: Any) -> Any:
    """``image`` in the 256 colours it uses most, each opaque: a window has a few hundred
    (antialiased text takes the nearest), so nothing shows the change, and the PNG is a
    third of the RGB one's size (the pictures ship in the wheel, as the manual's)."""
    from collections import Counter

    from PySide6.QtGui import QImage

    rgb = image.convertToFormat(QImage.Format.Format_RGB32)
    counts = Counter(memoryview(rgb.constBits()).cast("I"))
    table = [colour | 0xFF000000 for colour, _ in counts.most_common(256)]
    return rgb.convertToFormat(QImage.Format.Format_Indexed8, table)


def _pick_first_with_exchanges(report: Any) -> None:
    model = report.shown
    for row in range(model.rowCount()):
        index = model.index(row, 0)
        result = model.result_at(index)
        if result is not None and result.exchanges:
            report.tree.setCurrentIndex(index)
            report.tree.clicked.emit(index)
            return


def main(argv: list[str] | None = None) -> int:
    """Start the window and the demo agent, take the pictures, stop."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=HERE, help="where the PNGs go")
    parser.add_argument(
        "--size", default="x".join(map(str, SIZE)), help="the window's WIDTHxHEIGHT (1280x800)"
    )
    args = parser.parse_args(argv)
    width, height = (int(n) for n in args.size.split("x"))
    args.out.mkdir(parents=True, exist_ok=True)
    home = _fresh_home()
    os.environ.setdefault("QT_API", "pyside6")  # before qasync is imported
    from PySide6.QtWidgets import QApplication

    app = QApplication([sys.argv[0]])
    app.setApplicationName("A2A Workbench")
    app.setOrganizationName("A2A Workbench")

    from app.ui.collections.spec_dock import EXAMPLE_SPEC
    from app.ui.shell.demo_process import DemoAgentProcess
    from app.ui.shell.event_loop import WorkbenchLoop
    from app.ui.shell.main_window import MainWindow

    loop = WorkbenchLoop(app)
    asyncio.set_event_loop(loop)
    window = MainWindow()
    window.resize(width, height)
    demo = DemoAgentProcess(window)
    demo.ready.connect(window.on_demo_ready)
    demo.ready.connect(window.spec.set_demo_info)
    demo.failed.connect(window.on_demo_failed)
    demo.start()
    window.spec.open_spec(EXAMPLE_SPEC, remember=False)
    window.show_welcome()  # as the first start does (app/ui/shell/application.py)
    window.show()
    camera = Camera(window, args.out)
    try:
        with loop:
            loop.run_until_complete(_shoot(window, demo, camera))
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print(f"saved {', '.join(camera.saved)} in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
