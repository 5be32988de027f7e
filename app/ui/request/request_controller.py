"""One request tab's exchanges: the running request and the side request beside it.

:class:`RequestController` runs :func:`app.protocol.exchange.run_batches` and re-emits its
events as signals, a batch at a time (the stream items of one chunk read off the socket: a
fast stream costs one signal per chunk, not per item); the tab's form and views only listen.
The *side* exchange is a request sent while the main one may still run (*Cancel task* next
to an open stream); its events go to ``side_event_arrived`` so that they never end the main
exchange.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from contextlib import aclosing
from typing import Any

import httpx
from PySide6.QtCore import QObject, Signal

from app.protocol import exchange
from app.protocol.events import EventBatch, ExchangeEnd, ResponseBody
from app.protocol.request import A2ARequest
from app.protocol.stream.followups import is_streaming
from app.ui.shell.tasks import OwnedTask

# While a stream delivers events back to back, yield to the Qt loop this often (seconds).
_BREATHE_S = 0.01


# Batches arriving closer together than this are emitted together (seconds): a gRPC stream
# hands over one message per batch, and each emission costs every listener its own turn.
_COALESCE_S = 0.005
# …unless this many events wait already (an SSE chunk brings hundreds: one emission of more
# would keep the GUI busy too long in one go).
_COALESCE_EVENTS = 100


class _Coalescer:
    """Emits batches as they come, but at most one emission per :data:`_COALESCE_S`:
    small batches arriving sooner wait (a timer emits them if nothing follows); the
    exchange's end and a body are never kept waiting (see :meth:`flush`)."""

    def __init__(self, emit: Callable[[EventBatch], None]) -> None:
        self._emit = emit
        self._pending: EventBatch = []
        self._emitted = 0.0
        self._timer: asyncio.TimerHandle | None = None

    def add(self, batch: EventBatch) -> None:
        self._pending += batch
        wait = self._emitted + _COALESCE_S - time.perf_counter()
        if wait <= 0 or len(self._pending) >= _COALESCE_EVENTS or type(batch[-1]) is ExchangeEnd:
            self.flush()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(wait, self.flush)

    def flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._pending:
            batch, self._pending = self._pending, []
            self._emitted = time.perf_counter()
            self._emit(batch)


class RequestController(QObject):
    """Owns the main and the side exchange of one tab.

    Signals:
        started: the main exchange starts (args: the A2ARequest, whether it streams).
        events_arrived: events of the main exchange, in order (arg: a non-empty
            :data:`~app.protocol.events.EventBatch`, a list the listeners must not change).
        finished: the main exchange is over: ended, failed or cancelled (no args).
        side_started: the side exchange starts (arg: the A2ARequest).
        side_event_arrived: an event of the side exchange (arg: the ExchangeEvent).
        side_finished: the side exchange is over (no args).
    """

    started = Signal(object, bool)
    events_arrived = Signal(object)
    finished = Signal()
    side_started = Signal(object)
    side_event_arrived = Signal(object)
    side_finished = Signal()

    def __init__(
        self, http_client: Callable[[], httpx.AsyncClient], parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._http_client = http_client
        self._main = OwnedTask()
        self._side = OwnedTask()
        self._held: list[Coroutine[Any, Any, None]] = []

    @property
    def busy(self) -> bool:
        """True while the main exchange runs."""
        return self._main.running

    @property
    def side_busy(self) -> bool:
        """True while the side exchange runs."""
        return self._side.running

    def send(self, request: A2ARequest) -> None:
        """Start ``request`` as the main exchange (the caller checks :attr:`busy` first)."""
        self.started.emit(request, is_streaming(request.version, request.method))
        self._main.start(self._run(request))

    def send_side(self, request: A2ARequest) -> None:
        """Start ``request`` as the side exchange (the caller checks :attr:`side_busy`)."""
        self.side_started.emit(request)
        self._side.start(self._run_side(request))

    def cancel(self) -> None:
        """Stop the main exchange (locally: the connection is closed)."""
        self._main.cancel()

    def hold(self, work: Coroutine[Any, Any, None]) -> None:
        """Finish ``work`` before the next event is emitted (a listener formatting a large
        body keeps the events after it in order)."""
        self._held.append(work)

    async def shutdown(self) -> None:
        """Cancel and await both exchanges (before the tab or the app closes)."""
        await self._main.shutdown()
        await self._side.shutdown()

    async def _run(self, request: A2ARequest) -> None:
        breathed = time.perf_counter()
        coalesced = _Coalescer(self.events_arrived.emit)
        try:
            batches = exchange.run_batches(request, http=self._http_client())
            async with aclosing(batches):
                async for batch in batches:
                    if any(isinstance(event, ResponseBody) for event in batch):
                        coalesced.flush()
                        # A listener may hold the events after a body (see hold()).
                        for event in batch:
                            await self._emit([event])
                    else:
                        coalesced.add(batch)
                        while self._held:
                            await self._held.pop(0)
                    # A fast stream arrives in big chunks: let the GUI breathe between them.
                    now = time.perf_counter()
                    if now - breathed > _BREATHE_S:
                        await asyncio.sleep(0)
                        breathed = time.perf_counter()
        finally:
            coalesced.flush()
            for work in self._held:  # cancelled before it could run
                work.close()
            self._held.clear()
            self.finished.emit()

    async def _emit(self, batch: EventBatch) -> None:
        self.events_arrived.emit(batch)
        while self._held:
            await self._held.pop(0)

    async def _run_side(self, request: A2ARequest) -> None:
        try:
            async for event in exchange.run(request, http=self._http_client()):
                self.side_event_arrived.emit(event)
        finally:
            self.side_finished.emit()
