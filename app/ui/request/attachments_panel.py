"""The message's attachments: files (inline or by URI) and data parts, under the body.

objectNames: ``attachmentsPanel`` (this widget), ``attachmentsList``, ``attachFileButton``,
``attachUriButton``, ``addDataPartButton``, ``removeAttachmentButton``,
``attachmentsWarningLabel``; the data part dialog ``dataPartDialog`` with
``dataPartEditor`` and ``dataPartErrorLabel``.

The parts themselves are built by :mod:`app.protocol.methods.parts`; the tab puts them into the
message template, so they show in the preview and the body that is sent. The card's input
modes (``defaultInputModes`` and the skills' ``inputModes``) only warn: the agent decides.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QMimeData, Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.errors import UsageError
from app.protocol.methods.parts import (
    Attachment,
    accepts,
    data_attachment,
    file_attachment,
    size_warning,
    uri_attachment,
)
from app.ui.shell import theme
from app.ui.shell.plain_text import PlainLabel
from app.ui.shell.widgets import CodeView


class AttachmentsPanel(QWidget):
    """A list of attachments with buttons to add and remove them, and their warnings."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("attachmentsPanel")
        self.setAcceptDrops(True)  # files dropped here are attached inline
        self._items: list[Attachment] = []
        self._modes: tuple[str, ...] = ()
        self.list = QListWidget()
        self.list.setObjectName("attachmentsList")
        self.list.setMaximumHeight(self.fontMetrics().height() * 5)
        self.list.setToolTip("Parts sent after the message text, in this order")
        self.attach_button = _button(
            "attachFileButton", "Attach file…", "Send a file inline (base64 bytes)"
        )
        self.uri_button = _button(
            "attachUriButton", "By URI…", "Send a file part that refers to a URI (not read here)"
        )
        self.data_button = _button(
            "addDataPartButton", "Data part…", "Add a data part: a JSON object typed in an editor"
        )
        self.remove_button = _button(
            "removeAttachmentButton", "Remove", "Remove the selected attachment"
        )
        self.remove_button.setEnabled(False)
        self.warning_label = PlainLabel()  # names the card's input modes
        self.warning_label.setObjectName("attachmentsWarningLabel")
        self.warning_label.setWordWrap(True)
        self.warning_label.hide()
        theme.style(self.warning_label, "text-warn")
        self.attach_button.clicked.connect(self.choose_file)
        self.uri_button.clicked.connect(self.choose_uri)
        self.data_button.clicked.connect(self.edit_data_part)
        self.remove_button.clicked.connect(self.remove_selected)
        self.list.currentRowChanged.connect(lambda row: self.remove_button.setEnabled(row >= 0))

        # The add buttons beside the title; the list, with Remove beside it, only once there
        # is something in it: the row fits the narrowest Body page whole.
        buttons = QHBoxLayout()
        buttons.addWidget(QLabel("<b>Attachments</b>"))
        for button in (self.attach_button, self.uri_button, self.data_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.list_box = QWidget()
        listed = QHBoxLayout(self.list_box)
        listed.setContentsMargins(0, 0, 0, 0)
        listed.addWidget(self.list, 1)
        listed.addWidget(self.remove_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(buttons)
        layout.addWidget(self.list_box)
        layout.addWidget(self.warning_label)
        self._refresh()

    def attachments(self) -> tuple[Attachment, ...]:
        """The attachments in list order."""
        return tuple(self._items)

    def add(self, attachment: Attachment) -> None:
        """Append ``attachment``."""
        self._items.append(attachment)
        self._refresh()
        self.list.setCurrentRow(len(self._items) - 1)
        self.changed.emit()

    def clear(self) -> None:
        """Remove every attachment."""
        if self._items:
            self._items.clear()
            self._refresh()
            self.changed.emit()

    def remove_selected(self) -> None:
        """Remove the selected attachment."""
        row = self.list.currentRow()
        if 0 <= row < len(self._items):
            del self._items[row]
            self._refresh()
            self.changed.emit()

    def set_input_modes(self, modes: tuple[str, ...]) -> None:
        """The media types the agent's card accepts (empty: nothing is known)."""
        self._modes = modes
        self._refresh()

    def warnings(self) -> list[str]:
        """What the warning label says, one line each."""
        lines = [w for w in (size_warning(a) for a in self._items) if w]
        refused: list[str] = []
        for attachment in self._items:
            kind = attachment.accepted_type
            if not accepts(kind, self._modes) and kind not in refused:
                refused.append(kind)
        if refused:
            lines.append(
                f"Not among the card's input modes ({', '.join(self._modes)}):"
                f" {', '.join(refused)} — the agent may refuse the message"
            )
        return lines

    # --- adding -------------------------------------------------------------------------

    def choose_file(self) -> None:
        """*Attach file…*: pick a file and add it inline (or drop files on the panel)."""
        path, _filter = QFileDialog.getOpenFileName(self, "Attach file")
        if path:
            self._try(lambda: file_attachment(Path(path)))

    def choose_uri(self) -> None:
        """*By URI…*: type a URI; the media type is guessed from its path."""
        uri, ok = QInputDialog.getText(self, "File by URI", "URI of the file:")
        if ok and uri.strip():
            self._try(lambda: uri_attachment(uri))

    def edit_data_part(self) -> None:
        """*Data part…*: a JSON editor; OK adds the object."""
        dialog = DataPartDialog(self)
        if dialog.exec() == QDialog.DialogCode.Accepted and dialog.attachment is not None:
            self.add(dialog.attachment)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        """Accept a drag of local files."""
        if _local_files(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        """Attach every dropped local file inline, in order."""
        for path in _local_files(event.mimeData()):
            self._try(functools.partial(file_attachment, path))
        event.acceptProposedAction()

    def _try(self, build: Callable[[], Attachment]) -> None:
        try:
            attachment = build()
        except UsageError as exc:
            self.warning_label.setText(str(exc))
            self.warning_label.show()
            return
        self.add(attachment)

    def _refresh(self) -> None:
        self.list.clear()
        for attachment in self._items:
            self.list.addItem(attachment.label())
        self.list_box.setVisible(bool(self._items))
        lines = self.warnings()
        self.warning_label.setText("\n".join(lines))
        self.warning_label.setVisible(bool(lines))


class DataPartDialog(QDialog):
    """A JSON editor for one data part; OK is refused until the text is a JSON object."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("dataPartDialog")
        self.setWindowTitle("Add data part")
        self.attachment: Attachment | None = None
        self.editor = CodeView("dataPartEditor", read_only=False)
        self.editor.setPlainText('{\n  "key": "value"\n}')
        self.error_label = PlainLabel()
        self.error_label.setObjectName("dataPartErrorLabel")
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        theme.style(self.error_label, "text-error")
        box = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        box.accepted.connect(self.accept)
        box.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("JSON object sent as a data part:"))
        layout.addWidget(self.editor, 1)
        layout.addWidget(self.error_label)
        layout.addWidget(box)
        self.resize(480, 320)

    def accept(self) -> None:
        """Keep the dialog open with the parse error shown when the JSON is not an object."""
        try:
            self.attachment = data_attachment(self.editor.toPlainText())
        except UsageError as exc:
            self.error_label.setText(str(exc))
            self.error_label.show()
            return
        super().accept()


def _local_files(mime: QMimeData) -> list[Path]:
    if not mime.hasUrls():
        return []
    return [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile()]


def _button(name: str, text: str, tip: str) -> QPushButton:
    button = QPushButton(text)
    button.setObjectName(name)
    button.setToolTip(tip)
    return button
