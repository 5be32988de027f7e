"""The stream timeline panel: header and buttons, event table and detail pane.

objectNames: ``timelinePanel``, ``timelineView`` (the table), the header's
(:mod:`app.ui.timeline.timeline_header`: ``timelineStateLabel``, ``timelineContextIdEdit``,
``timelineTaskIdEdit``, ``copyTaskIdButton``, ``stopButton``, ``cancelTaskButton``, …),
``timelineFilterEdit`` and
``timelineFilterCountLabel`` (:mod:`app.ui.timeline.timeline_filter`), ``timelineDetailTabs`` with
``timelineJsonView``, ``timelineJsonTreePage`` (its tree ``jsonTreeView``) and
``timelineRawView``, ``timelineFindingsLabel``; the detail's ``findBar``.

What the stream says (ids, state, lint, ending) is kept by a Qt-free
:class:`app.protocol.stream.stream_session.StreamSession` that the CLI uses too; the panel shows
it. The request tab owns the network work and reacts to the button signals.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QItemSelection, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QPlainTextEdit,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.protocol.events import (
    NOT_JSON,
    ExchangeError,
    ExchangeFinding,
    Outcome,
    ResponseBody,
    StreamItem,
)
from app.protocol.findings import Finding
from app.protocol.stream.lifecycle import StreamEnding
from app.protocol.stream.stream_items import ItemKind, TaskState
from app.protocol.stream.stream_session import StreamSession
from app.protocol.types import ProtocolVersion
from app.ui.response.find_bar import FindBar, Target
from app.ui.response.formatting import error_text, pretty_json, raw_preview
from app.ui.response.json_tree import JsonTreePage
from app.ui.shell import theme
from app.ui.shell.plain_text import PlainLabel
from app.ui.shell.widgets import CodeView
from app.ui.timeline.timeline_columns import set_task_column, size_columns
from app.ui.timeline.timeline_filter import TimelineFilterBar
from app.ui.timeline.timeline_header import TimelineHeader
from app.ui.timeline.timeline_model import PARSE_RAW, TimelineModel, TimelineRow

KEEP_PARSED_BYTES = 64 * 1024
"""Stream items up to this size keep only their raw bytes; their JSON is parsed again when
the row is selected (holding 20 000 parsed events made the collector's full passes freeze
the window). Bigger items keep their parsed JSON: parsing them again would stall."""


class TimelinePanel(QWidget):
    """Shows a task's event stream as it arrives.

    Signals:
        stop_requested: Stop clicked: disconnect locally (no args).
        cancel_task_requested: Cancel task clicked (arg: task id).
        resubscribe_requested: Resubscribe clicked (arg: task id).
        follow_up_requested: Follow up clicked (args: context id, task id or "" when the
            task is not waiting for input).
    """

    stop_requested = Signal()
    cancel_task_requested = Signal(str)
    resubscribe_requested = Signal(str)
    follow_up_requested = Signal(str, str)

    def __init__(self, parent: QWidget | None = None, *, recorded: bool = False) -> None:
        """``recorded``: the timeline shows an exchange that is over and was kept (History,
        the check report), so it has no Stop, Resubscribe, Cancel task or Follow up."""
        super().__init__(parent)
        self.setObjectName("timelinePanel")
        # A plain object: setting a QWidget attribute is slow, and this changes every event.
        self.session = StreamSession()
        # One clock for every row: each exchange counts from its own start, so its times
        # are shifted by when it started after the first send (None: nothing sent yet).
        self._origin: float | None = None
        self.wall_origin: float | None = None  # the same instant as time.time() (push)
        self._offset_ms = 0.0  # the main exchange's start on this clock
        self._side_offset_ms = 0.0  # the side exchange's (Cancel task)

        self.model = TimelineModel(self)

        self.header = TimelineHeader(recorded=recorded)
        head = self.header
        self.state_label, self.ending_label = head.state_label, head.ending_label
        self.count_label = head.count_label
        self.context_edit, self.task_edit = head.context_edit, head.task_edit
        self.copy_button, self.copy_context_button = head.copy_button, head.copy_context_button
        self.stop_button, self.cancel_button = head.stop_button, head.cancel_button
        self.resubscribe_button = head.resubscribe_button
        self.follow_up_button = head.follow_up_button
        self.stop_button.clicked.connect(self.stop_requested)
        self.cancel_button.clicked.connect(lambda: self.cancel_task_requested.emit(self.task_id))
        self.resubscribe_button.clicked.connect(
            lambda: self.resubscribe_requested.emit(self.task_id)
        )
        self.follow_up_button.clicked.connect(self._on_follow_up_clicked)

        self.view = QTableView()
        self.view.setObjectName("timelineView")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setAlternatingRowColors(False)
        self.view.setWordWrap(False)
        self.view.verticalHeader().hide()
        # Fixed row heights: inserting a batch must not measure every row (20 000 rows).
        self.view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 6)
        size_columns(self.view)
        self.view.selectionModel().selectionChanged.connect(self._on_selection_changed)
        self.model.flushed.connect(self._on_model_flushed)
        self.filter_bar = TimelineFilterBar(self.view, self.model)
        self.filter_bar.view_model_changed.connect(self._on_view_model_changed)
        self.filter_edit, self.filter_proxy = self.filter_bar.edit, self.filter_bar.proxy

        self.raw_view = CodeView("timelineRawView", read_only=True, json=False)
        self.json_view = CodeView("timelineJsonView", read_only=True)
        self.json_view.setPlaceholderText("Select a row to see its JSON here")
        self.findings_label = PlainLabel()  # findings quote the agent's values
        self.findings_label.setObjectName("timelineFindingsLabel")
        self.findings_label.setWordWrap(True)
        theme.style(self.findings_label, "banner-warn", "border-radius: 4px; padding: 4px;")
        self.findings_label.hide()
        self.detail_tabs = QTabWidget()
        self.detail_tabs.setObjectName("timelineDetailTabs")
        self.tree_page = JsonTreePage()
        self.tree_page.setObjectName("timelineJsonTreePage")
        self.detail_tabs.addTab(self.json_view, "Pretty")
        self.detail_tabs.addTab(self.tree_page, "Tree")
        self.detail_tabs.addTab(self.raw_view, "Raw frame")
        detail = QWidget()
        detail.setObjectName("timelineDetail")
        self.find_bar = FindBar(self._find_target)
        self.find_bar.install(self)
        self.detail_tabs.currentChanged.connect(self._on_detail_tab_changed)
        detail_layout = QVBoxLayout(detail)
        detail_layout.setContentsMargins(0, 0, 0, 0)
        detail_layout.addWidget(self.findings_label)
        detail_layout.addWidget(self.detail_tabs, 1)
        detail_layout.addWidget(self.find_bar)
        # Small windows: the detail may shrink to its tab bar and a few lines (the header
        # above the table has four rows, and the history dock shows this panel too).
        detail.setMinimumHeight(self.fontMetrics().height() * 4 + 32)
        table = QWidget()
        table_layout = QVBoxLayout(table)
        table_layout.setContentsMargins(0, 0, 0, 0)
        table_layout.addWidget(self.filter_bar)
        table_layout.addWidget(self.view, 1)

        split = QSplitter(Qt.Orientation.Vertical)
        split.setObjectName("timelineSplitter")
        split.addWidget(table)
        split.addWidget(detail)
        # Half each, and a shorter pane (a dock opened below) takes from both alike: the
        # detail stays as readable as the table.
        split.setSizes([300, 300])
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.header)
        layout.addWidget(split, 1)
        self._update_buttons()

    # --- feeding --------------------------------------------------------------------

    def clear(self, version: ProtocolVersion) -> None:
        """Forget everything: a new exchange starts in this tab."""
        self.model.clear()
        self.session = StreamSession(version)
        self._origin = self.wall_origin = None
        self._offset_ms = self._side_offset_ms = 0.0
        self.raw_view.set_text("")
        self.json_view.set_text("")
        self.tree_page.clear()
        self.findings_label.hide()
        set_task_column(self.view, shown=False)
        self._refresh_header()

    def note_send(self, *, side: bool = False) -> None:
        """An exchange of this timeline starts now (the first, a resubscription, or with
        ``side`` the Cancel task beside it): its events' times are counted from the first."""
        now = time.perf_counter()
        if self._origin is None:
            self._origin, self.wall_origin = now, time.time()
        offset = (now - self._origin) * 1000.0
        if side:
            self._side_offset_ms = offset
        else:
            self._offset_ms = offset

    def now_ms(self) -> float:
        """Milliseconds since the first send (0.0 before it)."""
        return 0.0 if self._origin is None else (time.perf_counter() - self._origin) * 1000.0

    def begin_connection(self, label: str) -> None:
        """A stream starts (the first, or a resubscription marked as a new connection)."""
        connection = self.session.begin_connection()
        if connection > 1:
            self.model.append(
                TimelineRow(
                    self.now_ms(),
                    ItemKind.COMMENT,
                    self.task_id,
                    summary=label,
                    marker=True,
                    connection=connection,
                )
            )
        self._update_buttons()
        self._refresh_header()

    def add_item(self, item: StreamItem) -> int:
        """One stream item: feed the session, queue its row; returns the row's index.

        This runs for every event of a fast stream on the GUI thread: the row is a few
        numbers and the item's raw bytes (its summary is derived from them when painted,
        its JSON parsed again when the row is selected), and nothing is formatted here.
        """
        session = self.session
        info, findings = session.feed(item)
        if info.task_id != session.task_id and info.task_id:
            set_task_column(self.view, shown=True)
        model = self.model
        raw = item.raw
        value = item.json
        index = model.add_frame(
            item.t * 1000.0 + self._offset_ms,
            info.kind,
            info.task_id,
            info.state,
            raw,
            PARSE_RAW if value is not NOT_JSON and len(raw) <= KEEP_PARSED_BYTES else value,
            session.connection,
            item.seq,
        )
        if item.json_error or item.sse_event:
            model.note_frame(index, item.json_error, item.sse_event)
        if findings:
            model.set_findings(index, findings)
        if info.kind is ItemKind.INCOMPLETE:  # its summary is not the frame's classification
            model.set_summary(index, info.summary)
        return index

    def attach_error(self, index: int, error: ExchangeError) -> None:
        """The error judged from the item of row ``index`` (as :meth:`add_item` returned):
        the row itself becomes the error row (one bad row per bad event; the stream goes on)."""
        row = self.model.get(index)
        row.kind = ItemKind.ERROR
        row.summary = " ".join(error_text(error).split())
        self.model.refresh(row)

    def attach_finding(self, index: int, finding: Finding) -> None:
        """A finding (:class:`app.protocol.events.ExchangeFinding`) on the item of row
        ``index``: shown with the row's lint."""
        row = self.model.get(index)
        row.findings = [*row.findings, finding]
        self.model.refresh(row)

    def add_finding(self, event: ExchangeFinding) -> None:
        """A finding on the stream as a whole (a server lingering after the task ended)."""
        self.model.append(
            TimelineRow(
                event.t * 1000.0 + self._offset_ms,
                ItemKind.COMMENT,
                self.task_id,
                summary=event.finding.message,
                findings=[event.finding],
                connection=self.session.connection,
                marker=True,
            )
        )

    def add_error(self, error: ExchangeError, *, side: bool = False) -> None:
        """An error of the exchange (rpc, protocol, transport; ``side``: of the side
        exchange) as a red row."""
        self.session.note_error(error)
        self.model.append(
            TimelineRow(
                error.t * 1000.0 + (self._side_offset_ms if side else self._offset_ms),
                ItemKind.ERROR,
                self.task_id,
                summary=" ".join(error_text(error).split()),
                data=error.as_record(),
                connection=self.session.connection,
            )
        )

    def add_body(self, body: ResponseBody, label: str, *, side: bool = False) -> None:
        """A plain body: a JSON error on a streaming call, or with ``side`` a side
        exchange's result (the Cancel task answer) — classified like a stream item."""
        info = self.session.note_body(body)
        self.model.append(
            TimelineRow(
                body.t * 1000.0 + (self._side_offset_ms if side else self._offset_ms),
                info.kind if info is not None else ItemKind.ERROR,
                info.task_id if info is not None else self.task_id,
                info.state if info is not None else None,
                f"{label}: {info.summary if info is not None else body.json_error}",
                body.body,
                body.json,
                connection=self.session.connection,
                marker=True,
            )
        )

    def add_marker(self, label: str) -> None:
        """A note row (e.g. "CancelTask sent"), timed now."""
        self.model.append(
            TimelineRow(
                self.now_ms(),
                ItemKind.COMMENT,
                self.task_id,
                summary=label,
                marker=True,
                connection=self.session.connection,
            )
        )

    def end_connection(self, outcome: Outcome, t_ms: float | None = None) -> None:
        """The stream's exchange ended ``t_ms`` after it started (None: now): add the end
        row with its lint findings."""
        ending, findings = self.session.end(outcome)
        self.model.append(
            TimelineRow(
                self.now_ms() if t_ms is None else t_ms + self._offset_ms,
                ItemKind.END,
                self.task_id,
                self.state,
                f"{ending.value} ({outcome.value})",
                findings=findings,
                connection=self.session.connection,
            )
        )
        self.model.flush()
        self._update_buttons()
        self._refresh_header()

    def end_side_exchange(self) -> None:
        """A side exchange (Cancel task) finished: show its rows now."""
        self.model.flush()
        self._update_buttons()

    def reveal(self) -> None:
        """Bring this timeline to the front of the tabs it is a page of."""
        stack = self.parentWidget()
        tabs = stack.parentWidget() if stack is not None else None
        if isinstance(tabs, QTabWidget):
            tabs.setCurrentWidget(self)

    # --- state ----------------------------------------------------------------------

    @property
    def version(self) -> ProtocolVersion:
        """The protocol version of the stream shown."""
        return self.session.version

    @property
    def task_id(self) -> str:
        """The task the stream is about (empty until seen)."""
        return self.session.task_id

    @property
    def context_id(self) -> str:
        """The context the stream is in (empty until seen)."""
        return self.session.context_id

    @property
    def state(self) -> TaskState | None:
        """The last task state the stream reported."""
        return self.session.state

    @property
    def running(self) -> bool:
        """A connection is open."""
        return self.session.running

    @property
    def ending(self) -> StreamEnding | None:
        """How the last connection ended (None while running)."""
        return self.session.ending

    @property
    def event_count(self) -> int:
        """Stream items received since :meth:`clear`."""
        return self.session.event_count

    def _on_model_flushed(self, _rows: int) -> None:
        bar = self.view.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum() - 2
        self._refresh_header()
        self._update_buttons()
        if at_bottom:
            self.view.scrollToBottom()

    def _refresh_header(self) -> None:
        self.header.show_session(self.session, self.model.rowCount() + self.model.pending_count)

    def _update_buttons(self) -> None:
        self.header.update_buttons(self.session)

    def _on_follow_up_clicked(self) -> None:
        waiting = self.state is not None and self.state.interrupted
        self.follow_up_requested.emit(self.context_id, self.task_id if waiting else "")

    def _on_selection_changed(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        indexes = selected.indexes()
        if not indexes:
            return
        row = self.model.row_at(self.filter_bar.source_row(indexes[0]))
        self.raw_view.set_text(raw_preview(row.raw) if row.raw else "")
        self.json_view.set_text(pretty_json(row.data) if row.data is not NOT_JSON else "")
        if row.data is NOT_JSON:
            self.tree_page.clear()
        else:
            self.tree_page.set_value(row.data)
        if self.find_bar.isVisible():
            self.find_bar.refresh()
        if row.findings:
            self.findings_label.setText(
                "\n".join(f"⚠ {f.message} ({f.rule})" for f in row.findings)
            )
            self.findings_label.show()
        else:
            self.findings_label.hide()
        if row.data is NOT_JSON and row.raw:
            self.detail_tabs.setCurrentWidget(self.raw_view)

    # --- filter and find ------------------------------------------------------------------

    def _on_view_model_changed(self) -> None:
        self.view.selectionModel().selectionChanged.connect(self._on_selection_changed)

    def _find_target(self) -> Target:
        widget = self.detail_tabs.currentWidget()
        return widget if isinstance(widget, QPlainTextEdit | JsonTreePage) else None

    def _on_detail_tab_changed(self, _index: int) -> None:
        if self.find_bar.isVisible():
            self.find_bar.refresh()
