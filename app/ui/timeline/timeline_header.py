"""The timeline's header: the state badge, how the stream ended, counts, ids and buttons.

Rows that keep their places whatever the stream does: the badge with the ending and the
counts; the task id and the context id (whole, elided in the middle when narrow, copyable);
the buttons, grouped by what they act on: *this connection* (Stop, Resubscribe: local) and
*the task* on the agent (Cancel task: a CancelTask request; Follow up: the next turn).
Buttons are disabled, never hidden, so none moves between states; a recorded exchange's
timeline has none (:attr:`TimelineHeader.controls` hidden) and its ids share a row.

objectNames: ``timelineStateLabel``, ``timelineEndingLabel``, ``timelineCountLabel``,
``timelineContextIdEdit``, ``copyContextIdButton``, ``timelineTaskIdEdit``,
``copyTaskIdButton``, and in ``timelineControls`` ``stopButton``, ``resubscribeButton``,
``cancelTaskButton``, ``followUpButton``.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from app.protocol.stream.item_info import TaskState
from app.protocol.stream.lifecycle import StreamEnding
from app.protocol.stream.stream_session import StreamSession
from app.ui.shell import spacing, theme
from app.ui.shell.elided import ElidedLabel, IdField
from app.ui.shell.plain_text import PlainLabel

# Theme roles (colours: app/ui/shell/theme.py).
_IDLE_BADGE, _STALE_BADGE = "badge-idle", "badge-warn"
_ENDING_BAD = f"text-status:{theme.Status.ERROR}"
_ENDING_WARN = f"text-status:{theme.Status.WARNING}"
_ENDING_LIVE = f"text-status:{theme.Status.STREAMING}"

STOP_TIP = (
    "Stop (local): close this connection. Nothing is sent to the agent: the task keeps"
    " running there (Resubscribe reattaches; Cancel task asks the agent to cancel it)."
)
CANCEL_TASK_TIP = (
    "Cancel task (remote): send CancelTask (tasks/cancel in 0.3) for this task to the agent."
    " An open stream stays open and shows the cancellation."
)
FOLLOW_UP_TIP = (
    "Prepare the next turn in the request form: same contextId, and taskId when the task"
    " waits for input (nothing is sent until you Send)"
)
COUNT_TIP = (
    "Rows in the table (stream events, plus a row for each connection's end, markers and"
    " errors) · stream events received"
)


class TimelineHeader(QWidget):
    """The widgets above the timeline table; :meth:`show_session` fills them."""

    def __init__(self, parent: QWidget | None = None, *, recorded: bool = False) -> None:
        """``recorded``: a kept exchange's timeline (History, the check report), where the
        height is short and nothing acts on the stream: the two ids share a row (each
        elided in the middle when narrow) and the buttons are hidden."""
        super().__init__(parent)
        self.setObjectName("timelineHeader")
        self.state_label = PlainLabel("no stream", multiline=False)  # an unknown state too
        self.state_label.setObjectName("timelineStateLabel")
        theme.style(self.state_label, _IDLE_BADGE, theme.BADGE_SHAPE)
        # The idle badge's border makes it the tallest: every badge gets its height, so the
        # rows below never shift by a pixel as the state changes.
        self.state_label.setFixedHeight(self.state_label.sizeHint().height())
        self.ending_label = ElidedLabel("timelineEndingLabel")
        self.count_label = QLabel("0 rows · 0 events")
        self.count_label.setObjectName("timelineCountLabel")
        self.count_label.setToolTip(COUNT_TIP)
        # A fixed size, grown only when the digits outgrow it: a label whose size may change
        # asks its parent to lay out again on every setText, and in the main window that
        # re-layout (size hints all the way up to the tab) cost ~8 ms per batch, more than
        # painting the batch.
        self.count_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self._fit_count("0 rows · 0 events", "0 rows · 0 events")

        self.context_edit = IdField("timelineContextIdEdit", "context id")
        self.task_edit = IdField("timelineTaskIdEdit", "task id")
        self.copy_context_button = _copy_button("copyContextIdButton", "context id")
        self.copy_button = _copy_button("copyTaskIdButton", "task id")
        self.copy_context_button.clicked.connect(
            lambda: self._copy(self.context_edit, self.copy_context_button)
        )
        self.copy_button.clicked.connect(lambda: self._copy(self.task_edit, self.copy_button))

        self.stop_button = _button("stopButton", "Stop", STOP_TIP)
        self.resubscribe_button = _button(
            "resubscribeButton",
            "Resubscribe",
            "Open a new connection for this task (SubscribeToTask; tasks/resubscribe in 0.3)"
            " and append its events to this timeline",
        )
        self.cancel_button = _button("cancelTaskButton", "Cancel task", CANCEL_TASK_TIP)
        self.follow_up_button = _button("followUpButton", "Follow up", FOLLOW_UP_TIP)

        status = QHBoxLayout()
        status.addWidget(self.state_label)
        status.addWidget(self.ending_label, 1)
        status.addWidget(self.count_label)
        # One row per id, the full width each: a whole UUID fits in the narrowest pane.
        ids = QGridLayout()
        ids.setHorizontalSpacing(spacing.GAP)
        ids.setVerticalSpacing(spacing.TIGHT)
        for n, (caption, edit, button) in enumerate(
            (
                ("task", self.task_edit, self.copy_button),
                ("context", self.context_edit, self.copy_context_button),
            )
        ):
            row, column = (0, 3 * n) if recorded else (n, 0)
            ids.addWidget(QLabel(caption), row, column)
            ids.addWidget(edit, row, column + 1)
            ids.addWidget(button, row, column + 2)
            ids.setColumnStretch(column + 1, 1)
        # In a row of its own, hidden where the timeline shows a recorded exchange (History,
        # the check report): nothing is connected there to stop, resubscribe or follow up.
        self.controls = QWidget()
        self.controls.setObjectName("timelineControls")
        buttons = QHBoxLayout(self.controls)
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(_caption("Connection:", "What these do stays on this machine"))
        buttons.addWidget(self.stop_button)
        buttons.addWidget(self.resubscribe_button)
        buttons.addSpacing(spacing.TIGHT)
        buttons.addWidget(_separator())
        buttons.addSpacing(spacing.TIGHT)
        buttons.addWidget(_caption("Task:", "Requests about the task on the agent"))
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.follow_up_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, spacing.TIGHT, 0, spacing.TIGHT)
        layout.setSpacing(spacing.GAP)
        layout.addLayout(status)
        layout.addLayout(ids)
        layout.addWidget(self.controls)
        self.controls.setVisible(not recorded)

    def show_session(self, session: StreamSession, rows: int) -> None:
        """Show what ``session`` knows, under ``rows`` table rows.

        Runs after every batch of a fast stream: only what changed is touched (a style sheet
        re-polishes the widget even when it is the same text)."""
        text = session.state_text()
        if session.state is None:
            role = _IDLE_BADGE
        elif session.state_is_stale:
            role = _STALE_BADGE
        else:
            role = f"badge-state:{session.state.value}"
        _set_label(self.state_label, text, role, theme.BADGE_SHAPE)
        self.context_edit.set_id(session.context_id)
        self.task_edit.set_id(session.task_id)
        events = session.event_count
        count = _count_text(rows, events)
        if count != self.count_label.text():
            if not rows or len(count) != len(self.count_label.text()):
                self._fit_count(count, _count_text(rows * 100, events * 100))
            self.count_label.setText(count)
        ending = session.ending
        if session.running:
            self.ending_label.set_text("streaming…")
            theme.style(self.ending_label, _ENDING_LIVE)
        elif ending is None:
            self.ending_label.set_text("")
        else:
            bad = ending in (StreamEnding.TRANSPORT_ERROR, StreamEnding.ERROR)
            warn = ending in (StreamEnding.ACTIVE, StreamEnding.STOPPED)
            self.ending_label.set_text(ending.value)
            theme.style(
                self.ending_label, _ENDING_BAD if bad else _ENDING_WARN if warn else "plain"
            )

    def update_buttons(self, session: StreamSession) -> None:
        """Enable what makes sense now; every button stays where it is, and a disabled
        one says why in its tooltip."""
        has_task = bool(session.task_id)
        state = session.state
        finished = state is not None and state.terminal
        self.stop_button.setEnabled(session.running)
        self.cancel_button.setEnabled(has_task and not finished)
        self.cancel_button.setToolTip(
            CANCEL_TASK_TIP
            if has_task and not finished
            else _finished_tip(state, "a finished task cannot be canceled")
            if finished
            else "No task yet: the stream has not named one"
        )
        self.resubscribe_button.setEnabled(has_task and not session.running)
        follow = bool(session.context_id) and not session.running and not finished
        self.follow_up_button.setEnabled(follow)
        self.follow_up_button.setToolTip(
            FOLLOW_UP_TIP
            if follow
            else _finished_tip(state, "it takes no more messages; Send starts a new task")
            if finished
            else "Wait for the stream to end (or Stop it)"
            if session.running
            else "No context yet: the stream has not named one"
        )
        self.copy_button.setEnabled(has_task)
        self.copy_context_button.setEnabled(bool(session.context_id))

    def _fit_count(self, text: str, room: str) -> None:
        # Digits all have one width: the label is measured only when the text's length
        # changes, and made wide enough for ``room`` (a hundred times the count) when
        # ``text`` no longer fits: each resize lays the window out again from this header
        # up (four frames of the whole tab in a row), so a stream resizes it three times on
        # its way to ten million events, not at every digit. Back to small when a new
        # stream starts.
        metrics = self.count_label.fontMetrics()
        if text.startswith("0 rows"):
            width = metrics.horizontalAdvance(text) + 8
        elif metrics.horizontalAdvance(text) + 8 > self.count_label.width():
            width = metrics.horizontalAdvance(room) + 8
        else:
            return
        self.count_label.setFixedSize(width, self.count_label.sizeHint().height())

    @staticmethod
    def _copy(field: IdField, button: QToolButton) -> None:
        if field.text():
            field.copy_id()
            QToolTip.showText(QCursor.pos(), "Copied", button)


def _count_text(rows: int, events: int) -> str:
    return f"{rows:,} row{'s' * (rows != 1)} · {events:,} event{'s' * (events != 1)}"


def _finished_tip(state: TaskState | None, why: str) -> str:
    return f"The task is {state.value if state else 'finished'}: {why}"


def _set_label(label: QLabel, text: str, role: str | None = None, extra: str = "") -> None:
    # theme.style() leaves an unchanged role alone: no re-polish per batch.
    if label.text() != text:
        label.setText(text)
    if role is not None:
        theme.style(label, role, extra)


def _button(name: str, text: str, tip: str) -> QPushButton:
    button = QPushButton(text)
    button.setObjectName(name)
    button.setToolTip(tip)
    return button


def _copy_button(name: str, what: str) -> QToolButton:
    button = QToolButton()
    button.setObjectName(name)
    button.setText("Copy")
    button.setToolTip(f"Copy the whole {what} to the clipboard")
    return button


def _caption(text: str, tip: str) -> QLabel:
    label = QLabel(text)
    label.setToolTip(tip)
    return label


def _separator() -> QFrame:
    line = QFrame()
    line.setFrameShape(QFrame.Shape.VLine)
    line.setFrameShadow(QFrame.Shadow.Sunken)
    return line
