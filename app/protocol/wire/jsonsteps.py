"""Parsing a big JSON text in steps of bounded size, for a worker thread beside a GUI.

orjson holds the GIL for a whole call: a 25 MiB body parsed in one call stops every other
thread (the GUI's) for ~80 ms, a 60 MiB one for ~200 ms. Here the text is parsed in calls
of at most :data:`STEP_BYTES` each (~3 ms), with Python between them so the interpreter can
switch threads. The value is the very one ``orjson.loads`` gives.

How: a value that ends within one step is parsed whole (orjson says where a value ends:
"unexpected content after document" at the next character). A bigger container is parsed
in groups of members: after the first member, the bytes between it and the next one (the
separator and the next member's first bytes, e.g. ``, {"artifactId"``) are searched for a
step ahead and the members up to there are parsed as one container. A wrong guess (that
spot was inside a string or a nested value) cannot parse: appending the closing bracket
there leaves a string or a container open, so orjson refuses it and the members are taken
one at a time instead. Whatever this does not handle (a single string of many MiB, a text
that is not JSON) raises :class:`NotStepwise`; the caller parses it whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import orjson

STEP_BYTES = 1 << 20
"""Most bytes orjson reads in one call (about 3 ms)."""

_AFTER_DOCUMENT = "unexpected content after document"
_WHITESPACE = frozenset(b" \t\n\r")
_SPACES_RUN = 1 << 16
_SPACES = re.compile(rb"[ \t\n\r]{0,%d}" % _SPACES_RUN)
_OPEN_OBJECT, _CLOSE_OBJECT, _OPEN_ARRAY, _CLOSE_ARRAY = 0x7B, 0x7D, 0x5B, 0x5D
_COMMA, _COLON, _QUOTE = 0x2C, 0x3A, 0x22
_CLOSERS = frozenset(b']}"')
_TRIES = 3  # separator spots tried per group before one member is taken alone
_MISSES = 4  # groups in a row that did not parse before the separator is learnt anew
_RELEARN = 3  # separators learnt per container before its members are taken one by one
_NESTING = 64
"""Containers open at once beyond a step each before the text is given up on: each costs
a few Python frames, and a hostile body nested a thousand deep would exhaust the
interpreter's recursion limit (orjson, parsing it whole, refuses it with a JSON error)."""
_SINGLES = 50_000
"""Members parsed one at a time (a few microseconds of Python each) before the text is
given up on: parsing it whole is quicker then."""


_NOT_CONTINUATION = bytes(b for b in range(256) if not 0x80 <= b < 0xC0)


class NotStepwise(ValueError):
    """The text cannot be parsed in steps (not JSON, or one scalar bigger than a step)."""


def loads(data: bytes, step: int = STEP_BYTES) -> Any:
    """``orjson.loads(data)``, no orjson call reading more than about ``step`` bytes.

    Raises:
        NotStepwise: parse it whole instead (it may be valid JSON all the same).
    """
    parser = _Parser(data, step)
    start = parser.skip(0)
    value, end = parser.value(start)
    if parser.skip(end) != len(data):
        raise NotStepwise("content after the document")
    return value


def slices(data: bytes, step: int = STEP_BYTES, overlap: int = 0) -> Iterator[bytes]:
    """``data`` in pieces of ``step`` bytes, each extended by ``overlap`` bytes of the next
    (so a pattern of ``overlap + 1`` bytes is wholly inside one of them)."""
    for start in range(0, max(len(data), 1), step):
        yield data[start : start + step + overlap]


class _Parser:
    def __init__(self, data: bytes, step: int) -> None:
        self.data = data
        self.view = memoryview(data)
        self.step = step
        self.size = len(data)
        self.wasted = 0  # bytes read by group parses that failed
        self.singles = 0
        self.nesting = 0  # containers being parsed member by member or group by group

    def skip(self, pos: int) -> int:
        """The first position from ``pos`` that is not whitespace."""
        if pos >= self.size or self.data[pos] not in _WHITESPACE:
            return pos  # the usual case: no whitespace, or a byte of it
        if pos + 1 >= self.size or self.data[pos + 1] not in _WHITESPACE:
            return pos + 1
        # A longer run in C, a bounded run per call: a loop byte by byte took ~90 ms a MiB.
        while True:
            run = _SPACES.match(self.data, pos)
            assert run is not None  # it matches an empty run too
            end = run.end()
            if end - pos < _SPACES_RUN:
                return end
            pos = end

    def small(self, pos: int) -> tuple[Any, int] | None:
        """The value at ``pos`` and where it ends, if it ends within one step."""
        end = min(self.size, pos + self.step)
        try:
            value = orjson.loads(self.view[pos:end])
        except orjson.JSONDecodeError as exc:
            if exc.msg != _AFTER_DOCUMENT:
                return None  # longer than a step (or not JSON: found out further on)
            end = pos + _byte_offset(self.view[pos:end], exc.pos)
            return orjson.loads(self.view[pos:end]), end
        # Parsed to the end of the slice: a whole value only if that is the end of the text
        # (a number cut by the slice parses too).
        return (value, end) if end == self.size else None

    def value(self, pos: int) -> tuple[Any, int]:
        if pos >= self.size:
            raise NotStepwise("unexpected end")
        found = self.small(pos)
        if found is not None:
            return found
        first = self.data[pos]
        if first in (_OPEN_ARRAY, _OPEN_OBJECT):
            if self.nesting >= _NESTING:
                raise NotStepwise("nested too deeply to parse in steps")
            self.nesting += 1
            try:
                return self.container(pos, first == _OPEN_OBJECT)
            finally:
                self.nesting -= 1
        raise NotStepwise("a scalar longer than a step, or not JSON")

    def container(self, pos: int, is_object: bool) -> tuple[Any, int]:
        """The array or object opening at ``pos``, member by member or group by group."""
        data = self.data
        close = _CLOSE_OBJECT if is_object else _CLOSE_ARRAY
        brackets = (b"{", b"}") if is_object else (b"[", b"]")
        members: Any = {} if is_object else []
        pos = self.skip(pos + 1)
        if pos < self.size and data[pos] == close:
            return members, pos + 1
        separator, back = b"", 0
        misses = learnt = 0
        while True:
            end = self.group(pos, separator, back, brackets, members) if separator else None
            if end is None:
                if separator:
                    misses += 1
                    if misses >= _MISSES:
                        separator, misses = b"", 0
                end = self.member(pos, is_object, members)
                if not separator and learnt < _RELEARN:
                    separator, back = self.separator_at(end)
                    learnt += 1
            else:
                misses = 0
            after = self.skip(end)
            if after >= self.size:
                raise NotStepwise("unexpected end")
            if data[after] == close:
                return members, after + 1
            if data[after] != _COMMA:
                raise NotStepwise("expected a comma")
            pos = self.skip(after + 1)

    def group(
        self, pos: int, separator: bytes, back: int, brackets: tuple[bytes, bytes], members: Any
    ) -> int | None:
        """Parse the members from ``pos`` up to a spot where ``separator`` is found (within a
        step; ``back`` of its bytes end the last member) into ``members``; returns where
        they end, None when no spot parsed."""
        limit = pos + self.step
        for _ in range(_TRIES):
            found = self.data.rfind(separator, pos + 1, limit)
            spot = found + back
            if found < 0 or spot <= pos:
                break
            try:
                part = orjson.loads(brackets[0] + self.view[pos:spot] + brackets[1])
            except orjson.JSONDecodeError:
                self.wasted += spot - pos
                if self.wasted > max(self.size, 8 * self.step):
                    raise NotStepwise("members could not be grouped") from None
                limit = found + len(separator) - 1
                continue
            if isinstance(members, dict):
                members.update(part)
            else:
                members.extend(part)
            return spot
        return None

    def member(self, pos: int, is_object: bool, members: Any) -> int:
        """Parse one member at ``pos`` into ``members``; returns where it ends."""
        self.singles += 1
        if self.singles > _SINGLES:
            raise NotStepwise("too many members one by one")
        if not is_object:
            value, end = self.value(pos)
            members.append(value)
            return end
        key = self.small(pos)
        if key is None or not isinstance(key[0], str):
            raise NotStepwise("expected a key")
        colon = self.skip(key[1])
        if colon >= self.size or self.data[colon] != _COLON:
            raise NotStepwise("expected a colon")
        value, end = self.value(self.skip(colon + 1))
        members[key[0]] = value
        return end

    def separator_at(self, end: int) -> tuple[bytes, int]:
        """The bytes around a member's end that mark the end of a member at this level, and
        how many of them belong to the member: its last closing brackets or quote, the
        separator, and the next member's first bytes (for an object, its first key):
        ``]}, {"artifactId"``."""
        data = self.data
        after = self.skip(end)
        if after >= self.size or data[after] != _COMMA:
            return b"", 0
        start = self.skip(after + 1)
        stop = start + 1
        if start + 1 < self.size and data[start] == _OPEN_OBJECT:
            key = self.skip(start + 1)
            if key < self.size and data[key] == _QUOTE:
                quote = data.find(b'"', key + 1, key + 40)
                stop = quote + 1 if quote > 0 else key + 1
        back = 0
        while back < 3 and end - back - 1 >= 0 and data[end - back - 1] in _CLOSERS:
            back += 1
        return data[end - back : stop], back


def _byte_offset(text: memoryview, chars: int) -> int:
    """Where character ``chars`` of UTF-8 ``text`` starts (orjson counts positions in
    characters): its index plus the continuation bytes before it."""
    offset = chars
    while True:
        extra = len(bytes(text[:offset]).translate(None, _NOT_CONTINUATION))
        if chars + extra == offset:
            return offset
        offset = chars + extra
