"""The stream timeline as a Qt table model, appended to in batches.

Rows arrive one by one from the stream (:meth:`TimelineModel.add_frame` for stream items,
:meth:`TimelineModel.add` and :meth:`TimelineModel.append` for the rest) and wait until a
short single-shot ``QTimer`` flushes them with one ``beginInsertRows`` per batch, so a fast
stream never floods the view. Nothing is merged or dropped: N rows appended are N rows in
the model after :meth:`TimelineModel.flush`.

The rows live in a :class:`~app.ui.timeline.timeline_store.RowStore`: numbers in arrays
(nothing the garbage collector walks, a few dozen bytes a row), frames of recent rows in
memory and older ones read back from the exchange's history entry
(:meth:`TimelineModel.back_with`) or the store's spill file when painted or selected. A
stream item's parsed JSON is not kept: it is parsed again from the frame when a row is
selected (:data:`PARSE_RAW`). :class:`TimelineRow` objects are copies made on demand
(:meth:`TimelineModel.row_at`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)

from app.protocol.events import NOT_JSON
from app.protocol.findings import Finding
from app.protocol.stream.stream_items import ItemKind, TaskState
from app.ui.shell import theme
from app.ui.shell.plain_text import plain_tip, shown
from app.ui.timeline.timeline_row import PARSE_RAW, TimelineRow, short_id
from app.ui.timeline.timeline_store import (
    COL_KIND,
    COL_SEQ,
    COL_STATE,
    COL_SUMMARY,
    COL_TASK,
    COL_TIME,
    COLUMNS,
    FINDINGS,
    MARKER,
    FrameBacking,
    RowStore,
)

__all__ = [
    "COLUMNS",
    "COL_KIND",
    "COL_SEQ",
    "COL_STATE",
    "COL_SUMMARY",
    "COL_TASK",
    "COL_TIME",
    "PARSE_RAW",
    "ROW_ROLE",
    "TimelineModel",
    "TimelineRow",
    "short_id",
]

FLUSH_INTERVAL_MS = 100

TIME_TIP = (
    "Milliseconds since this exchange's first request was sent: resubscriptions, Cancel"
    " task and push deliveries count from the same start"
)

_ROOT = QModelIndex()

ROW_ROLE = Qt.ItemDataRole.UserRole + 1
"""``data(index, ROW_ROLE)`` returns the :class:`TimelineRow` (a copy)."""

_DISPLAY = Qt.ItemDataRole.DisplayRole
_TOOLTIP = Qt.ItemDataRole.ToolTipRole
_FOREGROUND = Qt.ItemDataRole.ForegroundRole
_BACKGROUND = Qt.ItemDataRole.BackgroundRole
_ALIGNMENT = Qt.ItemDataRole.TextAlignmentRole
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


class TimelineModel(QAbstractTableModel):
    """Rows of the stream timeline (``#``, ``+ms``, kind, task, state, summary).

    Signals:
        flushed: a batch of rows was inserted (arg: number of rows now in the model).
    """

    flushed = Signal(int)

    def __init__(
        self,
        parent: QObject | None = None,
        interval_ms: int = FLUSH_INTERVAL_MS,
        store: RowStore | None = None,
    ) -> None:
        super().__init__(parent)
        self.store = RowStore() if store is None else store
        """The rows (the filter's worker threads read it too)."""
        self._shown = 0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.flush)
        # The spill file goes with the model, however the model goes.
        self.destroyed.connect(self.store.close)

    # --- appending ----------------------------------------------------------------

    def add_frame(
        self,
        t_ms: float,
        kind: ItemKind,
        task_id: str,
        state: TaskState | None,
        raw: bytes,
        data: Any,
        connection: int,
        item_seq: int,
    ) -> int:
        """Queue a stream item's row (its summary is derived from ``raw`` when shown; see
        :meth:`RowStore.add_frame`); it is inserted at the next flush. Returns its index."""
        if len(self.store) == self._shown:
            self._timer.start()  # the timer runs exactly while rows are pending
        return self.store.add_frame(t_ms, kind, task_id, state, raw, data, connection, item_seq)

    def add(
        self,
        t_ms: float,
        kind: ItemKind,
        task_id: str,
        state: TaskState | None,
        summary: str,
        raw: bytes = b"",
        data: Any = NOT_JSON,
        findings: Sequence[Finding] = (),
        connection: int = 1,
        item_seq: int | None = None,
        marker: bool = False,
    ) -> int:
        """Queue a row given by its values (what :class:`TimelineRow` holds); it is inserted
        at the next flush (within the timer interval). Returns its index."""
        row = TimelineRow(
            t_ms, kind, task_id, state, summary, raw, data, findings, connection, item_seq, marker
        )
        self.append(row)
        assert row.index is not None
        return row.index

    def append(self, row: TimelineRow) -> None:
        """Queue ``row`` (its ``index`` is set); it is inserted at the next flush."""
        if len(self.store) == self._shown:
            self._timer.start()
        row.index = self.store.add_row(row)

    def back_with(self, backing: FrameBacking | None) -> None:
        """The frames of stream items appended from now on can be read back from
        ``backing`` (the exchange's history entry) once it holds them."""
        self.store.back_with(backing)

    def flush(self) -> None:
        """Insert every queued row now, in one batch."""
        self._timer.stop()
        total = len(self.store)
        if total == self._shown:
            return
        first = self._shown
        self.beginInsertRows(QModelIndex(), first, total - 1)
        self._shown = total
        self.endInsertRows()
        self.store.evict()
        self.flushed.emit(total)

    def clear(self) -> None:
        """Forget every row, queued or shown."""
        self._timer.stop()
        self.beginResetModel()
        self.store.reset()
        self._shown = 0
        self.endResetModel()

    def refresh(self, row: TimelineRow) -> None:
        """``row`` (a copy of a queued or shown row, see :meth:`get`) was changed: store it,
        and repaint it if shown."""
        n = row.index
        if n is None or not 0 <= n < len(self.store):
            return
        self.store.update(n, row)
        if n < self._shown:
            self.dataChanged.emit(self.index(n, 0), self.index(n, len(COLUMNS) - 1))

    def note_frame(self, index: int, json_error: str, sse_event: str) -> None:
        """What row ``index``'s frame said beyond its bytes (see :meth:`RowStore.note_frame`)."""
        self.store.note_frame(index, json_error, sse_event)

    def set_summary(self, index: int, summary: str) -> None:
        """Row ``index`` (queued) shows ``summary``, not what its frame gives."""
        self.store.set_summary(index, summary)

    def set_findings(self, index: int, findings: Sequence[Finding]) -> None:
        """Row ``index`` (queued) carries lint ``findings``."""
        self.store.set_findings(index, findings)

    @property
    def pending_count(self) -> int:
        """Rows queued but not yet inserted."""
        return len(self.store) - self._shown

    def get(self, index: int) -> TimelineRow:
        """A copy of the row at ``index``, queued or shown (see :meth:`refresh`)."""
        if not 0 <= index < len(self.store):
            raise IndexError(index)
        return self.store.row(index)

    def row_at(self, row: int) -> TimelineRow:
        """A copy of the shown row at ``row``."""
        if not 0 <= row < self._shown:
            raise IndexError(row)
        return self.store.row(row)

    def rows(self) -> list[TimelineRow]:
        """Copies of all inserted rows (reads every frame back: for short timelines)."""
        return [self.store.row(n) for n in range(self._shown)]

    # --- QAbstractTableModel --------------------------------------------------------

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else self._shown

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole and section == COL_TIME:
            return TIME_TIP
        return None

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        n = index.row()
        if not index.isValid() or not 0 <= n < self._shown:
            return None
        store = self.store
        col = index.column()
        if role == _DISPLAY:
            text = store.display(n, col)
            # The task id and the summary are the agent's: control characters shown escaped.
            return shown(text, multiline=False) if col in (COL_TASK, COL_SUMMARY) else text
        if role == _FOREGROUND:  # colours of the theme table (app/ui/shell/theme.py)
            packed = store.packed(n)
            if col == COL_STATE:
                state = store.state_text(n)
                if state:
                    return theme.brushes().state_text.get(state)
            if col in (COL_KIND, COL_SUMMARY) and store.kind(n) is ItemKind.ERROR:
                return theme.brushes().error_text
            if packed & FINDINGS:
                return theme.brushes().finding_text
            if packed & MARKER:
                return theme.brushes().marker_text
            return None
        if role == _BACKGROUND:
            packed = store.packed(n)
            if packed & FINDINGS:
                return theme.brushes().finding_row
            if packed & MARKER:
                return theme.brushes().marker_row
            return None
        if role == _ALIGNMENT:
            return _RIGHT if col in (COL_SEQ, COL_TIME) else None
        if role == _TOOLTIP:
            return plain_tip(store.tooltip(n, col))
        if role == ROW_ROLE:
            return store.row(n)
        return None
