"""A blocking iterator read in a thread of its own, handed to the event loop in batches.

The gRPC binding reads server streams this way, with the library's blocking API: on
``grpc.aio`` every message wakes the event loop (the library's poller thread, a socket
notifier, the call's future, the consumer's task), ~100-150 µs of the GUI thread per
message in ``bench/stream.py``, more than the blocking API's whole read of it. Here the
thread reads and does the per-message work (ProtoJSON, classification: the iterator's own
code); the loop wakes once for whatever has arrived meanwhile, as it does for an SSE chunk.

Qt-free; the loop is whichever asyncio loop :meth:`ThreadedReader.batches` runs on.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncGenerator, Callable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")

BATCH_ITEMS = 50
"""Most items handed over at once (a consumer pays its per-batch costs per this many)."""

WAITING_ITEMS = 1000
WAITING_BYTES = 8 * 1024 * 1024
"""Items (and their weight in bytes) read ahead of the consumer before the thread waits
(then the library's flow control holds the server back). The thread must not wait while
the loop gathers (:data:`GATHER_S`) and works through what it took: at 100 it did, idle
three quarters of a stream, which then took ~85 µs an item where its two threads' work
is ~55 (bench/stream.py, gRPC: 88 → 60 µs an item, the longest GUI stall no longer)."""

GATHER_S = 0.004
"""How long the loop lets items gather after a wake-up before it takes them."""


class ThreadedReader(Generic[T]):
    """Runs ``produce()`` (an iterator that blocks) in a daemon thread; :meth:`batches`
    yields its items in order on the loop and then raises what it raised, if anything.

    ``on_exit`` runs in the thread when the iterator is done (closing what it read from);
    ``weigh`` gives an item's size in bytes, for the read-ahead's bound in bytes.
    """

    def __init__(
        self,
        produce: Callable[[], Iterator[T]],
        on_exit: Callable[[], None],
        weigh: Callable[[T], int] = lambda _item: 0,
    ) -> None:
        self._produce = produce
        self._on_exit = on_exit
        self._weigh = weigh
        self._cond = threading.Condition()
        self._items: list[T] = []
        self._bytes = 0
        self._error: BaseException | None = None
        self._finished = False
        self._stopped = False
        self._wake_pending = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._arrived: asyncio.Event | None = None
        self.started = False
        """Whether the thread was started (else ``on_exit`` never runs)."""

    async def batches(self) -> AsyncGenerator[list[T], None]:
        """Start the thread; yield what it read, at most :data:`BATCH_ITEMS` at a time.

        Raises:
            BaseException: what the iterator raised, after the items read before it.
        """
        self._loop = asyncio.get_running_loop()
        self._arrived = asyncio.Event()
        self.started = True
        threading.Thread(target=self._read, name="grpc-stream-reader", daemon=True).start()
        try:
            while True:
                await self._arrived.wait()
                # Let a few more arrive first: each wake-up of the loop costs more than an
                # item (the reader stops at WAITING_ITEMS meanwhile).
                await asyncio.sleep(GATHER_S)
                self._arrived.clear()
                with self._cond:
                    taken = self._items
                    self._items, self._bytes = [], 0
                    self._wake_pending = False
                    finished, error = self._finished, self._error
                    self._cond.notify()
                for start in range(0, len(taken), BATCH_ITEMS):
                    yield taken[start : start + BATCH_ITEMS]
                if finished:
                    if error is not None:
                        raise error
                    return
        finally:
            self.stop()

    def stop(self) -> None:
        """Nothing more is taken: the thread stops at its next item (a thread blocked in the
        iterator ends when the caller makes its source end, e.g. by cancelling the call)."""
        with self._cond:
            self._stopped = True
            self._items, self._bytes = [], 0
            self._cond.notify()

    def _read(self) -> None:
        error: BaseException | None = None
        try:
            weigh = self._weigh
            for item in self._produce():
                weight = weigh(item)
                with self._cond:
                    while (
                        len(self._items) >= WAITING_ITEMS or self._bytes >= WAITING_BYTES
                    ) and not self._stopped:
                        self._cond.wait()
                    if self._stopped:
                        break
                    self._items.append(item)
                    self._bytes += weight
                    wake = not self._wake_pending
                    self._wake_pending = True
                if wake:
                    self._wake()
        except BaseException as exc:  # handed to the loop; nothing is lost in this thread
            error = exc
        finally:
            try:
                self._on_exit()
            finally:
                with self._cond:
                    self._finished, self._error = True, error
                    self._wake_pending = True
                self._wake()

    def _wake(self) -> None:
        assert self._loop is not None and self._arrived is not None
        # A closed loop (RuntimeError): nobody is listening any more.
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._arrived.set)
