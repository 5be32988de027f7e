"""What a stream item is, as data: its :class:`ItemKind`, the version-neutral
:class:`TaskState` and the :class:`ItemInfo` a classification gives.

The classifier itself is :mod:`app.protocol.stream.stream_items`, which re-exports these
(their usual home); they are apart so that :mod:`app.protocol.events` can type
``StreamItem.info`` without importing the classifier, which imports the events.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple


class ItemKind(StrEnum):
    """The kind of a timeline row."""

    TASK = "task"
    MESSAGE = "message"
    STATUS_UPDATE = "status-update"
    ARTIFACT_UPDATE = "artifact-update"
    ERROR = "error"
    COMMENT = "comment"
    INCOMPLETE = "incomplete"
    """An SSE event the stream ended in the middle of: not dispatched (WHATWG), raw only."""
    END = "end"
    PUSH_DELIVERY = "push delivery"
    """A push notification the local receiver got (app/push), shown among a task's events."""
    FINDING = "finding"
    """A finding about the task as a whole (the gap detector's missed updates)."""


class TaskState(StrEnum):
    """Task states, version-neutral (the values are the spec's 0.3 spellings)."""

    UNSPECIFIED = "unknown"
    SUBMITTED = "submitted"
    WORKING = "working"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELED = "canceled"
    INPUT_REQUIRED = "input-required"
    REJECTED = "rejected"
    AUTH_REQUIRED = "auth-required"

    @property
    def terminal(self) -> bool:
        """Completed, failed, canceled or rejected: nothing more may happen."""
        return self in _TERMINAL

    @property
    def interrupted(self) -> bool:
        """Waiting for the client (input-required, auth-required)."""
        return self in (TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED)

    @property
    def active(self) -> bool:
        """Submitted or working: the agent still owes events."""
        return self in (TaskState.SUBMITTED, TaskState.WORKING)


_TERMINAL = frozenset(
    {TaskState.COMPLETED, TaskState.FAILED, TaskState.CANCELED, TaskState.REJECTED}
)


class ItemInfo(NamedTuple):
    """What one stream item says, as shown in a timeline row and the CLI ``item`` record.

    Immutable like the frozen dataclasses elsewhere, but a named tuple: one is made for
    every event of a stream on the GUI thread, and a frozen dataclass with twelve fields
    costs five times as much to build.

    Attributes:
        kind: what the item is.
        task_id, context_id: the ids it carries (empty when none).
        state: the task state it reports, normalised (None when it reports none).
        raw_state: the state as spelled on the wire (``TASK_STATE_CANCELLED``).
        final: the 0.3 ``final`` flag (None when absent).
        summary: one line: the first text part, an artifact name, an error message.
        artifact_id, append, last_chunk: for artifact updates.
        artifact_ids: the artifacts a Task snapshot already holds.
        error_code: the error code for error items.
    """

    kind: ItemKind
    task_id: str = ""
    context_id: str = ""
    state: TaskState | None = None
    raw_state: str = ""
    final: bool | None = None
    summary: str = ""
    artifact_id: str = ""
    append: bool = False
    last_chunk: bool = False
    artifact_ids: tuple[str, ...] = ()
    error_code: int | str | None = None
