"""The soak line of bench/stream.py: one stream of a million events into a request tab, with
history on, as a debugger left open on a long-running agent sees it.

Measured: the process's resident memory (RSS) before the send and after the stream, with
the tab still open (growth per event, target <= 64 bytes; at the end <= 250 MB), and at
every tenth of the stream (it should grow in a straight line, slowly); the longest GUI
event-loop stall in each tenth (a 5 ms ``QTimer``, target < 50 ms in every one; beside it
the same timer's longest gap in the idle window for a few seconds before: what the
machine's other load causes on its own); events lost (rows in the timeline and items in
the history entry, both must equal the events sent); every row reachable (the frame of
every stream-item row read back: the recent ones from memory, older ones from history,
any spilled ones from the spill file); RSS once the tab is closed.
"""

from __future__ import annotations

import asyncio
import gc
import os
import time
from typing import Any

SEGMENTS = 10
RSS_TARGET_MB = 250
GROWTH_TARGET = 64  # bytes per event
STALL_TARGET_MS = 50
IDLE_SECONDS = 5


def rss_bytes() -> int:
    """This process's resident set size (Linux ``/proc``; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0


def reachable(store: Any) -> tuple[int, int]:
    """``(stream-item rows, rows whose frame was read back)``, over every row."""
    from app.ui.timeline.timeline_store import FRAME

    readers = store.readers()
    items = found = 0
    try:
        for start in range(0, len(store), 4096):
            end = min(start + 4096, len(store))
            frames = store.frames_in(start, end, readers)
            items += sum(1 for n in range(start, end) if store.packed(n) & FRAME)
            found += sum(1 for frame in frames.values() if frame)
    finally:
        for reader in readers.values():
            reader.close()
    return items, found


async def soak(window: Any, endpoint: str, history: Any, events: int) -> None:
    """One stream of ``events`` events from ``endpoint`` (JSON-RPC), history on; prints the
    soak line."""
    from PySide6.QtCore import QTimer

    from app.protocol.types import Binding

    window.history.store = history
    tab = window.new_a2a_tab(endpoint, "soak")
    tab.binding_combo.setCurrentIndex(tab.binding_combo.findData(Binding.JSONRPC))
    tab.method_combo.setCurrentIndex(tab.method_combo.findData("SendStreamingMessage"))
    tab.generate_preview()
    tab.replace_body()
    panel = tab.timeline
    segment = max(events // SEGMENTS, 1)
    stalls = [0.0] * SEGMENTS
    rss_marks: list[int] = []
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        part = min(panel.event_count // segment, SEGMENTS - 1)
        stalls[part] = max(stalls[part], now - last[0])
        last[0] = now
        if panel.event_count >= segment * (len(rss_marks) + 1) and len(rss_marks) < SEGMENTS:
            rss_marks.append(rss_bytes())

    idle = [0.0]

    def idle_tick() -> None:
        now = time.perf_counter()
        idle[0] = max(idle[0], now - last[0])
        last[0] = now

    # The same timer in the idle window first: what the machine's load alone causes.
    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(idle_tick)
    gc.collect()
    last[0] = time.perf_counter()
    timer.start()
    await asyncio.sleep(IDLE_SECONDS)
    timer.stop()
    timer.timeout.disconnect(idle_tick)
    timer.timeout.connect(tick)
    gc.collect()
    before = rss_bytes()
    last[0] = started = time.perf_counter()
    timer.start()
    tab.send_anyway()
    while tab.busy or panel.running:
        await asyncio.sleep(0.02)
    panel.model.flush()
    elapsed = time.perf_counter() - started
    timer.stop()
    await asyncio.to_thread(history.flush, 300)
    gc.collect()
    after = rss_bytes()
    store = panel.model.store
    rows = len(store)
    stored = history.entries(limit=1)[0].items
    checked = time.perf_counter()
    items, found = await asyncio.to_thread(reachable, store)
    checked = time.perf_counter() - checked
    spilled, spill = store.spilled, store.spill_path

    window.tabs.removeTab(window.tabs.indexOf(tab))
    tab.deleteLater()
    await asyncio.sleep(0.2)
    gc.collect()
    closed = rss_bytes()

    growth = (after - before) / max(events, 1)
    worst = max(stalls) * 1000
    lost = max(events - items, events - stored)
    mb = 1024 * 1024
    marks = " ".join(f"{m / mb:.0f}" for m in rss_marks)
    print(f"Soak: {events:,} events, one SSE stream, history on ({elapsed:.1f} s, "
          f"{events / elapsed:,.0f} events/s)")  # fmt: skip
    print(f"  RSS growth       {growth:>10.1f} bytes/event (target <= {GROWTH_TARGET})  "
          f"{'OK' if growth <= GROWTH_TARGET else 'MISS'}  "
          f"({before / mb:.0f} → {after / mb:.0f} MB)")  # fmt: skip
    fits = after <= RSS_TARGET_MB * mb
    print(f"  RSS at the end   {after / mb:>10.0f} MB (target <= {RSS_TARGET_MB})  "
          f"{'OK' if fits else 'MISS'}  at each tenth: {marks} MB")  # fmt: skip
    print(f"  longest GUI stall {worst:>9.1f} ms (target < {STALL_TARGET_MS} in every tenth)  "
          f"{'OK' if worst < STALL_TARGET_MS else 'MISS'}  "
          f"[{', '.join(f'{s * 1000:.0f}' for s in stalls)}] ms; the idle window: "
          f"{idle[0] * 1000:.0f} ms over {IDLE_SECONDS} s")  # fmt: skip
    print(f"  events lost      {lost:>10}   (timeline {items:,} rows of items, history "
          f"{stored:,} items; must be 0)  {'OK' if lost == 0 else 'FAIL'}")  # fmt: skip
    print(f"  rows reachable   {found:>10,} of {items:,} item rows ({rows:,} rows; read back "
          f"in {checked:.1f} s; {spilled:,} frames spilled{' to ' + spill if spill else ''})  "
          f"{'OK' if found == items else 'FAIL'}")  # fmt: skip
    print(f"  RSS, tab closed  {closed / mb:>10.0f} MB")
