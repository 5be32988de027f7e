"""Stream lint: checks a task's event stream against the A2A task lifecycle.

Pure and incremental: feed each classified item, get the findings for that row; call
:meth:`StreamLinter.finish` with how the stream ended to get the findings for the end row.
One linter per connection (a resubscription starts a new one).

Rules (docs/PROTOCOL.md §9.1; A2A 1.0 spec §3.1.2, §11.7; 0.3 §7.2.2):

- ``after-terminal``: an event after the task reached a terminal state (a 1.0 server MAY
  resend the final Task snapshot: a ``task`` item in the same terminal state is allowed);
  in 0.3 also any event after ``final: true``;
- ``leaves-terminal``: a transition out of a terminal state;
- ``no-final``: a 0.3 stream of a task that ended without ``final: true``;
- ``closed-while-active``: a 1.0 stream closed by the server while the task was still
  submitted or working;
- ``id-changed``: the task id or context id changed mid-stream;
- ``append-without-chunk``: an artifact update with ``append: true`` for an artifact the
  stream has not shown before;
- ``first-not-task``: a 1.0 stream whose first event is a status or artifact update, not the
  Task (or a single Message) it must begin with (1.0 §3.1.2, §3.1.6).

Each finding is a :class:`app.protocol.findings.Finding` (warning severity).
"""

from __future__ import annotations

from enum import StrEnum

from app.protocol.findings import Finding
from app.protocol.stream.stream_items import ItemInfo, ItemKind, TaskState
from app.protocol.types import ProtocolVersion

# Items that say nothing about the task (the lifecycle checks skip them).
_NOT_EVENTS = frozenset({ItemKind.COMMENT, ItemKind.ERROR, ItemKind.END, ItemKind.INCOMPLETE,
                         ItemKind.PUSH_DELIVERY, ItemKind.FINDING})  # fmt: skip


class StreamEnding(StrEnum):
    """How a stream ended, as the timeline header says it."""

    TERMINAL = "closed by server, task in a terminal state"
    INTERRUPTED = "closed by server, task waiting for the client"
    ACTIVE = "closed by server while the task was still active"
    MESSAGE = "closed by server after a message"
    CLOSED = "closed by server"
    STOPPED = "stopped locally"
    TRANSPORT_ERROR = "transport error"
    ERROR = "ended with an error"


class StreamLinter:
    """Lifecycle checks over one connection's items."""

    def __init__(self, version: ProtocolVersion, *, check_first: bool = False) -> None:
        """``check_first``: apply ``first-not-task`` (a view of a whole stream from its
        start, such as :class:`app.protocol.stream.stream_session.StreamSession`)."""
        self.version = version
        self.state: TaskState | None = None
        self.task_id = ""
        self.context_id = ""
        self.saw_final = False
        self.saw_task_event = False
        self.saw_message = False
        self._terminal: TaskState | None = None
        self._artifacts: set[str] = set()
        self._first = check_first and version is ProtocolVersion.V1_0  # first still to judge

    def feed(self, info: ItemInfo) -> list[Finding]:
        """Check one item; returns the findings for its row (often none)."""
        state = info.state
        if self._first and info.kind not in _NOT_EVENTS:
            self._first = False
            if info.kind in (ItemKind.STATUS_UPDATE, ItemKind.ARTIFACT_UPDATE):
                first = Finding(
                    "first-not-task",
                    f"The 1.0 stream begins with a {info.kind.value} event, not with the Task",
                    section="§9.1",
                    spec="A2A 1.0 §3.1.2",
                )
                return [first, *self.feed(info)]
        if (
            info.kind is ItemKind.STATUS_UPDATE
            and self._terminal is None
            and not self.saw_final
            and not info.final
            and info.task_id == self.task_id
            and info.context_id == self.context_id
            and (state is None or not state.terminal)
        ):
            # The bulk of a long stream: progress in an active state, same ids. Nothing to
            # report (the checks below would find nothing); only the state is remembered.
            self.saw_task_event = True
            if state is not None and state is not TaskState.UNSPECIFIED:
                self.state = state
            return []
        if info.kind in _NOT_EVENTS:
            return []
        findings: list[Finding] = []
        findings += self._check_ids(info)
        if info.kind is ItemKind.MESSAGE:
            self.saw_message = True
            if self._terminal is not None or self.saw_final:
                findings.append(self._after_end_finding(info))
            return findings
        self.saw_task_event = True
        if self._terminal is not None:
            resent_snapshot = info.kind is ItemKind.TASK and state is self._terminal
            if (
                state is not None
                and state is not self._terminal
                and info.kind
                in (
                    ItemKind.TASK,
                    ItemKind.STATUS_UPDATE,
                )
            ):
                findings.append(
                    Finding(
                        "leaves-terminal",
                        f"Transition out of the terminal state {self._terminal.value} "
                        f"to {state.value}",
                    )
                )
            elif not resent_snapshot or self.saw_final:
                findings.append(self._after_end_finding(info))
        elif self.saw_final:
            findings.append(self._after_end_finding(info))
        if info.kind is ItemKind.ARTIFACT_UPDATE and info.artifact_id:
            if info.append and info.artifact_id not in self._artifacts:
                findings.append(
                    Finding(
                        "append-without-chunk",
                        f"Artifact {info.artifact_id} is appended to, but no earlier chunk "
                        "of it was seen",
                    )
                )
            self._artifacts.add(info.artifact_id)
        self._artifacts.update(info.artifact_ids)
        if state is not None and state is not TaskState.UNSPECIFIED:
            self.state = state
            if state.terminal and self._terminal is None:
                self._terminal = state
        if info.final:
            self.saw_final = True
        return findings

    def _after_end_finding(self, info: ItemInfo) -> Finding:
        if self._terminal is not None:
            return Finding(
                "after-terminal",
                f"A {info.kind.value} event after the task reached {self._terminal.value}",
            )
        return Finding("after-terminal", f"A {info.kind.value} event after final: true")

    def _check_ids(self, info: ItemInfo) -> list[Finding]:
        findings: list[Finding] = []
        if info.task_id:
            if self.task_id and info.task_id != self.task_id:
                findings.append(
                    Finding(
                        "id-changed",
                        f"Task id changed mid-stream: {self.task_id} → {info.task_id}",
                    )
                )
            elif not self.task_id:
                self.task_id = info.task_id
        if info.context_id:
            if self.context_id and info.context_id != self.context_id:
                findings.append(
                    Finding(
                        "id-changed",
                        f"Context id changed mid-stream: {self.context_id} → {info.context_id}",
                    )
                )
            elif not self.context_id:
                self.context_id = info.context_id
        return findings

    def ending(self, *, stopped: bool = False, transport_error: bool = False) -> StreamEnding:
        """How the stream ended, from the last state seen and how the connection closed."""
        if stopped:
            return StreamEnding.STOPPED
        if transport_error:
            return StreamEnding.TRANSPORT_ERROR
        if self.state is not None and self.state.terminal:
            return StreamEnding.TERMINAL
        if self.state is not None and self.state.interrupted:
            return StreamEnding.INTERRUPTED
        if self.state is not None and self.state.active:
            return StreamEnding.ACTIVE
        if self.saw_message and not self.saw_task_event:
            return StreamEnding.MESSAGE
        return StreamEnding.CLOSED

    def finish(self, ending: StreamEnding) -> list[Finding]:
        """Findings for the end of the stream (only a server close is judged)."""
        if ending not in (
            StreamEnding.TERMINAL,
            StreamEnding.INTERRUPTED,
            StreamEnding.ACTIVE,
            StreamEnding.CLOSED,
        ):
            return []
        findings: list[Finding] = []
        if self.version is ProtocolVersion.V0_3:
            if self.saw_task_event and not self.saw_final:
                findings.append(
                    Finding("no-final", "The 0.3 stream ended without a final: true event")
                )
        elif ending is StreamEnding.ACTIVE and self.state is not None:
            findings.append(
                Finding(
                    "closed-while-active",
                    f"The server closed the stream while the task was still {self.state.value}",
                )
            )
        return findings
