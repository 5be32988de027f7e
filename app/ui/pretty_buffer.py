"""A big text held as UTF-8 bytes plus an index of line starts (Qt-free).

A 25 MiB body pretty-printed is ~30 MiB of UTF-8; as a QString in a QPlainTextEdit it is twice
that plus a layout block per line, and laying it out stalls the window for seconds. The big
view (:mod:`app.ui.big_text_view`) paints only the visible lines, decoded one by one from
this buffer. Building runs in a worker thread in small steps: the pretty text is encoded
member by member (orjson, in C), so the GIL is given back between steps and the GUI keeps
repainting.
"""

from __future__ import annotations

import json
from array import array
from typing import Any

import orjson

FOLD_BYTES = 2000
"""Lines longer than this are cut for display (at a character boundary): one 20 MB line of
compact JSON becomes 10 000 display lines, each cheap to paint."""

_SPLIT_DEPTH = 5
"""Containers down to this depth are written member by member; deeper ones in one call."""

_NOT_CONTINUATION = bytes(b for b in range(256) if not 0x80 <= b < 0xC0)
_COUNT_STEP = 1 << 20


class PrettyBuffer:
    """``data`` (UTF-8) and the byte offset where each display line starts."""

    def __init__(self, data: bytes | bytearray, starts: array[int], longest: int, chars: int):
        self.data = data
        self.starts = starts
        self.longest = longest  # bytes in the longest display line
        self.chars = chars  # characters in ``data`` (as a QString would count them)

    @property
    def line_count(self) -> int:
        return len(self.starts)

    def line(self, index: int) -> str:
        """Display line ``index`` without its line end."""
        start = self.starts[index]
        end = self.starts[index + 1] if index + 1 < len(self.starts) else len(self.data)
        if end > start and self.data[end - 1] == 0x0A:
            end -= 1
        return bytes(self.data[start:end]).decode("utf-8", "replace")

    def text(self) -> str:
        """The whole text (for copying)."""
        return bytes(self.data).decode("utf-8", "replace")


def build(data: bytes | bytearray, fold: int = FOLD_BYTES) -> PrettyBuffer:
    """Index ``data``'s lines, folding those longer than ``fold`` bytes."""
    starts = array("q", [0])
    size = len(data)
    pos = longest = 0
    find = data.find
    while True:
        nl = find(b"\n", pos)
        end = size if nl < 0 else nl
        while end - pos > fold:
            cut = pos + fold
            while cut > pos + 1 and 0x80 <= data[cut] < 0xC0:  # not inside a character
                cut -= 1
            starts.append(cut)
            longest = max(longest, cut - pos)
            pos = cut
        longest = max(longest, end - pos)
        if nl < 0 or nl + 1 >= size:
            break
        pos = nl + 1
        starts.append(pos)
    return PrettyBuffer(data, starts, longest, size - _continuation_bytes(data))


def _continuation_bytes(data: bytes | bytearray) -> int:
    # Deleting everything but continuation bytes leaves a tiny copy per step.
    return sum(
        len(bytes(data[i : i + _COUNT_STEP]).translate(None, _NOT_CONTINUATION))
        for i in range(0, len(data), _COUNT_STEP)
    )


def pretty_bytes(value: Any) -> bytearray:
    """2-space indented JSON of ``value`` as :func:`app.ui.formatting.pretty_json` writes it,
    encoded member by member into one growing buffer."""
    out = bytearray()
    _emit(value, b"", 0, out)
    return out


def _dump(value: Any) -> bytes:
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2)
    except (orjson.JSONEncodeError, TypeError):  # integers beyond 64 bits
        return json.dumps(value, indent=2, ensure_ascii=False).encode()


def _emit(value: Any, pad: bytes, depth: int, out: bytearray) -> None:
    if depth >= _SPLIT_DEPTH or not isinstance(value, dict | list) or not value:
        encoded = _dump(value)
        out += encoded.replace(b"\n", b"\n" + pad) if pad and b"\n" in encoded else encoded
        return
    inner = pad + b"  "
    is_dict = isinstance(value, dict)
    out += b"{\n" if is_dict else b"[\n"
    members = value.items() if isinstance(value, dict) else enumerate(value)
    last = len(value) - 1
    for i, (key, member) in enumerate(members):
        out += inner
        if is_dict:
            out += _dump(key) + b": "
        _emit(member, inner, depth + 1, out)
        out += b",\n" if i < last else b"\n"
    out += pad + (b"}" if is_dict else b"]")
