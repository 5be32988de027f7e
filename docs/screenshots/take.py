"""Take the screenshots of README and docs/GUI.md from the real window, with the bundled demo
agent.

    xvfb-run -s "-screen 0 1280x800x24" .venv/bin/python docs/screenshots/take.py

(``QT_QPA_PLATFORM=offscreen`` works too: the window is rendered the same, without a
screen.) The app starts the way ``a2a-workbench`` starts it — the main window, the demo agent
as a child process, the example spec in the spec dock — in a fresh, temporary home, so the
user's session, history and settings neither show up in the pictures nor are touched. Then:

- ``welcome.png``: the first start's Welcome tab, once the demo agent is ready;
- ``send.png``: the demo tab's request sent as it opens (``SendMessage`` ``12 30``) and its
  answer ``Sum: 42``;
- ``stream.png``: a ``SendStreamingMessage`` of ``stream 6 150`` in a second tab, its
  events on the Timeline, one event selected.

Each is the main window at 1280×800, grabbed with ``QWidget.grab()``.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SIZE = (1280, 800)


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


async def _until(predicate: Callable[[], Any], timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise TimeoutError("the window did not get there in time")
        await asyncio.sleep(0.05)


async def _settle() -> None:
    """Let the window lay out and paint what just changed."""
    await asyncio.sleep(0.6)


async def _shoot(window: Any, demo: Any) -> None:
    from PySide6.QtWidgets import QApplication

    await window.warm_up()
    await _until(lambda: window.demo_info is not None and len(window.request_tabs()) == 1)

    # 0. The first start: the Welcome tab in front.
    await _settle()
    window.grab().save(str(HERE / "welcome.png"))

    # 1. The demo tab's request, as the first start offers it: press Send.
    (tab,) = window.request_tabs()
    window.tabs.setCurrentWidget(tab)
    tab.send_or_cancel()
    await _until(lambda: not tab.busy and tab.response_view.outcome is not None)
    await _settle()
    window.grab().save(str(HERE / "send.png"))

    # 2. A stream in a new tab, on its Timeline.
    stream = window.new_a2a_tab(window.demo_info["jsonrpc_url"], "stream 6 150")
    stream.method_combo.setCurrentIndex(stream.method_combo.findData("SendStreamingMessage"))
    stream.generate_preview()
    stream.replace_body()
    stream.result_tabs.setCurrentWidget(stream.timeline)
    stream.send_or_cancel()
    await _until(lambda: not stream.busy and stream.response_view.outcome is not None)
    stream.timeline.view.selectRow(stream.timeline.view.model().rowCount() - 3)
    await _settle()
    window.grab().save(str(HERE / "stream.png"))
    QApplication.processEvents()

    await window.shutdown()
    await demo.stop()
    await asyncio.get_running_loop().shutdown_asyncgens()
    window.close_now()


def main() -> int:
    """Start the window and the demo agent, take the pictures, stop."""
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
    window.resize(*SIZE)
    demo = DemoAgentProcess(window)
    demo.ready.connect(window.on_demo_ready)
    demo.ready.connect(window.spec.set_demo_info)
    demo.failed.connect(window.on_demo_failed)
    demo.start()
    window.spec.open_spec(EXAMPLE_SPEC, remember=False)
    window.show_welcome()  # as the first start does (app/ui/shell/application.py)
    window.show()
    try:
        with loop:
            loop.run_until_complete(_shoot(window, demo))
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print(f"saved welcome.png, send.png and stream.png in {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
