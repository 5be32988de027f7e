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

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QTableView, QWidget

from app.ui.timeline.timeline_model import COL_KIND, COL_STATE, COL_TASK, COLUMNS

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


class TimelineFilterBar(QWidget):
    """The filter edit and its count above the timeline table; swaps the table's model.

    Signals:
        view_model_changed: the table now shows the proxy or the model again (its selection
            model is new: reconnect to it).
    """

    view_model_changed = Signal()

    def __init__(
        self, view: QTableView, model: QAbstractItemModel, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._view = view
        self._model = model
        self.proxy = TimelineFilterProxy(self)
        self.proxy.setSourceModel(model)
        self.edit = QLineEdit()
        self.edit.setObjectName("timelineFilterEdit")
        self.edit.setPlaceholderText("Filter rows: text, kind:status, state:working, -word")
        self.edit.setClearButtonEnabled(True)
        self.edit.setToolTip(
            "Words that every shown row contains; kind:, state: and task: look in that column,"
            " -word hides rows containing it"
        )
        self.count_label = QLabel("")
        self.count_label.setObjectName("timelineFilterCountLabel")
        # A fixed size: it changes with every batch while filtering, and a label whose size
        # may change lays out its parents again on each setText.
        metrics = self.count_label.fontMetrics()
        self.count_label.setFixedSize(
            metrics.horizontalAdvance("000,000 of 000,000 rows") + 8,
            self.count_label.sizeHint().height(),
        )
        self.count_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.count_label.hide()
        self.edit.textChanged.connect(self.set_filter)
        for signal in (
            self.proxy.rowsInserted,
            self.proxy.rowsRemoved,
            self.proxy.modelReset,
            self.proxy.layoutChanged,
        ):
            signal.connect(self._update_count)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.count_label)

    def set_filter(self, text: str) -> None:
        """Show the rows matching ``text`` (all rows when it is empty)."""
        self.proxy.set_filter(text)
        # The proxy is shown only while filtering: unfiltered rows cost a stream nothing.
        wanted = self.proxy if self.proxy.terms else self._model
        view = self._view
        if view.model() is not wanted:
            header = view.horizontalHeader()
            sizes = [header.sectionSize(i) for i in range(header.count())]
            view.setModel(wanted)
            for i, size in enumerate(sizes):
                header.resizeSection(i, size)
            self.view_model_changed.emit()
        self._update_count()

    def source_row(self, index: QModelIndex | QPersistentModelIndex) -> int:
        """The model row of a table index (a proxy row while filtering)."""
        if index.model() is self.proxy:
            return self.proxy.mapToSource(index).row()
        return index.row()

    def _update_count(self, *_args: object) -> None:
        if self.proxy.terms:
            text = f"{self.proxy.rowCount():,} of {self._model.rowCount():,} rows"
        else:
            text = ""
        if self.count_label.text() != text:
            self.count_label.setText(text)
            # Shown only while filtering: unfiltered, the edit takes the whole row. (Showing
            # it lays the row out once, when filtering starts, not per batch.)
            self.count_label.setVisible(bool(text))
