"""Matching timeline rows against filter terms on a worker thread, with progress.

A filter over a million rows reads their frames back (from history or the spill file) and
derives every summary: seconds of work that must not freeze the window. :class:`RowScan`
runs :func:`~app.ui.timeline.timeline_terms.match_rows` on a thread of its own, chunk by
chunk, and hands what it found to the GUI thread as it goes (a timer picks it up: the
thread never touches a Qt object). Starting another scan, or :meth:`RowScan.cancel`, stops
the one running; its late results are dropped.
"""

from __future__ import annotations

import collections
import logging
import threading

from PySide6.QtCore import QObject, QTimer, Signal

from app.ui.timeline.timeline_store import RowStore
from app.ui.timeline.timeline_terms import Term, match_rows

log = logging.getLogger(__name__)

STEP_ROWS = 4096
"""Rows matched between two hand-overs to the GUI thread."""
POLL_MS = 25


class RowScan(QObject):
    """Runs one scan at a time over a :class:`RowStore`.

    Signals:
        found: matches of the running scan, in row order (args: the rows, and the row the
            scan has reached).
        finished: the scan went through all its rows (not emitted when cancelled).
    """

    found = Signal(list, int)
    finished = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._serial = 0
        self._results: collections.deque[tuple[int, list[int], int, bool]] = collections.deque()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.rows = range(0)
        """The rows of the running scan (empty when none runs)."""
        self.reached = 0
        """How far it got."""
        self._poll = QTimer(self)
        self._poll.setInterval(POLL_MS)
        self._poll.timeout.connect(self._take)

    @property
    def running(self) -> bool:
        return bool(self.rows)

    def start(self, store: RowStore, terms: tuple[Term, ...], rows: range) -> None:
        """Match ``rows`` (ascending) of ``store`` against ``terms`` on a worker thread."""
        self.cancel()
        self._serial += 1
        serial, stop, results = self._serial, threading.Event(), self._results
        self._stop = stop
        self.rows, self.reached = rows, rows.start

        def run() -> None:
            readers = store.readers()
            try:
                for start in range(rows.start, rows.stop, STEP_ROWS):
                    part = range(start, min(start + STEP_ROWS, rows.stop))
                    hits = match_rows(store, terms, part, readers, stop.is_set)
                    if stop.is_set():
                        return
                    results.append((serial, hits, part.stop, part.stop == rows.stop))
            except Exception:
                # The rows may be cleared under a scan being cancelled (a new stream): then
                # nothing is wrong. Otherwise the filter stays unfinished, and the log says why.
                if not stop.is_set():
                    log.exception("timeline filter scan failed")
            finally:
                for reader in readers.values():
                    reader.close()

        self._thread = threading.Thread(target=run, name="timeline-scan", daemon=True)
        self._thread.start()
        self._poll.start()

    def cancel(self) -> None:
        """Stop the running scan (its results are dropped)."""
        self._stop.set()
        self.rows = range(0)
        self._results.clear()
        self._poll.stop()

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the worker thread to end (tests, shutdown); then deliver its results."""
        if self._thread is not None:
            self._thread.join(timeout)
        self._take()

    def _take(self) -> None:
        while self._results:
            serial, hits, reached, last = self._results.popleft()
            if serial != self._serial or not self.rows:
                continue
            self.reached = reached
            if last:
                self.rows = range(0)
                self._poll.stop()
            self.found.emit(hits, reached)
            if last:
                self.finished.emit()
