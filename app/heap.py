"""Giving freed heap memory back to the system once a big body is in (glibc; elsewhere a
no-op).

A 25 MiB body arrives in 64 KiB pieces allocated on the event loop's thread; once they are
joined and let go, glibc keeps their 25 MiB in that thread's heap, while the parsed value
and the pretty text are allocated in worker threads' heaps and cannot reuse it. The peak
memory of a big body counted those 25 MiB (about one body) until ``malloc_trim`` hands
them back.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable

_trim: Callable[[int], int] | None = None
if sys.platform.startswith("linux"):
    # glibc by its soname: ctypes.util.find_library runs ``ldconfig -p`` in a child process
    # (~30 ms, on the GUI thread when the first request tab is made).
    try:
        _trim = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        _trim = None


def trim() -> None:
    """Return the free memory of every heap to the system (a ctypes call: the GIL is
    released meanwhile; call it from a worker thread, it walks the heaps)."""
    if _trim is not None:
        _trim(0)
