"""Parsing JSON from the wire: orjson's speed with exactly :func:`json.loads`' results.

orjson parses in about a third of the time and, being C code that holds the GIL, a 25 MiB
body parsed in a worker thread stalls the GUI for that long (~100 ms with ``json``, ~35 ms
with orjson; bench/large_body.py). The standard library still decides whenever orjson
would not give the very same value: it reads integers of more than 64 bits as floats and
refuses NaN, lone surrogates and overflowing floats.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from app.protocol.events import NOT_JSON

# Integers of 19+ digits go to json. (Found by mapping every digit to "9" and anything else
# to a space: a regular expression takes twice as long as orjson's parse.)
_DIGITS_ONLY = bytes.maketrans(
    bytes(range(256)), bytes(57 if 48 <= b <= 57 else 32 for b in range(256))
)
_LONG_DIGITS = b"9" * 19


def parse_json(data: bytes | str) -> tuple[Any, str]:
    """``(value, "")``, or ``(NOT_JSON, reason)`` with the reason :func:`json.loads` gives
    ("line 1, column 2: Expecting value", "not UTF-8 text: …", "empty")."""
    encoded = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if not encoded.strip():
        return NOT_JSON, "empty"
    if _LONG_DIGITS not in encoded.translate(_DIGITS_ONLY):
        try:
            return orjson.loads(encoded), ""
        except orjson.JSONDecodeError:
            pass  # the standard library decides (and words the error)
    try:
        return json.loads(data), ""
    except UnicodeDecodeError as exc:
        return NOT_JSON, f"not UTF-8 text: {exc.reason} at byte {exc.start}"
    except json.JSONDecodeError as exc:
        return NOT_JSON, f"line {exc.lineno}, column {exc.colno}: {exc.msg}"
    except RecursionError:
        return NOT_JSON, "nested too deeply to parse"


def parse_event_data(data: str) -> tuple[Any, str]:
    """:func:`parse_json` for the ``data`` of one SSE frame (blank data: ``"empty data"``)."""
    if not data.strip():
        return NOT_JSON, "empty data"
    return parse_json(data)
