"""The gap detector on a request tab's timeline (app/protocol/stream/gaps.py).

When a resubscription (SubscribeToTask, 0.3 ``tasks/resubscribe``; the Timeline's
*Resubscribe* or one sent by hand) ends, the tab asks for a GetTask snapshot through its
side exchange and compares it with every event its timeline holds for the task: what the
client never received becomes a ``finding`` row ("missed: artifact `report`, working →
input-required"), else a quiet "no gaps" row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QObject

from app.protocol.events import NOT_JSON, ResponseBody
from app.protocol.methods.catalog import MethodRole, find_method
from app.protocol.stream.gaps import missed_updates, snapshot_task
from app.protocol.stream.stream_items import ItemKind
from app.ui.timeline.timeline_model import TimelineRow

if TYPE_CHECKING:
    from app.protocol.request import A2ARequest
    from app.ui.request.request_controller import RequestController
    from app.ui.response.exchange_presenter import ExchangePresenter
    from app.ui.timeline.timeline_panel import TimelinePanel

_EVENTS = (ItemKind.TASK, ItemKind.MESSAGE, ItemKind.STATUS_UPDATE, ItemKind.ARTIFACT_UPDATE)
SNAPSHOT_LABEL = "GetTask snapshot (gap check)"


class GapTab(Protocol):
    """What the gap check uses of its request tab (``RequestTab``, which creates it: typed
    here, not imported)."""

    @property
    def controller(self) -> RequestController:
        """Runs the tab's exchanges; the snapshot goes through its side exchange."""
        ...

    @property
    def presenter(self) -> ExchangePresenter:
        """Labels the side exchange's result on the timeline."""
        ...

    @property
    def timeline(self) -> TimelinePanel:
        """What the client received, and where the check's row goes."""
        ...

    def side_request(self, role: MethodRole, task_id: str) -> A2ARequest | None:
        """The ``role`` request for ``task_id`` over the tab's binding, headers and auth."""
        ...


class GapWiring(QObject):
    """Runs the gap check after each resubscription of the tab."""

    def __init__(self, tab: GapTab, *, parent: QObject) -> None:
        super().__init__(parent)
        self._tab = tab
        self._watching = False
        self._pending: tuple[str, list[Any]] | None = None
        self._snapshot: Any = NOT_JSON
        controller = tab.controller
        controller.started.connect(self._on_started)
        controller.finished.connect(self._on_finished)
        controller.side_event_arrived.connect(self._on_side_event)
        controller.side_finished.connect(self._on_side_finished)

    def _on_started(self, request: A2ARequest, _streaming: bool) -> None:
        spec = find_method(request.version, request.method)
        self._watching = spec is not None and spec.role is MethodRole.SUBSCRIBE

    def _on_finished(self) -> None:
        if not self._watching:
            return
        self._watching = False
        tab = self._tab
        timeline = tab.timeline
        task_id = timeline.task_id
        if not task_id:
            return
        if tab.controller.side_busy:
            self._row(task_id, "gap check skipped: another side request is running")
            return
        request = tab.side_request(MethodRole.GET, task_id)
        if request is None:
            return
        timeline.model.flush()
        # What the client saw, before the snapshot's own row joins the timeline.
        seen = [r.data for r in timeline.model.rows() if r.kind in _EVENTS]
        self._pending, self._snapshot = (task_id, seen), NOT_JSON
        tab.presenter.side_label = SNAPSHOT_LABEL
        tab.controller.send_side(request)

    def _on_side_event(self, event: object) -> None:
        if self._pending is not None and isinstance(event, ResponseBody):
            self._snapshot = event.json

    def _on_side_finished(self) -> None:
        if self._pending is None:
            return
        (task_id, seen), self._pending = self._pending, None
        snapshot = self._snapshot if isinstance(self._snapshot, dict) else {}
        findings = missed_updates(seen, snapshot, self._tab.timeline.version)
        if findings:
            self._row(task_id, findings[0].message, findings)
            return
        if snapshot_task(snapshot) is None:
            self._row(task_id, "gap check: the GetTask answer holds no Task")
            return
        self._row(task_id, "no gaps: the snapshot holds nothing the streams missed")

    def _row(self, task_id: str, text: str, findings: list[Any] | None = None) -> None:
        timeline = self._tab.timeline
        timeline.model.append(
            TimelineRow(
                timeline.now_ms(),
                ItemKind.FINDING,
                task_id,
                summary=text,
                # Shown in the detail pane when the row is selected (the row has no frame).
                data={"gapCheck": text, "missed": [f.message for f in findings or ()]},
                findings=findings or (),
                connection=timeline.session.connection,
                marker=True,
            )
        )
        timeline.model.flush()
