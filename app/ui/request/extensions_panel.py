"""The request tab's *Extensions* page: extension URIs to activate with ``A2A-Extensions``."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.ui.request.headers_model import ExtensionsModel


class ExtensionsPanel(QWidget):
    """Tick extension URIs to send them in ``A2A-Extensions`` (and ``X-A2A-Extensions`` on 0.3).

    ``objectName`` ``extensionsPanel``; inside: ``extensionsList``, ``extensionUriEdit``,
    ``addExtensionButton``, ``removeExtensionButton``.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("extensionsPanel")
        self.model = ExtensionsModel(self)
        self.list_view = QListView()
        self.list_view.setObjectName("extensionsList")
        self.list_view.setModel(self.model)
        self.uri_edit = QLineEdit()
        self.uri_edit.setObjectName("extensionUriEdit")
        self.uri_edit.setPlaceholderText("Extension URI, e.g. https://example.com/ext/v1")
        self.add_button = QPushButton("Add URI")
        self.add_button.setObjectName("addExtensionButton")
        self.remove_button = QPushButton("Remove")
        self.remove_button.setObjectName("removeExtensionButton")
        note = QLabel(
            "Ticked URIs are sent as <code>A2A-Extensions</code> (0.3 tabs also send "
            "<code>X-A2A-Extensions</code>). The agent's card lists the ones it supports."
        )
        note.setWordWrap(True)

        add_row = QHBoxLayout()
        add_row.addWidget(self.uri_edit, 1)
        add_row.addWidget(self.add_button)
        add_row.addWidget(self.remove_button)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addWidget(self.list_view, 1)
        layout.addLayout(add_row)

        self.add_button.clicked.connect(self._on_add_clicked)
        self.uri_edit.returnPressed.connect(self._on_add_clicked)
        self.remove_button.clicked.connect(self._on_remove_clicked)

    def selected(self) -> list[str]:
        """The ticked URIs."""
        return self.model.selected()

    def set_available_extensions(self, uris: list[str]) -> None:
        """Offer ``uris`` (e.g. from the Agent Card), unticked; listed ones keep their tick."""
        for uri in uris:
            if uri.strip() not in self.model.uris():
                self.model.add_uri(uri, checked=False)

    def set_ticked(self, uris: tuple[str, ...]) -> None:
        """Replace the list with ``uris``, all ticked."""
        for row in reversed(range(self.model.rowCount())):
            self.model.remove_row(row)
        for uri in uris:
            self.model.add_uri(uri, checked=True)

    def _on_add_clicked(self) -> None:
        if self.model.add_uri(self.uri_edit.text(), checked=True) >= 0:
            self.uri_edit.clear()

    def _on_remove_clicked(self) -> None:
        rows = sorted({i.row() for i in self.list_view.selectionModel().selectedIndexes()})
        for row in reversed(rows):
            self.model.remove_row(row)
