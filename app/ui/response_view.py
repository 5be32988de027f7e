"""The response panel: status line, error banner, pretty/raw body, headers, request sent."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QTabWidget, QVBoxLayout, QWidget

from app.protocol.events import (
    ExchangeEnd,
    ExchangeError,
    ExchangeFinding,
    Outcome,
    RequestSent,
    ResponseBody,
    ResponseHead,
)
from app.ui import theme
from app.ui.formatting import (
    error_text,
    headers_text,
    pretty_json,
    raw_preview,
    request_text,
    size_text,
)
from app.ui.widgets import CodeView

# Theme roles (colours: app/ui/theme.py) and the banners' shape.
_OK_STYLE, _ERR_STYLE, _IDLE_STYLE = "badge-ok", "badge-error", "badge-idle"
_BANNER_SHAPE = "border-radius: 4px; padding: 6px;"


class ResponseView(QWidget):
    """Shows one exchange as its events arrive (``objectName`` ``responseView``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("responseView")
        self.outcome: Outcome | None = None
        self._status = ""
        self._transport = "HTTP"
        self._errors: list[str] = []
        self._error_events: list[ExchangeError] = []

        self.status_label = QLabel("No request sent yet")
        self.status_label.setObjectName("responseStatusLabel")
        theme.style(self.status_label, _IDLE_STYLE, theme.BADGE_SHAPE)
        self.time_label = QLabel("")
        self.time_label.setObjectName("responseTimeLabel")
        self.size_label = QLabel("")
        head = QHBoxLayout()
        head.addWidget(self.status_label)
        head.addWidget(self.time_label)
        head.addWidget(self.size_label)
        head.addStretch(1)

        self.error_label = QLabel("")
        self.error_label.setObjectName("responseErrorLabel")
        self.error_label.setWordWrap(True)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        theme.style(self.error_label, "banner-error", _BANNER_SHAPE)
        self.error_label.hide()
        self._findings: list[str] = []
        self.findings_label = QLabel("")
        self.findings_label.setObjectName("responseFindingsLabel")
        self.findings_label.setWordWrap(True)
        self.findings_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        theme.style(self.findings_label, "banner-warn", _BANNER_SHAPE)
        self.findings_label.hide()

        self.pretty_view = CodeView("prettyBodyView", read_only=True)
        self.raw_view = CodeView("rawBodyView", read_only=True, json=False)
        self.headers_view = CodeView("responseHeadersView", read_only=True, json=False)
        self.request_view = CodeView("requestSentView", read_only=True)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("responseTabs")
        self.tabs.addTab(self.pretty_view, "Pretty")
        self.tabs.addTab(self.raw_view, "Raw")
        self.tabs.addTab(self.headers_view, "Headers")
        self.tabs.addTab(self.request_view, "Request sent")

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(head)
        layout.addWidget(self.error_label)
        layout.addWidget(self.findings_label)
        layout.addWidget(self.tabs, 1)

    def clear(self) -> None:
        """Forget the previous exchange."""
        self.outcome = None
        self._status = ""
        self._transport = "HTTP"
        self._errors = []
        self._error_events = []
        self.status_label.setText("Sending…")
        theme.style(self.status_label, _IDLE_STYLE, theme.BADGE_SHAPE)
        self.time_label.setText("")
        self.size_label.setText("")
        self.error_label.hide()
        self._findings = []
        self.findings_label.hide()
        for view in (self.pretty_view, self.raw_view, self.headers_view, self.request_view):
            view.set_text("")

    def show_request(self, event: RequestSent) -> None:
        """The request as it went out, credentials masked (:meth:`RequestSent.masked`)."""
        self._transport = "gRPC" if event.method == "gRPC" else "HTTP"
        shown = event.masked()
        self.request_view.set_text(request_text(shown, shown.headers))

    def show_head(self, event: ResponseHead) -> None:
        """Status line and headers."""
        self._status = f"{event.status} {event.reason}".strip()
        if self._transport == "gRPC":
            self._status = f"gRPC {self._status}"
        self.status_label.setText(self._status)
        self.headers_view.set_text(headers_text(event.headers))

    def show_body(self, event: ResponseBody, pretty: str) -> None:
        """The body: ``pretty`` (already formatted, possibly off the GUI thread) and raw."""
        self.size_label.setText(size_text(len(event.body)))
        self.raw_view.set_text(raw_preview(event.body))
        self.pretty_view.set_text(pretty)

    def show_error(self, event: ExchangeError) -> None:
        """Add an error to the red banner (several may arrive)."""
        self._errors.append(error_text(event))
        self._error_events.append(event)
        self.error_label.setText("\n\n".join(self._errors))
        self.error_label.show()

    def show_finding(self, event: ExchangeFinding) -> None:
        """Add a finding (a deviation the client understood) to the amber banner."""
        where = f"#{event.seq} " if event.seq is not None else ""
        self._findings.append(f"⚠ {where}{event.finding}")
        self.findings_label.setText("\n".join(self._findings[-20:]))
        self.findings_label.show()

    def show_end(self, event: ExchangeEnd) -> None:
        """Final outcome and elapsed time; errors turn the status badge red."""
        self.outcome = event.outcome
        self.time_label.setText(f"{event.elapsed_ms:,.0f} ms")
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
            status = self._status if self._transport == "gRPC" else f"HTTP {self._status}"
            label = f"{label} · {status}"
        self.status_label.setText(label)
        theme.style(self.status_label, _OK_STYLE if ok else _ERR_STYLE, theme.BADGE_SHAPE)
        if not ok and not self.pretty_view.toPlainText() and self._error_events:
            # No body (gRPC errors, refused connections): show the error itself as JSON.
            self.pretty_view.set_text(pretty_json([e.as_record() for e in self._error_events]))
            self.tabs.setCurrentWidget(self.pretty_view)
