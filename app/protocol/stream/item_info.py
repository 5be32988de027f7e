"""What a stream item is, as data: its :class:`ItemKind`, the version-neutral
:class:`TaskState` and the :class:`ItemInfo` a classification gives.

The classifier itself is :mod:`app.protocol.stream.stream_items`, which re-exports these
(their usual home); they are apart so that :mod:`app.protocol.events` can type
``StreamItem.info`` without importing the classifier, which imports the events.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any


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


_FIELDS = (
    "kind",
    "task_id",
    "context_id",
    "state",
    "raw_state",
    "final",
    "summary",
    "artifact_id",
    "append",
    "last_chunk",
    "artifact_ids",
    "error_code",
)


class ItemInfo:
    """What one stream item says, as shown in a timeline row and the CLI ``item`` record.

    Immutable (its attributes are not meant to be set; :meth:`with_summary` makes a changed
    copy). One is made for every event of a stream on the GUI thread, so it is a plain
    class with slots, and its one-line summary is written only when first read: the
    classifier hands a function and the object it reads (:meth:`lazy`), and a stream
    whose summaries nobody reads (the timeline derives its own when it paints a row)
    never pays for them.

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

    __slots__ = (
        "_summary",
        "append",
        "artifact_id",
        "artifact_ids",
        "context_id",
        "error_code",
        "final",
        "kind",
        "last_chunk",
        "raw_state",
        "state",
        "task_id",
    )

    kind: ItemKind
    task_id: str
    context_id: str
    state: TaskState | None
    raw_state: str
    final: bool | None
    artifact_id: str
    append: bool
    last_chunk: bool
    artifact_ids: tuple[str, ...]
    error_code: int | str | None

    def __init__(
        self,
        kind: ItemKind,
        task_id: str = "",
        context_id: str = "",
        state: TaskState | None = None,
        raw_state: str = "",
        final: bool | None = None,
        summary: str = "",
        artifact_id: str = "",
        append: bool = False,
        last_chunk: bool = False,
        artifact_ids: tuple[str, ...] = (),
        error_code: int | str | None = None,
    ) -> None:
        self.kind = kind
        self.task_id = task_id
        self.context_id = context_id
        self.state = state
        self.raw_state = raw_state
        self.final = final
        # The summary, or (summarize, source) until it is first read.
        self._summary: str | tuple[Callable[[Any], str], Any] = summary
        self.artifact_id = artifact_id
        self.append = append
        self.last_chunk = last_chunk
        self.artifact_ids = artifact_ids
        self.error_code = error_code

    @classmethod
    def lazy(
        cls,
        kind: ItemKind,
        task_id: str,
        context_id: str,
        state: TaskState | None,
        raw_state: str,
        final: bool | None,
        summarize: Callable[[Any], str],
        source: Any,
    ) -> ItemInfo:
        """An item whose summary is ``summarize(source)``, written when first read."""
        info = cls(kind, task_id, context_id, state, raw_state, final)
        info._summary = (summarize, source)
        return info

    @property
    def summary(self) -> str:
        """The one-line summary (written now if it was left for later)."""
        text = self._summary
        if isinstance(text, str):
            return text
        # Any thread may ask first (the gRPC reader classifies): one assignment, and a
        # race only writes the same text twice.
        summarize, source = text
        summary = self._summary = summarize(source)
        return summary

    def with_summary(self, summary: str) -> ItemInfo:
        """A copy of this item with ``summary`` (a masked one, say)."""
        copy = ItemInfo(*(getattr(self, name) for name in _FIELDS))
        copy._summary = summary
        return copy

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ItemInfo):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in _FIELDS)

    __hash__ = None  # type: ignore[assignment]  # mutable-looking slots: not a key

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in _FIELDS)
        return f"ItemInfo({shown})"
