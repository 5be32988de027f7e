"""The response's headers (or gRPC metadata and trailers) as a table with copy buttons.

objectNames: ``responseHeadersPage`` (this widget), ``responseHeadersView`` (the table),
``copyHeaderButton`` (the selected ``Name: value``), ``copyAllHeadersButton``.
"""

from __future__ import annotations

from typing import NamedTuple

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
from app.ui.shell.table_model import Column, TableModel


class _Header(NamedTuple):
    name: str
    value: str
    trailer: bool  # gRPC trailing metadata, shown after the headers


class ResponseHeadersModel(TableModel[_Header]):
    """Read-only ``(name, value)`` rows in wire order; trailers follow, marked as such."""

    COLUMNS = (
        Column(
            "Name",
            lambda h: f"{h.name} (trailer)" if h.trailer else h.name,
            tooltip=lambda h: h.name,
        ),
        Column("Value", lambda h: h.value),
    )

    def set_headers(self, headers: Headers, trailers: Headers = ()) -> None:
        """Show ``headers`` then ``trailers``."""
        self.set_rows(
            [_Header(n, v, False) for n, v in headers] + [_Header(n, v, True) for n, v in trailers]
        )

    def add_trailers(self, trailers: Headers) -> None:
        """Append gRPC trailing metadata (it arrives after the body)."""
        self.append_rows([_Header(n, v, True) for n, v in trailers])

    def line(self, row: int) -> str:
        """``Name: value`` of ``row``."""
        header = self._rows[row]
        return f"{header.name}: {header.value}"

    def pairs(self) -> Headers:
        """Every row as ``(name, value)``."""
        return tuple((h.name, h.value) for h in self._rows)


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
