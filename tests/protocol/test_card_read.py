"""One reading of a card fetch or file for the card panel and the CLI (Qt-free)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.protocol.card.card_json import parse_card_json
from app.protocol.card.card_shape import CardShape, Severity
from app.protocol.card.fetch import CardCache, CardFetchResult
from app.protocol.card.read import ReadOutcome, examine, read_bytes, read_card

URL = "http://h/.well-known/agent-card.json"
CARD = {"name": "Read me", "supportedInterfaces": []}
RAW = json.dumps(CARD).encode()


def _answer(status: int, raw: bytes = b"", **fields: Any) -> CardFetchResult:
    value, failure, duplicates = parse_card_json(raw) if 200 <= status < 300 else (None, None, ())
    return CardFetchResult(
        url="http://h/",
        card_url=URL,
        status=status,
        raw=raw,
        json=value,
        parse_error=failure,
        duplicate_keys=duplicates,
        **fields,
    )


def test_each_fetch_result_gets_one_outcome() -> None:
    assert read_card(_answer(200, RAW)).outcome is ReadOutcome.CARD
    assert read_card(_answer(203, RAW)).outcome is ReadOutcome.CARD
    assert read_card(_answer(302, redirect_location="http://x/")).outcome is ReadOutcome.REDIRECT
    assert read_card(_answer(307)).outcome is ReadOutcome.REDIRECT  # no Location: still one
    assert read_card(_answer(304, not_modified=True)).outcome is ReadOutcome.UNCHANGED
    assert read_card(_answer(404, b"gone")).outcome is ReadOutcome.NO_CARD
    failed = read_card(CardFetchResult(url="x", card_url="x", error="timed out after 1 s"))
    assert failed.outcome is ReadOutcome.FAILED and failed.error == "timed out after 1 s"
    big = read_card(_answer(200, b"{", too_large=True, error="card too large"))
    assert big.outcome is ReadOutcome.FAILED and big.too_large and big.card is None


def test_a_card_answer_is_the_document_as_fetched() -> None:
    reading = read_card(_answer(200, RAW))
    assert reading.has_document and reading.card == CARD and reading.source == URL
    findings = examine(reading)
    assert findings.view is not None and findings.view.name == "Read me"
    assert findings.view.shape is CardShape.V1_0
    assert examine(read_card(_answer(404, b"{}"))).view is None


def test_a_304_takes_the_card_the_cache_remembered() -> None:
    cache = CardCache()
    read_card(_answer(200, RAW, etag='"v1"'), cache=cache)
    assert cache.conditional_kwargs(URL) == {"if_none_match": '"v1"'}
    reading = read_card(_answer(304, not_modified=True), cache=cache)
    assert reading.outcome is ReadOutcome.UNCHANGED and reading.has_document
    assert reading.raw == RAW and reading.card == CARD
    empty = read_card(_answer(304, not_modified=True), cache=CardCache())
    assert empty.outcome is ReadOutcome.UNCHANGED and not empty.has_document


def test_files_are_read_with_a_limit_and_parse_problems_become_findings(tmp_path: Path) -> None:
    good = tmp_path / "card.json"
    good.write_bytes(RAW)
    assert read_card(good).card == CARD
    missing = read_card(tmp_path / "missing.json")
    assert missing.outcome is ReadOutcome.FAILED and missing.error
    assert read_card(good, max_bytes=len(RAW) - 1).too_large
    assert read_card(good, max_bytes=None).card == CARD

    broken = read_bytes(b'{\n  "a": 1,\n  oops\n}', "paste")
    assert broken.card is None and broken.parse_error is not None
    (problem,) = examine(broken).problems
    assert problem.message.startswith("not JSON (line 3, column 3)")
    duplicated = examine(read_bytes(b'{"name": "a", "name": "b"}', "paste"))
    assert [(p.path, p.severity) for p in duplicated.problems if p.path == "name"] == [
        ("name", Severity.ERROR)  # another parser reads another card
    ]
