"""Filling a text view with a large text without freezing the window.

A worker thread produces text pieces (e.g. ``json.JSONEncoder.iterencode``), and the GUI
appends them at the end of the document one piece per event-loop turn, so the window keeps
repainting and the user can scroll while the rest arrives. No full copy of the text is held.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Iterable, Iterator
from typing import Any

from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QPlainTextEdit

from app.ui.response.formatting import pretty_json

PIECE_CHARS = 256 * 1024
"""Characters inserted per event-loop turn: ~10-20 ms of layout work each."""

_END = object()


def pretty_pieces(value: Any) -> Iterator[str]:
    """2-space indented JSON of ``value`` in pieces of about :data:`PIECE_CHARS` characters,
    cut at line ends.

    The whole text is encoded (in C, by orjson) before the first piece is handed out.
    """
    text = pretty_json(value)
    start = 0
    while start < len(text):
        end = text.find("\n", start + PIECE_CHARS)
        end = len(text) if end < 0 else end + 1
        yield text[start:end]
        start = end


async def fill_view(view: QPlainTextEdit, pieces: Iterable[str]) -> None:
    """Replace ``view``'s text with ``pieces``, produced in a worker thread.

    Cancelling the calling task stops the worker and leaves what was inserted so far.
    """
    handoff: queue.Queue[object] = queue.Queue(maxsize=4)
    stop = threading.Event()

    def produce() -> None:
        try:
            for piece in pieces:
                while not stop.is_set():
                    try:
                        handoff.put(piece, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
        finally:
            # The consumer may be gone; never block on the end marker.
            with contextlib.suppress(queue.Full):
                handoff.put(_END, timeout=1)

    view.clear()
    cursor = QTextCursor(view.document())
    worker = threading.Thread(target=produce, name="pretty-json", daemon=True)
    worker.start()
    try:
        while True:
            piece = await asyncio.to_thread(handoff.get)
            if piece is _END:
                break
            assert isinstance(piece, str)
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertText(piece)
            await asyncio.sleep(0)
    finally:
        stop.set()
