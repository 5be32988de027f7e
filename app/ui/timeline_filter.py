"""Filtering the stream timeline: a proxy over the timeline model and its filter syntax.

The filter text is words, all of which must match a row (case-insensitive):
``kind:status`` matches the Kind column, ``state:work`` the State column, ``task:abc`` the
Task column, any other word any column (the Summary mostly). ``-word`` excludes rows that
match ``word``.

The proxy only reads the source model's display text (its columns and ``DisplayRole``), not
its internals. It is set on the view only while a filter is typed: unfiltered, the view shows
the model itself and a fast stream pays nothing for filtering.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QSortFilterProxyModel, Qt

from app.ui.timeline_model import COL_KIND, COL_STATE, COL_TASK, COLUMNS

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


class TimelineFilterProxy(QSortFilterProxyModel):
    """Rows of the timeline model that match :meth:`set_filter`'s text."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._terms: tuple[Term, ...] = ()

    @property
    def terms(self) -> tuple[Term, ...]:
        """The filter in force."""
        return self._terms

    def set_filter(self, text: str) -> None:
        """Filter by ``text`` (empty: every row)."""
        terms = parse_filter(text)
        if terms != self._terms:
            self.beginFilterChange()
            self._terms = terms
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(
        self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex
    ) -> bool:
        if not self._terms:
            return True
        source = self.sourceModel()
        display = Qt.ItemDataRole.DisplayRole
        texts = [
            str(source.index(source_row, col, source_parent).data(display) or "").casefold()
            for col in range(len(COLUMNS))
        ]
        for term in self._terms:
            if term.column is not None:
                hit = term.text in texts[term.column]
            else:
                hit = any(term.text in t for t in texts)
            if hit == term.negated:
                return False
        return True
