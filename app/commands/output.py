"""Printing exchange events for the CLI: ``jsonl`` (one JSON object a line) or ``pretty``.

The JSON-lines records are a public interface (README.md, "CLI output events"): each has
an ``"event"`` key — ``request``, ``response``, ``item``, ``lint``, ``error`` or ``end``.
A streaming call is followed by a :class:`app.protocol.stream_session.StreamSession`, the
same the GUI timeline keeps, so the CLI reports the same lifecycle findings (``lint``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import Any, TextIO

from app.protocol.events import (
    NOT_JSON,
    ExchangeEnd,
    ExchangeError,
    ExchangeEvent,
    Headers,
    Outcome,
    RequestSent,
    ResponseBody,
    ResponseHead,
    StreamItem,
)
from app.protocol.jsonparse import parse_json
from app.protocol.lifecycle import Finding
from app.protocol.stream_items import classify_item
from app.protocol.stream_session import StreamSession

EXIT_OK, EXIT_RPC, EXIT_TRANSPORT, EXIT_USAGE = 0, 1, 2, 3

EXIT_STATUS = {
    Outcome.OK: EXIT_OK,
    Outcome.RPC_ERROR: EXIT_RPC,
    Outcome.PROTOCOL_ERROR: EXIT_TRANSPORT,
    Outcome.TRANSPORT_ERROR: EXIT_TRANSPORT,
    Outcome.CANCELLED: EXIT_TRANSPORT,
    Outcome.USAGE_ERROR: EXIT_USAGE,
}
"""Exit statuses: 0 success, 1 the agent answered with an error, 2 transport or protocol
failure, 3 usage error."""


def headers_object(headers: Headers) -> dict[str, str]:
    """Headers as a JSON object; repeated names are joined with ``", "`` (RFC 9110 §5.3)."""
    out: dict[str, str] = {}
    for name, value in headers:
        out[name] = f"{out[name]}, {value}" if name in out else value
    return out


def body_value(raw: bytes, parsed: Any = NOT_JSON) -> Any:
    """Parsed JSON where it parses, else the text (undecodable bytes replaced)."""
    if parsed is not NOT_JSON:
        return parsed
    value, _ = parse_json(raw) if raw.strip() else (NOT_JSON, "")
    return raw.decode("utf-8", "replace") if value is NOT_JSON else value


class Printer:
    """Writes events to ``out`` as they arrive; tracks the head for the response record."""

    def __init__(
        self,
        fmt: str,
        out: TextIO = sys.stdout,
        *,
        reveal_secrets: bool = False,
        secret_headers: Iterable[str] = (),
        secret_query: Iterable[str] = (),
    ) -> None:
        self._fmt = fmt
        self._out = out
        self._reveal = reveal_secrets
        self._secret_headers = tuple(secret_headers)
        self._secret_query = tuple(secret_query)
        self._head: ResponseHead | None = None
        self._session: StreamSession | None = None

    def emit(self, event: ExchangeEvent) -> None:
        """Print one event (the response record waits for the body), then the lint
        findings it brings."""
        for record in self.records(event):
            if self._fmt == "jsonl":
                self._out.write(json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n")
            else:
                self._out.write(pretty(record) + "\n")
        self._out.flush()

    def records(self, event: ExchangeEvent) -> list[dict[str, Any]]:
        """The records for ``event``: its own (:meth:`record`) and, on a stream, a ``lint``
        record per lifecycle finding (after the item; before the ``end`` record)."""
        record = self.record(event)
        session = self._session
        if session is None or not isinstance(event, StreamItem | ExchangeError | ExchangeEnd):
            return [] if record is None else [record]
        findings: list[Finding] = []
        seq: int | None = None
        if isinstance(event, StreamItem):
            findings = session.feed(event)[1]
            seq = event.seq
        elif isinstance(event, ExchangeError):
            session.note_error(event)
        else:
            findings = session.end(event.outcome)[1]
        lint = [lint_record(finding, seq) for finding in findings]
        if isinstance(event, ExchangeEnd):
            return [*lint, *([] if record is None else [record])]
        return [*([] if record is None else [record]), *lint]

    def record(self, event: ExchangeEvent) -> dict[str, Any] | None:
        """The JSON record for ``event``, or None when it is folded into a later one."""
        match event:
            case RequestSent():
                if event.streaming:
                    self._session = StreamSession(event.version)
                    self._session.begin_connection()
                shown = (
                    event
                    if self._reveal
                    else event.masked(self._secret_headers, self._secret_query)
                )
                return {
                    "event": "request",
                    "rpc_method": event.rpc_method,
                    "method": event.method,
                    "url": shown.url,
                    "headers": headers_object(shown.headers),
                    "body": body_value(event.body),
                }
            case ResponseHead():
                self._head = event
                if not (self._session is not None and event.event_stream):
                    return None  # folded into the response record with the body
                # A stream has no body: its status and headers come now, the items follow.
                return {
                    "event": "response",
                    "status": event.status,
                    "reason": event.reason,
                    "headers": headers_object(event.headers),
                    "body": None,
                    "elapsed_ms": round(event.t * 1000, 1),
                }
            case ResponseBody():
                head = self._head
                return {
                    "event": "response",
                    "status": head.status if head else None,
                    "reason": head.reason if head else "",
                    "headers": headers_object(head.headers) if head else {},
                    "body": body_value(event.body, event.json),
                    "elapsed_ms": round(event.t * 1000, 1),
                }
            case StreamItem():
                info = classify_item(event)  # the transport's classification, not a new one
                item: dict[str, Any] = {
                    "event": "item",
                    "seq": event.seq,
                    "kind": info.kind.value,
                    "state": info.state.value if info.state is not None else None,
                    "task_id": info.task_id,
                    "context_id": info.context_id,
                    "summary": info.summary,
                    "data": body_value(event.raw, event.json)
                    if event.json is not NOT_JSON or not event.json_error
                    else None,
                    "raw": event.raw.decode("utf-8", "replace"),
                    "elapsed_ms": round(event.t * 1000, 1),
                }
                if info.final is not None:
                    item["final"] = info.final
                if event.sse_event:
                    item["sse_event"] = event.sse_event
                if event.json_error:
                    item["json_error"] = event.json_error
                return item
            case ExchangeError():
                return {"event": "error", **event.as_record()}
            case ExchangeEnd():
                return {
                    "event": "end",
                    "outcome": event.outcome.value,
                    "elapsed_ms": round(event.elapsed_ms, 1),
                }
        return None


def lint_record(finding: Finding, seq: int | None) -> dict[str, Any]:
    """A ``lint`` record: a lifecycle finding on item ``seq``, or on the stream's end (None)."""
    return {"event": "lint", "rule": finding.rule, "message": finding.message, "seq": seq}


def pretty(record: dict[str, Any]) -> str:
    """A human-readable rendering of one JSON-lines record."""
    kind = record["event"]
    if kind == "request":
        lines = [f"→ {record['method']} {record['url']}  ({record['rpc_method']})"]
        lines += [f"  {k}: {v}" for k, v in record["headers"].items()]
        lines.append(_indent(record["body"]))
        return "\n".join(lines)
    if kind == "response":
        lines = [f"← {record['status']} {record['reason']}  ({record['elapsed_ms']} ms)"]
        lines += [f"  {k}: {v}" for k, v in record["headers"].items()]
        lines.append(_indent(record["body"]))
        return "\n".join(lines)
    if kind == "item":
        state = f" {record['state']}" if record.get("state") else ""
        task = f" task {record['task_id']}" if record.get("task_id") else ""
        return (
            f"· #{record['seq']} +{record['elapsed_ms']} ms {record['kind']}{state}{task}"
            f"  {record['summary']}"
        )
    if kind == "error":
        code = f" {record['code']}" if "code" in record else ""
        name = (
            f" {record['name']}"
            if record.get("name", "") not in ("", str(record.get("code")))
            else ""
        )
        lines = [f"✗ {record['kind']} error{code}{name}: {record['message']}"]
        lines += [f"  {d}" for d in record.get("details", [])]
        return "\n".join(lines)
    if kind == "lint":
        where = f"#{record['seq']}" if record["seq"] is not None else "end"
        return f"⚠ {where} {record['rule']}: {record['message']}"
    return f"■ {record['outcome']} in {record['elapsed_ms']} ms"


def _indent(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
    return "\n".join("  " + line for line in text.splitlines())
