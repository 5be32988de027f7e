"""Shows one tab's exchanges: the controller's events into the response view and timeline.

A streaming exchange fills the timeline as well as the response view; the side exchange
(*Cancel task* beside an open stream) only adds its result to the timeline.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from PySide6.QtCore import QObject

from app import heap
from app.protocol.events import (
    KEEP_VALUE_BYTES,
    NOT_JSON,
    BigResponseBody,
    EventBatch,
    ExchangeEnd,
    ExchangeError,
    ExchangeFinding,
    Outcome,
    RequestSent,
    ResponseBody,
    ResponseHead,
    StreamItem,
)
from app.protocol.request import A2ARequest
from app.ui.request.request_controller import RequestController
from app.ui.response import pretty_buffer
from app.ui.response.formatting import body_pretty
from app.ui.response.incremental import fill_view, pretty_pieces
from app.ui.response.pretty_buffer import PrettyBuffer
from app.ui.response.response_view import ResponseView
from app.ui.timeline.timeline_panel import TimelinePanel

log = logging.getLogger(__name__)

# Formatting more than this on the GUI thread would freeze repainting.
_THREADED_FORMAT_BYTES = 256 * 1024
BIG_BODY_BYTES = KEEP_VALUE_BYTES
"""JSON bodies over this size go to the big views (app/ui/response/big_text_view.py): a text
document of them costs seconds of layout and several times the body in memory. The size
at which a body's value can be let go, too (:class:`BigResponseBody`): the big views are
what lets it go."""


class ExchangePresenter(QObject):
    """Listens to a :class:`RequestController` and shows what it emits.

    ``note_task`` is told the task and context ids a stream ended with.
    The request is shown masked: the exchange registered its credential names on it.
    """

    def __init__(
        self,
        controller: RequestController,
        view: ResponseView,
        timeline: TimelinePanel,
        note_task: Callable[[str, str], None],
    ) -> None:
        super().__init__(controller)
        self._controller = controller
        self._view = view
        self._timeline = timeline
        self._note_task = note_task
        self.side_label = ""
        self._timeline_on = False
        self._last_row: int | None = None  # the timeline row of the item just received
        controller.started.connect(self._on_started)
        controller.events_arrived.connect(self._on_events)
        controller.finished.connect(self._on_finished)
        controller.side_started.connect(lambda _request: timeline.note_send(side=True))
        controller.side_event_arrived.connect(self._on_side_event)
        controller.side_finished.connect(self._timeline.end_side_exchange)
        view.timeline_requested.connect(timeline.reveal)
        timeline.model.flushed.connect(self._on_timeline_flushed)

    def _on_started(self, _request: A2ARequest, streaming: bool) -> None:
        self._timeline_on = streaming
        self._last_row = None
        self._view.start_waiting()
        if streaming:
            self._timeline.note_send()
            self._view.show_stream_summary(self._timeline.session.summary())

    def _on_timeline_flushed(self, _rows: int) -> None:
        if self._timeline_on:
            self._view.show_stream_summary(self._timeline.session.summary())

    def _on_events(self, events: EventBatch) -> None:
        timeline = self._timeline if self._timeline_on else None
        view = self._view
        for event in events:
            if timeline is not None and type(event) is StreamItem:
                # The bulk of a stream, straight to its row (and the elapsed counter's count).
                view.note_item(event.t, len(event.raw))
                self._last_row = timeline.add_item(event)
            else:
                self._on_event(event)

    def _on_event(self, event: object) -> None:
        view = self._view
        timeline = self._timeline if self._timeline_on else None
        if isinstance(event, StreamItem):
            view.note_item(event.t, len(event.raw))
            if timeline is not None:
                self._last_row = timeline.add_item(event)
            return
        if isinstance(event, ExchangeFinding):
            # Findings follow the item or body they concern: the row stays the same.
            view.show_finding(event)
            if timeline is not None and self._last_row is not None:
                timeline.attach_finding(self._last_row, event.finding)
            elif timeline is not None:
                timeline.add_finding(event)
            return
        if isinstance(event, RequestSent):
            view.show_request(event)
        elif isinstance(event, ResponseHead):
            view.show_head(event)
        elif isinstance(event, ResponseBody):
            if timeline is not None:
                timeline.add_body(event, "response body instead of a stream")
            self._controller.hold(self._show_body(event))
        elif isinstance(event, ExchangeError):
            view.show_error(event)
            if timeline is not None and self._last_row is not None:
                timeline.attach_error(self._last_row, event)
            elif timeline is not None:
                timeline.add_error(event)
        elif isinstance(event, ExchangeEnd):
            if timeline is not None:
                timeline.end_connection(event.outcome, event.elapsed_ms)
                self._note_task(timeline.task_id, timeline.context_id)
                view.show_stream_summary(timeline.session.summary())
            view.show_end(event)
        self._last_row = None

    def _on_finished(self) -> None:
        self._view.stop_waiting()
        if self._timeline_on and self._timeline.running:
            self._timeline.end_connection(Outcome.CANCELLED)
            self._view.show_stream_summary(self._timeline.session.summary())

    def _on_side_event(self, event: object) -> None:
        if isinstance(event, ResponseBody):
            self._timeline.add_body(event, self.side_label, side=True)
        elif isinstance(event, ExchangeError):
            self._timeline.add_error(event, side=True)

    async def _show_body(self, event: ResponseBody) -> None:
        view = self._view
        if len(event.body) > BIG_BODY_BYTES and event.is_json:
            try:
                with heap.building():  # the value is taken apart in there: no sweep of it
                    pretty, raw = await asyncio.to_thread(big_buffers, event)
            except Exception as exc:  # any failure: the body shown as received, and why
                # A body the pretty writer cannot handle must not take the exchange with
                # it (its end, its errors): the body shows as received, and why.
                log.exception("formatting a big body")
                raw = await asyncio.to_thread(pretty_buffer.build, event.body)
                view.show_big_body(event, raw, raw)
                view.add_note(f"Pretty shows the body as received: formatting failed ({exc!r})")
                return
            view.show_big_body(event, pretty, raw)
            return
        if len(event.body) <= _THREADED_FORMAT_BYTES or event.json is NOT_JSON:
            view.show_body(event, body_pretty(event.json, event.body))
            return
        # Large JSON: raw preview now, pretty text streamed in without freezing the window.
        view.show_body(event, "")
        view.pretty_view.set_text("")
        view.pretty_view.set_highlighting(False)
        await fill_view(view.pretty_view, pretty_pieces(event.json))


def big_buffers(event: ResponseBody) -> tuple[PrettyBuffer, PrettyBuffer]:
    """A big JSON body's pretty and raw buffers for the big views (a live exchange's, one
    reopened from History). In a worker thread: pure Python steps between C calls, so the
    GUI gets the GIL back."""
    if isinstance(
        event, BigResponseBody
    ):  # trimmed before it was parsed (app/protocol/net/http.py)
        # Every listener has had the value (this runs after they all ran, before the next
        # event): it is let go here, taken apart as its text is written, so that value and
        # text are never whole together; views that want it parse the body again.
        try:
            text = pretty_buffer.pretty_bytes_taking([event.release()])
        except pretty_buffer.WRITE_ERRORS:  # beyond orjson, partly taken apart: again
            text = pretty_buffer.pretty_bytes(event.json)
        heap.trim()
    else:
        heap.trim()  # the pieces the body arrived in, freed but kept by the allocator
        text = pretty_buffer.pretty_bytes(event.json)
    return pretty_buffer.build(text), pretty_buffer.build(event.body)
