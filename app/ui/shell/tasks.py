"""Owned asyncio tasks: the one place the UI starts coroutines on the qasync loop.

Each :class:`OwnedTask` holds at most one task: starting a new one cancels the one before,
and :meth:`OwnedTask.shutdown` cancels and awaits it, so a closing window or tab leaves no
coroutine running behind it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any


class OwnedTask:
    """A slot for one background task of a widget or controller."""

    def __init__(self) -> None:
        self._task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        """True while the task started last has not finished."""
        return self._task is not None and not self._task.done()

    def start(
        self,
        coro: Coroutine[Any, Any, None],
        *,
        then: Callable[[], None] | None = None,
    ) -> asyncio.Task[None]:
        """Run ``coro`` (cancelling the task started before); ``then`` runs when it ends."""
        self.cancel()
        task = asyncio.get_event_loop().create_task(coro)
        if then is not None:
            task.add_done_callback(lambda _task: then())
        self._task = task
        return task

    def cancel(self) -> None:
        """Cancel the running task, if any (it ends at its next await)."""
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def join(self) -> None:
        """Wait for the running task to finish on its own (no cancellation)."""
        if self._task is not None and not self._task.done():
            await self._task

    async def shutdown(self) -> None:
        """Cancel the running task and wait until it has ended."""
        task = self._task
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
