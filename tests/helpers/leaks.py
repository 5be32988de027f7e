"""Finding what a test left running: asyncio tasks it started, Qt timers still active.

A test (or the app code it drives) owns what it starts: a task still pending or a timer still
ticking after the test would fire into the next test, or keep a closed window alive. The checks
allow a short grace period first, so work that is already finishing is not reported.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Iterable
from typing import Any

GRACE = 0.5  # seconds the loop may run to let finishing tasks finish


def describe_task(task: asyncio.Task[Any]) -> str:
    """The task's name and the coroutine it runs, e.g. ``Task-7 (RequestTab._run)``."""
    coro = task.get_coro()
    where = getattr(coro, "__qualname__", None) or repr(coro)
    return f"{task.get_name()} ({where})"


async def settle(before: Iterable[asyncio.Task[Any]], grace: float = GRACE) -> list[str]:
    """Tasks started since ``before`` that are still pending after ``grace`` seconds."""
    known = set(before) | {asyncio.current_task()}
    deadline = time.monotonic() + grace
    while True:
        pending = [t for t in asyncio.all_tasks() if t not in known and not t.done()]
        if not pending or time.monotonic() >= deadline:
            return sorted(describe_task(t) for t in pending)
        await asyncio.sleep(0.01)


def settle_loop(loop: asyncio.AbstractEventLoop, grace: float = GRACE) -> list[str]:
    """Pending tasks of a loop that is not running, after letting it run up to ``grace`` s."""
    deadline = time.monotonic() + grace
    while True:
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        if not pending or time.monotonic() >= deadline:
            return sorted(describe_task(t) for t in pending)
        loop.run_until_complete(asyncio.sleep(0.01))


def active_timers() -> dict[Any, str]:
    """Active ``QTimer``s reachable from the application and its top-level widgets.

    Keyed by the timer object itself: holding it keeps its identity from being reused.

    Empty when Qt was never imported or there is no application (a test without Qt).
    """
    if "PySide6.QtWidgets" not in sys.modules:
        return {}
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        return {}
    timers: dict[Any, str] = {}
    owners: list[Any] = [app, *QApplication.topLevelWidgets()]
    for owner in owners:
        for timer in owner.findChildren(QTimer):
            if timer.isActive():
                timers[timer] = _describe_timer(timer)
    return timers


def _describe_timer(timer: Any) -> str:
    parent = timer.parent()
    owner = type(parent).__name__ if parent is not None else "no parent"
    if parent is not None and parent.objectName():
        owner += f" {parent.objectName()!r}"
    name = timer.objectName() or "unnamed"
    return f"QTimer {name} of {owner}, interval {timer.interval()} ms"


def new_timers(before: Iterable[Any], grace: float = GRACE) -> list[str]:
    """Timers active now and not in ``before``, after ``grace`` seconds of event processing.

    Deferred deletions run first, so a closed window's timers go with it.
    """
    known = set(before)
    deadline = time.monotonic() + grace
    while True:
        leaked = [text for key, text in active_timers().items() if key not in known]
        if not leaked or time.monotonic() >= deadline:
            return sorted(leaked)
        from PySide6.QtCore import QCoreApplication, QEvent

        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        QCoreApplication.processEvents()
        time.sleep(0.01)
