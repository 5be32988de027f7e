"""HAR 1.2 export of recorded HTTP exchanges (JSON-RPC and HTTP+JSON bindings).

A streamed response is written as its body text: the raw SSE bytes, frame after frame, as
received — the form browser developer tools show an event stream in. gRPC exchanges have no
HTTP/1.1 shape and are left out (export them as JSON lines). Fields HAR lacks go in
``_a2a`` (HAR allows custom fields that start with an underscore).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from app import __version__
from app.history.store import HistoryEntry
from app.protocol.bindings import from_value, traits
from app.protocol.events import (
    ExchangeEnd,
    ExchangeError,
    ExchangeEvent,
    Headers,
    RequestSent,
    ResponseBody,
    ResponseHead,
    StreamItem,
)


def har_log(exchanges: Iterable[tuple[HistoryEntry, list[ExchangeEvent]]]) -> dict[str, Any]:
    """A HAR 1.2 document (``{"log": …}``) of the HTTP exchanges among ``exchanges``."""
    entries = [e for entry, events in exchanges if (e := har_entry(entry, events)) is not None]
    return {
        "log": {
            "version": "1.2",
            "creator": {"name": "A2A Workbench", "version": __version__},
            "pages": [],
            "entries": entries,
        }
    }


def _headers(headers: Headers) -> list[dict[str, str]]:
    return [{"name": name, "value": value} for name, value in headers]


def _header(headers: Headers, wanted: str, default: str = "") -> str:
    return next((v for n, v in headers if n.lower() == wanted), default)


def _ms(seconds: float) -> float:
    return round(max(seconds, 0.0) * 1000.0, 3)


def har_entry(entry: HistoryEntry, events: list[ExchangeEvent]) -> dict[str, Any] | None:
    """One HAR entry, or None for an exchange that did not ride HTTP (gRPC) or sent nothing."""
    sent = next((e for e in events if isinstance(e, RequestSent)), None)
    binding = from_value(entry.binding)
    if sent is None or (binding is not None and not traits(binding).rides_http):
        return None
    head = next((e for e in events if isinstance(e, ResponseHead)), None)
    body = next((e for e in events if isinstance(e, ResponseBody)), None)
    items = [e for e in events if isinstance(e, StreamItem)]
    end = next((e for e in events if isinstance(e, ExchangeEnd)), None)
    errors = [e.as_record() for e in events if isinstance(e, ExchangeError)]
    payload = body.body if body is not None else b"".join(item.raw for item in items)
    response_headers = head.headers if head is not None else ()
    http_version = head.http_version if head is not None else "HTTP/1.1"
    finished = end.t if end is not None else max((e.t for e in events), default=sent.t)
    wait = _ms((head.t if head is not None else finished) - sent.t)
    receive = _ms(finished - head.t) if head is not None else 0.0
    request: dict[str, Any] = {
        "method": sent.method,
        "url": sent.url,
        "httpVersion": http_version,
        "cookies": [],
        "headers": _headers(sent.headers),
        "queryString": [
            {"name": n, "value": v}
            for n, v in parse_qsl(urlsplit(sent.url).query, keep_blank_values=True)
        ],
        "headersSize": -1,
        "bodySize": len(sent.body),
    }
    if sent.body:
        request["postData"] = {
            "mimeType": _header(sent.headers, "content-type", "application/json"),
            "text": sent.body.decode("utf-8", "replace"),
        }
    content_type = body.content_type if body is not None else ""
    content_type = content_type or _header(response_headers, "content-type")
    record: dict[str, Any] = {
        "startedDateTime": entry.started.isoformat(timespec="milliseconds"),
        "time": round(wait + receive, 3),
        "request": request,
        "response": {
            "status": head.status if head is not None else 0,
            "statusText": head.reason if head is not None else "",
            "httpVersion": http_version,
            "cookies": [],
            "headers": _headers(response_headers),
            "content": {
                "size": len(payload),
                "mimeType": content_type or "application/octet-stream",
                "text": payload.decode("utf-8", "replace"),
            },
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": len(payload) if head is not None else -1,
        },
        "cache": {},
        "timings": {"send": 0.0, "wait": wait, "receive": receive},
        "_a2a": {
            "id": entry.id,
            "rpcMethod": entry.rpc_method,
            "binding": entry.binding,
            "version": entry.version,
            "outcome": entry.outcome,
            "streamItems": len(items),
            "errors": errors,
        },
    }
    return record
