"""Start the GUI: QApplication, the qasync event loop, the main window, the demo agent.

Order matters: PySide6 is imported before qasync so qasync picks it; the
loop exists before any async resource; on close, running requests are cancelled, the
HTTP client closed and the demo agent stopped *before* the loop stops.

The terminal stays quiet: warnings and errors only (``--verbose`` adds the INFO lines), and
the loop closes abandoned async generators in tasks (app/ui/shell/event_loop.py).
``--selftest`` runs in a temporary home (:func:`app.paths.isolate`): it neither restores nor
rewrites the user's session, settings or history.

Start-up is staged for speed (bench/startup.py): the demo agent process is launched first
(it needs ~2 s to listen), the window frame is shown and painted with only Qt imported,
and the rest of the app is imported and assembled right after the first paint.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

# Before anything imports qasync, so that it picks PySide6 whatever else is installed.
os.environ.setdefault("QT_API", "pyside6")

from PySide6.QtCore import QEventLoop
from PySide6.QtWidgets import QApplication

from app.ui.shell.main_window import MainWindow

if TYPE_CHECKING:
    from app.ui.shell.demo_process import DemoAgentProcess


async def _main(window: MainWindow, demo: DemoAgentProcess | None, selftest: bool) -> int:
    import asyncio

    closing = asyncio.Event()
    window.close_requested.connect(closing.set)
    await window.warm_up()
    status = 0
    if selftest:
        status = await _selftest(window, demo)
    else:
        await closing.wait()
    await window.shutdown()
    if demo is not None:
        await demo.stop()
    # Generators a cancelled exchange left suspended are closed while the loop still runs.
    await asyncio.get_running_loop().shutdown_asyncgens()
    window.close_now()
    return status


async def _selftest(window: MainWindow, demo: DemoAgentProcess | None, timeout: float = 60) -> int:
    """Send the demo tab's request once; 0 when the response shows ``Sum: 42``."""
    import asyncio

    failed: list[str] = []
    if demo is not None:
        demo.failed.connect(failed.append)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout

    def demo_tab() -> Any:
        # The tab the demo agent opened (restored session tabs may point elsewhere).
        url = demo.info.get("jsonrpc_url") if demo is not None and demo.info else None
        tabs = [t for t in window.request_tabs() if url and t.endpoint_edit.text() == url]
        return tabs[-1] if tabs else None

    while (tab := demo_tab()) is None:
        if failed or loop.time() > deadline:
            print(f"selftest: no demo agent ({'; '.join(failed) or 'timed out'})", file=sys.stderr)
            return 1
        await asyncio.sleep(0.05)
    tab.send_or_cancel()
    while tab.busy or tab.response_view.outcome is None:
        if loop.time() > deadline:
            print("selftest: no answer in time", file=sys.stderr)
            return 1
        await asyncio.sleep(0.05)
    ok = "Sum: 42" in tab.response_view.pretty_view.toPlainText()
    pid = demo.info.get("pid") if demo is not None and demo.info else None
    verdict = "ok" if ok else "FAILED"
    print(f"selftest: {verdict}: {tab.response_view.status_label.text()} (demo agent pid {pid})")
    return 0 if ok else 1


def _paint(app: QApplication, window: MainWindow, timeout: float = 0.5) -> None:
    """Process events until ``window`` is exposed and painted (at most ``timeout`` s)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        handle = window.windowHandle()
        if handle is not None and handle.isExposed():
            break
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
    app.processEvents()


def run_gui(args: argparse.Namespace) -> int:
    """Run the desktop app until its window is closed; returns the exit status.

    ``args`` are the GUI's options, parsed by the entry point (``app.__main__.gui_options``)
    before Qt was imported.
    """
    level = logging.INFO if args.verbose else logging.WARNING
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    # httpx logs every request at INFO; the response view already shows them.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    if args.selftest and args.no_demo:
        print("--selftest needs the demo agent", file=sys.stderr)
        return 3
    if not args.selftest:
        return _run(args)
    import tempfile

    from app import paths

    # A fresh home: no restored tab, and nothing of the user's read or rewritten.
    with tempfile.TemporaryDirectory(prefix="a2a-workbench-selftest-") as home:
        paths.isolate(Path(home))
        try:
            return _run(args)
        finally:
            paths.isolate(None)


def _run(args: argparse.Namespace) -> int:
    app = QApplication.instance() or QApplication([sys.argv[0]])
    assert isinstance(app, QApplication)
    app.setApplicationName("A2A Workbench")
    app.setOrganizationName("A2A Workbench")
    app.setQuitOnLastWindowClosed(False)

    window = MainWindow(deferred=True)
    demo: DemoAgentProcess | None = None
    if not args.no_demo:
        # Imported only to be used: QProcess and its enums are not part of a --no-demo start.
        from app.ui.shell.demo_process import DemoAgentProcess

        demo = DemoAgentProcess(window)
        demo.ready.connect(window.on_demo_ready)
        demo.failed.connect(window.on_demo_failed)
        window.on_demo_starting()
        demo.start()
    window.show()
    _paint(app, window)
    # The GUI thread's collector, the allocator, the switch interval. From here on: no
    # thread but this one ran before the first paint, and the collector's QTimer is not part
    # of that frame.
    from app.ui.shell import runtime

    runtime.configure(app)

    import asyncio

    from app.ui.collections.spec_dock import EXAMPLE_SPEC
    from app.ui.shell import unexpected
    from app.ui.shell.event_loop import WorkbenchLoop

    loop = WorkbenchLoop(app)
    asyncio.set_event_loop(loop)
    # Errors nobody caught (slots, threads, tasks): logged, and shown with Copy details.
    unexpected.install(window.messages, loop)
    window.complete_setup()
    # The demo agent's saved requests, in the spec tree, unless the last session's
    # collections came back instead (the user may have closed the example).
    if EXAMPLE_SPEC.exists() and window.session.last_collections is None:
        window.spec.open_spec(EXAMPLE_SPEC, remember=False)
    if demo is not None:
        demo.ready.connect(window.spec.set_demo_info)
        if demo.info is not None:
            window.spec.set_demo_info(demo.info)
    if window.session.first_start:
        window.show_welcome()
    if args.endpoint or (args.no_demo and not window.request_tabs()):
        window.new_a2a_tab(args.endpoint)
    with loop:
        return int(loop.run_until_complete(_main(window, demo, args.selftest)))
