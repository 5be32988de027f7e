"""A big text held as UTF-8 bytes plus an index of line starts (Qt-free).

A 25 MiB body pretty-printed is ~30 MiB of UTF-8; as a QString in a QPlainTextEdit it is twice
that plus a layout block per line, and laying it out stalls the window for seconds. The big
view (:mod:`app.ui.response.big_text_view`) paints only the visible lines, decoded one by one from
this buffer. Building runs in a worker thread: the pretty text in one orjson call, the line
index by a regular expression whose matches Python only stores (the GIL changes hands
between them).
"""

from __future__ import annotations

import codecs
import itertools
import json
import operator
import re
import sys
from array import array
from typing import Any

import orjson

from app import heap

FOLD_BYTES = 2000
"""Lines longer than this are cut for display (at a character boundary): one 20 MB line of
compact JSON becomes 10 000 display lines, each cheap to paint."""

_GROUPS = 64
"""A container of more members than this is written in this many groups of them."""
_MAX_DEPTH = 6
"""Containers of few members are written member by member down to this depth."""

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
        """Display line ``index`` without its line end; a fold inside a character is moved
        to that character's start."""
        start = self._character_start(self.starts[index])
        end = self.starts[index + 1] if index + 1 < len(self.starts) else len(self.data)
        end = self._character_start(end)
        if end > start and self.data[end - 1] == 0x0A:
            end -= 1
        return bytes(self.data[start:end]).decode("utf-8", "replace")

    def _character_start(self, pos: int) -> int:
        data = self.data
        floor = max(0, pos - 3)
        while pos > floor and pos < len(data) and 0x80 <= data[pos] < 0xC0:
            pos -= 1
        return pos

    def text(self) -> str:
        """The whole text (for copying)."""
        return bytes(self.data).decode("utf-8", "replace")


def build(data: bytes | bytearray, fold: int = FOLD_BYTES) -> PrettyBuffer:
    """Index ``data``'s lines, folding those longer than ``fold`` bytes.

    The regular expression finds each display line (C code); Python only stores where it
    starts. A fold may fall inside a character: :meth:`PrettyBuffer.line` moves its ends
    to character starts."""
    newlines = sum(
        data.count(b"\n", i, i + _COUNT_STEP) for i in range(0, len(data), _COUNT_STEP)
    )  # piece by piece: one count over 60 MiB holds the GIL ~20 ms
    if newlines < len(data) // fold:
        starts = _long_line_starts(data, fold)  # few lines: memchr outruns the expression
    else:
        piece = re.compile(rb"[^\n]{1,%d}\n?|\n" % fold)
        starts = array("q", (match.start() for match in piece.finditer(data)))
    if not starts:
        starts.append(0)
    return PrettyBuffer(
        data, starts, _longest(starts, len(data)), len(data) - _continuation_bytes(data)
    )


_LINES_STEP = 1 << 15


def _longest(starts: array[int], size: int) -> int:
    """Bytes in the longest line, measured piece by piece: one ``max`` over the 200 000
    lines of a 25 MiB text held the GIL ~13 ms (more on a busy machine)."""
    best = size - starts[-1]
    for i in range(0, len(starts) - 1, _LINES_STEP):
        piece = starts[i : i + _LINES_STEP + 1]
        best = max(best, max(map(operator.sub, piece[1:], piece)))
    return best


def gather(view: memoryview) -> bytearray:
    """A copy of ``view`` made a MiB at a time: one copy of 20 MB holds the GIL ~15 ms (the
    GUI thread waits that long)."""
    out = bytearray()
    for i in range(0, view.nbytes, _COUNT_STEP):
        out += view[i : i + _COUNT_STEP]
    return out


def encode(text: str) -> bytearray:
    """``text`` as UTF-8 (lone surrogates kept, as a QString may have them), a MiB of
    characters at a time."""
    out = bytearray()
    for i in range(0, len(text), _COUNT_STEP):
        out += text[i : i + _COUNT_STEP].encode("utf-8", "surrogatepass")
    return out


def utf16_length(data: bytes | bytearray) -> int:
    """The length in UTF-16 code units of ``data.decode("utf-8", "replace")``, a MiB at
    a time (ASCII pieces need no decoding)."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    view = memoryview(data)
    units = 0
    for i in range(0, len(view), _COUNT_STEP):
        piece = view[i : i + _COUNT_STEP]
        if not decoder.getstate()[0] and piece.tobytes().isascii():
            units += len(piece)
            continue
        text = decoder.decode(piece)
        units += len(text) if text.isascii() else len(text.encode("utf-16-le")) // 2
    text = decoder.decode(b"", final=True)
    return units + len(text)


def _long_line_starts(data: bytes | bytearray, fold: int) -> array[int]:
    starts = array("q", [0])
    size = len(data)
    pos = 0
    while True:
        nl = data.find(b"\n", pos)
        end = size if nl < 0 else nl
        starts.extend(range(pos + fold, end, fold))
        if nl < 0 or nl + 1 >= size:
            return starts
        pos = nl + 1
        starts.append(pos)


def _continuation_bytes(data: bytes | bytearray) -> int:
    # Deleting everything but continuation bytes leaves a tiny copy per step; an ASCII
    # step (most of a JSON body) has none and is only scanned.
    view = memoryview(data)
    total = 0
    for i in range(0, len(view), _COUNT_STEP):
        piece = view[i : i + _COUNT_STEP].tobytes()
        if not piece.isascii():
            total += len(piece.translate(None, _NOT_CONTINUATION))
    return total


def pretty_bytes(value: Any) -> bytearray:
    """2-space indented JSON of ``value`` as :func:`app.ui.response.formatting.pretty_json` writes
    it.

    Written in about a hundred orjson calls into one buffer: a container of many members
    in groups of them, one of few member by member. One call for the whole value held the
    GIL ~30 ms for 25 MiB (the GUI waited) and grew its output buffer to ~1.5 times the
    text; the groups (~400 KiB each) keep both small."""
    out = bytearray()
    try:
        _write(value, b"", 0, out, False)
    except WRITE_ERRORS:  # integers beyond 64 bits, lone surrogates ("\\ud800")
        text = json.dumps(value, indent=2, ensure_ascii=False)
        # A lone surrogate has no UTF-8: written as the escape it was read from.
        out = bytearray(text.encode("utf-8", "backslashreplace"))
    return out


WRITE_ERRORS = (orjson.JSONEncodeError, TypeError)
"""What orjson raises on a value it cannot write (integers beyond 64 bits, lone surrogates)."""


def pretty_bytes_taking(box: list[Any]) -> bytearray:
    """:func:`pretty_bytes` of the value in ``box`` (its owner's one reference, taken out),
    taking the value apart as its text is written.

    Each group written is taken out of its container and freed, so the value shrinks as the
    text grows (a 25 MiB body's value is ~45 MiB, its text ~27 MiB: both whole at once made
    the peak memory). Only containers no one else holds are taken apart (their reference
    counts say so): a value or a part of it still held elsewhere (a part shown in the
    Artifacts tab) stays whole.

    Raises:
        WRITE_ERRORS: a value orjson cannot write; it may be taken apart by then, so write
            it again from where it came from (with :func:`pretty_bytes`).
    """
    value = box.pop()
    if sys.getrefcount(value) > 2:  # more than ``value`` and getrefcount's argument
        return pretty_bytes(value)
    out = bytearray()
    _write(value, b"", 0, out, True)
    return out


_TRIM_GROUPS = 16
"""Groups taken apart between two heap trims: the allocator keeps what the value freed in
the heaps it came from, while the growing text is mapped apart from them. A trim walks every
free block (tens of ms of CPU for a 25 MiB body's value): every 4 groups the peak was 3.2
bodies and the whole took ~0.3 s more CPU, every 16 groups 3.4 bodies."""


def _write(value: Any, pad: bytes, depth: int, out: bytearray, owned: bool) -> None:
    if not isinstance(value, dict | list) or not value or depth >= _MAX_DEPTH:
        text = orjson.dumps(value, option=orjson.OPT_INDENT_2)
        out += text.replace(b"\n", b"\n" + pad) if pad and b"\n" in text else text
        return
    is_dict = isinstance(value, dict)
    inner = pad + b"  "
    out += b"{\n" if is_dict else b"[\n"
    count = len(value)
    if count > _GROUPS:
        # Groups of members, each dumped as a container whose brackets are cut off.
        size = -(-count // _GROUPS)
        items = iter(value.items()) if isinstance(value, dict) else None
        for start in range(0, count, size):
            if owned:
                group = _take(value, size)
            elif items is not None:
                group = dict(itertools.islice(items, size))
            else:
                group = value[start : start + size]
            text = orjson.dumps(group, option=orjson.OPT_INDENT_2)[2:-2]  # "[\n" … "\n]"
            group = None  # taken members are freed here
            if owned and start // size % _TRIM_GROUPS == _TRIM_GROUPS - 1:
                heap.trim()  # their memory back to the system as the text grows
            out += pad
            out += text.replace(b"\n", b"\n" + pad) if pad else text
            out += b",\n" if start + size < count else b"\n"
    else:
        # By key or index, so that the only references to a member are its container's,
        # ``member`` and the callee's ``value`` (see _held_once).
        keys: list[Any] = list(value) if is_dict else list(range(count))
        for i, key in enumerate(keys):
            out += inner
            if is_dict:
                out += orjson.dumps(key) + b": "
            member = value[key]
            mine = owned and isinstance(member, dict | list) and _held_once(member)
            _write(member, inner, depth + 1, out, mine)
            member = None
            out += b",\n" if i < count - 1 else b"\n"
    out += pad + (b"}" if is_dict else b"]")


def _held_once(member: Any) -> bool:
    # The container's reference, the caller's ``member``, this parameter, getrefcount's.
    return sys.getrefcount(member) <= 4


def _take(container: Any, size: int) -> Any:
    """The first ``size`` members of ``container``, taken out of it."""
    if isinstance(container, dict):
        keys = list(itertools.islice(container, size))
        return {key: container.pop(key) for key in keys}
    group = container[:size]
    del container[:size]
    return group
