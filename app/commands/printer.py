"""Printing exchange events for the CLI: ``jsonl`` (one JSON object a line) or ``pretty``.

The JSON-lines records are a public interface (docs/CLI.md, "send"): each has
an ``"event"`` key — ``request``, ``response``, ``item``, ``lint``, ``finding``, ``error`` or
``end``.
A streaming call is followed by a :class:`app.protocol.stream.stream_session.StreamSession`, the
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
    ExchangeFinding,
    Headers,
    Outcome,
    RequestSent,
    ResponseBody,
    ResponseHead,
    StreamItem,
)
from app.protocol.findings import Finding, Severity
from app.protocol.stream.stream_items import classify_item
from app.protocol.stream.stream_session import StreamSession
from app.protocol.visible_text import escape_controls, json_escape_controls
from app.protocol.wire.jsonparse import parse_json

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
        self.error_findings = 0
        """``finding`` records of error severity printed so far (``--strict``)."""

    def emit(self, event: ExchangeEvent) -> None:
        """Print one event (the response record waits for the body), then the lint
        findings it brings."""
        for record in self.records(event):
            jsonl = self._fmt == "jsonl"
            text = (
                json.dumps(record, ensure_ascii=False, allow_nan=False) if jsonl else pretty(record)
            )
            self._out.write(for_terminal(text, self._out, pretty=not jsonl) + "\n")
        self._out.flush()

    def records(self, event: ExchangeEvent) -> list[dict[str, Any]]:
        """The records for ``event``: its own (:meth:`record`) and, on a stream, a ``lint``
        record per lifecycle finding (after the item; before the ``end`` record)."""
        record = self.record(event)
        if isinstance(event, ExchangeFinding) and event.finding.severity is Severity.ERROR:
            self.error_findings += 1
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
                out = {
                    "event": "request",
                    "rpc_method": event.rpc_method,
                    "method": event.method,
                    "url": shown.url,
                    "headers": headers_object(shown.headers),
                    "body": body_value(event.body),
                }
                if event.descriptors:  # gRPC only: HTTP records keep their keys
                    out["descriptors"] = event.descriptors
                if event.tls_unverified:
                    out["tls_verification"] = "off"
                if event.proxy:
                    out["proxy"] = event.proxy
                return out
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
                    "stream": True,
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
                if event.last_event_id:
                    item["last_event_id"] = event.last_event_id
                return item
            case ExchangeError():
                return {"event": "error", **event.as_record()}
            case ExchangeFinding():
                return finding_record(event)
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


def finding_record(event: ExchangeFinding) -> dict[str, Any]:
    """A ``finding`` record: a deviation the client understood, on item ``seq`` (None: on
    the body or the exchange as a whole)."""
    return {"event": "finding", **event.finding.as_record(), "seq": event.seq}


def pretty_finding(record: dict[str, Any]) -> str:
    """The pretty line of a ``finding`` record."""
    where = f"#{record['seq']} " if record.get("seq") is not None else ""
    path = f" at {record['path']}" if record.get("path") else ""
    cite = ", ".join(record[k] for k in ("section", "spec") if record.get(k))
    cite = f" ({cite})" if cite else ""
    return f"◆ {where}{record['severity']} {record['rule']}: {record['message']}{path}{cite}"


def pretty(record: dict[str, Any]) -> str:
    """A human-readable rendering of one JSON-lines record."""
    kind = record["event"]
    if kind == "finding":
        return pretty_finding(record)
    if kind == "request":
        lines = [f"→ {record['method']} {record['url']}  ({record['rpc_method']})"]
        if "descriptors" in record:
            lines.append(f"  via {record['descriptors']}")
        if record.get("tls_verification") == "off":
            lines.append("  ! TLS verification OFF: the server's certificate was not checked")
        if "proxy" in record:
            lines.append(f"  via proxy {record['proxy']}")
        lines += [f"  {k}: {v}" for k, v in record["headers"].items()]
        lines.append(_indent(record["body"]))
        return "\n".join(lines)
    if kind == "response":
        lines = [f"← {record['status']} {record['reason']}  ({record['elapsed_ms']} ms)"]
        lines += [f"  {k}: {v}" for k, v in record["headers"].items()]
        if not record.get("stream"):  # a stream's items follow as their own lines
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


def for_terminal(text: str, out: TextIO, *, pretty: bool = False) -> str:
    """``text`` made safe to print on ``out``.

    Pretty text is for people, who read it on a terminal now or later (a log, a pager):
    its control characters are always shown as escapes (:func:`escape_controls`). JSON
    goes exactly to pipes and files; on a terminal the characters a JSON encoder leaves raw
    (DEL, C1, bidirectional marks) are spelled as ``\\uNNNN``, the same JSON value."""
    if pretty:
        return escape_controls(text, multiline=True)
    try:
        tty = out.isatty()
    except (AttributeError, ValueError):
        tty = False
    return json_escape_controls(text) if tty else text


def _indent(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
    return "\n".join("  " + line for line in text.splitlines())
