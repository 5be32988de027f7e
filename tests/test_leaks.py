"""The leak gate's finders see what they must and pass what is finishing anyway."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.helpers import leaks


async def test_a_pending_task_is_named_and_a_finishing_one_is_not() -> None:
    before = asyncio.all_tasks()

    async def forever() -> None:
        await asyncio.Event().wait()

    stuck = asyncio.create_task(forever(), name="stuck")
    finishing = asyncio.create_task(asyncio.sleep(0.05), name="finishing")
    try:
        leaked = await leaks.settle(before, grace=0.3)
        assert finishing.done()
        assert len(leaked) == 1 and leaked[0].startswith("stuck (") and "forever" in leaked[0]
    finally:
        stuck.cancel()
        await asyncio.gather(stuck, return_exceptions=True)


def test_an_active_timer_is_named_and_a_stopped_one_is_not(qapp: Any) -> None:
    from PySide6.QtCore import QTimer

    before = leaks.active_timers()
    ticking = QTimer(qapp)
    ticking.setObjectName("tickingTimer")
    ticking.start(1000)
    stopped = QTimer(qapp)
    stopped.start(1000)
    stopped.stop()
    try:
        leaked = leaks.new_timers(before, grace=0.1)
        assert leaked == ["QTimer tickingTimer of QApplication, interval 1000 ms"]
    finally:
        ticking.stop()
        ticking.deleteLater()
        stopped.deleteLater()
