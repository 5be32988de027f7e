"""What a card source gave, interpreted once for the card panel and ``a2a-workbench verify``.

A source is a public card fetch (:class:`~app.protocol.card.fetch.CardFetchResult`) or a card
file. :func:`read_card` says which of five outcomes it is, in this order:

- ``FAILED``: nothing usable arrived (transport or size failure, unreadable or too large file);
- ``UNCHANGED``: a 304 answer to a conditional refetch; the copy the cache remembered is the
  card (none when the cache has no copy);
- ``REDIRECT``: any other 3xx; never followed, its ``Location`` is only reported;
- ``CARD``: a 2xx body, or a file: the card document (``parse_error`` when it is not JSON);
- ``NO_CARD``: any other status (a 404 on the well-known path offers the legacy path).

:func:`examine` then turns a document into what the panel shows: the normalized view and
every problem (not JSON, field-level validation, duplicate keys). Presenters only word it.
"""

from __future__ import annotations

import enum
import logging
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from app.protocol.card.card_json import ParseFailure, parse_card_json
from app.protocol.card.card_shape import CardProblem, Severity, detect_shape
from app.protocol.card.card_validate import validate_card
from app.protocol.card.fetch import DEFAULT_MAX_BYTES, CardCache, CardFetchResult
from app.protocol.card.view import CardView, normalize_card
from app.protocol.visible_text import escape_controls
from app.protocol.wire.html_page import is_html, media_type, page_words
from app.protocol.wire.json_duplicates import DuplicateMember

__all__ = [
    "CardFindings",
    "CardRead",
    "ReadOutcome",
    "examine",
    "not_a_card",
    "read_bytes",
    "read_card",
]

log = logging.getLogger(__name__)


class ReadOutcome(enum.Enum):
    """What a card source gave (module docstring)."""

    FAILED = "failed"
    UNCHANGED = "unchanged"
    REDIRECT = "redirect"
    CARD = "card"
    NO_CARD = "no card"


@dataclass(frozen=True, slots=True)
class CardRead:
    """One card source, interpreted.

    Attributes:
        outcome: what the source gave.
        source: the card URL requested, or the file path as given.
        raw: the card document's bytes (``UNCHANGED``: the cached copy, ``b""`` when none);
            for the other outcomes the body bytes that arrived, to show as they are.
        card: the parsed document (any JSON value); ``None`` when there is none or it is
            not JSON.
        parse_error: why the document is not JSON, else ``None``.
        duplicate_keys: member names written more than once in one object, by path and
            lines: another parser may read another card, and a signature may cover either.
        error: ``FAILED``: why, in words (the file read's reason, or the fetch's error).
        too_large: the body or file exceeded the byte limit; nothing was parsed.
        fetch: the fetch result this was read from; ``None`` for files and bytes.
    """

    outcome: ReadOutcome
    source: str
    raw: bytes = b""
    card: Any = None
    parse_error: ParseFailure | None = None
    duplicate_keys: tuple[DuplicateMember, ...] = ()
    error: str = ""
    too_large: bool = False
    fetch: CardFetchResult | None = None

    @property
    def has_document(self) -> bool:
        """A card document arrived (it may still not be JSON)."""
        if self.outcome is ReadOutcome.UNCHANGED:
            return bool(self.raw)
        return self.outcome is ReadOutcome.CARD


@dataclass(frozen=True, slots=True)
class CardFindings:
    """What a card document reads as: its view (``None`` when not JSON) and its problems."""

    view: CardView | None
    problems: tuple[CardProblem, ...]


def read_bytes(raw: bytes, source: str) -> CardRead:
    """``raw`` as a card document (a file's content, a cached copy); never raises."""
    value, failure, duplicates = parse_card_json(raw)
    return CardRead(ReadOutcome.CARD, source, raw, value, failure, duplicates)


def read_card(
    source: CardFetchResult | Path,
    *,
    cache: CardCache | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
) -> CardRead:
    """Interpret a card fetch, or read a card file; never raises.

    Args:
        source: what ``fetch_card`` returned, or the path of a card file.
        cache: for fetches: learns the answer's validators, and a 304 takes the card from it.
        max_bytes: for files: the most bytes read (``None``: no limit); a fetch applied its own.

    Returns:
        The outcome, the document bytes and, when it parsed, the document.
    """
    if isinstance(source, Path):
        return _read_file(source, max_bytes)
    return _read_fetched(source, cache)


def _read_file(path: Path, max_bytes: int | None) -> CardRead:
    try:
        with path.open("rb") as handle:
            data = handle.read() if max_bytes is None else handle.read(max_bytes + 1)
    except OSError as exc:
        return CardRead(ReadOutcome.FAILED, str(path), error=exc.strerror or str(exc))
    if max_bytes is not None and len(data) > max_bytes:
        return CardRead(
            ReadOutcome.FAILED,
            str(path),
            error=f"larger than {max_bytes} bytes; nothing parsed",
            too_large=True,
        )
    return read_bytes(data, str(path))


def _read_fetched(result: CardFetchResult, cache: CardCache | None) -> CardRead:
    if cache is not None:
        cache.update(result)
    status = result.status or 0
    if result.error is not None:
        outcome = ReadOutcome.FAILED
    elif result.not_modified:
        entry = cache.get(result.card_url) if cache is not None else None
        if entry is None or not entry.raw:
            return CardRead(ReadOutcome.UNCHANGED, result.card_url, fetch=result)
        cached = read_bytes(entry.raw, result.card_url)
        return replace(cached, outcome=ReadOutcome.UNCHANGED, fetch=result)
    elif result.redirect_location is not None or 300 <= status < 400:
        outcome = ReadOutcome.REDIRECT
    elif 200 <= status < 300:
        return CardRead(
            ReadOutcome.CARD,
            result.card_url,
            result.raw,
            result.json,
            result.parse_error,
            result.duplicate_keys,
            fetch=result,
        )
    else:
        outcome = ReadOutcome.NO_CARD
    return CardRead(
        outcome,
        result.card_url,
        result.raw,
        error=result.error or "",
        too_large=result.too_large,
        fetch=result,
    )


def not_a_card(reading: CardRead) -> str:
    """Why ``reading``'s document is no card, in words: an HTML page said as such (a web
    front end answered the card URL), else the JSON parser's reason with line and column."""
    fetched = reading.fetch
    content_type = fetched.content_type if fetched is not None else ""
    if is_html(content_type, reading.raw):
        page = page_words(reading.raw)
        if fetched is None or fetched.status is None:
            return f"the file is {page}, not an Agent Card"
        shown_type = escape_controls(media_type(content_type)) or "no Content-Type"
        return f"returned HTML (status {fetched.status}), not an Agent Card: {page}, {shown_type}"
    failure = reading.parse_error
    if failure is None:
        return "not a JSON document"
    where = f" (line {failure.line}, column {failure.column})" if failure.line else ""
    return f"not JSON{where}: {failure.message}"


def examine(reading: CardRead) -> CardFindings:
    """The view and every problem of ``reading``'s document; never raises.

    Without a document (``reading.has_document`` false) there is no view and no problem.
    """
    if not reading.has_document:
        return CardFindings(None, ())
    if reading.parse_error is not None:
        return CardFindings(None, (CardProblem("", not_a_card(reading)),))
    card = reading.card
    try:
        view = normalize_card(card)
        problems = validate_card(card, view.shape)
    except Exception as exc:  # the core promises not to raise; never lose the reader
        log.exception("card view failed")
        view = CardView(detect_shape(card))
        problems = [CardProblem("", f"internal error while reading the card: {exc}")]
    # An error: the card means different things to different readers (RFC 7493 §2.3).
    problems.extend(
        CardProblem(d.path, d.describe(), Severity.ERROR) for d in reading.duplicate_keys
    )
    return CardFindings(view, tuple(problems))
