"""Handing freed heap memory back is safe to call anywhere, any time."""

from __future__ import annotations

import threading

from app import heap


def test_trim_runs_on_any_thread() -> None:
    pieces = [bytes(65536) for _ in range(64)]
    joined = b"".join(pieces)
    pieces.clear()
    heap.trim()
    worker = threading.Thread(target=heap.trim)
    worker.start()
    worker.join()
    assert len(joined) == 64 * 65536
