"""*File → Import…*: a curl command line or a Postman / HAR / OpenAPI file → a new spec.

The dialog (``importDialog``) reads and parses off the GUI thread, shows every request the
source held in a preview table — A2A or not, version, binding and the reason — and
*Import* opens the A2A ones as a new, unsaved collection of the spec dock, beside the
open ones (never replacing one). Credentials
never go into the document: they become ``{{variables}}`` whose values are put into the
app's secret store (OS keyring, else the private secrets file) on *Import*, as *Save to
spec* does; the dialog says so before anything is stored.
"""

from __future__ import annotations

import asyncio
import html
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.imports.build import ImportResult
from app.imports.raw import ImportSourceError
from app.imports.sources import KINDS, import_file, import_text
from app.ui.collections.import_model import ImportPreviewModel
from app.ui.shell.tasks import OwnedTask

if TYPE_CHECKING:
    from app.ui.collections.spec_dock import SpecController

_FILTER = "Postman, HAR or OpenAPI (*.json *.har *.yaml *.yml);;All files (*)"
_SECRETS_NOTE = (
    "Credentials (Authorization, -u, API keys) are not written into the document: they "
    "become {{variables}} and their values go to the secret store (OS keyring, else the "
    "private secrets file) when you import."
)


class ImportDialog(QDialog):
    """Source picker (curl paste / file), preview table, *Import* (``importButton``)."""

    def __init__(self, spec: SpecController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("importDialog")
        self.setWindowTitle("Import requests")
        self.resize(980, 560)
        self.spec = spec
        self.result_: ImportResult | None = None
        self._work = OwnedTask()

        self.sources = QTabWidget()
        self.sources.setObjectName("importSources")
        self.curl_edit = QPlainTextEdit()
        self.curl_edit.setObjectName("importCurlEdit")
        self.curl_edit.setPlaceholderText(
            "curl -X POST https://agent.example.com/a2a -H 'Content-Type: application/json' "
            '-d \'{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", …}\''
        )
        self.preview_button = QPushButton("&Preview")
        self.preview_button.setObjectName("importPreviewButton")
        self.preview_button.clicked.connect(self.preview_curl)
        curl_page = QWidget()
        curl_layout = QVBoxLayout(curl_page)
        curl_layout.addWidget(QLabel("Paste one or more curl command lines:"))
        curl_layout.addWidget(self.curl_edit, 1)
        curl_layout.addWidget(self.preview_button)
        self.sources.addTab(curl_page, "curl")

        self.file_edit = QLineEdit()
        self.file_edit.setObjectName("importFileEdit")
        self.file_edit.setPlaceholderText("A Postman Collection v2.1, HAR 1.2 or OpenAPI 3 file")
        self.file_edit.returnPressed.connect(lambda: self.read_file(Path(self.file_edit.text())))
        browse = QPushButton("&Choose file…")
        browse.setObjectName("importBrowseButton")
        browse.clicked.connect(self.choose_file)
        self.kind_label = QLabel("Kinds: " + ", ".join(v for k, v in KINDS.items() if k != "curl"))
        self.kind_label.setObjectName("importKindLabel")
        file_page = QWidget()
        file_layout = QVBoxLayout(file_page)
        row = QHBoxLayout()
        row.addWidget(self.file_edit, 1)
        row.addWidget(browse)
        file_layout.addLayout(row)
        file_layout.addWidget(self.kind_label)
        file_layout.addStretch(1)
        self.sources.addTab(file_page, "File (Postman, HAR, OpenAPI)")

        self.summary = QLabel(_SECRETS_NOTE)
        self.summary.setObjectName("importSummaryLabel")
        self.summary.setWordWrap(True)
        self.model = ImportPreviewModel(self)
        self.table = QTableView()
        self.table.setObjectName("importPreviewTable")
        self.table.setModel(self.model)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for column, width in enumerate((170, 60, 60, 80, 420)):
            header.resizeSection(column, width)

        # The selected row in full: explanations and notes are longer than their columns.
        self.details = QLabel()
        self.details.setObjectName("importDetailsLabel")
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table.selectionModel().currentRowChanged.connect(self._show_details)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.import_button = buttons.addButton("&Import", QDialogButtonBox.ButtonRole.AcceptRole)
        self.import_button.setObjectName("importButton")
        self.import_button.setEnabled(False)
        self.import_button.clicked.connect(self.do_import)
        buttons.rejected.connect(self.reject)

        # Enter in the path field reads the file; it must not also press a dialog button.
        for button in self.findChildren(QPushButton):
            button.setAutoDefault(False)
            button.setDefault(False)

        layout = QVBoxLayout(self)
        layout.addWidget(self.sources, 2)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 3)
        layout.addWidget(self.details)
        layout.addWidget(buttons)

    # --- reading -------------------------------------------------------------------

    def preview_curl(self) -> None:
        """Parse the pasted curl command line(s) and show what they hold."""
        text = self.curl_edit.toPlainText()
        self._start(lambda: import_text(text, "curl"))

    def choose_file(self) -> QFileDialog:
        """Ask for a file (non-modal); reading starts when one is chosen."""
        dialog = QFileDialog(self, "Import from a file", "", _FILTER)
        dialog.setObjectName("importFileDialog")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(lambda name: self.read_file(Path(name)))
        dialog.open()
        return dialog

    def read_file(self, path: Path) -> None:
        """Read, detect and preview ``path`` in a worker thread."""
        self.file_edit.setText(str(path))
        self.kind_label.setText(f"Reading {path.name}…")
        self._start(lambda: import_file(path))

    def _start(self, work: Callable[[], ImportResult]) -> None:
        async def run() -> None:
            self.import_button.setEnabled(False)
            try:
                result = await asyncio.to_thread(work)
            except ImportSourceError as exc:
                self._show(None, str(exc))
                return
            self._show(result, "")

        self._work.start(run())

    def _show(self, result: ImportResult | None, error: str) -> None:
        self.result_ = result
        self.model.set_rows(result.items if result else [])
        self.details.clear()
        if result is None:
            self.summary.setText(f"<b>Cannot import:</b> {error}")
            self.kind_label.setText("Not imported")
            return
        self.kind_label.setText(f"Detected: {KINDS.get(result.kind, result.kind)}")
        lines = [f"<b>{result.summary()}</b>", *result.notes]
        if result.secrets:
            lines.append(_SECRETS_NOTE)
        self.summary.setText("<br>".join(lines))
        self.import_button.setEnabled(result.imported > 0)

    def _show_details(self, current: QModelIndex, _previous: QModelIndex) -> None:
        item = self.model.row_at(current.row()) if current.isValid() else None
        if item is None:
            self.details.clear()
            return
        lines = [f"<b>{html.escape(item.name)}</b> ({html.escape(item.raw.place)}): "
                 f"{html.escape(item.detection.explanation)}"]  # fmt: skip
        lines += [f"• {html.escape(note)}" for note in item.notes]
        self.details.setText("<br>".join(lines))

    # --- importing -----------------------------------------------------------------

    def do_import(self) -> None:
        """Store the credentials, then open the document in the spec tree."""
        result = self.result_
        if result is None or not result.imported:
            return

        async def run() -> None:
            store = self.spec.store
            notes = [
                await asyncio.to_thread(store.put, name, value)
                for name, value in result.secrets.items()
            ]
            self.spec.open_document(result.doc)
            message = (
                f"Imported {result.imported} A2A request(s) from {result.kind} into a new "
                "collection, not saved yet (Ctrl+S on one of its requests writes the file)"
            )
            self.spec.host.messages.show(" · ".join([message, *notes]), 15000)
            self.accept()

        self.import_button.setEnabled(False)
        self._work.start(run())

    def done(self, result: int) -> None:
        self._work.cancel()  # a file still being read is of no use once the dialog is gone
        super().done(result)


def open_import(spec: SpecController, parent: QWidget) -> ImportDialog:
    """Show the import dialog (non-modal)."""
    dialog = ImportDialog(spec, parent)
    dialog.open()
    return dialog
