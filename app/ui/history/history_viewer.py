"""A recorded exchange, read-only, in the same views a request tab shows a live one in.

:func:`replay` puts stored events into a :class:`ResponseView` and a
:class:`TimelinePanel` the way :class:`~app.ui.response.exchange_presenter.ExchangePresenter` does
while an exchange runs. :func:`compare_text` is the *Compare* view's text: unified diffs of
two entries' pretty-printed bodies and stream item sequences.
"""

from __future__ import annotations

import asyncio
import difflib
from collections.abc import Sequence

from PySide6.QtWidgets import QDialog, QTabWidget, QVBoxLayout, QWidget

from app.history.store import HistoryEntry, HistoryStore
from app.protocol.events import (
    NOT_JSON,
    ExchangeEnd,
    ExchangeError,
    ExchangeEvent,
    Outcome,
    RequestSent,
    ResponseBody,
    ResponseHead,
    StreamItem,
)
from app.protocol.types import ProtocolVersion
from app.ui.response.exchange_presenter import BIG_BODY_BYTES, big_buffers
from app.ui.response.formatting import body_pretty, pretty_json
from app.ui.response.pretty_buffer import PrettyBuffer
from app.ui.response.response_view import ResponseView
from app.ui.shell.widgets import CodeView
from app.ui.timeline.timeline_panel import TimelinePanel


class HistoryViewer(QTabWidget):
    """Response and Timeline of one recorded exchange (``historyViewer``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("historyViewer")
        self.response_view = ResponseView()
        self.response_view.setObjectName("historyResponseView")
        self.timeline = TimelinePanel(recorded=True)  # nothing to stop or follow up here
        self.timeline.setObjectName("historyTimeline")
        self.addTab(self.response_view, "Response")
        self.addTab(self.timeline, "Timeline")
        self.response_view.timeline_requested.connect(self.timeline.reveal)
        self.entry_id: int | None = None

    def show_exchange(
        self, entry: HistoryEntry, events: Sequence[ExchangeEvent], big: BigBodies | None = None
    ) -> None:
        """Show ``entry`` (its events as stored), replacing what was shown; ``big``: its
        big bodies' views, built off the GUI thread (:func:`big_bodies`)."""
        self.entry_id = entry.id
        streaming = replay(self.response_view, self.timeline, entry, events, big)
        self.setCurrentWidget(self.timeline if streaming else self.response_view)


BigBodies = dict[int, tuple[PrettyBuffer, PrettyBuffer]]
"""The big views' pretty and raw buffers of an exchange's big JSON bodies, by ``id`` of the
body event."""


Loaded = tuple[HistoryEntry, list[ExchangeEvent], BigBodies]
"""What :meth:`HistoryViewer.show_exchange` takes, as :func:`load_entry` reads it."""


async def load_entry(store: HistoryStore, entry_id: int) -> Loaded | None:
    """Entry ``entry_id``, its events and its big bodies' views, read off the GUI thread
    (what was recorded last is stored first); None when the store has no such entry."""
    await asyncio.to_thread(store.flush, 5.0)
    entry = await asyncio.to_thread(store.entry, entry_id)
    if entry is None:
        return None
    events = await asyncio.to_thread(store.events, entry_id)
    big = await asyncio.to_thread(big_bodies, events)
    return entry, events, big


def big_bodies(events: Sequence[ExchangeEvent]) -> BigBodies:
    """In a worker thread: the pretty and raw buffers of each JSON body over
    :data:`BIG_BODY_BYTES`, shown in the big views as a live exchange's are (the text
    document of a 25 MiB body held the window for seconds)."""
    return {
        id(event): big_buffers(event)
        for event in events
        if isinstance(event, ResponseBody) and len(event.body) > BIG_BODY_BYTES and event.is_json
    }


def replay(
    view: ResponseView,
    timeline: TimelinePanel,
    entry: HistoryEntry,
    events: Sequence[ExchangeEvent],
    big: BigBodies | None = None,
) -> bool:
    """Show ``events`` in ``view`` and, for a stream, ``timeline``; True for a stream.
    ``big``: buffers of the big bodies (:func:`big_bodies`), shown in the big views."""
    view.clear()
    sent = next((e for e in events if isinstance(e, RequestSent)), None)
    streaming = (sent is not None and sent.streaming) or any(
        isinstance(e, StreamItem) for e in events
    )
    try:
        version = ProtocolVersion(entry.version)
    except ValueError:
        version = ProtocolVersion.V1_0
    timeline.clear(version)
    if streaming:
        timeline.begin_connection(entry.rpc_method)
    last_row: int | None = None
    for event in events:
        if isinstance(event, StreamItem):
            if streaming:
                last_row = timeline.add_item(event)
            continue
        if isinstance(event, RequestSent):
            view.show_request(event)
        elif isinstance(event, ResponseHead):
            view.show_head(event)
        elif isinstance(event, ResponseBody):
            if streaming:
                timeline.add_body(event, "response body instead of a stream")
            buffers = (big or {}).get(id(event))
            if buffers is not None:
                view.show_big_body(event, *buffers)
            else:
                view.show_body(event, body_pretty(event.json, event.body))
        elif isinstance(event, ExchangeError):
            view.show_error(event)
            if streaming and last_row is not None:
                timeline.attach_error(last_row, event)
            elif streaming:
                timeline.add_error(event)
        elif isinstance(event, ExchangeEnd):
            if streaming:
                timeline.end_connection(event.outcome, event.elapsed_ms)
            view.show_end(event)
        last_row = None
    if streaming and timeline.running:  # the sender stopped before the end
        timeline.end_connection(Outcome.CANCELLED, 0.0)
    if streaming:
        view.show_stream_summary(timeline.session.summary())
    return streaming


# --- Compare -------------------------------------------------------------------------------


def _json_text(value: object, raw: bytes) -> str:
    if value is NOT_JSON:
        return raw.decode("utf-8", "replace")
    return pretty_json(value)


def body_lines(events: Sequence[ExchangeEvent]) -> list[str]:
    """The response body, pretty JSON (or the text when it is not JSON), as lines."""
    body = next((e for e in events if isinstance(e, ResponseBody)), None)
    return [] if body is None else _json_text(body.json, body.body).splitlines()


def item_lines(events: Sequence[ExchangeEvent]) -> list[str]:
    """Every stream item, pretty JSON, each under a ``# item N`` line."""
    lines: list[str] = []
    for n, item in enumerate((e for e in events if isinstance(e, StreamItem)), 1):
        lines.append(f"# item {n}")
        lines += _json_text(item.json, item.raw).splitlines()
    return lines


def compare_text(
    a: tuple[HistoryEntry, Sequence[ExchangeEvent]],
    b: tuple[HistoryEntry, Sequence[ExchangeEvent]],
) -> str:
    """Unified diffs (``a`` → ``b``) of the bodies and of the stream item sequences."""
    (ea, va), (eb, vb) = a, b
    parts = [f"Comparing #{ea.id} ({ea.rpc_method}, {ea.endpoint}) with "
             f"#{eb.id} ({eb.rpc_method}, {eb.endpoint})", ""]  # fmt: skip
    for title, lines in (("Response body", body_lines), ("Stream items", item_lines)):
        left, right = lines(va), lines(vb)
        if not left and not right:
            continue
        parts.append(f"=== {title} ===")
        diff = list(
            difflib.unified_diff(
                left, right, f"#{ea.id} {title.lower()}", f"#{eb.id} {title.lower()}",
                lineterm="",
            )
        )  # fmt: skip
        parts += diff or ["(identical)"]
        parts.append("")
    if len(parts) == 2:
        parts.append("Neither entry has a response body or stream items.")
    return "\n".join(parts)


class CompareDialog(QDialog):
    """The *Compare* window: :func:`compare_text` in a read-only view (``historyCompareView``)."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("historyCompareDialog")
        self.setWindowTitle("Compare history entries")
        self.resize(900, 640)
        self.view = CodeView("historyCompareView", read_only=True, json=False)
        self.view.set_text(text)
        layout = QVBoxLayout(self)
        layout.addWidget(self.view)
