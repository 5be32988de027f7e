"""OwnedTask: starting a task cancels the one before; shutdown cancels and awaits it."""

from __future__ import annotations

import asyncio

from app.ui.shell.tasks import OwnedTask


async def test_start_cancels_the_previous_task_and_shutdown_awaits() -> None:
    slot = OwnedTask()
    ended: list[str] = []

    async def work(name: str) -> None:
        try:
            await asyncio.sleep(10)
        finally:
            ended.append(name)

    first = slot.start(work("first"))
    await asyncio.sleep(0)
    second = slot.start(work("second"), then=lambda: ended.append("then"))
    await asyncio.sleep(0)
    assert first.cancelled() and ended == ["first"] and slot.running
    await slot.shutdown()
    assert second.done() and not slot.running
    await asyncio.sleep(0)  # done callbacks run on the next loop turn
    assert ended == ["first", "second", "then"]


async def test_join_waits_without_cancelling() -> None:
    slot = OwnedTask()
    result: list[int] = []

    async def work() -> None:
        await asyncio.sleep(0.01)
        result.append(1)

    slot.start(work())
    await slot.join()
    assert result == [1] and not slot.running
    await slot.join()  # nothing running: returns at once
    await slot.shutdown()
