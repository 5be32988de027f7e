"""The request tab's local push receiver: *Use local receiver* and deliveries on the timeline.

objectNames: ``pushReceiverButton`` (starts the app's receiver, then fills the draft's push
config with its URL and a fresh token), ``pushReceiverNote`` (loopback only: an agent on
another machine cannot reach it), ``pushReceiverStatus``.

One :class:`PushHost` serves the whole app: started on the first click, on the qasync loop
(never blocking the window), stopped by :func:`shutdown_shared` when the app shuts down.
Each delivery goes to the tabs whose exchanges concern its task, as a ``push delivery`` row
of the timeline (headers and body masked; the token check and the scheme seen).
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.protocol.events import NOT_JSON, ResponseBody, StreamItem
from app.protocol.findings import Finding, Severity
from app.protocol.stream.stream_items import ItemKind, classify_body, classify_json
from app.protocol.types import Binding, ProtocolVersion
from app.push.configs import fill_push_config, where_push_configs_go
from app.push.receiver import LOOPBACK_NOTE, PushDelivery, PushReceiver, with_push_path
from app.ui.shell.tasks import OwnedTask
from app.ui.timeline.timeline_model import TimelineRow

if TYPE_CHECKING:
    from app.protocol.request import A2ARequest
    from app.ui.request.body_editor import BodyEditor
    from app.ui.request.request_controller import RequestController
    from app.ui.request.shape_banner import ShapeBanner
    from app.ui.shell.widgets import CodeView
    from app.ui.timeline.timeline_panel import TimelinePanel


class PushHost(QObject):
    """The app's one receiver. Signals: ``delivered`` (arg: the PushDelivery)."""

    delivered = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self.receiver = PushReceiver()
        self._lock = asyncio.Lock()
        self.receiver.add_listener(self.delivered.emit)

    async def ensure_started(self) -> PushReceiver:
        """The receiver, listening (started on the first call; later calls share it)."""
        async with self._lock:
            await self.receiver.start()
        return self.receiver

    async def shutdown(self) -> None:
        await self.receiver.stop()


_HOST: list[PushHost] = []


def shared_host() -> PushHost:
    """The app's receiver host (created, not started, on first use)."""
    if not _HOST:
        _HOST.append(PushHost())
    return _HOST[0]


def push_secrets() -> tuple[str, ...]:
    """Every token the app's receiver issued: registered on requests so views, the
    history and logs mask them (nothing when the receiver was never used)."""
    return _HOST[0].receiver.tokens if _HOST else ()


async def shutdown_shared() -> None:
    """Stop the app's receiver (the window's shutdown); a later click starts a new one."""
    if _HOST:
        host = _HOST.pop()
        await host.shutdown()


def _set_to(url: str, receiver: PushReceiver) -> str:
    said = f"Push config set to {url} with a fresh token (masked in history)"
    if url != receiver.url:
        said += f"; it must lead to the receiver at {receiver.local_url}"
    return said


class PushTab(Protocol):
    """What the wiring uses of its request tab (``RequestTab``, which creates it: typed here,
    not imported)."""

    @property
    def shape_banner(self) -> ShapeBanner:
        """The banner above the draft; the receiver's button and note go under it."""
        ...

    @property
    def body_editor(self) -> BodyEditor:
        """The draft, which gets the receiver's URL and token."""
        ...

    @property
    def version(self) -> ProtocolVersion:
        """The tab's protocol version: where a push config goes depends on it."""
        ...

    @property
    def binding(self) -> Binding: ...
    @property
    def preview(self) -> CodeView: ...
    @property
    def controller(self) -> RequestController: ...
    @property
    def timeline(self) -> TimelinePanel: ...

    def generate_preview(self) -> None:
        """Render the method's template into the preview."""
        ...


class PushWiring(QObject):
    """The button and note beside the draft, and the deliveries of this tab's tasks."""

    def __init__(self, tab: PushTab, *, parent: QObject) -> None:
        super().__init__(parent)
        self._tab = tab
        self._task = OwnedTask()
        self.task_ids: set[str] = set()
        self._shown: set[int] = set()
        self._started_at = time.time()
        self._host: PushHost | None = None
        self.button = QPushButton("Use local receiver")
        self.button.setObjectName("pushReceiverButton")
        self.button.setToolTip(
            "Start the app's push receiver on 127.0.0.1 and put its URL and a fresh token in"
            " the draft's push config; deliveries appear on the Timeline"
        )
        # A strict agent refuses a loopback callback (docs/PEERS.md Q29): the address it
        # should call instead, a tunnel the user runs to the receiver's local port.
        self.public_edit = QLineEdit()
        self.public_edit.setObjectName("pushPublicUrlEdit")
        self.public_edit.setPlaceholderText("public URL (optional)")
        self.public_edit.setToolTip(
            "The address agents should call instead of 127.0.0.1 — a tunnel or proxy you run"
            " to the receiver's local port (shown once it listens); /push is added to a bare"
            " origin"
        )
        self.note = QLabel(LOOPBACK_NOTE)
        self.note.setObjectName("pushReceiverNote")
        self.note.setWordWrap(True)
        self.status = QLabel("")
        self.status.setObjectName("pushReceiverStatus")
        self.status.setWordWrap(True)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.button)
        row.addWidget(self.public_edit)
        row.addWidget(self.note, 1)
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(row)
        column.addWidget(self.status)
        self.status.hide()
        holder = tab.shape_banner.parentWidget()
        layout = holder.layout() if holder is not None else None
        if isinstance(layout, QVBoxLayout):
            layout.insertWidget(layout.indexOf(tab.shape_banner) + 1, box)
        self.button.clicked.connect(self.use_local_receiver)
        self._filling = False
        # The status speaks of the body it filled: once the draft changes, it is stale.
        tab.body_editor.textChanged.connect(self._on_body_changed)
        tab.controller.started.connect(self._on_started)
        tab.controller.events_arrived.connect(self._on_events)

    # --- the button --------------------------------------------------------------------

    def use_local_receiver(self) -> None:
        """Start the receiver (once per app) and fill the draft's push config."""
        self.button.setEnabled(False)
        self._task.start(self._fill(), then=lambda: self.button.setEnabled(True))

    async def _fill(self) -> None:
        host = shared_host()
        try:
            receiver = await host.ensure_started()
        except OSError as exc:
            self._say(f"The push receiver did not start: {exc}")
            return
        if self._host is not host:
            self._host = host
            host.delivered.connect(self._on_delivery)
        token = receiver.new_token()
        tab = self._tab
        url = with_push_path(self.public_edit.text()) or receiver.url
        filled = _filled(tab.body_editor.toPlainText(), url, token)
        if filled is None:  # the draft has no push config: the method's template may
            tab.generate_preview()
            filled = _filled(tab.preview.toPlainText(), url, token)
        if filled is None:
            where = where_push_configs_go(tab.version, tab.binding)
            self._say(f"This body has no push config: {where}")
            return
        text, task_ids = filled
        if tab.body_editor.holding:  # a big body, not in the document
            self._filling = True
            try:
                tab.body_editor.setPlainText(text)
            finally:
                self._filling = False
            self.note_tasks(task_ids)
            self._say(_set_to(url, receiver))
            return
        cursor = QTextCursor(tab.body_editor.document())
        cursor.select(QTextCursor.SelectionType.Document)
        self._filling = True
        try:
            cursor.insertText(text)  # one undo step, unlike setPlainText
        finally:
            self._filling = False
        self.note_tasks(task_ids)
        self._say(_set_to(url, receiver))

    def _on_body_changed(self) -> None:
        if not self._filling:
            self.status.hide()

    def _say(self, text: str) -> None:
        self.status.setText(text)
        self.status.show()

    # --- this tab's tasks and their deliveries ---------------------------------------------

    def note_tasks(self, task_ids: list[str] | set[str]) -> None:
        """Tasks of this tab: their deliveries (past and future) join its timeline."""
        new = {t for t in task_ids if t and t not in self.task_ids}
        if not new:
            return
        self.task_ids |= new
        if _HOST:
            for delivery in _HOST[0].receiver.deliveries:
                self._on_delivery(delivery)

    def _on_started(self, _request: A2ARequest, _streaming: bool) -> None:
        self._started_at = time.time()

    def _on_events(self, events: list[object]) -> None:
        if not _HOST:
            # No receiver, no delivery to match: the per-event scan stays off the stream
            # path. A config filled later names its own task ids (note_tasks).
            return
        found: set[str] = set()
        for event in events:
            if isinstance(event, StreamItem) and event.info is not None:
                found.add(event.info.task_id)
            elif isinstance(event, ResponseBody) and event.json is not NOT_JSON:
                found.add(classify_body(event).task_id)
        self.note_tasks(found)

    def _on_delivery(self, delivery: PushDelivery) -> None:
        if delivery.seq in self._shown or delivery.task_id not in self.task_ids:
            return
        self._shown.add(delivery.seq)
        timeline = self._tab.timeline
        # Timed on the timeline's clock: from its first send, like every other row.
        since = timeline.wall_origin if timeline.wall_origin is not None else self._started_at
        timeline.model.append(delivery_row(delivery, since))
        timeline.model.flush()


def delivery_row(delivery: PushDelivery, since: float) -> TimelineRow:
    """The timeline row of ``delivery`` (secrets masked), timed from ``since`` (wall clock)."""
    raw, body = delivery.masked_body()
    info = classify_json(body) if body is not NOT_JSON else None
    check, auth = delivery.token_check, delivery.auth_seen
    detail: dict[str, Any] = {
        "delivery": delivery.seq,
        "request": f"{delivery.method} {delivery.path}",
        "tokenCheck": check,
        "authentication": auth,
        "headers": dict(delivery.masked_headers()),
        "body": body if body is not NOT_JSON else raw.decode("utf-8", "replace"),
    }
    head = "".join(f"{n}: {v}\r\n" for n, v in delivery.masked_headers())
    findings = []
    if delivery.token_ok is False:
        findings.append(Finding("push-token", f"push delivery token {check}", Severity.WARNING))
    what = delivery.kind or "not an A2A object"
    return TimelineRow(
        max(0.0, (delivery.received_at - since) * 1000.0),
        ItemKind.PUSH_DELIVERY,
        delivery.task_id or "",
        info.state if info is not None and info.kind is not ItemKind.ERROR else None,
        f"{what} · token {check} · auth: {auth}",
        f"{delivery.method} {delivery.path}\r\n{head}\r\n".encode() + raw,
        detail,
        findings,
    )


def _filled(text: str, url: str, token: str) -> tuple[str, list[str]] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    result = fill_push_config(value, url, token)
    if not result.count:
        return None
    return json.dumps(result.value, indent=2, ensure_ascii=False), result.task_ids
