"""The body flow of a request tab: the template follows what the user types.

The template is rendered again on every keystroke in the *Text* field and in the id fields,
and whenever the method, version or binding changes (the tab calls
:meth:`BodyFlowTab.generate_preview`); an untouched draft follows it
(:mod:`app.ui.request.body_follow`). An edited draft is only overwritten by an explicit
action: *Replace request body*, Enter in the *Text* field, or Ctrl+Shift+Enter (*Request →
Replace and send*).

Methods whose template takes a task id or a context id (GetTask, CancelTask, the push config
methods, ListTasks) show those ids in two fields beside *Text*, prefilled with the last ones
seen in this tab — from a stream or from a unary result — and editable. A unary result that
names a context enables *Follow up* here, as a finished stream does on the Timeline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QLabel, QLineEdit, QPushButton

from app.protocol.events import NOT_JSON, ResponseBody
from app.protocol.methods.catalog import MethodSpec, TemplateContext
from app.protocol.stream.followups import template_context, template_ids
from app.protocol.stream.stream_items import ItemKind, TaskState, classify_body

if TYPE_CHECKING:
    from PySide6.QtWidgets import QHBoxLayout

    from app.ui.request.request_controller import RequestController


class BodyFlowTab(Protocol):
    """What the flow uses of its request tab (``RequestTab``, which creates it: typed here,
    not imported)."""

    @property
    def text_row(self) -> QHBoxLayout:
        """The *Text* row, which gets the template id fields."""
        ...

    @property
    def message_text_edit(self) -> QLineEdit: ...
    @property
    def controller(self) -> RequestController: ...
    @property
    def busy(self) -> bool: ...

    def generate_preview(self) -> None:
        """Render the method's template beside the draft."""
        ...

    def replace_body(self) -> None:
        """Overwrite the draft with the template."""
        ...

    def send_or_cancel(self) -> None: ...

    def follow_up(self, context_id: str, task_id: str) -> None:
        """Prepare the next turn in ``context_id`` (and ``task_id`` when it waits)."""
        ...


class BodyFlow(QObject):
    """Live preview, the template id fields and *Follow up* after unary results."""

    def __init__(self, tab: BodyFlowTab, *, parent: QObject) -> None:
        super().__init__(parent)
        self._tab = tab
        self._state: TaskState | None = None
        self._running = False  # the controller is still "busy" while it emits finished
        self.task_id_edit = _id_edit("templateTaskIdEdit", "task id")
        self.context_id_edit = _id_edit("templateContextIdEdit", "context id")
        self.follow_up_button = QPushButton("Follow up")
        self.follow_up_button.setObjectName("resultFollowUpButton")
        self.follow_up_button.setEnabled(False)
        self.follow_up_button.setToolTip(_FOLLOW_UP_NONE)
        self.task_id_label = _label("templateTaskIdLabel", "Task id")
        self.context_id_label = _label("templateContextIdLabel", "Context id")
        row = tab.text_row
        at = row.indexOf(tab.message_text_edit) + 1
        for widget in (
            self.task_id_label, self.task_id_edit, self.context_id_label, self.context_id_edit
        ):  # fmt: skip
            row.insertWidget(at, widget)
            at += 1
        row.addWidget(self.follow_up_button)

        tab.message_text_edit.textChanged.connect(self._refresh)
        tab.message_text_edit.returnPressed.connect(tab.replace_body)
        tab.message_text_edit.setToolTip(
            "Message text: the template follows it, and an untouched draft the template;"
            " Enter replaces an edited draft with the template, Ctrl+Shift+Enter replaces"
            " and sends"
        )
        self.task_id_edit.textEdited.connect(self._refresh)
        self.context_id_edit.textEdited.connect(self._refresh)
        self.task_id_edit.returnPressed.connect(tab.replace_body)
        self.context_id_edit.returnPressed.connect(tab.replace_body)
        self.follow_up_button.clicked.connect(self._on_follow_up_clicked)
        tab.controller.started.connect(self._on_started)
        tab.controller.events_arrived.connect(self._on_events)
        tab.controller.finished.connect(self._on_finished)

    # --- what the templates get ------------------------------------------------------

    def context(self, spec: MethodSpec, follow_up: tuple[str, str] | None) -> TemplateContext:
        """The template context for ``spec``: the id fields for methods that take ids."""
        self.show_fields(spec)
        return template_context(
            spec,
            self._tab.message_text_edit.text(),
            follow_up=follow_up,
            last_task_id=self.task_id_edit.text().strip(),
            last_context_id=self.context_id_edit.text().strip(),
        )

    def show_fields(self, spec: MethodSpec) -> None:
        """Show the id fields ``spec``'s template takes, hide the others."""
        takes_task, takes_context = template_ids(spec)
        for widget in (self.task_id_label, self.task_id_edit):
            widget.setVisible(takes_task)
        for widget in (self.context_id_label, self.context_id_edit):
            widget.setVisible(takes_context)

    def note_ids(self, task_id: str, context_id: str, state: TaskState | None = None) -> None:
        """Ids seen in this tab's latest result: they prefill the id fields (still editable);
        a context enables *Follow up*."""
        changed = False
        for edit, value in ((self.task_id_edit, task_id), (self.context_id_edit, context_id)):
            if value and edit.text() != value:
                edit.setText(value)
                changed = True
        if context_id:
            self._state = state
        shown = not (self.task_id_edit.isHidden() and self.context_id_edit.isHidden())
        if changed and shown:  # a message template takes no ids: its preview stays as it is
            self._refresh()
        self._update_button()

    # --- actions -------------------------------------------------------------------

    def replace_and_send(self) -> None:
        """Ctrl+Shift+Enter (Request → Replace and send, app/ui/shell/menus.py): the preview
        into the draft, then send it."""
        tab = self._tab
        if tab.busy:
            return
        tab.replace_body()
        tab.send_or_cancel()

    def _refresh(self, *_args: object) -> None:
        self._tab.generate_preview()

    def _on_follow_up_clicked(self) -> None:
        context_id = self.context_id_edit.text().strip()
        waiting = self._state is not None and self._state.interrupted
        self._tab.follow_up(context_id, self.task_id_edit.text().strip() if waiting else "")

    def _on_started(self, *_args: object) -> None:
        self._running = True
        self._update_button()

    def _on_finished(self) -> None:
        self._running = False
        self._update_button()

    def _on_events(self, events: list[object]) -> None:
        for event in events:
            self._on_event(event)

    def _on_event(self, event: object) -> None:
        # Unary results only: a stream's ids come from the timeline when it ends.
        if not isinstance(event, ResponseBody) or event.json is NOT_JSON:
            return
        info = classify_body(event)
        if info.kind is not ItemKind.ERROR:
            self.note_ids(info.task_id, info.context_id, info.state)

    def _update_button(self) -> None:
        known = bool(self.context_id_edit.text().strip())
        self.follow_up_button.setEnabled(known and not self._running)
        if self._running:
            tip = "Wait for the answer: the next turn follows from it"
        else:
            tip = _FOLLOW_UP if known else _FOLLOW_UP_NONE
        self.follow_up_button.setToolTip(tip)


_FOLLOW_UP = (
    "Prepare the next turn from the last result (unary or stream): same contextId, and taskId"
    " when the task waits for input"
)
_FOLLOW_UP_NONE = "Nothing to follow up yet: send first; a result with a contextId enables it"


def _label(name: str, text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName(name)
    label.setVisible(False)
    return label


def _id_edit(name: str, what: str) -> QLineEdit:
    edit = QLineEdit()
    edit.setObjectName(name)
    edit.setPlaceholderText(what)
    edit.setToolTip(f"The {what} the template uses: the last one seen in this tab (editable)")
    edit.setMaximumWidth(260)
    edit.setVisible(False)
    return edit
