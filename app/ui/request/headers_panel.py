"""The request tab's *Headers* page: a key/value table with a checkbox per row."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.protocol.events import Headers
from app.ui.request.headers_model import HeadersModel


class HeadersPanel(QWidget):
    """Extra request headers (gRPC: metadata). Ticked rows are sent and override defaults.

    ``objectName`` ``headersPanel``; inside: ``headersTable``, ``addHeaderButton``,
    ``removeHeaderButton``.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("headersPanel")
        self.model = HeadersModel(parent=self)
        self.table = QTableView()
        self.table.setObjectName("headersTable")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setColumnWidth(0, 220)
        self.add_button = QPushButton("Add header")
        self.add_button.setObjectName("addHeaderButton")
        self.remove_button = QPushButton("Remove")
        self.remove_button.setObjectName("removeHeaderButton")
        self.remove_button.setToolTip("Remove the selected rows")
        note = QLabel(
            "Ticked rows are sent (gRPC: as lower-case metadata) and replace a default header "
            "of the same name, such as Content-Type or A2A-Version."
        )
        note.setWordWrap(True)

        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)

        self.add_button.clicked.connect(self._on_add_clicked)
        self.remove_button.clicked.connect(self._on_remove_clicked)

    def headers(self) -> Headers:
        """The ticked rows with a name, in table order."""
        return self.model.headers()

    def add_header(self, name: str, value: str, enabled: bool = True) -> int:
        """Append a row; returns its index."""
        return self.model.add_row(name, value, enabled)

    def set_headers(self, headers: Headers) -> None:
        """Replace every row with ``headers``, all ticked."""
        for row in reversed(range(self.model.rowCount())):
            self.model.remove_row(row)
        for name, value in headers:
            self.add_header(name, value)

    def _on_add_clicked(self) -> None:
        row = self.model.add_row()
        index = self.model.index(row, 0)
        self.table.setCurrentIndex(index)
        self.table.edit(index)

    def _on_remove_clicked(self) -> None:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedIndexes()})
        for row in reversed(rows):
            self.model.remove_row(row)
