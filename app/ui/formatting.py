"""Turning exchange events into display text. Qt-free helpers used by the response view."""

from __future__ import annotations

import json
from typing import Any

from app.protocol.events import NOT_JSON, ExchangeError, Headers, RequestSent

RAW_PREVIEW_BYTES = 1024 * 1024
"""The raw view shows at most this many bytes; one huge line would stall text layout."""


def pretty_json(value: Any) -> str:
    """2-space indented JSON, non-ASCII kept readable."""
    return json.dumps(value, indent=2, ensure_ascii=False)


def raw_preview(body: bytes) -> str:
    """The body as text, cut at :data:`RAW_PREVIEW_BYTES` with a note saying so."""
    if len(body) <= RAW_PREVIEW_BYTES:
        return body.decode("utf-8", "replace")
    head = body[:RAW_PREVIEW_BYTES].decode("utf-8", "replace")
    return f"{head}\n\n… showing the first {RAW_PREVIEW_BYTES:,} of {len(body):,} bytes"


def headers_text(headers: Headers) -> str:
    """``Name: value`` lines."""
    return "\n".join(f"{name}: {value}" for name, value in headers)


def request_text(event: RequestSent, headers: Headers) -> str:
    """The request as sent: request line, headers, blank line, body (pretty when JSON)."""
    try:
        body = pretty_json(json.loads(event.body)) if event.body else ""
    except (ValueError, RecursionError):
        body = event.body.decode("utf-8", "replace")
    return f"{event.method} {event.url}\n{headers_text(headers)}\n\n{body}"


def error_text(error: ExchangeError) -> str:
    """One readable block for an error: title line, then decoded details and data."""
    kind = {
        "rpc": "Error response",
        "transport": "Transport error",
        "protocol": "Protocol error",
        "usage": "Request not sent",
    }[error.kind.value]
    code = f" {error.code}" if error.code is not None else ""
    name = f" {error.name}" if error.name else ""
    lines = [f"{kind}{code}{name}: {error.message}"]
    lines += list(error.details)
    if error.data is not None and not error.details:
        lines.append("data: " + json.dumps(error.data, ensure_ascii=False)[:2000])
    return "\n".join(lines)


def size_text(n: int) -> str:
    """Bytes in B / KiB / MiB."""
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n / (1024 * 1024):.1f} MiB"


def body_pretty(value: Any, raw: bytes) -> str:
    """Pretty JSON for a parsed body, else the raw preview."""
    if value is NOT_JSON:
        return raw_preview(raw)
    return pretty_json(value)
