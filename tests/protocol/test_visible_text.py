"""The one sanitizer for wire text: control characters become visible escapes."""

from __future__ import annotations

import json

import pytest

from app.protocol.visible_text import escape_controls, json_escape_controls

HOSTILE = "\x1b]2;pwned\x07\x1b[2J\r\u202eevil\x9b31m\x00\x7f\u2028"


def _raw_controls(text: str, kept: str = "") -> list[str]:
    return [
        c
        for c in text
        if c not in kept
        and (ord(c) < 32 or 0x7F <= ord(c) <= 0x9F or c in "\u202e\u2028\u061c\u2066")
    ]


def test_one_line_escapes_every_control_character_visibly() -> None:
    shown = escape_controls(HOSTILE + "\n\t")
    assert _raw_controls(shown) == []
    assert shown == ("\\x1b]2;pwned\\x07\\x1b[2J\\r\\u202eevil\\x9b31m\\x00\\x7f\\u2028\\n\\t")


def test_multi_line_keeps_newlines_tabs_and_crlf_only() -> None:
    shown = escape_controls("a\tb\r\nc\nd\re" + HOSTILE, multiline=True)
    assert shown.startswith("a\tb\r\nc\nd\\re")
    assert _raw_controls(shown, kept="\t\r\n") == []
    assert "\r" not in shown.replace("\r\n", "")


@pytest.mark.parametrize("text", ["", "plain", "ç✓ 日本 — “quoted” 😀", "a\\x1b literal"])
def test_ordinary_text_is_the_same_object(text: str) -> None:
    assert escape_controls(text) is text
    assert escape_controls(text, multiline=True) is text


def test_json_form_is_the_same_json_value() -> None:
    encoded = json.dumps({"message": HOSTILE}, ensure_ascii=False)
    safe = json_escape_controls(encoded)
    assert _raw_controls(safe) == []
    assert json.loads(safe) == {"message": HOSTILE}
