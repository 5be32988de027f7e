"""Where a timeline keeps the frames of rows beyond its window when history does not hold
them (history off, or not written yet): a temporary file its model owns and deletes.

Frames are appended as ``[length: 4 bytes][frame]``; a row remembers the offset of its
record. Reads use ``os.pread``, so a filter's worker thread reads while the GUI thread
appends. The file is deleted by :meth:`SpillFile.close` (the timeline is cleared or its
model destroyed) and, should the model never be closed, when the process exits.
"""

from __future__ import annotations

import contextlib
import os
import struct
import tempfile
import threading
import weakref
from collections.abc import Iterable, Sequence

_LENGTH = struct.Struct("<I")
PREFIX = "a2a-workbench-timeline-"


def _remove(fd: int, path: str) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(path)


class SpillFile:
    """An append-only file of frames, deleted on :meth:`close`."""

    def __init__(self, directory: str | None = None) -> None:
        fd, path = tempfile.mkstemp(prefix=PREFIX, suffix=".spill", dir=directory)
        self.path = path
        self._fd = fd
        self._size = 0
        self._lock = threading.Lock()  # appends and close; reads need none (pread)
        self._finalizer = weakref.finalize(self, _remove, fd, path)

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    def append(self, frames: Sequence[bytes]) -> list[int]:
        """Write ``frames``; returns the offset of each one's record."""
        offsets: list[int] = []
        pieces: list[bytes] = []
        with self._lock:
            offset = self._size
            for frame in frames:
                offsets.append(offset)
                pieces += (_LENGTH.pack(len(frame)), frame)
                offset += _LENGTH.size + len(frame)
            data = b"".join(pieces)
            written = 0
            while written < len(data):
                written += os.write(self._fd, data[written:] if written else data)
            self._size = offset
        return offsets

    def read(self, offsets: Iterable[int]) -> dict[int, bytes]:
        """The frames recorded at ``offsets`` (one read for the span they cover)."""
        wanted = sorted(set(offsets))
        if not wanted:
            return {}
        first, last = wanted[0], wanted[-1]
        try:
            (last_size,) = _LENGTH.unpack(os.pread(self._fd, _LENGTH.size, last))
            span = os.pread(self._fd, last + _LENGTH.size + last_size - first, first)
        except (OSError, struct.error):  # closed meanwhile (the tab went away)
            return {}
        found: dict[int, bytes] = {}
        for offset in wanted:
            start = offset - first
            (size,) = _LENGTH.unpack_from(span, start)
            found[offset] = span[start + _LENGTH.size : start + _LENGTH.size + size]
        return found

    def close(self) -> None:
        """Delete the file (idempotent)."""
        with self._lock:
            self._finalizer()
