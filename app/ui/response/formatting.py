"""Turning exchange events into display text. Qt-free helpers used by the response view."""

from __future__ import annotations

import json
from typing import Any

import orjson

from app.protocol.events import NOT_JSON, ExchangeError, Headers, RequestSent
from app.protocol.visible_text import escape_controls, json_escape_controls
from app.protocol.wire.html_page import html_title, media_type

RAW_PREVIEW_BYTES = 1024 * 1024
"""The raw view shows at most this many bytes; one huge line would stall text layout."""


def pretty_json(value: Any) -> str:
    """2-space indented JSON, non-ASCII kept readable, the control characters a JSON encoder
    leaves raw (C1, bidirectional marks) as ``\\uNNNN``: the same JSON value, shown.

    orjson does it in C; values it refuses (integers beyond 64 bits) fall back to the
    standard library.
    """
    try:
        text = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    except (orjson.JSONEncodeError, TypeError):
        text = json.dumps(value, indent=2, ensure_ascii=False)
    return json_escape_controls(text)


FOLD_CHARS = 2000
"""Display lines are cut at this many characters: Qt lays out a line as a whole, and one
1 MiB line (compact JSON) takes most of a second; folded, only visible lines cost anything."""


def fold_long_lines(text: str, width: int = FOLD_CHARS) -> tuple[str, bool]:
    """``text`` with lines longer than ``width`` broken for display; True when any was."""
    if all(len(line) <= width for line in text.split("\n")):
        return text, False
    out: list[str] = []
    for line in text.split("\n"):
        out.extend(line[i : i + width] for i in range(0, max(len(line), 1), width))
    return "\n".join(out), True


def raw_preview(body: bytes) -> str:
    """The body as display text: cut at :data:`RAW_PREVIEW_BYTES`, long lines folded,
    with a note saying what was changed for display."""
    text = escape_controls(body[:RAW_PREVIEW_BYTES].decode("utf-8", "replace"), multiline=True)
    text, folded = fold_long_lines(text)
    notes = []
    if len(body) > RAW_PREVIEW_BYTES:
        notes.append(f"showing the first {RAW_PREVIEW_BYTES:,} of {len(body):,} bytes")
    if folded:
        notes.append(f"lines longer than {FOLD_CHARS:,} characters folded for display")
    return text + (f"\n\n… {'; '.join(notes)}" if notes else "")


def headers_text(headers: Headers) -> str:
    """``Name: value`` lines."""
    return "\n".join(f"{name}: {value}" for name, value in headers)


def request_text(event: RequestSent, headers: Headers) -> str:
    """The request as sent: request line, headers, blank line, body (pretty when JSON)."""
    try:
        body = pretty_json(json.loads(event.body)) if event.body else ""
    except (ValueError, RecursionError):
        body = event.body.decode("utf-8", "replace")
    notes = ""
    if event.tls_unverified:
        notes += "# TLS verification OFF: the server's certificate was not checked\n"
    if event.proxy:
        notes += f"# via proxy {event.proxy}\n"
    return f"{notes}{event.method} {event.url}\n{headers_text(headers)}\n\n{body}"


def error_text(error: ExchangeError) -> str:
    """One readable block for an error: title line, then decoded details and data."""
    kind = {
        "rpc": "Error response",
        "transport": "Transport error",
        "protocol": "Protocol error",
        "usage": "Request not sent",
        "internal": "Internal error",
    }[error.kind.value]
    code = f" {error.code}" if error.code is not None else ""
    name = f" {error.name}" if error.name and error.name != str(error.code) else ""
    if error.message.startswith(f"HTTP {error.code}"):
        code = name = ""  # the message starts with the status line: say it once
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


def non_json_summary(status_line: str, content_type: str, body: bytes) -> str:
    """One line for a non-JSON answer: status, media type, the page title and size.

    E.g. ``HTTP 502 Bad Gateway · text/html · “502 Bad Gateway” · 1.2 KiB (full body in
    Raw)``; the body itself is never quoted here (an HTML page is unreadable in a banner).
    """
    media = escape_controls(media_type(content_type)) or "no Content-Type"
    parts = [status_line, media] if status_line else [media]
    title = html_title(body)
    if title:
        parts.append(f"“{title}”")
    parts.append(size_text(len(body)) + (" (full body in Raw)" if body else ""))
    return " · ".join(parts)
