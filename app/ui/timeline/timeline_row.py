"""One timeline row as callers see it (:class:`TimelineRow`), and what a row's texts are made
of: its summary, derived from the stream item's frame when asked (:func:`frame_summary`).

Qt-free: the model (``timeline_model.py``) and the worker threads that filter and find rows
(``timeline_scan.py``) share it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.protocol.events import NOT_JSON
from app.protocol.findings import Finding
from app.protocol.stream.stream_items import ItemKind, TaskState, classify_frame
from app.protocol.wire.item_json import json_of_raw
from app.protocol.wire.jsonparse import parse_event_data


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
    append). Change a copy and pass it to ``TimelineModel.refresh`` to update the model.

    Attributes:
        t_ms: milliseconds since the timeline's first request was sent (every connection
            and side request counts from it).
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

    @property
    def data_as_given(self) -> Any:
        """:attr:`data` without parsing: PARSE_RAW while the JSON is still to be parsed."""
        return self._data

    def __repr__(self) -> str:
        return (
            f"TimelineRow(index={self.index}, t_ms={self.t_ms}, kind={self.kind.value}, "
            f"task_id={self.task_id!r}, state={self.state and self.state.value}, "
            f"summary={self.summary!r}, findings={[f.rule for f in self.findings]}, "
            f"connection={self.connection}, item_seq={self.item_seq}, marker={self.marker})"
        )


def short_id(value: str) -> str:
    """A long id as ``first8…last4`` (the full id is in the tooltip and the header)."""
    return value if len(value) <= 16 else f"{value[:8]}…{value[-4:]}"


def frame_summary(raw: bytes, parsed: bool, json_error: str = "", sse_event: str = "") -> str:
    """The summary a stream item's frame gives, classified as the transport classified it
    (``app/protocol/stream/stream_items.py``): what a row shows without keeping a string."""
    value = frame_json(raw) if parsed else NOT_JSON
    return classify_frame(value, json_error, sse_event, raw).summary


def frame_json(raw: bytes) -> Any:
    """:func:`~app.protocol.wire.item_json.json_of_raw`, with the usual SSE frame (one
    ``data:`` line and its blank line) parsed without an SSE decoder: a filter derives a
    million summaries, and making the decoder took twice as long as parsing the JSON."""
    for end in (b"\r\n\r\n", b"\n\n"):
        if raw.endswith(end) and raw.startswith(b"data:"):
            line = raw[: -len(end)]
            if b"\n" in line or b"\r" in line:
                break  # more than one line: the decoder's business
            data = line[6:] if line[5:6] == b" " else line[5:]
            return parse_event_data(data.decode("utf-8", "replace"))[0]
    return json_of_raw(raw)
