"""Attachments and the Artifacts tab as a person uses them, against the demo agent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QTimer, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QTreeView,
)

from app.protocol.events import Outcome
from app.protocol.methods.parts import MAX_INLINE_BYTES, format_size
from app.ui.card.card_panel import CardPanel
from app.ui.request.attachments_panel import AttachmentsPanel, DataPartDialog
from app.ui.request.request_tab import RequestTab
from app.ui.response.artifacts_view import ArtifactsView
from app.ui.shell.main_window import MainWindow
from tests.helpers.screenshots import SHOTS
from tests.protocol.test_parts import PAYLOAD, tiny_png
from tests.ui.test_request_tab import find, new_tab, send_and_wait, type_into

pytestmark = pytest.mark.gui


def click(qtbot: Any, widget: Any, name: str) -> None:
    button = find(widget, QPushButton, name)
    assert button.isEnabled(), name
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def attach(qtbot: Any, tab: RequestTab, monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    monkeypatch.setattr(
        "PySide6.QtWidgets.QFileDialog.getOpenFileName", lambda *a, **k: (str(path), "")
    )
    click(qtbot, tab, "attachFileButton")


def add_data_part(qtbot: Any, tab: RequestTab, text: str) -> None:
    """*Add data part…*: type into the dialog's JSON editor (a first wrong try), then OK."""
    seen: list[str] = []

    def fill() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, DataPartDialog)
        editor = dialog.findChild(QPlainTextEdit, "dataPartEditor")
        ok = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok)
        editor.setPlainText("[1, 2]")
        ok.click()  # refused: not an object
        seen.append(dialog.findChild(QLabel, "dataPartErrorLabel").text())
        editor.setPlainText(text)
        ok.click()

    QTimer.singleShot(0, fill)
    click(qtbot, tab, "addDataPartButton")
    assert seen == ["A data part must be a JSON object"]


def select_part(view: ArtifactsView, artifact: int, part: int) -> None:
    tree = view.findChild(QTreeView, "artifactsTree")
    parent = view.model.index(artifact, 0)
    tree.setCurrentIndex(view.model.index(part, 0, parent))


@pytest.mark.parametrize("version", ["1.0", "0.3"])
def test_attached_parts_are_echoed_and_saved_byte_identical(
    qtbot: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    sdk_peer: dict[str, Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    version: str,
) -> None:
    png, blob = tmp_path / "pixel.png", tmp_path / "blob.bin"
    image = tiny_png(120, 80)
    png.write_bytes(image)
    blob.write_bytes(PAYLOAD)
    tab = new_tab(qtbot, window)
    combo = find(tab, QComboBox, "versionCombo")
    combo.setCurrentIndex(combo.findText(version))
    type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), sdk_peer["jsonrpc_url"])
    # The card says the agent takes text/plain only: a PNG is warned about, not refused.
    cards = tab.findChild(CardPanel, "cardView")
    tab.result_tabs.setCurrentWidget(cards)
    click(qtbot, cards, "fetchCardButton")
    wait_until(lambda: not cards.busy, timeout=15)
    type_into(qtbot, find(tab, QLineEdit, "messageTextEdit"), "echo parts")

    attach(qtbot, tab, monkeypatch, png)
    attach(qtbot, tab, monkeypatch, blob)
    add_data_part(qtbot, tab, '{"answer": 42}')
    warning = find(tab, QLabel, "attachmentsWarningLabel")
    assert warning.isVisible()
    assert warning.text() == (
        "Not among the card's input modes (text/plain): image/png, application/octet-stream,"
        " application/json — the agent may refuse the message"
    )
    preview = find(tab, QPlainTextEdit, "bodyPreview").toPlainText()
    if version == "1.0":
        assert '"mediaType": "image/png"' in preview and '"filename": "pixel.png"' in preview
    else:
        assert '"kind": "file"' in preview and '"mimeType": "image/png"' in preview
    # The untouched draft followed the template: no Replace step.
    assert '"answer": 42' in find(tab, QPlainTextEdit, "bodyEditor").toPlainText()

    view = send_and_wait(qtbot, tab, wait_until)
    assert view.outcome is Outcome.OK

    artifacts = tab.findChild(ArtifactsView, "artifactsView")
    tabs = tab.result_tabs
    assert tabs.tabText(tabs.indexOf(artifacts)) == "Artifacts (1)"
    tabs.setCurrentWidget(artifacts)
    info = find(artifacts, QLabel, "artifactPartInfoLabel")
    # The first part is selected: the image, previewed.
    assert info.text() == f"file · pixel.png · image/png · {format_size(len(image))}"
    image_label = find(artifacts, QLabel, "artifactImageLabel")
    assert image_label.isVisible() and image_label.pixmap().size().toTuple() == (120, 80)
    select_part(artifacts, 0, 2)
    assert info.text().startswith("data · application/json")
    if SHOTS.is_dir() and version == "1.0":
        select_part(artifacts, 0, 0)
        artifacts.grab().save(str(SHOTS / "files-artifacts-image.png"))
        select_part(artifacts, 0, 2)
        artifacts.grab().save(str(SHOTS / "files-artifacts-data.png"))
        tabs.setCurrentIndex(tabs.indexOf(artifacts))
        window.grab().save(str(SHOTS / "files-window.png"))

    select_part(artifacts, 0, 1)
    assert info.text() == "file · blob.bin · application/octet-stream · 768 B"
    assert "Never opened or run here" in find(artifacts, QLabel, "artifactFileLabel").text()
    target = tmp_path / "out" / "saved.bin"
    target.parent.mkdir()
    monkeypatch.setattr(
        "PySide6.QtWidgets.QFileDialog.getSaveFileName", lambda *a, **k: (str(target), "")
    )
    click(qtbot, artifacts, "saveArtifactButton")
    wait_until(lambda: not artifacts.saving, timeout=10)
    assert target.read_bytes() == PAYLOAD
    assert "Saved 768 B" in find(artifacts, QLabel, "artifactSaveStatusLabel").text()
    assert not any(p.name.endswith(".tmp") for p in target.parent.iterdir())
    if SHOTS.is_dir() and version == "1.0":
        artifacts.grab().save(str(SHOTS / "files-artifacts-file.png"))


@pytest.mark.parametrize("peer_name", ["sdk_peer", "js_peer"])
def test_a_stream_artifact_and_a_data_reply_show_up(
    qtbot: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    request: pytest.FixtureRequest,
    peer_name: str,
) -> None:
    peer = request.getfixturevalue(peer_name)
    tab = new_tab(qtbot, window)
    type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), peer["jsonrpc_url"])
    methods = find(tab, QComboBox, "methodCombo")
    methods.setCurrentIndex(methods.findData("SendStreamingMessage"))
    type_into(qtbot, find(tab, QLineEdit, "messageTextEdit"), "stream 2 10")
    send_and_wait(qtbot, tab, wait_until)  # the untouched draft followed the method and text
    artifacts = tab.findChild(ArtifactsView, "artifactsView")
    wait_until(lambda: len(artifacts.artifacts) == 1)
    (artifact,) = artifacts.artifacts
    assert artifact.name == "result" and artifact.source.startswith("stream item")
    assert artifacts.text_view.toPlainText() == "done after 2 steps"

    # A plain Message reply: its parts are listed too (the demo's sum has a data part).
    methods.setCurrentIndex(methods.findData("SendMessage"))
    type_into(qtbot, find(tab, QLineEdit, "messageTextEdit"), "12 30")
    send_and_wait(qtbot, tab, wait_until)  # the untouched draft followed the method and text
    (message,) = artifacts.artifacts
    assert message.title() == "message"
    assert [p.kind for p in message.parts] == ["text", "data"]
    assert message.parts[1].data == {"total": 42}  # 42.0 from Python, 42 from JS


def test_dropped_files_a_too_big_file_and_remove(
    qtbot: Any, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tab = new_tab(qtbot, window)
    panel = tab.findChild(AttachmentsPanel, "attachmentsPanel")
    notes = tmp_path / "notes.txt"
    notes.write_text("hello\n")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(notes))])
    point = QPointF(panel.rect().center())
    buttons, mods = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    enter = QDragEnterEvent(point.toPoint(), Qt.DropAction.CopyAction, mime, buttons, mods)
    QApplication.sendEvent(panel, enter)
    assert enter.isAccepted()
    drop = QDropEvent(point, Qt.DropAction.CopyAction, mime, buttons, mods)
    QApplication.sendEvent(panel, drop)
    attachments_list = find(tab, QListWidget, "attachmentsList")
    assert [attachments_list.item(i).text() for i in range(attachments_list.count())] == [
        "notes.txt — text/plain, 6 B inline"
    ]
    assert '"mediaType": "text/plain"' in find(tab, QPlainTextEdit, "bodyPreview").toPlainText()

    big = tmp_path / "big.iso"
    with big.open("wb") as fh:
        fh.truncate(MAX_INLINE_BYTES + 1)  # sparse: nothing is written
    attach(qtbot, tab, monkeypatch, big)
    warning = find(tab, QLabel, "attachmentsWarningLabel")
    assert "files over 10.0 MiB are not sent inline — attach it by URI instead" in warning.text()
    assert attachments_list.count() == 1

    monkeypatch.setattr(
        "PySide6.QtWidgets.QInputDialog.getText",
        lambda *a, **k: ("https://example.invalid/manual.pdf", True),
    )
    click(qtbot, tab, "attachUriButton")
    assert attachments_list.item(1).text() == (
        "manual.pdf — application/pdf, https://example.invalid/manual.pdf"
    )
    attachments_list.setCurrentRow(0)
    click(qtbot, tab, "removeAttachmentButton")
    assert [a.name for a in panel.attachments()] == ["manual.pdf"]
    assert '"url": "https://example.invalid/manual.pdf"' in (
        find(tab, QPlainTextEdit, "bodyPreview").toPlainText()
    )
