"""One exchange run for a tool: sent through the exchange seam, recorded in the history as a
command-line send is (source ``mcp``), encoded with the records module (credentials masked)
and made into an :class:`ExchangeResult` within the run's output bounds.

A stream reports each item as an MCP progress notification while it runs (at most a few a
second); a call the client cancels closes the connection and records the exchange as
``cancelled``. Bodies and items over :attr:`Limits.max_body_bytes` come back as their size
and the history entry that holds them; a long stream lists its first and last items.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from typing import Annotated, Any

from pydantic import BaseModel, Field, WithJsonSchema

from app.commands.history import shared_store
from app.commands.mcp.mcp_state import Limits
from app.history.recorder import Recorder
from app.history.store import HistoryEntry
from app.protocol import exchange
from app.protocol.bindings import from_value, traits
from app.protocol.events import (
    ExchangeEnd,
    ExchangeEvent,
    Outcome,
    RequestSent,
    ResponseBody,
    StreamItem,
)
from app.protocol.records import ExchangeRecords, Record
from app.protocol.request import A2ARequest
from app.protocol.secrets import mask_url_query
from app.protocol.stream.stream_session import StreamSession

JsonValue = Annotated[
    Any,
    WithJsonSchema(
        {"anyOf": [{"type": t} for t in ("object", "array", "string", "number", "boolean", "null")]}
    ),
]
"""Any JSON value, said so in the output schema (a bare ``Any`` there declares nothing)."""

Progress = Callable[[float, str], Awaitable[None]]
"""Reports progress: items so far and a one-line message (MCP ``notifications/progress``)."""

PROGRESS_INTERVAL_S = 0.2
"""A fast stream's items are reported at most this often."""


class StreamResult(BaseModel):
    """What a stream said: its items (``item`` records, docs/CLI.md) and how it ended."""

    items: list[dict[str, Any]] = Field(
        description="The stream's items in order: seq, kind, state, task_id, context_id, "
        "summary, final and the item's data (its JSON); a long stream lists its first and "
        "last items only."
    )
    items_total: int = Field(description="How many items arrived.")
    items_omitted: int = Field(
        default=0, description="Items left out of `items` (the middle ones)."
    )
    ending: str | None = Field(default=None, description="How the stream ended, in words.")
    state: str | None = Field(default=None, description="The task's last state the stream showed.")
    task_id: str = ""
    context_id: str = ""


class ExchangeResult(BaseModel):
    """One A2A exchange: where it went, how it ended, what came back."""

    target: str = Field(description="Where the request went: binding, version, URL, method.")
    outcome: str = Field(
        description="ok, rpc_error (the agent answered with an A2A error), protocol_error, "
        "transport_error, usage_error (nothing sent) or cancelled."
    )
    ok: bool
    http_status: int | None = Field(default=None, description="HTTP status (None for gRPC).")
    result: JsonValue = Field(
        default=None,
        description="The A2A result: JSON-RPC `result`, or the HTTP+JSON / gRPC answer "
        "object (a Task, a Message, …); None for an error or a stream.",
    )
    errors: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Errors in words: kind, message, and the A2A error code and name.",
    )
    stream: StreamResult | None = None
    findings: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Deviations from the spec the client understood (severity, rule, "
        "docs/PROTOCOL.md section, JSON path).",
    )
    lint: list[dict[str, Any]] = Field(
        default_factory=list, description="Stream lifecycle findings (rule, message, seq)."
    )
    shape_problems: list[str] = Field(
        default_factory=list,
        description="Why the body does not fit its version and binding (sent with force).",
    )
    request: dict[str, Any] | None = Field(
        default=None, description="What was sent (credentials masked): method, URL, headers, body."
    )
    history_id: int | None = Field(
        default=None, description="The History entry of this exchange (history_show reads it)."
    )
    elapsed_ms: float = 0.0
    notes: list[str] = Field(default_factory=list)


def target_of(request: A2ARequest) -> str:
    """The request's target in one line (URL credentials masked)."""
    url = mask_url_query(request.endpoint, request.secret_query)
    return f"{request.binding.value} {request.version.value} {url} ({request.method})"


class _Collector:
    """Folds one exchange's records into an :class:`ExchangeResult`."""

    def __init__(self, target: str, envelope: bool, limits: Limits) -> None:
        self.limits = limits
        self.envelope = envelope
        """JSON-RPC: the A2A result is the body's ``result`` member."""
        self.result = ExchangeResult(target=target, outcome="", ok=False)
        half = max(limits.max_items // 2, 1)
        self.first: list[dict[str, Any]] = []
        self.last: deque[dict[str, Any]] = deque(maxlen=half)
        self.half = half
        self.items = 0
        self.big: list[str] = []
        self.session: StreamSession | None = None

    def event(self, event: object) -> None:
        if isinstance(event, RequestSent) and event.streaming:
            self.session = StreamSession(event.version)
            self.session.begin_connection()
        elif isinstance(event, StreamItem) and self.session is not None:
            self.session.feed(event)
        elif isinstance(event, ExchangeEnd) and self.session is not None:
            self.session.end(event.outcome)

    def record(self, rec: Record, event: object) -> None:
        kind = rec.get("event")
        out = self.result
        if kind == "request":
            body_size = len(event.body) if isinstance(event, RequestSent) else 0
            out.request = {k: v for k, v in rec.items() if k != "event"}
            if body_size > self.limits.max_body_bytes:
                out.request["body"] = self._omitted("the request body", body_size)
        elif kind == "response":
            out.http_status = rec.get("status")
            size = len(event.body) if isinstance(event, ResponseBody) else 0
            if size > self.limits.max_body_bytes:
                out.result = self._omitted("the answer", size)
            elif not rec.get("stream"):
                out.result = self._result(rec.get("body"))
        elif kind == "item":
            self._item(rec, event)
        elif kind == "error":
            out.errors.append({k: v for k, v in rec.items() if k != "event"})
        elif kind == "finding":
            out.findings.append({k: v for k, v in rec.items() if k != "event"})
        elif kind == "lint":
            out.lint.append({k: v for k, v in rec.items() if k != "event"})
        elif kind == "end":
            out.outcome = str(rec["outcome"])
            out.ok = out.outcome == Outcome.OK.value
            out.elapsed_ms = float(rec.get("elapsed_ms") or 0.0)

    def _result(self, body: Any) -> Any:
        if self.envelope and isinstance(body, dict):
            return body.get("result")
        return body

    def _item(self, rec: Record, event: object) -> None:
        self.items += 1
        item = {k: v for k, v in rec.items() if k not in ("event", "raw", "elapsed_ms")}
        if item.get("data") is None:
            item["raw"] = rec.get("raw")
        size = len(event.raw) if isinstance(event, StreamItem) else 0
        if size > self.limits.max_body_bytes:
            item.pop("raw", None)
            item["data"] = self._omitted(f"item {rec.get('seq')}", size)
        if len(self.first) < self.half:
            self.first.append(item)
        else:
            self.last.append(item)

    def _omitted(self, what: str, size: int) -> dict[str, Any]:
        self.big.append(what)
        limit = _size(self.limits.max_body_bytes)
        return {"omitted": f"{what} is {_size(size)}, over this server's {limit} limit",
                "bytes": size}  # fmt: skip

    def finish(self, history_id: int | None) -> ExchangeResult:
        out = self.result
        out.history_id = history_id
        session = self.session
        if session is not None:
            shown = [*self.first, *self.last]
            out.stream = StreamResult(
                items=shown,
                items_total=self.items,
                items_omitted=self.items - len(shown),
                ending=session.ending.value if session.ending else None,
                state=session.state_text() or None,
                task_id=session.task_id,
                context_id=session.context_id,
            )
        where = (
            f"history_show {history_id} (or `a2a-workbench history show {history_id}`)"
            if history_id is not None
            else "the window's History"
        )
        if self.big:
            out.notes.append(f"{', '.join(self.big)} left out for size; read it with {where}")
        if out.stream is not None and out.stream.items_omitted:
            out.notes.append(
                f"{out.stream.items_omitted} items in the middle of the stream left out; "
                f"every item is in {where}"
            )
        return out


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    return f"{n / 1024:.1f} KiB" if n < 1024 * 1024 else f"{n / 1024 / 1024:.1f} MiB"


async def run_exchange(
    request: A2ARequest,
    limits: Limits,
    *,
    progress: Progress | None = None,
    operation: str = "",
    secret_headers: tuple[str, ...] = (),
    secret_query: tuple[str, ...] = (),
    observe: Callable[[ExchangeEvent], None] | None = None,
) -> ExchangeResult:
    """Send ``request``, record it, and return what happened (module docstring).

    ``secret_headers`` and ``secret_query`` name more credentials to mask than the request
    knows (a saved request's ``{{secret}}`` headers); ``observe`` sees every event.
    Cancelling the calling task closes the connection; the history keeps the exchange
    (outcome ``cancelled``) and the cancellation propagates.
    """
    collector = _Collector(target_of(request), traits(request.binding).payload.envelope, limits)
    headers = tuple(dict.fromkeys((*request.secret_headers, *secret_headers)))
    query = tuple(dict.fromkeys((*request.secret_query, *secret_query)))
    encoder = ExchangeRecords(secret_headers=headers, secret_query=query)
    store = shared_store()
    recorder: Recorder | None = None
    if store is not None:
        recorder = store.recorder(
            request, secret_headers=headers, secret_query=query, source="mcp", operation=operation
        )
    reported = 0.0
    async for event in exchange.run(request):
        if recorder is not None:
            recorder.feed(event)
        if observe is not None:
            observe(event)
        collector.event(event)
        for rec in encoder.records(event):
            collector.record(rec, event)
        if progress is not None and isinstance(event, StreamItem):
            now = time.monotonic()
            if now - reported >= PROGRESS_INTERVAL_S:
                reported = now
                info = event.info
                await progress(collector.items, info.summary if info else f"item {event.seq}")
    history_id = None
    if recorder is not None:
        await asyncio.to_thread(recorder.close, 30.0)
        history_id = await asyncio.to_thread(lambda: recorder.exchange_id)
    return collector.finish(history_id)


def fold_events(
    events: Iterable[ExchangeEvent], entry: HistoryEntry, limits: Limits
) -> ExchangeResult:
    """A recorded exchange (its stored events, credentials already masked) as the
    :class:`ExchangeResult` a tool returned when it ran."""
    binding = from_value(entry.binding)
    envelope = binding is not None and traits(binding).payload.envelope
    target = f"{entry.binding} {entry.version} {entry.endpoint} ({entry.rpc_method})"
    collector = _Collector(target, envelope, limits)
    encoder = ExchangeRecords()
    for event in events:
        collector.event(event)
        for rec in encoder.records(event):
            collector.record(rec, event)
    if not collector.result.outcome:
        collector.result.outcome = "incomplete"  # the sender stopped before the end
    return collector.finish(entry.id)
