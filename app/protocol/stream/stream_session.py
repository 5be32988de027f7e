"""What a task's event stream has said so far: ids, state, connections, lint, ending.

Qt-free and fed item by item, so the GUI timeline and the CLI draw the same conclusions
from the same stream: :meth:`StreamSession.feed` for each :class:`StreamItem`,
:meth:`StreamSession.end` when the connection's exchange ends. A resubscription is a new
connection of the same session (:meth:`StreamSession.begin_connection`): ids and state
carry over, the lifecycle lint (:mod:`app.protocol.stream.lifecycle`) starts afresh.
"""

from __future__ import annotations

from app.protocol.events import (
    NOT_JSON,
    ErrorKind,
    ExchangeError,
    Outcome,
    ResponseBody,
    StreamItem,
)
from app.protocol.findings import Finding
from app.protocol.stream.lifecycle import StreamEnding, StreamLinter
from app.protocol.stream.stream_items import (
    ItemInfo,
    ItemKind,
    TaskState,
    classify_body,
    classify_item,
)
from app.protocol.types import ProtocolVersion

_ERROR_OUTCOMES = (Outcome.RPC_ERROR, Outcome.PROTOCOL_ERROR, Outcome.USAGE_ERROR)
_FAILED = (StreamEnding.ERROR, StreamEnding.TRANSPORT_ERROR)


class StreamSession:
    """The state of one stream view (a timeline, a CLI run), across its connections.

    Attributes:
        version: the protocol version the stream speaks.
        task_id, context_id: the first ids the stream carried (empty until seen).
        state: the last task state reported (None until one is).
        connection: 1 for the first connection, 2 after a resubscription, … (0 before).
        running: a connection is open.
        ending: how the last connection ended (None while running or before).
        event_count: stream items received, over all connections.
    """

    __slots__ = (
        "_linter",
        "_transport_error",
        "connection",
        "context_id",
        "ending",
        "event_count",
        "running",
        "state",
        "task_id",
        "version",
    )

    def __init__(self, version: ProtocolVersion = ProtocolVersion.V1_0) -> None:
        self.version = version
        self.task_id = ""
        self.context_id = ""
        self.state: TaskState | None = None
        self.connection = 0
        self.running = False
        self.ending: StreamEnding | None = None
        self.event_count = 0
        self._linter = StreamLinter(version)
        self._transport_error = False

    def begin_connection(self) -> int:
        """A connection opens (the first, or a resubscription); returns its number."""
        self.connection += 1
        # The first event is judged on the first connection (the call that opened the
        # stream); a resubscription's own first event is not linted here.
        self._linter = StreamLinter(self.version, check_first=self.connection == 1)
        self._transport_error = False
        self.running = True
        self.ending = None
        return self.connection

    @property
    def state_is_stale(self) -> bool:
        """The last state reported is not known to hold any more: no connection is open and
        the task was still active (submitted, working) when the stream stopped telling."""
        return not self.running and self.state is not None and self.state.active

    def state_text(self) -> str:
        """What is known of the task's state, as the timeline's badge says it.

        While a connection is open, or once the task reached a state it stays in (terminal,
        or waiting for the client), that state; when the stream stopped while the task was
        active, how it stopped and the state last seen ("stopped locally — task last seen
        working"): the agent may have moved on since.
        """
        state = self.state
        if state is None:
            if self.running:
                return "streaming…"
            return "no task" if self.connection else "no stream"
        if not self.state_is_stale:
            return state.value
        if self.ending is StreamEnding.STOPPED:
            how = "stopped locally"
        elif self.ending in _FAILED:
            how = "resubscribe failed" if self.connection > 1 else "stream failed"
        else:
            how = "disconnected"
        return f"{how} — task last seen {state.value}"

    def summary(self) -> str:
        """One line for the Response tab: events, the state known, the task, the ending."""
        events = f"{self.event_count:,} event{'s' * (self.event_count != 1)}"
        parts = [f"Stream: {events}"]
        if self.running:
            parts.append("still open")
        if self.state_is_stale:
            parts.append(self.state_text())
        elif self.state is not None:
            parts.append(f"{'state' if self.running else 'final state'} {self.state.value}")
        if self.task_id:
            parts.append(f"task {self.task_id}")
        if self.ending is not None:
            parts.append(self.ending.value)
        return " · ".join(parts)

    def feed(self, item: StreamItem) -> tuple[ItemInfo, list[Finding]]:
        """One stream item: what it says and the lint findings for it (often none)."""
        # Runs for every event of a fast stream (on the GUI thread in the app): kept lean.
        info = classify_item(item)
        findings = self._linter.feed(info)
        if info.task_id and not self.task_id:
            self.task_id = info.task_id
        if info.context_id and not self.context_id:
            self.context_id = info.context_id
        state = info.state
        if state is not None and state is not self.state and state is not TaskState.UNSPECIFIED:
            self.state = state
        self.event_count += 1
        return info, findings

    def note_body(self, body: ResponseBody) -> ItemInfo | None:
        """A plain body (an error instead of a stream, a side exchange's result), classified
        like a stream item; its ids and state are noted unless it is an error. None when the
        body is not JSON."""
        if body.json is NOT_JSON:
            return None
        info = classify_body(body)
        if info.kind is not ItemKind.ERROR:
            if info.task_id and not self.task_id:
                self.task_id = info.task_id
            if info.context_id and not self.context_id:
                self.context_id = info.context_id
            if info.state is not None and info.state is not TaskState.UNSPECIFIED:
                self.state = info.state
        return info

    def note_error(self, error: ExchangeError) -> None:
        """An error of the exchange: a transport error decides how the stream ended."""
        if error.kind is ErrorKind.TRANSPORT:
            self._transport_error = True

    def end(self, outcome: Outcome) -> tuple[StreamEnding, list[Finding]]:
        """The connection's exchange ended with ``outcome``: how the stream ended, and the
        lint findings for its end."""
        self.running = False
        ending = self._linter.ending(
            stopped=outcome is Outcome.CANCELLED,
            transport_error=self._transport_error or outcome is Outcome.TRANSPORT_ERROR,
        )
        if outcome in _ERROR_OUTCOMES and ending is StreamEnding.CLOSED:
            ending = StreamEnding.ERROR
        self.ending = ending
        return ending, self._linter.finish(ending)
