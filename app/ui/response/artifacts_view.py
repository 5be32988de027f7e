"""The Artifacts tab: every artifact of a result or stream, its parts shown by kind.

objectNames: ``artifactsView`` (this widget), ``artifactsTree`` (artifacts with their
parts), ``artifactPartInfoLabel`` (kind, name, media type, size of the selected part),
``artifactTextView``, ``artifactDataTree`` (a :class:`~app.ui.response.json_tree.JsonTreePage`),
``artifactImageLabel``, ``saveArtifactButton`` and ``artifactSaveStatusLabel``.

Text is shown as text, data as a JSON tree, an inline image as a preview (decoded by
``QImage`` into pixels, nothing else). A file is never opened or run: *Save as…* writes its
bytes atomically (:func:`app.fileio.atomic_write_bytes`) on a worker thread.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, QTimer
from PySide6.QtGui import QImage, QPixmap, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from app.fileio import atomic_write_bytes
from app.protocol.methods.parts import format_size
from app.protocol.stream.artifacts import (
    DATA,
    FILE,
    TEXT,
    ArtifactView,
    PartView,
    artifacts_up_to,
    content_type,
    merge,
    suggested_name,
)
from app.ui.response.json_tree import JsonTreePage
from app.ui.shell import theme
from app.ui.shell.plain_text import PlainLabel, plain_tip, shown
from app.ui.shell.tasks import OwnedTask

_PART_ROLE = Qt.ItemDataRole.UserRole + 1
_PREVIEW_MAX = 480  # pixels: a preview, not a viewer
_PREVIEW_MIN = 96


_MEASURED_ROWS = 50
MAX_SHOWN = 500
"""Artifacts listed at most; the rest of a huge result stays in the Pretty and Tree views."""
ROWS_PER_TURN = 50
"""Artifact rows added to the tree per turn of the event loop (~3 ms)."""


class ArtifactsView(QWidget):
    """Artifacts in a tree on the left, the selected part on the right."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("artifactsView")
        self._artifacts: list[ArtifactView] = []
        self._positions: dict[str, int] = {}  # artifactId → row
        self._left_out = 0  # artifacts past MAX_SHOWN
        self._adding = False  # rows still to add wait for the next turn of the event loop
        self._saving = OwnedTask()
        self.model = QStandardItemModel(self)
        self.model.setHorizontalHeaderLabels(["Artifact / part", "Type", "Size"])
        self.tree = QTreeView()
        self.tree.setObjectName("artifactsTree")
        self.tree.setModel(self.model)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.tree.setUniformRowHeights(True)
        # Column widths from the first rows only: measuring a thousand rows took ~30 ms.
        self.tree.header().setResizeContentsPrecision(_MEASURED_ROWS)
        self.tree.selectionModel().currentChanged.connect(self._on_current_changed)

        self.info_label = PlainLabel("No artifacts yet: send a request whose result carries some")
        self.info_label.setObjectName("artifactPartInfoLabel")
        self.info_label.setWordWrap(True)
        self.info_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text_view = QPlainTextEdit()
        self.text_view.setObjectName("artifactTextView")
        self.text_view.setReadOnly(True)
        self.data_tree = JsonTreePage()
        self.data_tree.setObjectName("artifactDataTree")
        self.image_label = QLabel()
        self.image_label.setObjectName("artifactImageLabel")
        self.image_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.file_label = PlainLabel()
        self.file_label.setObjectName("artifactFileLabel")
        self.file_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.file_label.setWordWrap(True)
        image_scroll = QScrollArea()
        image_scroll.setWidget(self.image_label)
        image_scroll.setWidgetResizable(True)
        self.stack = QStackedWidget()
        self._blank = QWidget()
        for page in (self._blank, self.text_view, self.data_tree, image_scroll, self.file_label):
            self.stack.addWidget(page)
        self._image_page = image_scroll
        self.save_button = QPushButton("Save as…")
        self.save_button.setObjectName("saveArtifactButton")
        self.save_button.setToolTip("Write the selected part's content to a file (never opened)")
        self.save_button.setEnabled(False)
        self.save_button.clicked.connect(self.save_selected)
        self.save_status = PlainLabel(multiline=False)
        self.save_status.setObjectName("artifactSaveStatusLabel")
        # A long path must not widen the page and squeeze the tree: it is cut, the
        # tooltip has it whole.
        self.save_status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

        detail = QWidget()
        detail_layout = QVBoxLayout(detail)
        detail_layout.setContentsMargins(0, 0, 0, 0)
        detail_layout.addWidget(self.info_label)
        detail_layout.addWidget(self.stack, 1)
        row = QHBoxLayout()
        row.addWidget(self.save_button)
        row.addWidget(self.save_status, 1)
        detail_layout.addLayout(row)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setChildrenCollapsible(False)
        split.addWidget(self.tree)
        split.addWidget(detail)
        split.setSizes([360, 400])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)

    # --- filling ------------------------------------------------------------------------

    @property
    def artifacts(self) -> list[ArtifactView]:
        """The artifacts shown, in arrival order."""
        return list(self._artifacts)

    def clear(self) -> None:
        """Forget every artifact (a new exchange starts)."""
        self._artifacts.clear()
        self._positions.clear()
        self._left_out = 0
        self.model.removeRows(0, self.model.rowCount())
        self._show_part(None)

    def add_value(self, value: Any, source: str = "result") -> int:
        """Add the artifacts found in ``value`` (a body or one stream item); returns how
        many. The first part found is selected when nothing was before.

        The first :data:`ROWS_PER_TURN` new rows are in the tree on return, the rest follow
        as many per turn of the event loop (500 rows at once held the window ~30 ms)."""
        # Unread past the shown limit (+1: one may merge into a known one); counted as left out.
        found, unread = artifacts_up_to(value, source, MAX_SHOWN + 1)
        self._left_out += unread
        for artifact in found:
            self._add(artifact)
        self._add_rows()
        if found and not self.tree.currentIndex().isValid():
            first = self.model.index(0, 0)
            self.tree.setCurrentIndex(self.model.index(0, 0, first))
        return len(found)

    @property
    def rows_pending(self) -> bool:
        """True while artifacts found are still to be added to the tree."""
        return self.model.rowCount() < len(self._artifacts)

    def _add(self, artifact: ArtifactView) -> None:
        known = artifact.artifact_id in self._positions if artifact.artifact_id else False
        if not known and len(self._artifacts) >= MAX_SHOWN:
            self._left_out += 1  # a result with thousands of artifacts: the tree stays small
            return
        index, _new = merge(self._artifacts, artifact, self._positions)
        if index < self.model.rowCount():  # in the tree already: shown anew
            row = self.model.item(index, 0)
            row.removeRows(0, row.rowCount())
            self._fill(index, row)
        # A new one gets its row from _add_rows.

    def _add_rows(self) -> None:
        first = self.model.rowCount()
        last = min(len(self._artifacts), first + ROWS_PER_TURN)
        for index in range(first, last):
            row = QStandardItem()
            self.model.appendRow([row, QStandardItem(), QStandardItem()])
            self._fill(index, row)
        if first == 0 and last > 0:
            for column in range(self.model.columnCount()):
                self.tree.resizeColumnToContents(column)
        if last < len(self._artifacts) and not self._adding:
            self._adding = True
            QTimer.singleShot(0, self._add_more_rows)

    def _add_more_rows(self) -> None:
        self._adding = False
        self._add_rows()  # after clear() there is nothing left to add

    def _fill(self, index: int, row: QStandardItem) -> None:
        artifact = self._artifacts[index]
        # Names, media types and ids are the agent's: shown with control characters escaped.
        self.model.item(index, 1).setText(shown(artifact.source, multiline=False))
        title = artifact.title() + (" (appended)" if artifact.append else "")
        row.setText(shown(title, multiline=False))
        row.setToolTip(
            plain_tip(f"{artifact.artifact_id or 'no artifactId'} — from {artifact.source}")
        )
        for number, part in enumerate(artifact.parts):
            label = QStandardItem(shown(_part_title(part, number), multiline=False))
            label.setData(part, _PART_ROLE)
            size = part.size if part.size is not None else len(part.text.encode())
            kind = QStandardItem(shown(content_type(part), multiline=False))
            row.appendRow([label, kind, QStandardItem(format_size(size))])
        self.tree.expand(row.index())

    # --- the selected part ----------------------------------------------------------------

    def selected_part(self) -> PartView | None:
        """The part of the current row (None on an artifact row or nothing)."""
        index = self.tree.currentIndex()
        if not index.isValid():
            return None
        value = index.siblingAtColumn(0).data(_PART_ROLE)
        return value if isinstance(value, PartView) else None

    def _on_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._show_part(self.selected_part())

    def _show_part(self, part: PartView | None) -> None:
        self.save_status.clear()
        if part is None:
            self.stack.setCurrentWidget(self._blank)
            text = "Select a part" if self._artifacts else "No artifacts in this result"
            if self._left_out:
                text += f" ({self._left_out:,} more artifacts not listed: see Pretty or Tree)"
            self.info_label.setText(text)
            self.save_button.setEnabled(False)
            return
        self.info_label.setText(_describe(part))
        if part.kind == TEXT:
            self.text_view.setPlainText(shown(part.text))  # Save as… writes the exact text
            self.stack.setCurrentWidget(self.text_view)
        elif part.kind == DATA:
            self.data_tree.set_value(part.data)
            self.stack.setCurrentWidget(self.data_tree)
        elif part.is_image and part.raw is not None and self._preview(part.raw):
            self.stack.setCurrentWidget(self._image_page)
        elif part.kind == FILE:
            self.file_label.setText(_file_card(part))
            self.stack.setCurrentWidget(self.file_label)
        else:
            self.stack.setCurrentWidget(self._blank)
        self.save_button.setEnabled(_content(part) is not None)
        self.save_button.setToolTip(
            "Write the selected part's content to a file (never opened)"
            if _content(part) is not None
            else "This part refers to a URI; the workbench does not fetch it"
        )

    def _preview(self, raw: bytes) -> bool:
        image = QImage.fromData(raw)
        if image.isNull():
            self.info_label.setText(self.info_label.text() + " — not a readable image")
            return False
        pixmap = QPixmap.fromImage(image)
        longest = max(pixmap.width(), pixmap.height())
        if longest > _PREVIEW_MAX:
            pixmap = pixmap.scaled(
                _PREVIEW_MAX, _PREVIEW_MAX, Qt.AspectRatioMode.KeepAspectRatio,
                Qt.TransformationMode.SmoothTransformation,
            )  # fmt: skip
        elif longest < _PREVIEW_MIN:  # an icon-sized image, enlarged with its pixels kept
            factor = _PREVIEW_MIN // max(longest, 1)
            pixmap = pixmap.scaled(pixmap.width() * factor, pixmap.height() * factor)
            self.info_label.setText(
                f"{self.info_label.text()} · {image.width()}×{image.height()} px, shown ×{factor}"
            )
        self.image_label.setPixmap(pixmap)
        return True

    # --- saving -------------------------------------------------------------------------

    @property
    def saving(self) -> bool:
        """True while a part is being written."""
        return self._saving.running

    def save_selected(self) -> None:
        """*Save as…*: ask for a file name, then write the part's bytes off the GUI thread."""
        part = self.selected_part()
        content = _content(part) if part is not None else None
        if part is None or content is None:
            return
        row = self.tree.currentIndex().row()
        path, _filter = QFileDialog.getSaveFileName(
            self, "Save part as", suggested_name(part, row + 1)
        )
        if path:
            self._saving.start(self._write(Path(path), content))

    async def _write(self, path: Path, content: bytes) -> None:
        self.save_button.setEnabled(False)
        try:
            await asyncio.to_thread(atomic_write_bytes, path, content)
        except OSError as exc:
            self.save_status.setText(f"Not saved: {exc.strerror or exc}")
            theme.style(self.save_status, "text-error")
        else:
            self.save_status.setText(f"Saved {format_size(len(content))} to {path}")
            self.save_status.setToolTip(plain_tip(str(path)))
            theme.style(self.save_status, "plain")
        finally:
            self.save_button.setEnabled(True)

    async def shutdown(self) -> None:
        """Wait for a save in progress (the tab closes)."""
        await self._saving.shutdown()


def _content(part: PartView) -> bytes | None:
    if part.kind == TEXT:
        return part.text.encode("utf-8")
    if part.kind == DATA:
        return (json.dumps(part.data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    if part.kind == FILE:
        return part.raw
    return None


def _file_card(part: PartView) -> str:
    lines = [part.name or "(no file name)", content_type(part)]
    if part.size is not None:
        lines.append(format_size(part.size))
    if part.uri:
        lines.append(f"by reference: {part.uri}\nThe workbench does not fetch it.")
    else:
        lines.append("Never opened or run here: Save as… writes its bytes to a file.")
    return "\n".join(lines)


def _part_title(part: PartView, index: int) -> str:
    if part.kind == TEXT:
        first = part.text.splitlines()[0] if part.text else ""
        return f"text: {first[:60]}"
    if part.kind == FILE:
        return f"file: {part.name or part.uri or f'part {index + 1}'}"
    return part.kind


def _describe(part: PartView) -> str:
    pieces = [part.kind, content_type(part)]
    if part.name:
        pieces.insert(1, part.name)
    if part.size is not None:
        pieces.append(format_size(part.size))
    if part.uri:
        pieces.append(f"at {part.uri} (not fetched)")
    if part.problem:
        pieces.append(part.problem)
    return " · ".join(pieces)
