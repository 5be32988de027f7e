"""Parsing JSON from the wire: orjson's speed with exactly :func:`json.loads`' results, and
the limits every JSON value from a peer or a file must keep.

orjson parses in about a third of the time and, being C code that holds the GIL, a 25 MiB
body parsed in a worker thread stalls the GUI for that long (~100 ms with ``json``, ~35 ms
with orjson; bench/large_body.py). The standard library still decides whenever orjson
would not give the very same value: it reads integers of more than 64 bits as floats and
refuses NaN, lone surrogates and overflowing floats.

The limits (:data:`MAX_DEPTH`, :data:`MAX_INTEGER_DIGITS`, finite numbers only) are defined
here once: a value that keeps them can be printed, pretty-printed and written back as strict
JSON (RFC 8259 has no NaN or Infinity) without RecursionError or ValueError. A value that
breaks one is refused with the JSON path of the offending member.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import orjson

from app.protocol.wire import jsonsteps
from app.protocol.wire.notjson import NOT_JSON

MAX_DEPTH = 200
"""Deepest nesting of arrays and objects accepted (the top-level container is depth 1)."""

MAX_INTEGER_DIGITS = 1000
"""Most digits in one integer (Python refuses to read more than 4300 by default)."""

# Integers of 19+ digits go to json. (Found by mapping every digit to "9" and anything else
# to a space: a regular expression takes twice as long as orjson's parse.)
_DIGITS_ONLY = bytes.maketrans(
    bytes(range(256)), bytes(57 if 48 <= b <= 57 else 32 for b in range(256))
)
_LONG_DIGITS = b"9" * 19
# Brackets only, both kinds spelled "[" and "]", for the cheap depth bound.
_BRACKETS = bytes.maketrans(b"{}", b"[]")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_DEEP_RUN = b"[" * (MAX_DEPTH + 1)


class JsonLimitError(ValueError):
    """A JSON value outside the limits; ``path`` is the JSONPath of the member (``$.a[0]``)."""

    def __init__(self, path: str, problem: str) -> None:
        shown = path if len(path) <= 80 else path[:80] + "…"
        super().__init__(f"{problem} at {shown}")
        self.path = path
        self.problem = problem


class _Refused:
    """Stands in for a number the limits refuse, until its path is known."""

    __slots__ = ("problem",)

    def __init__(self, problem: str) -> None:
        self.problem = problem


def loads(data: bytes | str, *, object_pairs_hook: Callable[[Any], Any] | None = None) -> Any:
    """:func:`json.loads` within the limits (no NaN/Infinity, finite floats, bounded
    integers and depth).

    Raises:
        json.JSONDecodeError: not JSON.
        UnicodeDecodeError: bytes that are not UTF-8.
        JsonLimitError: JSON outside the limits, with the path.
    """
    refused: list[_Refused] = []

    def refuse(problem: str) -> _Refused:
        marker = _Refused(problem)
        refused.append(marker)
        return marker

    def parse_int(text: str) -> Any:
        digits = len(text.lstrip("-"))
        if digits > MAX_INTEGER_DIGITS:
            return refuse(f"an integer of {digits} digits (more than {MAX_INTEGER_DIGITS})")
        return int(text)

    def parse_float(text: str) -> Any:
        value = float(text)
        if math.isinf(value):
            shown = text if len(text) <= 24 else text[:24] + "…"
            return refuse(f"the number {shown} is beyond the range of a 64-bit float")
        return value

    def parse_constant(name: str) -> Any:
        return refuse(f"{name} is not a JSON value")

    try:
        value = json.loads(
            data,
            parse_int=parse_int,
            parse_float=parse_float,
            parse_constant=parse_constant,
            object_pairs_hook=object_pairs_hook,
        )
    except RecursionError:
        raise JsonLimitError("$", f"nested too deeply (more than {MAX_DEPTH} levels)") from None
    if refused:
        path = _path_of(value, lambda item: isinstance(item, _Refused))
        raise JsonLimitError(path or "$", refused[0].problem)
    check_depth(value)
    return value


def check_depth(value: Any, encoded: bytes | None = None) -> None:
    """Raise :class:`JsonLimitError` when ``value`` nests deeper than :data:`MAX_DEPTH`.

    With ``encoded`` (the text it was parsed from), a bound on the brackets decides first:
    removing innermost ``[]`` pairs once per level empties the brackets of a value of depth
    ``d`` in ``d`` passes of C code, so a real walk of the value is needed only when
    brackets inside strings or real depth keep some.
    """
    if encoded is not None:
        # Piece by piece: a pass over a big body in one call would hold the GIL for long.
        small = len(encoded) <= jsonsteps.STEP_BYTES  # a stream item: one call, no pieces
        if small and encoded.count(b"[") + encoded.count(b"{") <= MAX_DEPTH:
            return
        pieces = jsonsteps.slices
        if sum(p.count(b"[") + p.count(b"{") for p in pieces(encoded)) <= MAX_DEPTH:
            return  # too few brackets to nest that deep (a stream item, most bodies)
        brackets = b"".join(p.translate(_BRACKETS, _NOT_BRACKETS) for p in pieces(encoded))
        if _DEEP_RUN not in brackets:
            for _ in range(MAX_DEPTH):
                if not brackets:
                    return
                shorter = brackets.replace(b"[]", b"")
                if len(shorter) == len(brackets):
                    break
                brackets = shorter
    path = _too_deep(value)
    if path is not None:
        raise JsonLimitError(path, f"nested too deeply (more than {MAX_DEPTH} levels)")


def _too_deep(value: Any) -> str | None:
    stack: list[tuple[Any, int, str]] = [(value, 1, "$")]
    while stack:
        item, depth, path = stack.pop()
        if isinstance(item, dict):
            children: Any = ((f"{path}{_member(key)}", child) for key, child in item.items())
        elif isinstance(item, list):
            children = ((f"{path}[{index}]", child) for index, child in enumerate(item))
        else:
            continue
        if depth > MAX_DEPTH:
            return path
        stack.extend(
            (child, depth + 1, child_path)
            for child_path, child in children
            if isinstance(child, dict | list)
        )
    return None


def _path_of(value: Any, wanted: Callable[[Any], bool]) -> str | None:
    stack: list[tuple[Any, str]] = [(value, "$")]
    while stack:
        item, path = stack.pop()
        if wanted(item):
            return path
        if isinstance(item, dict):
            stack.extend((child, f"{path}{_member(key)}") for key, child in item.items())
        elif isinstance(item, list):
            stack.extend((child, f"{path}[{index}]") for index, child in enumerate(item))
    return None


def _member(key: Any) -> str:
    text = str(key)
    return f".{text}" if text.isidentifier() else f"[{json.dumps(text, ensure_ascii=False)}]"


def parse_json(data: bytes | str) -> tuple[Any, str]:
    """``(value, "")``, or ``(NOT_JSON, reason)`` with the reason :func:`json.loads` gives
    ("line 1, column 2: Expecting value", "not UTF-8 text: …", "empty") or the limit broken
    ("NaN is not a JSON value at $.result.x")."""
    encoded = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if not encoded or encoded.isspace():
        return NOT_JSON, "empty"
    try:
        if not _long_digits(encoded):
            try:
                value = _orjson_loads(encoded)
            except orjson.JSONDecodeError:
                pass  # the standard library decides (and words the error)
            else:
                check_depth(value, encoded)
                return value, ""
        return loads(data), ""
    except UnicodeDecodeError as exc:
        return NOT_JSON, f"not UTF-8 text: {exc.reason} at byte {exc.start}"
    except json.JSONDecodeError as exc:
        return NOT_JSON, f"line {exc.lineno}, column {exc.colno}: {exc.msg}"
    except JsonLimitError as exc:
        return NOT_JSON, str(exc)


def _long_digits(encoded: bytes) -> bool:
    """Whether ``encoded`` has a run of 19 digits (looked for piece by piece)."""
    if len(encoded) <= jsonsteps.STEP_BYTES:  # a stream item: one call, no pieces
        return _LONG_DIGITS in encoded.translate(_DIGITS_ONLY)
    overlap = len(_LONG_DIGITS) - 1
    return any(
        _LONG_DIGITS in piece.translate(_DIGITS_ONLY)
        for piece in jsonsteps.slices(encoded, overlap=overlap)
    )


def _orjson_loads(encoded: bytes) -> Any:
    # A big text in bounded steps (the GUI thread gets the GIL between them); what the
    # steps do not handle, orjson reads whole.
    if len(encoded) > 2 * jsonsteps.STEP_BYTES:
        try:
            return jsonsteps.loads(encoded)
        except jsonsteps.NotStepwise:
            pass
    return orjson.loads(encoded)


def parse_event_data(data: str) -> tuple[Any, str]:
    """:func:`parse_json` for the ``data`` of one SSE frame (blank data: ``"empty data"``)."""
    if not data or data.isspace():
        return NOT_JSON, "empty data"
    return parse_json(data)
