"""The stream timeline as a Qt table model, appended to in batches.

Rows arrive one by one from the stream (:meth:`TimelineModel.add`, :meth:`TimelineModel.append`)
and wait in a buffer that a short single-shot ``QTimer`` flushes with one ``beginInsertRows``
per batch, so a fast stream never floods the view. Nothing is merged
or dropped: N rows appended are N rows in the model after :meth:`TimelineModel.flush`.

Rows are kept as tuples of plain values (float, str, bytes, int, None): the garbage collector
stops tracking such tuples, so a 20 000-row timeline adds nothing to the full collections
that would otherwise walk every row (and every parsed JSON object) and freeze the window for
a tenth of a second. For the same reason a stream item's parsed JSON is not kept: it is
parsed again from the raw bytes when a row is selected (:data:`PARSE_RAW`).
:class:`TimelineRow` objects are copies made on demand (:meth:`TimelineModel.row_at`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

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
from app.protocol.wire.item_json import json_of_raw
from app.ui.shell import theme
from app.ui.shell.plain_text import plain_tip, shown

FLUSH_INTERVAL_MS = 100

COLUMNS = ("#", "+ms", "Kind", "Task", "State", "Summary")
COL_SEQ, COL_TIME, COL_KIND, COL_TASK, COL_STATE, COL_SUMMARY = range(len(COLUMNS))


_ROOT = QModelIndex()

ROW_ROLE = Qt.ItemDataRole.UserRole + 1
"""``data(index, ROW_ROLE)`` returns the :class:`TimelineRow` (a copy)."""

_DISPLAY = Qt.ItemDataRole.DisplayRole
_TOOLTIP = Qt.ItemDataRole.ToolTipRole
_FOREGROUND = Qt.ItemDataRole.ForegroundRole
_BACKGROUND = Qt.ItemDataRole.BackgroundRole
_ALIGNMENT = Qt.ItemDataRole.TextAlignmentRole
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


class _ParseRaw:
    __slots__ = ()

    def __repr__(self) -> str:
        return "PARSE_RAW"


PARSE_RAW: Any = _ParseRaw()
"""``TimelineRow(data=PARSE_RAW)``: the JSON is parsed from ``raw`` when first asked for
(an SSE frame's ``data``, or the raw bytes themselves for gRPC items), on the GUI thread:
for small items only (see ``KEEP_PARSED_BYTES`` in the panel)."""


class TimelineRow:
    """One row: a stream item, an error, a marker (new connection, a Cancel result) or the end.

    The model keeps rows in a compact form; a TimelineRow is a copy of one (or a row to
    append). Change a copy and pass it to :meth:`TimelineModel.refresh` to update the model.

    Attributes:
        t_ms: milliseconds since the request of this row's connection was sent.
        kind: what the row is.
        task_id, state: the task it is about and the state it reports.
        summary: the one-line description.
        raw: the bytes as received (an SSE frame, a body), or empty.
        data: the parsed JSON, or NOT_JSON (parsed from ``raw`` on first use when the row
            was made with :data:`PARSE_RAW`).
        findings: lint warnings on this row.
        connection: 1 for the first connection, 2 after a resubscription, …
        item_seq: the stream item's own sequence number within its connection, if any.
        marker: True for rows that mark a new connection or a side exchange.
        index: the row's position in its model (None until appended).
    """

    __slots__ = (
        "_data",
        "connection",
        "findings",
        "index",
        "item_seq",
        "kind",
        "marker",
        "raw",
        "state",
        "summary",
        "t_ms",
        "task_id",
    )

    def __init__(
        self,
        t_ms: float,
        kind: ItemKind,
        task_id: str = "",
        state: TaskState | None = None,
        summary: str = "",
        raw: bytes = b"",
        data: Any = NOT_JSON,
        findings: Sequence[Finding] = (),
        connection: int = 1,
        item_seq: int | None = None,
        marker: bool = False,
    ) -> None:
        self.t_ms = t_ms
        self.kind = kind
        self.task_id = task_id
        self.state = state
        self.summary = summary
        self.raw = raw
        self._data = data
        self.findings: Sequence[Finding] = findings
        self.connection = connection
        self.item_seq = item_seq
        self.marker = marker
        self.index: int | None = None

    @property
    def data(self) -> Any:
        if self._data is PARSE_RAW:
            self._data = json_of_raw(self.raw)
        return self._data

    @data.setter
    def data(self, value: Any) -> None:
        self._data = value

    def __repr__(self) -> str:
        return (
            f"TimelineRow(index={self.index}, t_ms={self.t_ms}, kind={self.kind.value}, "
            f"task_id={self.task_id!r}, state={self.state and self.state.value}, "
            f"summary={self.summary!r}, findings={[f.rule for f in self.findings]}, "
            f"connection={self.connection}, item_seq={self.item_seq}, marker={self.marker})"
        )


def _values(
    row: TimelineRow,
) -> tuple[
    float, ItemKind, str, TaskState | None, str, bytes, Any, Sequence[Finding], int, int | None,
    bool,
]:  # fmt: skip
    return (
        row.t_ms,
        row.kind,
        row.task_id,
        row.state,
        row.summary,
        row.raw,
        row._data,
        row.findings,
        row.connection,
        row.item_seq,
        row.marker,
    )


def short_id(value: str) -> str:
    """A long id as ``first8…last4`` (the full id is in the tooltip and the header)."""
    return value if len(value) <= 16 else f"{value[:8]}…{value[-4:]}"


# A row as the model keeps it: plain values only, so the GC does not track it.
_T: Final = 0
_KIND: Final = 1
_TASK: Final = 2
_STATE: Final = 3
_SUMMARY: Final = 4
_RAW: Final = 5
_DATA: Final = 6
_FINDINGS: Final = 7
_CONN: Final = 8
_SEQ: Final = 9
_MARKER: Final = 10
_NO_DATA, _DATA_FROM_RAW, _DATA_KEPT = range(3)
_Record = tuple[
    float, str, str, str | None, str, bytes, int, tuple[tuple[str, str], ...], int, int | None,
    bool,
]  # fmt: skip
_KINDS = {kind.value: kind for kind in ItemKind}
_STATES = {state.value: state for state in TaskState}
_KIND_TEXT = {kind: kind.value for kind in ItemKind}
_STATE_TEXT = {state: state.value for state in TaskState}


class TimelineModel(QAbstractTableModel):
    """Rows of the stream timeline (``#``, ``+ms``, kind, task, state, summary).

    Signals:
        flushed: a batch of rows was inserted (arg: number of rows now in the model).
    """

    flushed = Signal(int)

    def __init__(self, parent: QObject | None = None, interval_ms: int = FLUSH_INTERVAL_MS):
        super().__init__(parent)
        self._rows: list[_Record] = []
        self._pending: list[_Record] = []
        self._kept: dict[int, Any] = {}  # index → parsed JSON of rows that keep theirs
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.flush)

    # --- appending ----------------------------------------------------------------

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
        # Called for every event of a stream: no Qt call, no formatting here.
        pending = self._pending
        index = len(self._rows) + len(pending)
        if not pending:
            self._timer.start()  # the timer runs exactly while rows are pending
        pending.append(
            (
                t_ms,
                _KIND_TEXT[kind],
                task_id,
                None if state is None else _STATE_TEXT[state],
                summary,
                raw,
                _DATA_FROM_RAW if data is PARSE_RAW else self._data_code(index, data),
                tuple((f.rule, f.message) for f in findings) if findings else (),
                connection,
                item_seq,
                marker,
            )
        )
        return index

    def append(self, row: TimelineRow) -> None:
        """Queue ``row`` (its ``index`` is set); it is inserted at the next flush."""
        row.index = self.add(*_values(row))

    def _data_code(self, index: int, data: Any) -> int:
        if data is PARSE_RAW:
            return _DATA_FROM_RAW
        if data is NOT_JSON:
            return _NO_DATA
        self._kept[index] = data
        return _DATA_KEPT

    def flush(self) -> None:
        """Insert every queued row now, in one batch."""
        self._timer.stop()
        if not self._pending:
            return
        batch, self._pending = self._pending, []
        first = len(self._rows)
        self.beginInsertRows(QModelIndex(), first, first + len(batch) - 1)
        self._rows += batch
        self.endInsertRows()
        self.flushed.emit(len(self._rows))

    def clear(self) -> None:
        """Forget every row, queued or shown."""
        self._timer.stop()
        self._pending = []
        self.beginResetModel()
        self._rows = []
        self._kept = {}
        self.endResetModel()

    def refresh(self, row: TimelineRow) -> None:
        """``row`` (a copy of a queued or shown row, see :meth:`get`) was changed: store it,
        and repaint it if shown."""
        n = row.index
        shown = len(self._rows)
        if n is None or not 0 <= n < shown + len(self._pending):
            return
        self._kept.pop(n, None)
        (t_ms, kind, task_id, state, summary, raw, data, findings, connection, item_seq,
         marker) = _values(row)  # fmt: skip
        record: _Record = (
            t_ms,
            kind.value,
            task_id,
            None if state is None else state.value,
            summary,
            raw,
            self._data_code(n, data),
            tuple((f.rule, f.message) for f in findings),
            connection,
            item_seq,
            marker,
        )
        if n < shown:
            self._rows[n] = record
            self.dataChanged.emit(self.index(n, 0), self.index(n, len(COLUMNS) - 1))
        else:
            self._pending[n - shown] = record

    @property
    def pending_count(self) -> int:
        """Rows queued but not yet inserted."""
        return len(self._pending)

    def get(self, index: int) -> TimelineRow:
        """A copy of the row at ``index``, queued or shown (see :meth:`refresh`)."""
        shown = len(self._rows)
        return self._row(
            index, self._rows[index] if index < shown else self._pending[index - shown]
        )

    def row_at(self, row: int) -> TimelineRow:
        """A copy of the shown row at ``row``."""
        return self._row(row, self._rows[row])

    def rows(self) -> list[TimelineRow]:
        """Copies of all inserted rows."""
        return [self._row(n, record) for n, record in enumerate(self._rows)]

    def _row(self, n: int, record: _Record) -> TimelineRow:
        code = record[_DATA]
        data = PARSE_RAW if code == _DATA_FROM_RAW else self._kept.get(n, NOT_JSON)
        state = record[_STATE]
        row = TimelineRow(
            record[_T],
            _KINDS[record[_KIND]],
            record[_TASK],
            None if state is None else _STATES[state],
            record[_SUMMARY],
            record[_RAW],
            data,
            [Finding(rule, message) for rule, message in record[_FINDINGS]],
            record[_CONN],
            record[_SEQ],
            record[_MARKER],
        )
        row.index = n
        return row

    # --- QAbstractTableModel --------------------------------------------------------

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(COLUMNS):
            return COLUMNS[section]
        return None

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        n = index.row()
        if not index.isValid() or not 0 <= n < len(self._rows):
            return None
        record = self._rows[n]
        col = index.column()
        if role == _DISPLAY:
            return self._display(n, record, col)
        if role == _FOREGROUND:  # colours of the theme table (app/ui/shell/theme.py)
            if col == COL_STATE and record[_STATE] is not None:
                return theme.brushes().state_text.get(record[_STATE])
            if record[_KIND] == "error" and col in (COL_KIND, COL_SUMMARY):
                return theme.brushes().error_text
            if record[_FINDINGS]:
                return theme.brushes().finding_text
            if record[_MARKER]:
                return theme.brushes().marker_text
            return None
        if role == _BACKGROUND:
            if record[_FINDINGS]:
                return theme.brushes().finding_row
            if record[_MARKER]:
                return theme.brushes().marker_row
            return None
        if role == _ALIGNMENT:
            return _RIGHT if col in (COL_SEQ, COL_TIME) else None
        if role == _TOOLTIP:
            return self._tooltip(record, col)
        if role == ROW_ROLE:
            return self._row(n, record)
        return None

    @staticmethod
    def _display(n: int, record: _Record, col: int) -> str:
        if col == COL_SEQ:
            return str(n + 1)
        if col == COL_TIME:
            return "" if record[_MARKER] and not record[_T] else f"{record[_T]:,.1f}"
        if col == COL_KIND:
            return record[_KIND]
        # The task id and the summary are the agent's: control characters shown escaped.
        if col == COL_TASK:
            return shown(short_id(record[_TASK]), multiline=False)
        if col == COL_STATE:
            return record[_STATE] or ""
        if col == COL_SUMMARY:
            if record[_FINDINGS]:
                rules = ", ".join(rule for rule, _message in record[_FINDINGS])
                return shown(f"⚠ {rules} · {record[_SUMMARY]}", multiline=False)
            return shown(record[_SUMMARY], multiline=False)
        return ""

    @staticmethod
    def _tooltip(record: _Record, col: int) -> str | None:
        lines = [f"⚠ {rule}: {message}" for rule, message in record[_FINDINGS]]
        if col == COL_SUMMARY and record[_SUMMARY]:
            lines.append(record[_SUMMARY])
        if col == COL_TASK and record[_TASK]:
            lines.append(record[_TASK])
        if record[_SEQ] is not None and col == COL_SEQ:
            lines.append(f"connection {record[_CONN]}, event {record[_SEQ]}")
        return plain_tip("\n".join(lines)) or None
