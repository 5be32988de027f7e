"""Duplicate member names in JSON: found cheaply, then named by path and line.

RFC 8259 §4 leaves an object with two members of one name to the parser: Python and
orjson keep the last value, other parsers keep the first, some refuse the text. A card or
an answer that says ``"id"`` twice reads differently to different clients, and a
signature may cover either reading (RFC 7493 §2.3 forbids duplicates outright).

orjson, the exchange's parser, reports nothing of this. Finding them costs little:
:func:`may_have_duplicates` compares the members a parsed value has with the member names
its text can hold at most (a JSON string followed by a colon); only when those differ, a
second parse with a hook that sees every name confirms it, and :func:`locate` reads the
text once more to name each duplicate by its JSON path and lines.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from app.protocol.visible_text import escape_controls

__all__ = ["DuplicateMember", "duplicates_in", "locate", "may_have_duplicates"]

# Every member name is a string whose closing quote a colon follows, whitespace between:
# the count of these is at least the number of members the text holds. Most texts put the
# colon right after the quote, counted by bytes.count in C.
_SPACED = re.compile(rb'"[ \t\r\n]')
_NAME_END = re.compile(rb'"[ \t\r\n]*:')
# The tokens of a JSON text (valid JSON only): strings, punctuation, other scalars.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\],:]|[^\s{}\[\],:"]+')

MAX_REPORTED = 20
"""Duplicates named at most (the first ones in the text)."""


@dataclass(frozen=True, slots=True)
class DuplicateMember:
    """A member name written more than once in one object.

    Attributes:
        path: the member's JSON path from the root, in the card's style
            (``skills[0].name``; :meth:`json_path` gives ``$.skills[0].name``).
        lines: the 1-based lines of each occurrence, in order.
    """

    path: str
    lines: tuple[int, ...]

    def json_path(self) -> str:
        """The path in JSONPath form (``$.id``)."""
        return "$" + ("" if self.path.startswith("[") else ".") + self.path

    def where(self) -> str:
        """``line 3`` or ``lines 2 and 5``."""
        lines = sorted(set(self.lines))
        if len(lines) == 1:
            return f"line {lines[0]}"
        return "lines " + ", ".join(map(str, lines[:-1])) + f" and {lines[-1]}"

    def describe(self) -> str:
        """One sentence: how often, where, and why it matters."""
        times = "twice" if len(self.lines) == 2 else f"{len(self.lines)} times"
        return (
            f"member name written {times} in one object ({self.where()}); this client reads "
            "the last value, other parsers may read the first"
        )


def may_have_duplicates(raw: bytes, value: Any) -> bool:
    """Whether the JSON text ``raw`` (parsed to ``value``) may name a member twice in one
    object: the text can hold more members than ``value`` has. False means none; True
    means a parse that sees every name must decide."""
    # Runs for every unary answer: C calls first, the walk over the value's containers last.
    ends = len(_NAME_END.findall(raw)) if _SPACED.search(raw) else raw.count(b'":')
    return ends > _member_count(value)


def _confirmed(text: str | bytes) -> bool:
    """Whether the JSON ``text`` names a member twice in one object (a parse with a hook
    that sees every name, ended at the first duplicate)."""
    try:
        json.loads(text, object_pairs_hook=_refuse_duplicates)
    except _Duplicate:
        return True
    except (ValueError, RecursionError):  # not JSON after all: nothing to say here
        return False
    return False


def duplicates_in(raw: bytes, value: Any) -> tuple[DuplicateMember, ...]:
    """Every duplicate member of the JSON text ``raw`` (parsed to ``value``), by path and
    lines; ``()`` for the usual text, found so at the cost of a count."""
    if not may_have_duplicates(raw, value) or not _confirmed(raw):
        return ()
    return locate(raw.decode("utf-8", "replace"))


def _member_count(value: Any) -> int:
    count = 0
    stack = [value]
    pop, push = stack.pop, stack.append
    while stack:
        item = pop()
        kind = type(item)
        if kind is dict:
            count += len(item)
            children = item.values()
        elif kind is list:
            children = item
        else:
            continue
        for child in children:
            kind = type(child)
            if kind is dict or kind is list:
                push(child)
    return count


class _Duplicate(Exception):
    """Ends the confirming parse at the first duplicate."""


def _refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    members = dict(pairs)
    if len(members) != len(pairs):
        raise _Duplicate
    return members


def locate(text: str) -> tuple[DuplicateMember, ...]:
    """The duplicate members of a valid JSON ``text`` by path and lines, in text order
    (at most :data:`MAX_REPORTED`)."""
    # One frame per open container: its path, and for objects the names seen (name →
    # offsets) and the name being read; for arrays the index of the element being read.
    stack: list[_Frame] = []
    found: dict[tuple[str | int, ...], list[int]] = {}
    for match in _TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        top = stack[-1] if stack else None
        if first in "{[":
            path = () if top is None else (*top.path, top.key if top.is_object else top.index)
            stack.append(_Frame(path, first == "{"))
        elif first in "}]":
            stack.pop()
        elif top is None:
            continue
        elif first == ",":
            top.index += 1
            top.expect_name = top.is_object
        elif first == ":":
            top.expect_name = False
        elif first == '"' and top.is_object and top.expect_name:
            name = json.loads(token)
            top.key = name
            offsets = top.names.setdefault(name, [])
            offsets.append(match.start())
            if len(offsets) == 2:
                found[(*top.path, name)] = offsets
    return _described(text, found)


class _Frame:
    __slots__ = ("expect_name", "index", "is_object", "key", "names", "path")

    def __init__(self, path: tuple[str | int, ...], is_object: bool) -> None:
        self.path = path
        self.is_object = is_object
        self.expect_name = is_object
        self.index = 0
        self.key: str | int = ""
        self.names: dict[str, list[int]] = {}


def _described(
    text: str, found: dict[tuple[str | int, ...], list[int]]
) -> tuple[DuplicateMember, ...]:
    entries = sorted(found.items(), key=lambda item: item[1][0])[:MAX_REPORTED]
    return tuple(
        DuplicateMember(_path_text(path), tuple(text.count("\n", 0, at) + 1 for at in offsets))
        for path, offsets in entries
    )


def _path_text(path: tuple[str | int, ...]) -> str:
    parts: list[str] = []
    for step in path:
        if isinstance(step, int):
            parts.append(f"[{step}]")
        elif step.isidentifier():
            parts.append(f".{step}" if parts else step)
        else:  # a name an agent chose: quoted, its control characters shown
            parts.append(f"[{escape_controls(json.dumps(step, ensure_ascii=False))}]")
    return "".join(parts)
