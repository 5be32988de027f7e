"""Start the GUI: QApplication, the qasync event loop, the main window, the demo agent.

Order matters (STYLE.md §5): PySide6 is imported before qasync so qasync picks it; the
loop exists before any async resource; on close, running requests are cancelled, the
HTTP client closed and the demo agent stopped *before* the loop stops.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from typing import Any

os.environ.setdefault("QT_API", "pyside6")

import qasync
from PySide6.QtWidgets import QApplication

from app.ui.demo_process import DemoAgentProcess
from app.ui.main_window import MainWindow

log = logging.getLogger("app")


def parse_args(argv: list[str]) -> argparse.Namespace:
    """GUI options: ``--no-demo`` and ``--endpoint URL``."""
    p = argparse.ArgumentParser(prog="a2a-workbench", description="A2A Workbench")
    p.add_argument("--no-demo", action="store_true", help="do not start the bundled demo agent")
    p.add_argument("--endpoint", default="", help="open a first tab pointed at this URL")
    return p.parse_args(argv)


def _report_loop_exception(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    # Exceptions in bare tasks never reach sys.excepthook; log them instead of losing them.
    log.error("Unhandled error in background task: %s", context.get("message"),
              exc_info=context.get("exception"))  # fmt: skip


async def _main(window: MainWindow, demo: DemoAgentProcess | None) -> None:
    closing = asyncio.Event()
    window.close_requested.connect(closing.set)
    await closing.wait()
    await window.shutdown()
    if demo is not None:
        await demo.stop()
    window.close_now()


def run_gui(argv: list[str]) -> int:
    """Run the desktop app until its window is closed; returns the exit status."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    args = parse_args(argv)
    app = QApplication.instance() or QApplication([sys.argv[0]])
    assert isinstance(app, QApplication)
    app.setApplicationName("A2A Workbench")
    app.setOrganizationName("A2A Workbench")
    app.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    loop.set_exception_handler(_report_loop_exception)

    window = MainWindow()
    demo: DemoAgentProcess | None = None
    if args.endpoint or args.no_demo:
        window.new_a2a_tab(args.endpoint)
    if not args.no_demo:
        demo = DemoAgentProcess(window)
        demo.ready.connect(window.on_demo_ready)
        demo.failed.connect(window.on_demo_failed)
        window.demo_label.setText("Demo agent: starting…")
        demo.start()
    window.show()
    with loop:
        loop.run_until_complete(_main(window, demo))
    return 0
