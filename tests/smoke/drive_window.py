"""Drives the real app as a person would, for tests/smoke/test_quiet_terminal.py.

    python -m tests.smoke.drive_window

Starts A2A Workbench through its entry point (``app.__main__.main``: the window, the demo
agent as a child process, qasync's loop) in the home it is given, a fresh one: the first
start. Once the demo agent is ready, through the Welcome tab: sends, streams ``stream 5``,
opens the manual (*Help → Documentation*), checks the agent, then quits with *File → Quit*.
Each step prints one ``drive:`` line on stdout; the app itself should print nothing.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import Any

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QPushButton

from app.ui.help.docs_viewer import DocsViewer
from app.ui.help.welcome_page import WelcomePage
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
    # The first start (a fresh home): the Welcome tab in front, its steps once the demo
    # agent is ready.
    await _until(lambda: window.demo_info is not None and len(window.request_tabs()) == 1)
    page = window.tabs.currentWidget()
    assert isinstance(page, WelcomePage), page
    _say("welcome in front")

    _click(page, "welcomeSendButton")
    tab = window.current_tab()
    assert tab is not None
    await _until(lambda: not tab.busy and tab.response_view.outcome is not None)
    _say(f"send {tab.response_view.status_label.text()}")

    _action(window, "gettingStartedAction")
    _click(page, "welcomeStreamButton")
    stream = window.current_tab()
    assert stream is not None and stream is not tab
    await _until(lambda: not stream.busy and stream.response_view.outcome is not None)
    _say(f"stream {stream.timeline.view.model().rowCount()} events")

    _action(window, "documentationAction")
    viewer = window.findChild(DocsViewer, "documentationViewer")
    assert viewer is not None and viewer.isVisible()
    viewer.open_page("CLI.md", "check")
    viewer.close()
    _say("documentation shown")

    _action(window, "gettingStartedAction")
    _click(page, "welcomeCheckButton")
    await _until(lambda: window.check.view.running, 10)
    await _until(lambda: not window.check.view.running)
    _say("check done")


def _click(page: WelcomePage, name: str) -> None:
    button = page.findChild(QPushButton, name)
    assert button is not None and button.isEnabled(), name
    button.click()


def _action(window: MainWindow, name: str) -> None:
    action = window.findChild(QAction, name)
    assert action is not None, name
    action.trigger()


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
