"""Drives the real app as a person would, for tests/smoke/test_quiet_terminal.py.

    python -m tests.smoke.drive_window

Starts A2A Workbench through its entry point (``app.__main__.main``: the window, the demo
agent as a child process, qasync's loop), then, once the demo agent is ready: sends the demo
tab's request, streams ``stream 5`` in a new tab, checks the agent (*Request → Check this
agent…*) and quits with *File → Quit*. Each step prints one ``drive:`` line on stdout; the
app itself should print nothing.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import Any

from app.ui.shell.main_window import MainWindow

TIMEOUT_S = 120.0


async def _until(predicate: Callable[[], Any], timeout: float = TIMEOUT_S) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise TimeoutError("the window did not get there in time")
        await asyncio.sleep(0.05)


def _say(text: str) -> None:
    print(f"drive: {text}", flush=True)


async def drive(window: MainWindow) -> None:
    """Send, stream, check, then quit (also when a step failed: said on stdout)."""
    try:
        await _steps(window)
    except Exception as exc:
        _say(f"FAILED {exc!r}")
    finally:
        window.menus.quit.trigger()


async def _steps(window: MainWindow) -> None:
    await _until(lambda: window.demo_info is not None and window.current_tab() is not None)
    tab = window.current_tab()
    assert tab is not None
    tab.send_button.click()
    await _until(lambda: not tab.busy and tab.response_view.outcome is not None)
    _say(f"send {tab.response_view.status_label.text()}")

    assert window.demo_info is not None
    stream = window.new_a2a_tab(window.demo_info["jsonrpc_url"], "stream 5")
    stream.method_combo.setCurrentIndex(stream.method_combo.findData("SendStreamingMessage"))
    stream.generate_preview()
    stream.replace_body()
    stream.send_button.click()
    await _until(lambda: not stream.busy and stream.response_view.outcome is not None)
    _say(f"stream {stream.timeline.view.model().rowCount()} events")

    window.check.action.trigger()
    await _until(lambda: window.check.view.running, 10)
    await _until(lambda: not window.check.view.running)
    _say("check done")


def main() -> int:
    """Run the app with :func:`drive` started after the window's warm-up."""
    warm_up = MainWindow.warm_up

    async def warm_up_then_drive(self: MainWindow) -> None:
        await warm_up(self)
        # Owned by this script, which ends by quitting: the task is done before shutdown.
        self._drive = asyncio.ensure_future(drive(self))  # type: ignore[attr-defined]

    MainWindow.warm_up = warm_up_then_drive  # type: ignore[method-assign]
    from app.__main__ import main as app_main

    return app_main([])


if __name__ == "__main__":
    sys.exit(main())
