"""An answer that is an HTML page, said in words: the status and the media type first.

An agent URL that reaches a web front end instead of the agent (a single-page app's
``index.html`` served for every path, a proxy's error page, a login page) answers with
HTML, often with status 200. Parsing that as JSON only says "Expecting value at line 1,
column 1"; what the user needs is "this is a web page": the status, the media type and the
page's title, and what was expected instead.
"""

from __future__ import annotations

import html
import re

from app.protocol.visible_text import escape_controls

__all__ = ["html_answer", "html_title", "is_html", "media_type", "page_words"]

_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
# What an HTML document begins with (after a byte order mark and whitespace).
_HTML_START = re.compile(rb"\A(?:\xef\xbb\xbf)?\s*<(?:!doctype\s+html|html[\s>]|head[\s>])", re.I)
_TITLE = re.compile(rb"<title[^>]*>(.*?)</title", re.IGNORECASE | re.DOTALL)
_TITLE_SCAN_BYTES = 64 * 1024
_TITLE_CHARS = 120


def media_type(content_type: str) -> str:
    """The media type of a ``Content-Type`` value, without parameters, lower case."""
    return content_type.split(";", 1)[0].strip().lower()


def is_html(content_type: str, body: bytes) -> bool:
    """Whether an answer is an HTML page: by its media type, or by how it begins (servers
    send pages as ``text/plain`` or with no type at all)."""
    return media_type(content_type) in _HTML_TYPES or bool(_HTML_START.match(body[:1024]))


def html_title(body: bytes) -> str:
    """The ``<title>`` of an HTML page (entities decoded, whitespace collapsed, control
    characters escaped), or ``""``."""
    match = _TITLE.search(body[:_TITLE_SCAN_BYTES])
    if match is None:
        return ""
    title = " ".join(html.unescape(match.group(1).decode("utf-8", "replace")).split())
    title = title[:_TITLE_CHARS] + ("…" if len(title) > _TITLE_CHARS else "")
    return escape_controls(title)


def html_answer(
    status: int, reason: str, content_type: str, body: bytes, expected: str
) -> str | None:
    """One sentence for an answer that is an HTML page, or None when it is not one.

    E.g. ``HTTP 200 OK, text/html: the server returned an HTML page (“My App”), not a
    JSON-RPC response``.

    Args:
        status: the HTTP status.
        reason: the status line's reason phrase.
        content_type: the ``Content-Type`` header value.
        body: the answer's bytes.
        expected: what should have come (``a JSON-RPC response``, ``an event stream``).
    """
    if not is_html(content_type, body):
        return None
    shown_type = escape_controls(media_type(content_type)) or "no Content-Type"
    head = f"HTTP {status} {escape_controls(reason)}".strip()
    return f"{head}, {shown_type}: the server returned {page_words(body)}, not {expected}"


def page_words(body: bytes) -> str:
    """``an HTML page (“its title”)``, or ``an HTML page`` when it has none."""
    title = html_title(body)
    return f"an HTML page (“{title}”)" if title else "an HTML page"
