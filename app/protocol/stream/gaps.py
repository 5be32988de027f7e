"""What a client never received of a task: the events it saw compared with a GetTask snapshot.

After a stream dropped and the client resubscribed (SubscribeToTask, 0.3
``tasks/resubscribe``), whatever the agent emitted while no stream was open is lost to the
client; a GetTask afterwards shows what the task holds now. :func:`missed_updates` lists
the difference as one finding (docs/PROTOCOL.md §9.4):

- **status**: the snapshot's status (state, timestamp, status message) was never seen — the
  transition from the last state seen is named, ``working → input-required``;
- **artifacts**: an ``artifactId`` of the snapshot never seen in an artifact update or in a
  Task seen, or seen with fewer parts than the snapshot holds;
- **history**: agent messages in the snapshot's ``history`` whose ``messageId`` the client
  never saw (as a message, a status message, or in a Task's history). The user's own
  messages are not counted: the client sent them.

Every shape is read: JSON-RPC envelopes, 1.0 ``StreamResponse`` wrappers (``task``,
``statusUpdate``, ``artifactUpdate``, ``message``; 0.3 proto ``msg``), bare 0.3 ``kind``
objects and bare Tasks; 0.3 proto messages carry ``content`` for ``parts``.

Pure functions over parsed JSON (no I/O, no Qt); the GUI's timeline and the check engine
use them alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.protocol.findings import Finding, Severity
from app.protocol.stream.stream_items import ItemKind, TaskState, classify_json, normalize_state
from app.protocol.types import ProtocolVersion

RULE = "missed-updates"
_SPEC = {ProtocolVersion.V1_0: "A2A 1.0 §3.1.6", ProtocolVersion.V0_3: "A2A 0.3 §7.9"}
_WRAPPERS = ("task", "statusUpdate", "artifactUpdate", "message", "msg", "status_update",
             "artifact_update")  # fmt: skip
_LISTED = 3  # history texts quoted in the message


@dataclass(frozen=True)
class Gaps:
    """What was never received (empty lists: nothing missed).

    Attributes:
        transition: ``(last state seen, snapshot state)`` when the snapshot's status was
            never seen; the first is None when no state was seen at all.
        artifacts: ``(label, parts seen, parts in the snapshot)`` per artifact missed or
            incomplete (label: its name, else its id).
        history: the first text of each agent history entry never seen ("" when none).
    """

    transition: tuple[TaskState | None, TaskState] | None = None
    artifacts: list[tuple[str, int, int]] = field(default_factory=list)
    history: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.transition or self.artifacts or self.history)

    def describe(self) -> str:
        """``missed: artifact `report`, working → input-required, 2 history entries (…)``."""
        pieces: list[str] = []
        for label, seen, total in self.artifacts:
            if seen:
                pieces.append(f"artifact `{label}` ({seen} of {total} parts)")
            else:
                pieces.append(f"artifact `{label}`")
        if self.transition is not None:
            before, now = self.transition
            if before is None:
                pieces.append(f"status {now.value}")
            elif before is now:
                pieces.append(f"a later {now.value} status")
            else:
                pieces.append(f"{before.value} → {now.value}")
        if self.history:
            n = len(self.history)
            texts = [t for t in self.history if t][:_LISTED]
            quoted = ", ".join(f"“{t}”" for t in texts)
            more = ", …" if n > len(texts) and texts else ""
            entry = f"{n} history entr{'y' if n == 1 else 'ies'}"
            pieces.append(f"{entry} ({quoted}{more})" if texts else entry)
        return "missed: " + ", ".join(pieces)


def missed_updates(
    seen: Sequence[Any], snapshot: Mapping[str, Any], version: ProtocolVersion
) -> list[Finding]:
    """The ``missed-updates`` finding for a task, or ``[]`` when nothing was missed.

    Args:
        seen: every item the client received about the task, parsed (stream items of all
            its connections, Task results), in any shape the module docstring lists;
            items about other tasks, errors and non-JSON values are skipped.
        snapshot: the GetTask answer (a Task, or its JSON-RPC envelope).
        version: the protocol version spoken (for the spec section cited).

    Returns:
        One warning finding whose message lists what was missed (:meth:`Gaps.describe`),
        or an empty list (also when ``snapshot`` is no Task).
    """
    gaps = find_gaps(seen, snapshot)
    if not gaps:
        return []
    return [
        Finding(
            RULE,
            gaps.describe(),
            Severity.WARNING,
            section="§9.4",
            spec=_SPEC.get(version, ""),
        )
    ]


def find_gaps(seen: Sequence[Any], snapshot: Mapping[str, Any]) -> Gaps:
    """The comparison behind :func:`missed_updates`, as data."""
    task = _as_task(snapshot)
    if task is None:
        return Gaps()
    task_id = _str(task.get("id"))
    view = _Seen(task_id)
    for item in seen:
        view.add(item)
    return Gaps(
        transition=view.missed_status(_dict(task.get("status"))),
        artifacts=view.missed_artifacts(_list(task.get("artifacts"))),
        history=view.missed_history(_list(task.get("history"))),
    )


class _Seen:
    """Everything the client saw of one task, reduced to what the comparison needs."""

    def __init__(self, task_id: str) -> None:
        self.task_id = task_id
        self.statuses: list[tuple[TaskState | None, str, str]] = []  # state, time, message id
        self.parts: dict[str, int] = {}  # artifactId → parts received
        self.message_ids: set[str] = set()

    def add(self, item: Any) -> None:
        kind, obj = _unwrap(item)
        if obj is None:
            return
        if kind is ItemKind.TASK:
            if self.task_id and _str(obj.get("id")) not in ("", self.task_id):
                return
            self._status(_dict(obj.get("status")))
            for artifact in _list(obj.get("artifacts")):
                if isinstance(artifact, dict) and _str(artifact.get("artifactId")):
                    self.parts[_str(artifact.get("artifactId"))] = len(_parts(artifact))
            for message in _list(obj.get("history")):
                self._message(message)
            return
        if self.task_id and _str(obj.get("taskId")) not in ("", self.task_id):
            return
        if kind is ItemKind.STATUS_UPDATE:
            self._status(_dict(obj.get("status")))
        elif kind is ItemKind.ARTIFACT_UPDATE:
            artifact = _dict(obj.get("artifact"))
            artifact_id = _str(artifact.get("artifactId"))
            if artifact_id:
                before = self.parts.get(artifact_id, 0) if obj.get("append") is True else 0
                self.parts[artifact_id] = before + len(_parts(artifact))
        elif kind is ItemKind.MESSAGE:
            self._message(obj)

    def _status(self, status: dict[str, Any]) -> None:
        if not status:
            return
        message = status.get("message")
        self._message(message)
        message_id = _str(message.get("messageId")) if isinstance(message, dict) else ""
        state = normalize_state(status.get("state"))
        self.statuses.append((state, _str(status.get("timestamp")), message_id))

    def _message(self, message: Any) -> None:
        if isinstance(message, dict) and _str(message.get("messageId")):
            self.message_ids.add(_str(message.get("messageId")))

    def missed_status(self, status: dict[str, Any]) -> tuple[TaskState | None, TaskState] | None:
        state = normalize_state(status.get("state"))
        if state is None or state is TaskState.UNSPECIFIED:
            return None
        stamp = _str(status.get("timestamp"))
        message = status.get("message")
        message_id = _str(message.get("messageId")) if isinstance(message, dict) else ""
        for seen_state, seen_stamp, seen_message in self.statuses:
            if seen_state is not state:
                continue
            # Each detail the two sides both carry must agree; absent ones do not count.
            if stamp and seen_stamp and stamp != seen_stamp:
                continue
            if message_id and seen_message and message_id != seen_message:
                continue
            return None
        known = [s for s, _, _ in self.statuses if s is not None and s is not TaskState.UNSPECIFIED]
        return (known[-1] if known else None), state

    def missed_artifacts(self, artifacts: list[Any]) -> list[tuple[str, int, int]]:
        missed: list[tuple[str, int, int]] = []
        for artifact in artifacts:
            if not isinstance(artifact, dict):
                continue
            artifact_id = _str(artifact.get("artifactId"))
            label = _str(artifact.get("name")) or artifact_id or "?"
            total = len(_parts(artifact))
            got = self.parts.get(artifact_id)
            if got is None:
                missed.append((label, 0, total))
            elif got < total:
                missed.append((label, got, total))
        return missed

    def missed_history(self, history: list[Any]) -> list[str]:
        missed: list[str] = []
        for message in history:
            if not isinstance(message, dict) or not _is_agent(message):
                continue
            message_id = _str(message.get("messageId"))
            if message_id and message_id not in self.message_ids:
                missed.append(_first_text(message))
        return missed


def _unwrap(value: Any) -> tuple[ItemKind, dict[str, Any] | None]:
    """The kind of an item and its inner object (envelope and wrapper removed)."""
    if not isinstance(value, dict):
        return ItemKind.ERROR, None
    if "jsonrpc" in value or ("result" in value and "id" in value):
        return _unwrap(value.get("result"))
    kind = classify_json(value).kind
    if kind is ItemKind.ERROR:
        return kind, None
    if len(value) == 1:
        ((key, inner),) = value.items()
        if key in _WRAPPERS and isinstance(inner, dict):
            return kind, inner
    return kind, value


def snapshot_task(snapshot: Any) -> dict[str, Any] | None:
    """The Task a GetTask answer holds (envelope removed), None when it holds none."""
    return _as_task(snapshot)


def _as_task(snapshot: Any) -> dict[str, Any] | None:
    kind, obj = _unwrap(snapshot)
    return obj if kind is ItemKind.TASK else None


def _is_agent(message: dict[str, Any]) -> bool:
    return _str(message.get("role")).lower().removeprefix("role_") == "agent"


def _parts(obj: dict[str, Any]) -> list[Any]:
    parts = obj.get("parts")
    return _list(parts if parts is not None else obj.get("content"))  # 0.3 proto: content


def _first_text(message: dict[str, Any]) -> str:
    for part in _parts(message):
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            text = " ".join(part["text"].split())
            return text if len(text) <= 40 else text[:39] + "…"
    return ""


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""
