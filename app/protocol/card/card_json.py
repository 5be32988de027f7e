"""Card bytes to JSON, strictly and without raising; duplicate object keys are reported.

Cards are parsed with the standard library (not the exchange's orjson path) because the
position of a syntax error (line, column) and every duplicated key must be known: the parser
keeps the last value of a duplicated key, other parsers may keep the first, and a signature
may cover either.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from app.protocol.wire import jsonparse
from app.protocol.wire.json_duplicates import DuplicateMember, locate

__all__ = ["ParseFailure", "parse_card_json"]


@dataclass(frozen=True, slots=True)
class ParseFailure:
    """Why a body is not a JSON document.

    Attributes:
        message: human-readable reason (from ``json.JSONDecodeError`` or the UTF-8 decoder).
        line: 1-based line of the error, or 0 when unknown.
        column: 1-based column of the error, or 0 when unknown.
        offset: 0-based character offset of the error, or -1 when unknown.
    """

    message: str
    line: int = 0
    column: int = 0
    offset: int = -1


def parse_card_json(raw: bytes) -> tuple[Any, ParseFailure | None, tuple[DuplicateMember, ...]]:
    """Parse a card body as strict UTF-8 JSON, never raising.

    Args:
        raw: the body bytes.

    Returns:
        ``(value, failure, duplicates)``: ``value`` is ``None`` when ``failure`` is set;
        ``duplicates`` names every member name written twice in one object (path, lines).
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, ParseFailure(f"body is not UTF-8: {exc.reason}", offset=exc.start), ()
    ambiguous = False

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal ambiguous
        obj = dict(pairs)  # the last value of a duplicated name, as json.loads keeps it
        if len(obj) != len(pairs):
            ambiguous = True
        return obj

    try:
        value = jsonparse.loads(text, object_pairs_hook=pairs_hook)
    except json.JSONDecodeError as exc:
        return None, ParseFailure(exc.msg, exc.lineno, exc.colno, exc.pos), ()
    except RecursionError:
        return None, ParseFailure("JSON nesting too deep to parse"), ()
    except ValueError as exc:  # outside the JSON limits (jsonparse.JsonLimitError)
        return None, ParseFailure(str(exc)), ()
    return value, None, locate(text) if ambiguous else ()
