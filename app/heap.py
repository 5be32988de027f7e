"""Giving freed heap memory back to the system once a big body is in (glibc; elsewhere a
no-op).

A 25 MiB body arrives in 64 KiB pieces allocated on the event loop's thread; once they are
joined and let go, glibc keeps their 25 MiB in that thread's heap, while the parsed value
and the pretty text are allocated in worker threads' heaps and cannot reuse it. The peak
memory of a big body counted those 25 MiB (about one body) until ``malloc_trim`` hands
them back.

glibc also raises its thresholds as big blocks come and go: after a 25 MiB body was freed
it maps only blocks over 25 MiB apart and keeps up to twice that free at the top of a heap,
which ``malloc_trim`` leaves alone in a worker thread's heap. The value of a big body freed
there stayed in memory (~20 MiB of 45). :func:`configure` fixes both thresholds.
"""

from __future__ import annotations

import contextlib
import ctypes
import sys
import threading
from collections.abc import Callable, Iterator

MMAP_THRESHOLD = 2 << 20
"""Blocks over this size get pages of their own (given back when freed)."""
TRIM_THRESHOLD = 8 << 20
"""Free memory at the top of a heap beyond this goes back to the system on a free."""

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # <malloc.h>

_trim: Callable[[int], int] | None = None
_mallopt: Callable[[int, int], int] | None = None
if sys.platform.startswith("linux"):
    # glibc by its soname: ctypes.util.find_library runs ``ldconfig -p`` in a child process
    # (~30 ms, on the GUI thread when the first request tab is made).
    try:
        _libc = ctypes.CDLL("libc.so.6")
        _trim, _mallopt = _libc.malloc_trim, _libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        _trim = _mallopt = None


def configure() -> None:
    """Fix glibc's mapping and trimming thresholds (they no longer follow the biggest block
    freed); call it once at start."""
    if _mallopt is not None:
        _mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
        _mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)


def trim() -> None:
    """Return the free memory of every heap to the system (a ctypes call: the GIL is
    released meanwhile; call it from a worker thread, it walks the heaps)."""
    if _trim is not None:
        _trim(0)


_building = 0
_building_lock = threading.Lock()


@contextlib.contextmanager
def building() -> Iterator[None]:
    """Around awaiting a worker thread that builds or takes apart a big body's value.

    Meanwhile its tens of thousands of containers are young: a cyclic collection on the GUI
    thread would walk them all (~30 ms for 25 MiB) just before they are freed anyway, so the
    GUI thread's collector waits (:func:`is_building`). The value is parsed, handed to the
    listeners and given to the pretty printer in one step of the event loop: no collection
    falls between the two waits."""
    global _building
    with _building_lock:
        _building += 1
    try:
        yield
    finally:
        with _building_lock:
            _building -= 1


def is_building() -> bool:
    """Whether a big value is being built or taken apart (:func:`building`)."""
    return _building > 0
