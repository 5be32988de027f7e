"""Cyclic garbage collection on the GUI thread only.

CPython runs its cyclic collector in whichever thread allocates past the threshold: a
worker thread (the signature check, the pretty-JSON producer, ``asyncio.to_thread``)
then destroys whatever unreachable cycles exist at that moment. When such a cycle holds
a Qt object's wrapper (a closed dialog, a finished qasync loop with its ``QTimer`` and
``QThread`` objects), Qt deletes the C++ object off its thread: its timers stay
registered with the GUI thread's event dispatcher, and the GUI thread crashes delivering
the next timer event to the freed object (``QTimerInfoList::activateTimers`` →
``QCoreApplication::notifyInternal2``, a segmentation fault).

So automatic collection is switched off and the GUI thread collects instead, on a timer,
generation by generation with the interpreter's own thresholds: the same collections,
only never in a worker thread, and not while a worker builds or takes apart a big body's
value (:func:`app.heap.building`): walking its young containers held the window ~30 ms.
Reference counting, which frees everything not in a cycle, is untouched.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

from app import heap

INTERVAL_MS = 1000
"""How often the GUI thread looks whether a collection is due."""
MAX_POSTPONED = 5
"""Looks in a row that find a big body's value being built (:func:`app.heap.building`) and
collect nothing; then the collection runs all the same."""

_postponed = 0


def collect_due() -> int:
    """Collect the generations whose allocation counts passed their thresholds.

    What the automatic collector would have done by now; returns the objects collected.
    Call it on the GUI thread only.
    """
    global _postponed
    if heap.is_building() and _postponed < MAX_POSTPONED:
        _postponed += 1  # a big body's young value, freed soon: not walked now
        return 0
    _postponed = 0
    counts = gc.get_count()
    for generation, threshold in reversed(list(enumerate(gc.get_threshold()))):
        # The interpreter's rule: the oldest generation whose count passed its threshold.
        if counts[generation] > threshold:
            return gc.collect(generation)
    return 0


class GuiThreadCollector(QObject):
    """Turn automatic collection off for good; collect from a timer on the creating thread.

    Create it on the GUI thread, once, with the application as ``parent``.
    """

    def __init__(self, interval_ms: int = INTERVAL_MS, parent: QObject | None = None) -> None:
        super().__init__(parent)
        gc.disable()
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(collect_due)
        self._timer.start()
