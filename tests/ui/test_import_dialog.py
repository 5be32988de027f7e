"""File → Import… as a person uses it: paste curl lines or pick a file, read the preview,
import, open a request, save the new spec — credentials never in the file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QLabel, QLineEdit, QPlainTextEdit, QPushButton, QTableView

from app.spec.document import load
from app.ui.collections.import_dialog import ImportDialog
from app.ui.shell.main_window import MainWindow
from tests.helpers.screenshots import SHOTS

pytestmark = pytest.mark.gui
DATA = Path(__file__).parents[1] / "imports" / "data"
CURL = (
    "curl -X POST http://127.0.0.1:8000/ -H 'Content-Type: application/json' \\\n"
    "  -H 'Authorization: Bearer gui-secret-9' \\\n"
    '  -d \'{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":'
    '"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"12 30"}]}}}\'\n'
    "curl http://127.0.0.1:8000/rest/tasks/t-1?historyLength=2 -H 'A2A-Version: 1.0'\n"
    "curl https://example.com/robots.txt\n"
)


def open_dialog(window: MainWindow) -> ImportDialog:
    action = window.findChild(QAction, "importAction")
    assert action is not None and action.text().replace("&", "") == "Import…"
    action.trigger()
    dialog = window.findChild(ImportDialog, "importDialog")
    assert dialog is not None and dialog.isVisible()
    return dialog


def child(dialog: ImportDialog, kind: type, name: str) -> Any:
    found = dialog.findChild(kind, name)
    assert found is not None, name
    return found


def table_rows(dialog: ImportDialog) -> list[list[str]]:
    model = child(dialog, QTableView, "importPreviewTable").model()
    return [
        [str(model.data(model.index(r, c))) for c in range(model.columnCount())]
        for r in range(model.rowCount())
    ]


def shot(widget: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    widget.grab().save(str(SHOTS / f"imports-{name}.png"))


def test_paste_curl_preview_import_and_save(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], tmp_path: Path
) -> None:
    dialog = open_dialog(window)
    edit = child(dialog, QPlainTextEdit, "importCurlEdit")
    QGuiApplication.clipboard().setText(CURL)
    edit.setFocus()
    qtbot.keySequence(edit, QKeySequence.StandardKey.Paste)  # a person pastes the lines
    assert edit.toPlainText() == CURL
    import_button = child(dialog, QPushButton, "importButton")
    assert not import_button.isEnabled()
    qtbot.mouseClick(child(dialog, QPushButton, "importPreviewButton"), Qt.MouseButton.LeftButton)
    wait_until(lambda: len(table_rows(dialog)) == 3)
    rows = table_rows(dialog)
    assert [r[:4] for r in rows] == [
        ["message/send", "yes", "0.3", "JSONRPC"],
        ["GetTask", "yes", "1.0", "HTTP+JSON"],
        ["GET /robots.txt", "skipped", "—", "—"],
    ]
    assert "method message/send is 0.3" in rows[0][4]
    assert "credential moved to" in rows[0][5]
    summary = child(dialog, QLabel, "importSummaryLabel").text()
    assert "2 A2A request(s) to import, 1 skipped" in summary
    assert "secret store" in summary
    assert import_button.isEnabled()
    table = child(dialog, QTableView, "importPreviewTable")
    table.selectRow(0)  # the row in full below the table
    details = child(dialog, QLabel, "importDetailsLabel").text()
    assert "category/action, the 0.3 name" in details and "{{token.127.0.0.1-8000}}" in details
    dialog.resize(1000, 600)
    shot(dialog, "curl-preview")

    qtbot.mouseClick(import_button, Qt.MouseButton.LeftButton)
    wait_until(lambda: not dialog.isVisible())
    dock = window.spec.dock
    assert dock.model.index(0, 0).data() == "Imported from curl *"  # a new, unsaved collection
    assert dock.operation_count() == 2
    shot(window, "window-after-import")
    store = window.spec.store
    secret = next(iter(window.spec.document.operations())).request.auth.get("token")  # type: ignore[union-attr]
    assert secret == "{{token.127.0.0.1-8000}}"
    assert store.get("token.127.0.0.1-8000") in (None, "gui-secret-9")  # keyring or file

    # Open a request from the tree and save: the whole imported document is written.
    ops = window.spec.document.operations()  # type: ignore[union-attr]
    tab = window.spec.open_operation(ops[0])
    target = tmp_path / "imported.a2a.yaml"
    assert window.spec.save_tab(tab, target) == []
    text = target.read_text()
    assert "gui-secret-9" not in text
    assert [op.request.method for op in load(target).operations()] == ["message/send", "GetTask"]


def test_file_kind_is_detected_off_the_gui_thread(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    dialog = open_dialog(window)
    dialog.sources.setCurrentIndex(1)
    path_edit = child(dialog, QLineEdit, "importFileEdit")
    path_edit.setText(str(DATA / "a2a-agent.postman_collection.json"))
    qtbot.keyClick(path_edit, Qt.Key.Key_Return)
    kind = child(dialog, QLabel, "importKindLabel")
    wait_until(lambda: kind.text().startswith("Detected"))
    assert kind.text() == "Detected: Postman Collection v2.1"
    rows = table_rows(dialog)
    assert [r[1] for r in rows] == ["yes", "yes", "yes", "yes", "skipped", "skipped"]
    shot(dialog, "postman-preview")
    # Another file, picked in the file dialog.
    picker = dialog.choose_file()
    assert picker.objectName() == "importFileDialog" and picker.isVisible()
    picker.fileSelected.emit(str(DATA / "chrome-export.har"))
    picker.reject()
    wait_until(lambda: kind.text() == "Detected: HAR 1.2")
    assert path_edit.text().endswith("chrome-export.har")
    assert [r[1] for r in table_rows(dialog)] == ["skipped", "yes", "yes", "skipped"]
    dialog.reject()


def test_bad_input_says_why_and_imports_nothing(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    dialog = open_dialog(window)
    child(dialog, QPlainTextEdit, "importCurlEdit").setPlainText("curl -d '{ http://x/")
    qtbot.mouseClick(child(dialog, QPushButton, "importPreviewButton"), Qt.MouseButton.LeftButton)
    summary = child(dialog, QLabel, "importSummaryLabel")
    wait_until(lambda: "Cannot import" in summary.text())
    assert "quotes" in summary.text()
    assert not child(dialog, QPushButton, "importButton").isEnabled()
    assert window.spec.document is None or window.spec.document.path is not None
    dialog.reject()
