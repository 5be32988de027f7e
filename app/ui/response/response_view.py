"""The response panel: status line, timings, error banner, body views, headers, request sent.

objectNames: ``responseView``, ``responseStatusLabel``, ``responseTimeLabel``,
``responseSizeLabel``, ``elapsedLabel`` (live while waiting, then the timing breakdown),
``copyBodyButton``, ``copyRawButton``, ``copyCurlButton``, ``responseErrorLabel``,
``responseFindingsLabel``, ``streamSummary`` (``streamSummaryLabel``, ``showTimelineButton``:
a stream's events, state and task, with the way to its Timeline), ``responseTabs`` with
``prettyBodyView``, ``jsonTreePage``
(:mod:`app.ui.response.json_tree`), ``rawBodyView``, (for bodies over
:data:`app.ui.response.exchange_presenter.BIG_BODY_BYTES`, in their places: ``prettyBigView`` and
``rawBigView``, :mod:`app.ui.response.big_text_view`), ``responseHeadersPage``
(:mod:`app.ui.response.response_headers`), ``requestSentView``; the find bar
(:mod:`app.ui.response.find_bar`).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QCursor, QGuiApplication
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QTabWidget,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from app.protocol.events import (
    NOT_JSON,
    BigResponseBody,
    ErrorKind,
    ExchangeEnd,
    ExchangeError,
    ExchangeFinding,
    Outcome,
    RequestSent,
    ResponseBody,
    ResponseHead,
)
from app.ui.response.big_text_view import BigTextView
from app.ui.response.find_bar import FindBar, Target
from app.ui.response.formatting import (
    error_text,
    non_json_summary,
    pretty_json,
    raw_preview,
    request_text,
    size_text,
)
from app.ui.response.json_tree import JsonTreePage
from app.ui.response.pretty_buffer import PrettyBuffer
from app.ui.response.response_headers import ResponseHeadersPage
from app.ui.shell import theme
from app.ui.shell.plain_text import PlainLabel, plain_tip
from app.ui.shell.widgets import CodeView

# Theme roles (colours: app/ui/shell/theme.py) and the banners' shape.
_IDLE_STYLE = "badge-idle"
_SENDING_STYLE = f"badge-status:{theme.Status.STREAMING}"  # one colour per status
_BANNER_SHAPE = "border-radius: 4px; padding: 6px;"

ELAPSED_TICK_MS = 100
"""How often the live elapsed counter is redrawn while waiting."""

_TIMING_TIP = (
    "Times since the exchange started. The time to the headers includes connecting"
    " (and TLS); the body or first event follows."
)

CurlSource = Callable[[], str]
"""Returns the ``curl`` (or ``grpcurl``) command of the tab's request; raises
``UsageError`` or ``ValueError`` when there is none."""


_STREAM_PLACEHOLDER = "A stream has no body here: its events are in the Timeline."


class ResponseView(QWidget):
    """Shows one exchange as its events arrive (``objectName`` ``responseView``).

    Signals:
        timeline_requested: *Show in Timeline* clicked (a stream's summary is shown).
    """

    timeline_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("responseView")
        self.outcome: Outcome | None = None
        self._curl_source: CurlSource | None = None
        self._reset_state()

        # The labels that quote the agent (status line, errors, findings, the stream's
        # summary) show plain text with control characters escaped: never HTML.
        self.status_label = PlainLabel("No request sent yet", multiline=False)
        self.status_label.setObjectName("responseStatusLabel")
        theme.style(self.status_label, _IDLE_STYLE, theme.BADGE_SHAPE)
        self.time_label = QLabel("")
        self.time_label.setObjectName("responseTimeLabel")
        self.time_label.setToolTip("Complete: from sending to the end of the exchange")
        self.size_label = QLabel("")
        self.size_label.setObjectName("responseSizeLabel")
        self.elapsed_label = QLabel("")
        self.elapsed_label.setObjectName("elapsedLabel")
        # Ignored: a long breakdown is clipped rather than widening the window (the tooltip
        # has it whole).
        self.elapsed_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.elapsed_label.setToolTip(_TIMING_TIP)
        self.copy_body_button = _button("copyBodyButton", "body", "Copy the body as shown")
        self.copy_raw_button = _button("copyRawButton", "raw", "Copy the body as received")
        self.copy_curl_button = _button(
            "copyCurlButton",
            "curl",
            "Copy this tab's request as a curl command (grpcurl for gRPC); credentials"
            " appear as $A2A_WB_… variables, never as values",
        )
        self.copy_body_button.clicked.connect(self.copy_body)
        self.copy_raw_button.clicked.connect(self.copy_raw)
        self.copy_curl_button.clicked.connect(self.copy_curl)
        head = QHBoxLayout()
        head.addWidget(self.status_label)
        head.addWidget(self.time_label)
        head.addWidget(self.size_label)
        head.addWidget(self.elapsed_label, 1)

        self.error_label = PlainLabel()
        self.error_label.setObjectName("responseErrorLabel")
        self.error_label.setWordWrap(True)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        theme.style(self.error_label, "banner-error", _BANNER_SHAPE)
        self.error_label.hide()
        self.findings_label = PlainLabel()
        self.findings_label.setObjectName("responseFindingsLabel")
        self.findings_label.setWordWrap(True)
        self.findings_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        theme.style(self.findings_label, "banner-warn", _BANNER_SHAPE)
        self.findings_label.hide()

        # A stream's events go to the Timeline; here one line says what it gave, and where.
        self.stream_summary = QWidget()
        self.stream_summary.setObjectName("streamSummary")
        self.stream_label = PlainLabel()
        self.stream_label.setObjectName("streamSummaryLabel")
        self.stream_label.setWordWrap(True)
        self.stream_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.timeline_button = QPushButton("Show in Timeline")
        self.timeline_button.setObjectName("showTimelineButton")
        self.timeline_button.setToolTip("Open the Timeline tab: every event of the stream")
        self.timeline_button.clicked.connect(self.timeline_requested)
        summary_layout = QHBoxLayout(self.stream_summary)
        summary_layout.setContentsMargins(0, 0, 0, 0)
        summary_layout.addWidget(self.stream_label, 1)
        summary_layout.addWidget(self.timeline_button)
        self.stream_summary.hide()

        self.pretty_view = CodeView("prettyBodyView", read_only=True)
        self.tree_page = JsonTreePage()
        self.raw_view = CodeView("rawBodyView", read_only=True, json=False)
        # Big bodies: views that paint only the visible lines, swapped in for the two above.
        self.pretty_big = BigTextView("prettyBigView")
        self.raw_big = BigTextView("rawBigView")
        self.headers_view = ResponseHeadersPage()
        self.request_view = CodeView("requestSentView", read_only=True)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("responseTabs")
        self.tabs.addTab(self.pretty_view, "Pretty")
        self.tabs.addTab(self.tree_page, "Tree")
        self.tabs.addTab(self.raw_view, "Raw")
        self.tabs.addTab(self.headers_view, "Headers")
        self.tabs.addTab(self.request_view, "Request sent")
        # The copy buttons sit beside the tabs they copy from, leaving the status row to the
        # status and timings.
        copy_row = QWidget()
        copy_layout = QHBoxLayout(copy_row)
        copy_layout.setContentsMargins(0, 0, 0, 2)
        copy_layout.setSpacing(2)
        copy_layout.addWidget(QLabel("Copy"))
        for button in (self.copy_body_button, self.copy_raw_button, self.copy_curl_button):
            copy_layout.addWidget(button)
        self.tabs.setCornerWidget(copy_row, Qt.Corner.TopRightCorner)
        self.find_bar = FindBar(self._find_target)
        self.find_bar.install(self)
        self.tabs.currentChanged.connect(self._on_tab_changed)

        self._ticker = QTimer(self)
        self._ticker.setInterval(ELAPSED_TICK_MS)
        self._ticker.timeout.connect(self._tick)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(head)
        layout.addWidget(self.error_label)
        layout.addWidget(self.findings_label)
        layout.addWidget(self.stream_summary)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.find_bar)
        self._update_copy_buttons()

    def _reset_state(self) -> None:
        self._status = ""
        self._status_code: int | None = None
        self._transport = "HTTP"
        self._content_type = ""
        self._errors: list[ExchangeError] = []
        self._findings: list[str] = []
        self._body: ResponseBody | None = None
        self._summarised = False  # the banner summarises a non-JSON error body
        self._t_sent: float | None = None
        self._t_head: float | None = None
        self._t_body: float | None = None
        self._t_first_item: float | None = None
        self._t_last_item: float | None = None
        self._items = 0
        self._item_bytes = 0
        self._started_at: float | None = None  # time.monotonic() when the send began

    # --- feeding ----------------------------------------------------------------------

    def clear(self) -> None:
        """Forget the previous exchange."""
        self.outcome = None
        self._ticker.stop()
        self._reset_state()
        self.status_label.setText("Sending…")
        theme.style(self.status_label, _SENDING_STYLE, theme.BADGE_SHAPE)
        self.time_label.setText("")
        self.size_label.setText("")
        self.elapsed_label.setText("")
        self.error_label.hide()
        self.findings_label.hide()
        for view in (self.pretty_view, self.raw_view, self.request_view):
            view.set_text("")
        self._use_big(False)
        self.pretty_big.set_buffer(None)
        self.raw_big.set_buffer(None)
        self.headers_view.clear()
        self.tree_page.clear()
        self.stream_summary.hide()
        self.pretty_view.setPlaceholderText("")
        self._update_copy_buttons()

    def start_waiting(self) -> None:
        """The exchange has been sent: count the seconds in :attr:`elapsed_label`."""
        self._started_at = time.monotonic()
        self._tick()
        self._ticker.start()

    def stop_waiting(self) -> None:
        """Stop the live counter (the exchange is over, whether or not it ended cleanly)."""
        self._ticker.stop()

    def note_item(self, t: float, size: int) -> None:
        """A stream item arrived (``t`` seconds into the exchange, ``size`` raw bytes).

        Called for every event of a fast stream: it only counts; the ticker shows it."""
        if self._t_first_item is None:
            self._t_first_item = t
        self._t_last_item = t
        self._items += 1
        self._item_bytes += size

    def show_stream_summary(self, text: str) -> None:
        """The exchange is a stream: say what it gave (``text``) and offer its Timeline."""
        if self.stream_label.text() != text:
            self.stream_label.setText(text)
        if self.stream_summary.isHidden():
            self.stream_summary.show()
            self.pretty_view.setPlaceholderText(_STREAM_PLACEHOLDER)

    def show_request(self, event: RequestSent) -> None:
        """The request as it went out, credentials masked (:meth:`RequestSent.masked`)."""
        self._transport = "gRPC" if event.method == "gRPC" else "HTTP"
        self._t_sent = event.t
        shown = event.masked()
        self.request_view.set_text(request_text(shown, shown.headers))

    def show_head(self, event: ResponseHead) -> None:
        """Status line and headers."""
        self._t_head = event.t
        self._status_code = event.status
        self._status = f"{event.status} {event.reason}".strip()
        if self._transport == "gRPC":
            self._status = f"gRPC {self._status}"
        self._content_type = next((v for n, v in event.headers if n.lower() == "content-type"), "")
        self.status_label.setText(self._status)
        self.headers_view.set_headers(event.headers)

    def show_body(self, event: ResponseBody, pretty: str) -> None:
        """The body: ``pretty`` (already formatted, possibly off the GUI thread) and raw."""
        self._body = event
        self._t_body = event.t
        self.size_label.setText(size_text(len(event.body)))
        self.raw_view.set_text(raw_preview(event.body))
        self.pretty_view.set_text(pretty)
        if event.json is not NOT_JSON:
            self.tree_page.set_value(event.json)
        self.headers_view.model.add_trailers(event.trailers)
        self._show_errors()
        self._update_copy_buttons()

    def show_big_body(self, event: ResponseBody, pretty: PrettyBuffer, raw: PrettyBuffer) -> None:
        """A big body: ``pretty`` and ``raw`` (built off the GUI thread) in the big views."""
        self._body = event
        self._t_body = event.t
        self.size_label.setText(size_text(len(event.body)))
        self.pretty_big.set_buffer(pretty)
        self.raw_big.set_buffer(raw, "")
        self._use_big(True)
        if isinstance(event, BigResponseBody) and event.released:
            # The value was let go once the pretty text was written: the tree parses the
            # body again when its tab is first shown.
            self.tree_page.set_source(lambda: event.json)
        elif event.is_json:
            self.tree_page.set_value(event.json)
        self.headers_view.model.add_trailers(event.trailers)
        self._show_errors()
        self._update_copy_buttons()

    def pretty_char_count(self) -> int:
        """Characters of the Pretty text shown, whichever view shows it."""
        if self.tabs.widget(0) is self.pretty_big:
            return self.pretty_big.character_count()
        return self.pretty_view.document().characterCount() - 1

    def _use_big(self, big: bool) -> None:
        current = self.tabs.currentIndex()
        for index, (small, large, title) in enumerate(
            ((self.pretty_view, self.pretty_big, "Pretty"), (self.raw_view, self.raw_big, "Raw"))
        ):
            at = 0 if index == 0 else 2
            wanted = large if big else small
            if self.tabs.widget(at) is not wanted:
                self.tabs.removeTab(at)
                self.tabs.insertTab(at, wanted, title)
        self.tabs.setCurrentIndex(max(current, 0))

    def show_error(self, event: ExchangeError) -> None:
        """Add an error to the red banner (several may arrive)."""
        self._errors.append(event)
        self._show_errors()

    def add_hint(self, event: ExchangeError, hint: str) -> None:
        """Add ``hint`` to the shown error ``event`` ("… — the card lists gRPC at …"): what
        the tab knows beyond the exchange (app/ui/request/binding_help.py)."""
        self._errors = [
            dataclasses.replace(e, message=f"{e.message} — {hint}") if e is event else e
            for e in self._errors
        ]
        self._show_errors()

    def show_finding(self, event: ExchangeFinding) -> None:
        """Add a finding (a deviation the client understood) to the amber banner."""
        where = f"#{event.seq} " if event.seq is not None else ""
        self.add_note(f"{where}{event.finding}")

    def add_note(self, text: str) -> None:
        """Add ``text`` to the amber banner (a finding, or what the views could not do)."""
        self._findings.append(f"⚠ {text}")
        self.findings_label.setText("\n".join(self._findings[-20:]))
        self.findings_label.show()

    def show_end(self, event: ExchangeEnd) -> None:
        """Final outcome and elapsed time; the badge takes the outcome's status colour
        (the same as History's and the timeline's: :func:`app.ui.shell.theme.outcome_status`)."""
        self._ticker.stop()
        self.outcome = event.outcome
        self.time_label.setText(f"{event.elapsed_ms:,.0f} ms")
        breakdown = self._breakdown()
        self.elapsed_label.setText(breakdown)
        self.elapsed_label.setToolTip(f"{breakdown}\n\n{_TIMING_TIP}" if breakdown else _TIMING_TIP)
        if self._items:
            self.size_label.setText(
                f"{self._items:,} event{'s' * (self._items != 1)}, {size_text(self._item_bytes)}"
            )
        ok = event.outcome is Outcome.OK
        label = {
            Outcome.OK: self._status or "OK",
            Outcome.RPC_ERROR: "Error",
            Outcome.PROTOCOL_ERROR: "Protocol error",
            Outcome.TRANSPORT_ERROR: "Transport error",
            Outcome.USAGE_ERROR: "Not sent",
            Outcome.CANCELLED: "Cancelled",
        }[event.outcome]
        if not ok and self._status and event.outcome is not Outcome.USAGE_ERROR:
            if self._summarised:  # the banner says the status line: the badge gives the code
                label = f"{label} · HTTP {self._status_code}"
            else:
                status = self._status if self._transport == "gRPC" else f"HTTP {self._status}"
                label = f"{label} · {status}"
        self.status_label.setText(label)
        status = theme.outcome_status(event.outcome.value)
        theme.style(self.status_label, f"badge-status:{status}", theme.BADGE_SHAPE)
        if not ok and not self.pretty_char_count() and self._errors:
            # No body (gRPC errors, refused connections, a bare redirect): Pretty says so;
            # the banner above has the error in words, never as the app's own record.
            self._use_big(False)
            self.pretty_view.setPlaceholderText(f"No response body ({label}): see above.")
            self.tabs.setCurrentWidget(self.pretty_view)
        self._update_copy_buttons()

    # --- copying ----------------------------------------------------------------------

    def set_curl_source(self, source: CurlSource | None) -> None:
        """Where *Copy as curl* gets its command (None: the button is disabled)."""
        self._curl_source = source
        self._update_copy_buttons()

    def copy_body(self) -> None:
        """Copy the body as shown in Pretty (JSON indented; other text as received)."""
        if self._body is None:
            return
        body = self._body
        if self.tabs.widget(0) is self.pretty_big and self.pretty_big.buffer is not None:
            text = self.pretty_big.buffer.text()  # the same text, without parsing the body
        elif body.is_json:
            text = pretty_json(body.json)
        else:
            text = _decoded(body.body)
        QGuiApplication.clipboard().setText(text)

    def recorded_body(self) -> bytes | None:
        """The body of the answer shown (a unary response), None before one arrived."""
        return self._body.body if self._body is not None else None

    def copy_raw(self) -> None:
        """Copy the body exactly as received (decoded as UTF-8)."""
        if self._body is not None:
            QGuiApplication.clipboard().setText(_decoded(self._body.body))

    def copy_curl(self) -> None:
        """Copy the tab's request as a command line, or say why there is none."""
        if self._curl_source is None:
            return
        try:
            text = self._curl_source()
        except (ValueError, LookupError) as exc:  # UsageError is a ValueError
            tip = plain_tip(f"No command: {exc}")
            QToolTip.showText(QCursor.pos(), tip or "", self.copy_curl_button)
            return
        QGuiApplication.clipboard().setText(text)
        QToolTip.showText(QCursor.pos(), "Command copied", self.copy_curl_button)

    def _update_copy_buttons(self) -> None:
        self.copy_body_button.setEnabled(self._body is not None)
        self.copy_raw_button.setEnabled(self._body is not None)
        self.copy_curl_button.setEnabled(self._curl_source is not None)

    # --- internals --------------------------------------------------------------------

    def _show_errors(self) -> None:
        if not self._errors:
            return
        blocks = [self._error_block(e) for e in self._errors]
        self.error_label.setText("\n\n".join(blocks))
        self.error_label.show()

    def _error_block(self, error: ExchangeError) -> str:
        """An error's banner text; an HTTP error with a non-JSON body (an HTML page) is
        one summary line, the page itself stays in Raw."""
        body = self._body
        if body is None or body.is_json or self._status_code is None:
            return error_text(error)
        if error.kind is ErrorKind.RPC and error.message.startswith(f"HTTP {self._status_code}"):
            self._summarised = True
            status = error.message.split(":", 1)[0]
            return non_json_summary(status, body.content_type or self._content_type, body.body)
        if error.kind is ErrorKind.PROTOCOL and "not JSON" in error.message:
            status = f"HTTP {self._status}" if self._transport == "HTTP" else self._status
            summary = non_json_summary(status, body.content_type or self._content_type, body.body)
            return f"Protocol error: the response is not JSON — {summary}"
        return error_text(error)

    def _tick(self) -> None:
        # The badge says "Sending…" or the status line: the counter adds what it does not.
        if self._started_at is None:
            return
        seconds = f"{time.monotonic() - self._started_at:,.1f} s"
        if self._items:
            text = f"streaming… {self._items:,} event{'s' * (self._items != 1)} · {seconds}"
        elif self._t_head is not None:
            text = f"receiving… {seconds}"
        else:
            text = f"waiting… {seconds}"
        self.elapsed_label.setText(text)

    def _breakdown(self) -> str:
        parts: list[str] = []
        for name, t in (
            ("sent", self._t_sent),
            ("headers", self._t_head),
            ("body", self._t_body),
            ("first event", self._t_first_item),
            ("last event", self._t_last_item),
        ):
            if t is not None:
                parts.append(f"{name} {t * 1000:,.0f} ms")
        return " · ".join(parts)

    def _find_target(self) -> Target:
        widget = self.tabs.currentWidget()
        return widget if isinstance(widget, QPlainTextEdit | JsonTreePage) else None

    def _on_tab_changed(self, _index: int) -> None:
        if self.find_bar.isVisible():
            self.find_bar.refresh()


def _decoded(body: bytes) -> str:
    return body.decode("utf-8", "replace")


def _button(name: str, text: str, tip: str) -> QToolButton:
    # Tool buttons: compact enough to sit beside the tab titles (push buttons are 80 px+).
    button = QToolButton()
    button.setText(text)
    button.setObjectName(name)
    button.setToolTip(tip)
    return button
