"""The timeline's filter syntax and which rows match it, from any thread.

The filter text is words, all of which must match a row (case-insensitive):
``kind:status`` matches the Kind column, ``state:work`` the State column, ``task:abc`` the
Task column, any other word any column (the Summary mostly). ``-word`` excludes rows that
match ``word``.

Rows are matched on the texts the table shows (``RowStore.display``); summaries are derived
from the frames, read back in chunks (:meth:`RowStore.frames_in`) only when a term needs
them, so ``kind:``, ``state:`` and ``task:`` filters never touch a frame.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.ui.timeline.timeline_store import (
    COL_KIND,
    COL_STATE,
    COL_SUMMARY,
    COL_TASK,
    COLUMNS,
    FrameBacking,
    RowStore,
)

CHUNK_ROWS = 256
"""Rows matched between two looks at whether to stop (and frames read back at once)."""

_FIELDS = {"kind": COL_KIND, "state": COL_STATE, "task": COL_TASK}


@dataclass(frozen=True, slots=True)
class Term:
    """One word of the filter: ``column`` None means any column."""

    text: str
    column: int | None = None
    negated: bool = False


def parse_filter(text: str) -> tuple[Term, ...]:
    """The terms of a filter text (see the module docstring)."""
    terms: list[Term] = []
    for word in text.split():
        negated = word.startswith("-") and len(word) > 1
        if negated:
            word = word[1:]
        field, sep, value = word.partition(":")
        column = _FIELDS.get(field.lower()) if sep else None
        if column is not None and not value:
            continue  # "kind:" still being typed
        terms.append(Term((value if column is not None else word).casefold(), column, negated))
    return tuple(terms)


def needs_frames(terms: tuple[Term, ...]) -> bool:
    """Whether matching ``terms`` needs the rows' summaries (so their frames)."""
    return any(term.column in (None, COL_SUMMARY) for term in terms)


def match_rows(
    store: RowStore,
    terms: tuple[Term, ...],
    rows: range,
    readers: dict[int, FrameBacking] | None,
    stop: Callable[[], bool] = lambda: False,
) -> list[int]:
    """The rows of ``rows`` (ascending) that match ``terms``; ``readers`` as for
    :meth:`RowStore.frames_in`. Returns early, with what it found, when ``stop()`` is true
    (checked every :data:`CHUNK_ROWS` rows)."""
    found: list[int] = []
    summaries = needs_frames(terms)
    anywhere = any(term.column is None for term in terms)
    # A word for any column is looked for in all of them at once, joined by a character no
    # filter word holds (words are split on whitespace): one search, not six.
    named = sorted({term.column for term in terms if term.column is not None})
    columns = range(len(COLUMNS)) if anywhere else named
    place = {col: i for i, col in enumerate(columns)}
    frames: dict[int, bytes] = {}
    for chunk in range(rows.start, rows.stop, CHUNK_ROWS):
        if stop():
            break
        end = min(chunk + CHUNK_ROWS, rows.stop)
        if summaries:
            frames = store.frames_in(chunk, end, readers)
        for n in range(chunk, end):
            summary = store.summary_of(n, store.packed(n), frames.get(n)) if summaries else ""
            cells = [store.display(n, col, summary).casefold() for col in columns]
            every = "\n".join(cells) if anywhere else ""
            for term in terms:
                column = term.column
                hit = term.text in (every if column is None else cells[place[column]])
                if hit == term.negated:
                    break
            else:
                found.append(n)
    return found
