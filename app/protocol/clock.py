"""Monotonic time since an exchange started, for event timestamps."""

from __future__ import annotations

import time


class Clock:
    """Seconds since construction, from :func:`time.perf_counter`."""

    __slots__ = ("_start",)

    def __init__(self) -> None:
        self._start = time.perf_counter()

    def now(self) -> float:
        """Seconds (float) since the exchange started."""
        return time.perf_counter() - self._start
