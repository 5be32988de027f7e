"""The card panel's *Extended card* page: the authenticated extended card, diffed against the
public one.

The request is the tab's own (endpoint, binding, version, tenant, headers and Auth) with the
method swapped for the version's extended-card method and the body rendered from the method
catalog's template (:func:`extended_card_request`).
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.protocol.bindings import traits
from app.protocol.card.diff import diff_public_extended, diff_summary
from app.protocol.events import NOT_JSON, ExchangeError, ResponseBody, ResponseHead
from app.protocol.methods.catalog import MethodRole, TemplateContext, method_for_role
from app.protocol.request import A2ARequest, render_body
from app.protocol.types import Binding
from app.ui.card.card_models import DiffModel
from app.ui.shell.plain_text import PlainLabel
from app.ui.shell.widgets import CodeView


def extended_card_request(request: A2ARequest) -> A2ARequest:
    """``request`` with its method and body replaced by the extended-card call.

    Raises:
        ValueError: the catalog has no extended-card method for the request's version.
    """
    try:
        spec = method_for_role(request.version, MethodRole.EXTENDED_CARD)
    except LookupError as exc:
        raise ValueError(str(exc)) from exc
    body = render_body(spec, request.binding, TemplateContext(tenant=request.tenant))
    return replace(request, method=spec.name, body=body)


def card_from_body(binding: Binding, value: Any) -> tuple[Any, str]:
    """The card inside a response body, or ``(None, why not)``.

    JSON-RPC answers carry it in ``result``; REST and gRPC answers are the card itself.
    """
    if value is NOT_JSON:
        return None, "the response body is not JSON"
    if traits(binding).payload.envelope:
        if isinstance(value, dict) and "result" in value:
            return value["result"], ""
        return None, "the JSON-RPC response has no 'result'"
    return value, ""


class ExtendedCardView(QWidget):
    """Status line, diff table and the extended card's JSON (``extendedCardView``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("extendedCardView")
        self.status_label = PlainLabel(  # errors quote the agent
            "Press “Get extended card” to fetch the authenticated extended card with this "
            "tab's endpoint, binding, version and Auth, and compare it with the public card."
        )
        self.status_label.setObjectName("extendedCardStatusLabel")
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.model = DiffModel(self)
        self.table = QTableView()
        self.table.setObjectName("extendedCardDiffTable")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.json_view = CodeView("extendedCardJson", read_only=True)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.json_view)
        split.setSizes([200, 200])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.status_label)
        layout.addWidget(split, 1)
        self.extended: Any = None
        self._http_status = ""
        self._errors: list[str] = []
        self._note = ""

    def start(self, request: A2ARequest) -> None:
        """Reset for a new fetch of ``request``."""
        self.extended = None
        self._http_status = ""
        self._errors = []
        self._note = ""
        self.model.set_rows(())
        self.json_view.set_text("")
        self.status_label.setText(
            f"Fetching with {request.method} ({request.binding.value}, "
            f"{request.version.value}) from {request.endpoint or '(no endpoint)'}…"
        )

    def on_head(self, event: ResponseHead) -> None:
        """Remember the HTTP status for the summary."""
        self._http_status = f"HTTP {event.status} {event.reason}".strip()

    def on_error(self, event: ExchangeError) -> None:
        """Collect an error of the exchange."""
        self._errors.append(event.message)

    def on_body(self, event: ResponseBody, binding: Binding, public: Any) -> None:
        """Show the body: the card and its diff against ``public``, or why there is none."""
        text = event.body.decode("utf-8", errors="replace")
        if event.json is not NOT_JSON:
            text = json.dumps(event.json, indent=2, ensure_ascii=False)
        self.json_view.set_text(text)
        card, why = card_from_body(binding, event.json)
        if card is None:
            self._errors.append(why)
            return
        self.extended = card
        entries, self._note = diff_public_extended(public, card) if public is not None else ((), "")
        self.model.set_rows(entries)
        self.table.resizeColumnsToContents()

    def finish(self, cancelled: bool = False) -> None:
        """Write the summary line once the exchange has ended."""
        parts = [self._http_status] if self._http_status else []
        if cancelled:
            parts.append("cancelled")
        if self.extended is not None:
            summary = diff_summary(self.model.rows())
            parts.append(f"extended card received; against the public card: {summary}")
            if self._note:
                parts.append(self._note)
        parts.extend(self._errors)
        self.status_label.setText(" · ".join(parts) or "No answer")
