"""The JSON-lines records of the command line, in one place: what each record holds and how
a line is written.

Every record a command prints is a JSON object with an ``"event"`` key naming its kind
(README.md, "CLI output events"). The exchange events (:mod:`app.protocol.events`) become
``request``, ``response``, ``item``, ``lint``, ``finding``, ``error`` and ``end`` records
through :class:`ExchangeRecords`, the one encoder ``send``, ``run``, ``history show`` and
``history export --format jsonl`` share; credentials in the ``request`` record are masked
unless revealed, as every other text of an exchange already is (:mod:`app.protocol.masking`).
The other commands' kinds (``check``, ``delivery``, …) are made with :func:`record`.

The jsonl records are a public interface: fields are added, never renamed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from app.protocol.events import (
    NOT_JSON,
    ErrorKind,
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
from app.protocol.findings import Finding
from app.protocol.stream.stream_items import classify_item
from app.protocol.stream.stream_session import StreamSession
from app.protocol.wire.jsonparse import parse_json

Record = dict[str, Any]


def record(
    kind: str, fields: Mapping[str, Any] | None = None, *, with_type: bool = False
) -> Record:
    """A record of ``kind``: ``{"event": kind, **fields}``.

    ``with_type`` also sets ``"type": kind``: ``check`` and ``push-receiver`` records were
    keyed by ``type`` before they carried ``event``; both are written for one release
    (CHANGELOG.md), then ``type`` goes.
    """
    head: Record = {"event": kind, "type": kind} if with_type else {"event": kind}
    return {**head, **(fields or {})}


def line(value: Mapping[str, Any]) -> str:
    """One jsonl line (no newline): UTF-8 text as is, strict JSON (no NaN or Infinity)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def error_record(kind: ErrorKind, message: str, *, with_type: bool = False) -> Record:
    """An ``error`` record built outside an exchange (a usage error before anything was sent)."""
    return record("error", {"kind": kind.value, "message": message}, with_type=with_type)


def end_record(outcome: Outcome, elapsed_ms: float) -> Record:
    """The ``end`` record: always an exchange's last."""
    return record("end", {"outcome": outcome.value, "elapsed_ms": round(elapsed_ms, 1)})


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


def lint_record(finding: Finding, seq: int | None) -> Record:
    """A ``lint`` record: a lifecycle finding on item ``seq``, or on the stream's end (None)."""
    return record("lint", {"rule": finding.rule, "message": finding.message, "seq": seq})


def finding_record(event: ExchangeFinding) -> Record:
    """A ``finding`` record: a deviation the client understood, on item ``seq`` (None: on
    the body or the exchange as a whole)."""
    return record("finding", {**event.finding.as_record(), "seq": event.seq})


class ExchangeRecords:
    """The records of one exchange's events, fed in order.

    The head waits for the body (one ``response`` record); a streaming call is followed by
    a :class:`StreamSession`, the same the GUI timeline keeps, whose lifecycle findings
    become ``lint`` records.
    """

    def __init__(
        self,
        *,
        reveal_secrets: bool = False,
        secret_headers: Iterable[str] = (),
        secret_query: Iterable[str] = (),
    ) -> None:
        self._reveal = reveal_secrets
        self._secret_headers = tuple(secret_headers)
        self._secret_query = tuple(secret_query)
        self._head: ResponseHead | None = None
        self._session: StreamSession | None = None

    def records(self, event: ExchangeEvent) -> list[Record]:
        """The records for ``event``: its own (:meth:`record`) and, on a stream, a ``lint``
        record per lifecycle finding (after the item; before the ``end`` record)."""
        own = self.record(event)
        mine = [] if own is None else [own]
        session = self._session
        if session is None or not isinstance(event, StreamItem | ExchangeError | ExchangeEnd):
            return mine
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
        return [*lint, *mine] if isinstance(event, ExchangeEnd) else [*mine, *lint]

    def record(self, event: ExchangeEvent) -> Record | None:
        """The record for ``event`` alone, or None when it is folded into a later one."""
        match event:
            case RequestSent():
                return self._request(event)
            case ResponseHead():
                self._head = event
                if not (self._session is not None and event.event_stream):
                    return None  # folded into the response record with the body
                # A stream has no body: its status and headers come now, the items follow.
                return record(
                    "response",
                    {
                        "status": event.status,
                        "reason": event.reason,
                        "headers": headers_object(event.headers),
                        "body": None,
                        "stream": True,
                        "elapsed_ms": round(event.t * 1000, 1),
                    },
                )
            case ResponseBody():
                head = self._head
                return record(
                    "response",
                    {
                        "status": head.status if head else None,
                        "reason": head.reason if head else "",
                        "headers": headers_object(head.headers) if head else {},
                        "body": body_value(event.body, event.json),
                        "elapsed_ms": round(event.t * 1000, 1),
                    },
                )
            case StreamItem():
                return _item(event)
            case ExchangeError():
                return record("error", event.as_record())
            case ExchangeFinding():
                return finding_record(event)
            case ExchangeEnd():
                return end_record(event.outcome, event.elapsed_ms)
        return None

    def _request(self, event: RequestSent) -> Record:
        if event.streaming:
            self._session = StreamSession(event.version)
            self._session.begin_connection()
        shown = event if self._reveal else event.masked(self._secret_headers, self._secret_query)
        out = record(
            "request",
            {
                "rpc_method": event.rpc_method,
                "method": event.method,
                "url": shown.url,
                "headers": headers_object(shown.headers),
                "body": body_value(event.body),
            },
        )
        if event.descriptors:  # gRPC only: HTTP records keep their keys
            out["descriptors"] = event.descriptors
        if event.tls_unverified:
            out["tls_verification"] = "off"
        if event.proxy:
            out["proxy"] = event.proxy
        return out


def _item(event: StreamItem) -> Record:
    info = classify_item(event)  # the transport's classification, not a new one
    item = record(
        "item",
        {
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
        },
    )
    if info.final is not None:
        item["final"] = info.final
    if event.sse_event:
        item["sse_event"] = event.sse_event
    if event.json_error:
        item["json_error"] = event.json_error
    if event.last_event_id:
        item["last_event_id"] = event.last_event_id
    return item
