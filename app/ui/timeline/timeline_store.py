"""The timeline's rows in compact form: columns of numbers, and frames kept for a window.

A stream left open for a day brings millions of events; a row must not cost a tuple, a
summary string and its frame for as long as the tab is open (720 bytes an event before
this). A row is four numbers in typed arrays (18 bytes, and no object made to append
one) — time, a packed word (kind, state, flags, connection), the task as an index into the
ids seen, the item's sequence number — and the view's texts are made when a row is painted
(summaries from the frame, :func:`~app.ui.timeline.timeline_row.frame_summary`).

The raw frames of the last :data:`WINDOW_ROWS` or so rows stay in memory. Older frames are
let go once the exchange's history entry holds them (a :class:`FrameBacking`, read back by
sequence number: ``app/history/item_reader.py``) or, with history off or behind, are
written to a temporary file the store owns and deletes (``timeline_spill.py``). Rows that
are not stream items (markers, errors, bodies, the end: a handful per connection) and the
few facts that cannot be derived (lint findings, an error judged on an item, big parsed
JSON) are kept in dicts by row.

Thread use: the GUI thread appends and evicts; a worker thread may read any row through
:meth:`RowStore.frames_in`, :meth:`RowStore.summary_of` and :meth:`RowStore.display` with
readers of its own (:meth:`RowStore.readers`). Frames before the window never change; the
window is read under a lock.
"""

from __future__ import annotations

import bisect
import logging
import threading
from array import array
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Protocol

from app.protocol.events import NOT_JSON
from app.protocol.findings import Finding
from app.protocol.stream.stream_items import ItemKind, TaskState
from app.ui.timeline.timeline_row import PARSE_RAW, TimelineRow, frame_summary, short_id
from app.ui.timeline.timeline_spill import SpillFile

log = logging.getLogger(__name__)

WINDOW_ROWS = 5000
"""Rows whose frames stay in memory (up to twice as many between two evictions)."""
BEHIND_WINDOWS = 8
"""How far (in windows) the history writer may fall behind before frames spill instead."""
PAGE_ROWS = 256
"""Frames read back together (a screenful is a page or two)."""
CACHED_PAGES = 8
CACHED_SUMMARIES = 2048

COLUMNS = ("#", "+ms", "Kind", "Task", "State", "Summary")
COL_SEQ, COL_TIME, COL_KIND, COL_TASK, COL_STATE, COL_SUMMARY = range(len(COLUMNS))

UNREADABLE = "(frame no longer stored: its history entry was deleted)"


class FrameBacking(Protocol):
    """Where a connection's frames can be read back by sequence number once stored."""

    @property
    def last_seq(self) -> int: ...

    def refresh(self) -> int: ...

    def frames(self, seqs: list[int]) -> dict[int, bytes]: ...

    def clone(self) -> FrameBacking: ...

    def close(self) -> None: ...


KINDS: tuple[ItemKind, ...] = tuple(ItemKind)
_KIND_CODE = {kind: code for code, kind in enumerate(KINDS)}
STATES: tuple[TaskState | None, ...] = (None, *TaskState)
_STATE_CODE = {state: code for code, state in enumerate(STATES)}
_KIND_TEXT = tuple(kind.value for kind in KINDS)
_STATE_TEXT = tuple("" if state is None else state.value for state in STATES)

# The packed word of a row: kind (4 bits), state (4 bits), flags (8 bits), connection (16).
_KIND_BITS = 0x0F
_STATE_SHIFT = 4
_STATE_BITS = 0x0F
MARKER = 1 << 8
FRAME = 1 << 9
"""A stream item's row: its frame in the window, then in history or the spill file."""
PARSED = 1 << 10
"""Its JSON is parsed from the frame when asked for."""
KEPT = 1 << 11
"""Its parsed JSON is kept (``_kept``) while the row is in the window."""
SPILLED = 1 << 12
FINDINGS = 1 << 13
SUMMARY = 1 << 14
"""Its summary is stored (``_summaries``), not derived from the frame."""
NOTES = 1 << 15
"""The frame's JSON error or SSE event name is stored (``_notes``)."""
_CONN_SHIFT = 16
_CONN_MAX = 0xFFFF
_NO_SEQ = 0xFFFFFFFF
_BIG_SEQ = 0xFFFFFFFE

Findings = tuple[tuple[str, str], ...]


class RowStore:
    """Every row of one timeline (see the module docstring)."""

    def __init__(self, window: int = WINDOW_ROWS, spill_dir: str | None = None) -> None:
        self.window = window
        self.spill_dir = spill_dir
        self._lock = threading.Lock()
        self._spill: SpillFile | None = None
        self._segments: list[tuple[int, FrameBacking | None]] = []
        self.reset()

    def reset(self) -> None:
        """Forget every row (and delete the spill file, close the backings)."""
        with self._lock:
            self._close_sources()
            self._t = array("d")
            self._packed = array("I")
            self._task = array("H")  # widened to "I" past 65 535 task ids
            self._seq = array("I")  # _NO_SEQ: none; _BIG_SEQ: in _big_seqs
            self._spill_rows = array("q")  # the rows spilled, ascending
            self._spill_offsets = array("q")  # and where in the spill file
            self._recent: list[bytes] = []  # frames of rows [base, len)
            self._base = 0
            self._segments = [(0, None)]
            self._firsts = [0]
        self._big_seqs: dict[int, int] = {}
        self._task_ids: list[str] = [""]
        self._task_code: dict[str, int] = {"": 0}
        self._summaries: dict[int, str] = {}
        self._findings: dict[int, Findings] = {}
        self._finding_tuples: dict[Findings, Findings] = {}
        self._kept: dict[int, Any] = {}
        self._raws: dict[int, bytes] = {}  # frames of rows that are not stream items
        self._notes: dict[int, tuple[str, str]] = {}
        self._pages: OrderedDict[int, dict[int, bytes]] = OrderedDict()
        self._summary_cache: dict[int, str] = {}
        self.spilled = 0
        """Frames written to the spill file so far."""

    def close(self) -> None:
        """Delete the spill file and close the backings (the timeline goes away)."""
        with self._lock:
            self._close_sources()

    def _close_sources(self) -> None:
        if self._spill is not None:
            self._spill.close()
            self._spill = None
        for _first, backing in self._segments:
            if backing is not None:
                backing.close()

    def __len__(self) -> int:
        return len(self._t)

    @property
    def spill_path(self) -> str | None:
        """The spill file, while there is one."""
        return self._spill.path if self._spill is not None else None

    @property
    def window_start(self) -> int:
        """The first row whose frame is still in memory."""
        return self._base

    def back_with(self, backing: FrameBacking | None) -> None:
        """Stream items appended from now on are stored by ``backing`` (None: by nobody)."""
        n = len(self._t)
        with self._lock:
            if self._segments[-1][0] == n:
                old = self._segments.pop()[1]
                self._firsts.pop()
                if old is not None and old is not backing:
                    old.close()
            self._segments.append((n, backing))
            self._firsts.append(n)

    # --- appending ------------------------------------------------------------------

    def add_frame(
        self,
        t_ms: float,
        kind: ItemKind,
        task_id: str,
        state: TaskState | None,
        raw: bytes,
        data: Any,
        connection: int,
        seq: int,
    ) -> int:
        """A stream item's row; its summary is derived from ``raw`` when shown. ``data``:
        PARSE_RAW (JSON parsed from the frame when asked), NOT_JSON, or the parsed JSON
        (kept while the row is in the window). Returns the row's index."""
        # Once per event of a stream, on the GUI thread: no object made per row.
        n = len(self._t)
        code = self._task_code.get(task_id)
        if code is None:
            code = self._intern(task_id)
        packed = _KIND_CODE[kind] | _STATE_CODE[state] << _STATE_SHIFT | FRAME
        if data is PARSE_RAW:
            packed |= PARSED
        elif data is not NOT_JSON:
            packed |= PARSED | KEPT
            self._kept[n] = data
        self._t.append(t_ms)
        self._packed.append(packed | min(connection, _CONN_MAX) << _CONN_SHIFT)
        self._task.append(code)
        self._seq.append(seq if 0 <= seq < _BIG_SEQ else self._big_seq(n, seq))
        self._recent.append(raw)
        return n

    def note_frame(self, n: int, json_error: str, sse_event: str) -> None:
        """What the frame of row ``n`` said beyond its bytes (why its data is not JSON, its
        SSE ``event:`` name): needed to derive its summary again."""
        self._notes[n] = (json_error, sse_event)
        self._packed[n] |= NOTES

    def set_summary(self, n: int, summary: str) -> None:
        """Row ``n`` shows ``summary`` rather than what its frame gives."""
        self._summaries[n] = summary
        self._packed[n] |= SUMMARY
        self._summary_cache.pop(n, None)

    def set_findings(self, n: int, findings: Sequence[Finding]) -> None:
        pairs = tuple((f.rule, f.message) for f in findings)
        if pairs:
            # The same lint message repeats on many rows: one tuple for all of them.
            self._findings[n] = self._finding_tuples.setdefault(pairs, pairs)
            self._packed[n] |= FINDINGS
        else:
            self._findings.pop(n, None)
            self._packed[n] &= ~FINDINGS

    def add_row(self, row: TimelineRow) -> int:
        """Any other row (a marker, an error, a body, the end): kept whole."""
        n = len(self._t)
        self._t.append(row.t_ms)
        self._packed.append(0)
        self._task.append(0)
        self._seq.append(_NO_SEQ)
        self._recent.append(b"")
        self.update(n, row)
        return n

    def update(self, n: int, row: TimelineRow) -> None:
        """Store ``row`` (a changed copy of row ``n``, or a new row) as row ``n``. A stream
        item's frame stays as received (its ``raw`` is not taken from the copy)."""
        old = self._packed[n]
        packed = old & (FRAME | SPILLED | NOTES)
        packed |= _KIND_CODE[row.kind] | _STATE_CODE[row.state] << _STATE_SHIFT
        packed |= min(row.connection, _CONN_MAX) << _CONN_SHIFT
        if row.marker:
            packed |= MARKER
        data = row.data_as_given
        self._kept.pop(n, None)
        if old & (PARSED | KEPT) == PARSED and data is not NOT_JSON:
            data = PARSE_RAW  # a copy whose JSON was parsed: parsed again when asked
        if data is PARSE_RAW:
            packed |= PARSED
        elif data is not NOT_JSON:
            packed |= PARSED | KEPT
            self._kept[n] = data
        self._packed[n] = packed
        self._t[n] = row.t_ms
        code = self._task_code.get(row.task_id)
        self._task[n] = self._intern(row.task_id) if code is None else code
        seq = row.item_seq
        self._big_seqs.pop(n, None)
        if seq is None:
            self._seq[n] = _NO_SEQ
        else:
            self._seq[n] = seq if 0 <= seq < _BIG_SEQ else self._big_seq(n, seq)
        self.set_findings(n, row.findings)
        if not packed & FRAME:
            if row.raw:
                self._raws[n] = row.raw
            else:
                self._raws.pop(n, None)
        self._summary_cache.pop(n, None)
        if packed & FRAME and row.summary == self._derived_summary(n, packed):
            self._summaries.pop(n, None)
        else:
            self._summaries[n] = row.summary
            self._packed[n] |= SUMMARY

    def _intern(self, task_id: str) -> int:
        code = len(self._task_ids)
        if code > 0xFFFF and self._task.typecode == "H":
            self._task = array("I", self._task)
        self._task_ids.append(task_id)
        self._task_code[task_id] = code
        return code

    def _big_seq(self, n: int, seq: int) -> int:
        self._big_seqs[n] = seq
        return _BIG_SEQ

    def seq(self, n: int) -> int | None:
        """Row ``n``'s item sequence number (None: not a stream item)."""
        seq = self._seq[n]
        if seq >= _BIG_SEQ:
            return None if seq == _NO_SEQ else self._big_seqs.get(n)
        return seq

    # --- the window -----------------------------------------------------------------

    def evict(self) -> int:
        """Once the window holds twice its size, let all but its last :attr:`window` rows'
        frames go (however many a fast stream brought since); returns how many rows left
        it. Frames the history holds are dropped; frames it does not hold yet (its writer
        is behind) stay until it does, unless the window is :data:`BEHIND_WINDOWS` times its
        size; frames nobody stores are spilled."""
        if len(self._recent) < 2 * self.window:
            return 0
        start, end = self._base, self._base + len(self._recent) - self.window
        patient = len(self._recent) < BEHIND_WINDOWS * self.window
        packed, recent, seq = self._packed, self._recent, self.seq
        spill_rows: list[int] = []
        offsets: list[int] = []
        for first, last, backing in self._segments_between(start, end):
            stored = _refresh(backing)
            for n in range(first, last):
                if packed[n] & FRAME and not 0 <= (seq(n) or 0) <= stored:
                    if backing is not None and patient:
                        end = n  # to be stored soon: the next flush looks again
                        break
                    spill_rows.append(n)
            if end < last:
                break
        gone = end - start
        if not gone:
            return 0
        if spill_rows:
            if self._spill is None:
                self._spill = SpillFile(self.spill_dir)
            offsets = self._spill.append([recent[n - start] for n in spill_rows])
            self.spilled += len(offsets)
        with self._lock:
            for n in spill_rows:
                packed[n] |= SPILLED
            self._spill_rows.extend(spill_rows)
            self._spill_offsets.extend(offsets)
            del recent[:gone]
            self._base = end
        for n in [n for n in self._kept if n < end and packed[n] & FRAME]:
            del self._kept[n]  # big parsed JSON: parsed again from the frame when asked
        return gone

    def _segments_between(self, start: int, end: int) -> list[tuple[int, int, FrameBacking | None]]:
        """``(first, last, backing)`` for each connection's part of rows [start, end)."""
        found = []
        index = bisect.bisect_right(self._firsts, start) - 1
        segments = self._segments
        while index < len(segments) and segments[index][0] < end:
            first = max(segments[index][0], start)
            last = segments[index + 1][0] if index + 1 < len(segments) else end
            found.append((first, min(last, end), segments[index][1]))
            index += 1
        return found

    # --- reading (GUI thread) ---------------------------------------------------------

    def frame(self, n: int) -> bytes | None:
        """Row ``n``'s bytes (None: no longer readable)."""
        packed = self._packed[n]
        if not packed & FRAME:
            return self._raws.get(n, b"")
        if n >= self._base:
            return self._recent[n - self._base]
        page = n // PAGE_ROWS
        frames = self._pages.get(page)
        if frames is None:
            start = page * PAGE_ROWS
            end = start + PAGE_ROWS
            frames = self.frames_in(start, min(end, self._base), None)
            if end <= self._base:  # a page the window still reaches into is read again
                self._pages[page] = frames
                if len(self._pages) > CACHED_PAGES:
                    self._pages.popitem(last=False)
        else:
            self._pages.move_to_end(page)
        return frames.get(n)

    def summary(self, n: int) -> str:
        packed = self._packed[n]
        if packed & SUMMARY:
            return self._summaries[n]
        cached = self._summary_cache.get(n)
        if cached is None:
            cached = self._derived_summary(n, packed)
            cache = self._summary_cache
            if len(cache) >= CACHED_SUMMARIES:
                del cache[next(iter(cache))]
            cache[n] = cached
        return cached

    def _derived_summary(self, n: int, packed: int) -> str:
        if not packed & FRAME:
            return ""
        raw = self.frame(n)
        return self.summary_of(n, packed, raw)

    def summary_of(self, n: int, packed: int, raw: bytes | None) -> str:
        """Row ``n``'s summary from its frame ``raw`` (any thread)."""
        if packed & SUMMARY:
            return self._summaries.get(n, "")
        if raw is None:
            return UNREADABLE
        json_error, sse_event = self._notes.get(n, ("", "")) if packed & NOTES else ("", "")
        return frame_summary(raw, bool(packed & PARSED), json_error, sse_event)

    def row(self, n: int) -> TimelineRow:
        """A copy of row ``n``."""
        packed = self._packed[n]
        raw = self.frame(n)
        if packed & KEPT and n in self._kept:
            data = self._kept[n]
        elif packed & PARSED and raw:
            data = PARSE_RAW
        else:
            data = NOT_JSON
        row = TimelineRow(
            self._t[n],
            KINDS[packed & _KIND_BITS],
            self._task_ids[self._task[n]],
            STATES[packed >> _STATE_SHIFT & _STATE_BITS],
            self.summary(n),
            b"" if raw is None else raw,
            data,
            [Finding(rule, message) for rule, message in self._findings.get(n, ())],
            packed >> _CONN_SHIFT,
            self.seq(n),
            bool(packed & MARKER),
        )
        row.index = n
        return row

    # --- what a row shows -------------------------------------------------------------

    def packed(self, n: int) -> int:
        return self._packed[n]

    def kind(self, n: int) -> ItemKind:
        return KINDS[self._packed[n] & _KIND_BITS]

    def state_text(self, n: int) -> str:
        return _STATE_TEXT[self._packed[n] >> _STATE_SHIFT & _STATE_BITS]

    def findings(self, n: int) -> Findings:
        return self._findings.get(n, ()) if self._packed[n] & FINDINGS else ()

    def display(self, n: int, col: int, summary: str | None = None) -> str:
        """The text of column ``col`` of row ``n`` (``summary`` if already known)."""
        packed = self._packed[n]
        if col == COL_SEQ:
            return str(n + 1)
        if col == COL_TIME:
            t = self._t[n]
            return "" if packed & MARKER and not t else f"{t:,.1f}"
        if col == COL_KIND:
            return _KIND_TEXT[packed & _KIND_BITS]
        if col == COL_TASK:
            return short_id(self._task_ids[self._task[n]])
        if col == COL_STATE:
            return _STATE_TEXT[packed >> _STATE_SHIFT & _STATE_BITS]
        if col == COL_SUMMARY:
            text = self.summary(n) if summary is None else summary
            if packed & FINDINGS:
                rules = ", ".join(rule for rule, _message in self._findings.get(n, ()))
                return f"⚠ {rules} · {text}"
            return text
        return ""

    def tooltip(self, n: int, col: int) -> str | None:
        packed = self._packed[n]
        lines = [f"⚠ {rule}: {message}" for rule, message in self.findings(n)]
        if col == COL_SUMMARY:
            summary = self.summary(n)
            if summary:
                lines.append(summary)
        task = self._task_ids[self._task[n]]
        if col == COL_TASK and task:
            lines.append(task)
        seq = self.seq(n)
        if seq is not None and col == COL_SEQ:
            lines.append(f"connection {packed >> _CONN_SHIFT}, event {seq}")
        return "\n".join(lines) or None

    # --- reading (any thread) -----------------------------------------------------------

    def readers(self) -> dict[int, FrameBacking]:
        """Backings of this store's connections for another thread (close them after)."""
        with self._lock:
            return {
                id(backing): backing.clone()
                for _first, backing in self._segments
                if backing is not None
            }

    def frames_in(
        self, start: int, end: int, readers: dict[int, FrameBacking] | None
    ) -> dict[int, bytes]:
        """The frames of the stream-item rows in [start, end), by row; a frame no longer
        stored is absent. ``readers``: this thread's (:meth:`readers`), None on the GUI
        thread."""
        found: dict[int, bytes] = {}
        packed, seq = self._packed, self.seq
        with self._lock:
            base = self._base
            for n in range(max(start, base), end):
                if packed[n] & FRAME:
                    found[n] = self._recent[n - base]
            end = min(end, base)
            if start >= end:
                return found
            parts = self._segments_between(start, end)
            spill = self._spill
            first = bisect.bisect_left(self._spill_rows, start)
            last = bisect.bisect_left(self._spill_rows, end, first)
            spilled = dict(
                zip(self._spill_offsets[first:last], self._spill_rows[first:last], strict=True)
            )
        if spilled and spill is not None:
            for offset, frame in spill.read(spilled).items():
                found[spilled[offset]] = frame
        for first, last, backing in parts:
            if backing is None:
                continue
            reader = backing if readers is None else readers.get(id(backing))
            if reader is None:
                continue
            wanted = {
                seq(n) or 0: n for n in range(first, last) if packed[n] & (FRAME | SPILLED) == FRAME
            }
            try:
                frames = reader.frames(list(wanted))
            except Exception:  # a store gone bad must not take the view with it
                log.exception("timeline frames not read back")
                continue
            for number, frame in frames.items():
                found[wanted[number]] = frame
        return found


def _refresh(backing: FrameBacking | None) -> int:
    """The last sequence number ``backing`` holds (-1: none, or no backing)."""
    if backing is None:
        return -1
    try:
        return backing.refresh()
    except Exception:  # then the frames are spilled instead
        log.exception("history not readable for the timeline")
        return -1
