"""The response's headers (or gRPC metadata and trailers) as a table with copy buttons.

objectNames: ``responseHeadersPage`` (this widget), ``responseHeadersView`` (the table),
``copyHeaderButton`` (the selected ``Name: value``), ``copyAllHeadersButton``.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.protocol.events import Headers
from app.ui.response.formatting import headers_text

COLUMNS = ("Name", "Value")

_Index = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()


class ResponseHeadersModel(QAbstractTableModel):
    """Read-only ``(name, value)`` rows in wire order; trailers follow, marked as such."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[tuple[str, str, bool]] = []  # name, value, is a trailer

    def set_headers(self, headers: Headers, trailers: Headers = ()) -> None:
        """Show ``headers`` then ``trailers``."""
        self.beginResetModel()
        self._rows = [(n, v, False) for n, v in headers] + [(n, v, True) for n, v in trailers]
        self.endResetModel()

    def add_trailers(self, trailers: Headers) -> None:
        """Append gRPC trailing metadata (it arrives after the body)."""
        if not trailers:
            return
        first = len(self._rows)
        self.beginInsertRows(QModelIndex(), first, first + len(trailers) - 1)
        self._rows += [(n, v, True) for n, v in trailers]
        self.endInsertRows()

    def line(self, row: int) -> str:
        """``Name: value`` of ``row``."""
        name, value, _ = self._rows[row]
        return f"{name}: {value}"

    def pairs(self) -> Headers:
        """Every row as ``(name, value)``."""
        return tuple((n, v) for n, v, _ in self._rows)

    def rowCount(self, parent: _Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        name, value, trailer = self._rows[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            if index.column() == 0:
                shown_as_trailer = trailer and role == Qt.ItemDataRole.DisplayRole
                return f"{name} (trailer)" if shown_as_trailer else name
            return value
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(COLUMNS):
            return COLUMNS[section]
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable


class ResponseHeadersPage(QWidget):
    """The table and its copy buttons."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("responseHeadersPage")
        self.model = ResponseHeadersModel(self)
        self.view = QTableView()
        self.view.setObjectName("responseHeadersView")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setWordWrap(False)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 6)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.copy_button = QPushButton("Copy header")
        self.copy_button.setObjectName("copyHeaderButton")
        self.copy_button.setToolTip("Copy the selected header as “Name: value”")
        self.copy_all_button = QPushButton("Copy all")
        self.copy_all_button.setObjectName("copyAllHeadersButton")
        self.copy_all_button.setToolTip("Copy every header, one “Name: value” per line")
        self.copy_button.clicked.connect(self.copy_selected)
        self.copy_all_button.clicked.connect(self.copy_all)
        self.view.doubleClicked.connect(lambda _index: self.copy_selected())
        self.view.selectionModel().selectionChanged.connect(self._update_buttons)
        self.model.modelReset.connect(self._update_buttons)
        self.model.rowsInserted.connect(self._update_buttons)

        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.copy_button)
        buttons.addWidget(self.copy_all_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(buttons)
        layout.addWidget(self.view, 1)
        self._update_buttons()

    def set_headers(self, headers: Headers) -> None:
        """Show ``headers`` (the response head's)."""
        self.model.set_headers(headers)

    def clear(self) -> None:
        """Show no headers."""
        self.model.set_headers(())

    def toPlainText(self) -> str:
        """Every header as ``Name: value`` lines (what *Copy all* copies)."""
        return headers_text(self.model.pairs())

    def copy_selected(self) -> None:
        """Copy the selected header as ``Name: value``."""
        rows = self.view.selectionModel().selectedRows()
        if rows:
            QGuiApplication.clipboard().setText(self.model.line(rows[0].row()))

    def copy_all(self) -> None:
        """Copy every header."""
        QGuiApplication.clipboard().setText(self.toPlainText())

    def _update_buttons(self, *_args: object) -> None:
        self.copy_button.setEnabled(bool(self.view.selectionModel().selectedRows()))
        self.copy_all_button.setEnabled(self.model.rowCount() > 0)
