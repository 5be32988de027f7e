"""Filtering the stream timeline: a proxy over the timeline model, and the bar above it.

The filter syntax is :mod:`app.ui.timeline.timeline_terms`'s (``kind:status``,
``state:work``, ``task:abc``, ``-word``, any other word any column). The proxy is set on
the view only while a filter is typed: unfiltered, the view shows the model itself and a
fast stream pays nothing for filtering.

The proxy holds the matching rows' numbers (an array); it reads the model's
:class:`~app.ui.timeline.timeline_store.RowStore`, not its display roles. A few thousand
rows in memory are matched at once; more (a long stream whose older frames are in history)
are matched on a worker thread (:class:`~app.ui.timeline.timeline_scan.RowScan`), the count
saying how far it got, the matches appearing as they are found. Rows that arrive while
filtering are matched as they are inserted. Enter in the filter steps to the next match
(Shift+Enter: the previous); clearing the filter keeps the selected row, in view.
"""

from __future__ import annotations

import bisect
from array import array
from typing import Any

from PySide6.QtCore import (
    QAbstractProxyModel,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QTableView, QWidget

from app.ui.timeline.timeline_model import TimelineModel
from app.ui.timeline.timeline_scan import RowScan
from app.ui.timeline.timeline_terms import Term, match_rows, needs_frames, parse_filter

__all__ = ["Term", "TimelineFilterBar", "TimelineFilterProxy", "parse_filter"]

SYNC_ROWS = 2000
"""Rows matched on the GUI thread at once, at most (a few ms when frames are in memory)."""

_ROOT = QModelIndex()


class TimelineFilterProxy(QAbstractProxyModel):
    """Rows of the timeline model that match :meth:`set_filter`'s text.

    Signals:
        progressed: a worker scan found more, or ended (no args; see :attr:`scanning`).
    """

    progressed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._terms: tuple[Term, ...] = ()
        self._rows = array("q")
        self._matched = 0  # source rows [0, matched) are matched
        self._model: TimelineModel | None = None
        self._scan = RowScan(self)
        self._scan.found.connect(self._on_found)
        self._scan.finished.connect(self._catch_up)

    # --- the filter -----------------------------------------------------------------

    @property
    def terms(self) -> tuple[Term, ...]:
        """The filter in force."""
        return self._terms

    @property
    def scanning(self) -> tuple[int, int] | None:
        """``(rows matched, rows to match)`` while a worker scan runs, else None."""
        if not self._scan.running or self._model is None:
            return None
        return self._scan.reached, self._model.rowCount()

    def set_filter(self, text: str) -> None:
        """Filter by ``text`` (empty: every row)."""
        terms = parse_filter(text)
        if terms == self._terms:
            return
        self._scan.cancel()
        self.beginResetModel()
        self._terms = terms
        self._rows = array("q")
        self._matched = 0
        self.endResetModel()
        self._catch_up()

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the running worker scan (tests)."""
        while self._scan.running:
            self._scan.wait(timeout)

    def _catch_up(self) -> None:
        """Match the source rows not matched yet: at once when few and in memory, else on
        the worker thread (the next catch-up follows when it is done)."""
        model = self._model
        if model is None or not self._terms or self._scan.running:
            self.progressed.emit()
            return
        total = model.rowCount()
        start = self._matched
        if start >= total:
            self.progressed.emit()
            return
        store = model.store
        in_memory = start >= store.window_start or not needs_frames(self._terms)
        if total - start <= SYNC_ROWS and in_memory:
            self._on_found(match_rows(store, self._terms, range(start, total), None), total)
        else:
            self._scan.start(store, self._terms, range(start, total))
        self.progressed.emit()

    def _on_found(self, hits: list[int], reached: int) -> None:
        self._matched = reached
        if hits:
            first = len(self._rows)
            self.beginInsertRows(_ROOT, first, first + len(hits) - 1)
            self._rows.extend(hits)
            self.endInsertRows()
        self.progressed.emit()

    # --- the source model -------------------------------------------------------------

    def setSourceModel(self, model: Any) -> None:
        if self._model is not None:
            raise RuntimeError("a timeline filter proxy has one source model")
        assert isinstance(model, TimelineModel)
        self.beginResetModel()
        super().setSourceModel(model)
        self._model = model
        self.endResetModel()
        model.rowsInserted.connect(self._catch_up)
        model.modelAboutToBeReset.connect(self._scan.cancel)  # before the rows go
        model.modelReset.connect(self._on_source_reset)
        model.dataChanged.connect(self._on_source_changed)

    def _on_source_reset(self) -> None:
        self._scan.cancel()
        self.beginResetModel()
        self._rows = array("q")
        self._matched = 0
        self.endResetModel()
        self.progressed.emit()

    def _on_source_changed(self, top_left: QModelIndex, bottom_right: QModelIndex) -> None:
        """A row changed (an error or a finding joined it): it may match now, or no more."""
        model = self._model
        if model is None or not self._terms:
            return
        for n in range(top_left.row(), min(bottom_right.row() + 1, self._matched)):
            match = bool(match_rows(model.store, self._terms, range(n, n + 1), None))
            at = bisect.bisect_left(self._rows, n)
            shown = at < len(self._rows) and self._rows[at] == n
            if match and not shown:
                self.beginInsertRows(_ROOT, at, at)
                self._rows.insert(at, n)
                self.endInsertRows()
            elif shown and not match:
                self.beginRemoveRows(_ROOT, at, at)
                del self._rows[at]
                self.endRemoveRows()
            elif shown:
                self.dataChanged.emit(self.index(at, 0), self.index(at, self.columnCount() - 1))

    # --- QAbstractProxyModel ------------------------------------------------------------

    def source_row(self, row: int) -> int:
        """The model row of proxy row ``row``."""
        return int(self._rows[row])

    def proxy_row(self, source_row: int) -> int:
        """The proxy row showing model row ``source_row``, or -1."""
        at = bisect.bisect_left(self._rows, source_row)
        return at if at < len(self._rows) and self._rows[at] == source_row else -1

    def mapToSource(self, proxy_index: QModelIndex | QPersistentModelIndex) -> QModelIndex:
        if self._model is None or not proxy_index.isValid():
            return QModelIndex()
        row = proxy_index.row()
        if not 0 <= row < len(self._rows):
            return QModelIndex()
        return self._model.index(int(self._rows[row]), proxy_index.column())

    def mapFromSource(self, source_index: QModelIndex | QPersistentModelIndex) -> QModelIndex:
        if not source_index.isValid():
            return QModelIndex()
        row = self.proxy_row(source_index.row())
        return self.index(row, source_index.column()) if row >= 0 else QModelIndex()

    def index(
        self, row: int, column: int, parent: QModelIndex | QPersistentModelIndex = _ROOT
    ) -> QModelIndex:
        if parent.isValid() or not 0 <= row < len(self._rows):
            return QModelIndex()
        if not 0 <= column < self.columnCount():
            return QModelIndex()
        return self.createIndex(row, column)

    def parent(self, _child: Any = None) -> Any:
        if _child is None:
            return super().parent()  # QObject.parent()
        return QModelIndex()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        if parent.isValid() or self._model is None:
            return 0
        return self._model.columnCount()

    def hasChildren(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> bool:
        return not parent.isValid() and bool(self._rows)


class _FilterEdit(QLineEdit):
    """The filter's line edit: Enter steps to the next match, Shift+Enter the previous."""

    step = Signal(int)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            back = event.modifiers() & Qt.KeyboardModifier.ShiftModifier
            self.step.emit(-1 if back else 1)
            event.accept()
            return
        super().keyPressEvent(event)


class TimelineFilterBar(QWidget):
    """The filter edit and its count above the timeline table; swaps the table's model.

    Signals:
        view_model_changed: the table now shows the proxy or the model again (its selection
            model is new: reconnect to it).
    """

    view_model_changed = Signal()

    def __init__(self, view: QTableView, model: TimelineModel, parent: QWidget | None = None):
        super().__init__(parent)
        self._view = view
        self._model = model
        self.proxy = TimelineFilterProxy(self)
        self.proxy.setSourceModel(model)
        self.edit = _FilterEdit()
        self.edit.setObjectName("timelineFilterEdit")
        self.edit.setPlaceholderText("Filter rows: text, kind:status, state:working, -word")
        self.edit.setClearButtonEnabled(True)
        self.edit.setToolTip(
            "Words that every shown row contains; kind:, state: and task: look in that column,"
            " -word hides rows containing it. Enter: the next match, Shift+Enter: the previous"
        )
        self.count_label = QLabel("")
        self.count_label.setObjectName("timelineFilterCountLabel")
        # A fixed size: it changes with every batch while filtering, and a label whose size
        # may change lays out its parents again on each setText.
        metrics = self.count_label.fontMetrics()
        self.count_label.setFixedSize(
            metrics.horizontalAdvance("0,000,000 of 0,000,000 rows · 100%") + 8,
            self.count_label.sizeHint().height(),
        )
        self.count_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.count_label.hide()
        self.edit.textChanged.connect(self.set_filter)
        self.edit.step.connect(self.step)
        self.proxy.progressed.connect(self._update_count)
        for signal in (self.proxy.rowsInserted, self.proxy.rowsRemoved, model.rowsInserted):
            signal.connect(self._update_count)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.count_label)

    def set_filter(self, text: str) -> None:
        """Show the rows matching ``text`` (all rows when it is empty)."""
        selected = self.selected_row()
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
            if wanted is self._model and selected >= 0:
                self.select(selected)  # the row found stays selected, in view
        self._update_count()

    def source_row(self, index: QModelIndex | QPersistentModelIndex) -> int:
        """The model row of a table index (a proxy row while filtering)."""
        if index.model() is self.proxy:
            return self.proxy.source_row(index.row())
        return index.row()

    def selected_row(self) -> int:
        """The model row selected in the table, or -1."""
        rows = self._view.selectionModel().selectedRows() if self._view.selectionModel() else []
        return self.source_row(rows[0]) if rows else -1

    def select(self, source_row: int) -> None:
        """Select model row ``source_row`` in the table (if shown) and scroll to it."""
        view = self._view
        model = view.model()
        row = self.proxy.proxy_row(source_row) if model is self.proxy else source_row
        if not 0 <= row < model.rowCount():
            return
        index = model.index(row, 0)
        flags = (
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows
        )
        view.selectionModel().setCurrentIndex(index, flags)
        view.scrollTo(index, QTableView.ScrollHint.PositionAtCenter)

    def step(self, direction: int) -> None:
        """Select the next (1) or previous (-1) matching row, wrapping around."""
        if not self.proxy.terms or not self.proxy.rowCount():
            return
        count = self.proxy.rowCount()
        selected = self.selected_row()
        current = self.proxy.proxy_row(selected) if selected >= 0 else -1
        if current < 0:  # none selected: from either end
            current = -1 if direction > 0 else count
        self.select(self.proxy.source_row((current + direction) % count))

    def _update_count(self, *_args: object) -> None:
        if self.proxy.terms:
            text = f"{self.proxy.rowCount():,} of {self._model.rowCount():,} rows"
            scanning = self.proxy.scanning
            if scanning is not None:
                done, total = scanning
                text += f" · {100 * done // max(total, 1)}%"
        else:
            text = ""
        if self.count_label.text() != text:
            self.count_label.setText(text)
            # Shown only while filtering: unfiltered, the edit takes the whole row. (Showing
            # it lays the row out once, when filtering starts, not per batch.)
            self.count_label.setVisible(bool(text))
