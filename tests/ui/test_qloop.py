"""The tests' qasync loop behaves as the app's, which never stops: a step that Qt runs while a
test waits outside the loop (``qtbot.wait``) still finds the loop running."""

from __future__ import annotations

import asyncio
from typing import Any


def test_a_step_run_by_qtbot_wait_finds_the_running_loop(
    qtbot: Any, qloop: asyncio.AbstractEventLoop
) -> None:
    found: list[asyncio.AbstractEventLoop] = []

    async def step() -> None:
        await asyncio.sleep(0)
        async with asyncio.timeout(1):  # needs the running loop, as httpx's reads do
            found.append(asyncio.get_running_loop())

    task = qloop.create_task(step())
    qtbot.waitUntil(task.done, timeout=2000)  # Qt's events only: the loop is not run here
    assert task.result() is None and found == [qloop]
