"""Text from the wire made safe to show: control characters as visible escapes.

An agent chooses its error messages, card fields, header values and streamed text. Shown
as they are, control characters act instead of showing: ``ESC ] 2 ; … BEL`` retitles a
terminal, ``ESC [ 2 J`` clears it, a carriage return overwrites the line with a fake
prompt, and the Unicode bidirectional overrides reorder what the reader sees
(CVE-2021-42574). Every place that prints or shows wire text — the CLI's pretty output,
the window's labels, tooltips, banners, message bar and table cells — passes it through
:func:`escape_controls` first; JSON output spells the same characters as JSON escapes
(:func:`json_escape_controls`), so a record stays the same JSON value.

Rich text is the window's own matter (``app/ui``): agent text never reaches a Qt widget
that would read it as HTML.
"""

from __future__ import annotations

import re
from typing import TextIO

__all__ = ["escape_controls", "json_escape_controls"]

# The bidirectional marks, embeddings, overrides and isolates, and the Unicode line and
# paragraph separators (a line break in a Qt label).
_UNICODE = "\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
# C0 controls, DEL, C1 controls and the above.
_ONE_LINE = re.compile(f"[\x00-\x1f\x7f-\x9f{_UNICODE}]")
# A multi-line view keeps its newlines and tabs, and a carriage return only as part of a
# CRLF line end (alone it moves the cursor back over the line).
_MULTI_LINE = re.compile(f"\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{_UNICODE}]")


_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _visible(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group(0)):04x}"


def escape_controls(text: str, *, multiline: bool = False) -> str:
    """``text`` with every control character shown as an escape (``\\x1b``, ``\\u202e``).

    Args:
        text: text that came from the wire (or any other untrusted source).
        multiline: keep newlines, tabs and CRLF line ends (a body view, a multi-line
            banner); otherwise they are escaped too (a one-line label, a table cell).

    Returns:
        ``text`` itself when there is nothing to escape.
    """
    pattern = _MULTI_LINE if multiline else _ONE_LINE
    return pattern.sub(_visible, text) if pattern.search(text) else text


def json_escape_controls(text: str) -> str:
    """``text``, a JSON document, with the control characters JSON leaves raw (DEL, C1,
    bidirectional marks; a JSON encoder escapes C0 itself) spelled as ``\\uNNNN``: the same
    JSON value, safe on a terminal. Newlines and tabs between tokens stay."""
    return _MULTI_LINE.sub(_json_escape, text) if _MULTI_LINE.search(text) else text


def json_for(text: str, out: TextIO) -> str:
    """A JSON line made safe for ``out``: exact for pipes and files; on a terminal the
    characters a JSON encoder leaves raw (DEL, C1, bidirectional marks) are spelled as
    ``\\uNNNN``, the same JSON value."""
    try:
        tty = out.isatty()
    except (AttributeError, ValueError):
        tty = False
    return json_escape_controls(text) if tty else text
