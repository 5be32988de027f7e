"""The request tab's Assertions page as a person uses it: type rows, send, read pass/fail."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableView,
)

from app.spec.assertions import Assertion, AssertionOp
from app.ui.request.assertions_panel import AssertionsPanel
from app.ui.request.request_tab import RequestTab
from app.ui.shell.main_window import MainWindow
from app.ui.shell.theme import brushes
from tests.helpers.screenshots import SHOTS
from tests.ui.test_request_tab import find, send_and_wait, type_into

pytestmark = pytest.mark.gui


def editor(table: QTableView, kind: type[Any] = QLineEdit) -> Any:
    """The cell editor open in ``table`` (closed ones linger until deleted)."""
    shown = [w for w in table.viewport().findChildren(kind) if w.isVisible()]
    assert len(shown) == 1, shown
    return shown[0]


def type_cell(qtbot: Any, table: QTableView, text: str) -> None:
    """Type into the open editor (or pick ``text``, for the Op choice) and press Enter."""
    if table.currentIndex().column() == 1 and table.objectName() == "assertionsTable":
        combo = editor(table, QComboBox)
        combo.setCurrentText(text)
        qtbot.keyClick(combo, Qt.Key.Key_Return)
        QApplication.processEvents()  # the delegate commits on a queued call
        return
    edit = editor(table)
    edit.selectAll()
    qtbot.keyClicks(edit, text)
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    QApplication.processEvents()


def edit_cell(qtbot: Any, table: QTableView, row: int, column: int, text: str) -> None:
    """Select a cell, press F2 (edit), type ``text``, press Enter."""
    table.setFocus()
    table.setCurrentIndex(table.model().index(row, column))
    qtbot.keyClick(table, Qt.Key.Key_F2)
    type_cell(qtbot, table, text)


def add_assertion(qtbot: Any, panel: AssertionsPanel, path: str, op: str, value: str) -> None:
    qtbot.mouseClick(find(panel, QPushButton, "addAssertionButton"), Qt.MouseButton.LeftButton)
    table = find(panel, QTableView, "assertionsTable")
    row = table.model().rowCount() - 1
    type_cell(qtbot, table, path)  # Add opens the new row's path for typing
    edit_cell(qtbot, table, row, 1, op)
    if value:
        edit_cell(qtbot, table, row, 2, value)


def ask_tab(qtbot: Any, window: MainWindow, peer: dict[str, Any]) -> RequestTab:
    tab = window.new_a2a_tab(peer["jsonrpc_url"])
    type_into(qtbot, find(tab, QLineEdit, "messageTextEdit"), "ask")
    qtbot.mouseClick(find(tab, QPushButton, "generateBodyButton"), Qt.MouseButton.LeftButton)
    qtbot.mouseClick(find(tab, QPushButton, "replaceBodyButton"), Qt.MouseButton.LeftButton)
    return tab


def result_texts(panel: AssertionsPanel) -> list[str]:
    model = panel.model
    return [str(model.index(r, 3).data()) for r in range(model.rowCount())]


def test_assertions_show_pass_and_fail_after_a_send_and_captures_feed_later_requests(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = ask_tab(qtbot, window, sdk_peer)
    panel = find(tab, AssertionsPanel, "assertionsPanel")
    tab.editor_tabs.setCurrentWidget(panel)
    add_assertion(qtbot, panel, "finalState", "equals", "input-required")
    add_assertion(qtbot, panel, "/result/task/status/state", "equals", "TASK_STATE_COMPLETED")
    add_assertion(qtbot, panel, "$.result.task.history[*].role", "contains", "ROLE_USER")
    assert panel.assertions() == (
        Assertion("finalState", AssertionOp.EQUALS, "input-required"),
        Assertion("/result/task/status/state", AssertionOp.EQUALS, "TASK_STATE_COMPLETED"),
        Assertion("$.result.task.history[*].role", AssertionOp.CONTAINS, "ROLE_USER"),
    )
    assert tab.dirty
    captures = find(panel, QTableView, "capturesTable")
    qtbot.mouseClick(find(panel, QPushButton, "addCaptureButton"), Qt.MouseButton.LeftButton)
    type_cell(qtbot, captures, "taskId")
    edit_cell(qtbot, captures, 0, 1, "/result/task/id")
    assert panel.captures() == (("taskId", "/result/task/id"),)

    send_and_wait(qtbot, tab, wait_until)

    texts = result_texts(panel)
    assert texts[0] == "✓ pass" and texts[2] == "✓ pass"
    assert texts[1] == '✗ expected equals "TASK_STATE_COMPLETED", got "TASK_STATE_INPUT_REQUIRED"'
    colour = panel.model.index(0, 3).data(Qt.ItemDataRole.ForegroundRole)
    assert colour == brushes().ok_text
    assert panel.model.index(1, 3).data(Qt.ItemDataRole.ForegroundRole) == brushes().error_text
    assert find(panel, QLabel, "assertionsSummary").text() == "2 of 3 passed, 1 failed"
    assert tab.editor_tabs.tabText(tab.editor_tabs.indexOf(panel)) == "Assertions (1 ✗)"
    task_id = str(panel.captures_model.index(0, 2).data())
    assert len(task_id) == 36
    window.resize(1500, 800)
    tab.findChild(QSplitter, "requestSplitter").setSizes([800, 700])
    qtbot.wait(50)
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.grab().save(str(SHOTS / "assert-assertions-page.png"))

    # A request sent after it in the session resolves {{taskId}} to the captured value.
    get = window.new_a2a_tab(sdk_peer["jsonrpc_url"])
    get.method_combo.setCurrentIndex(get.method_combo.findData("GetTask"))
    get.body_editor.setPlainText(
        '{"jsonrpc": "2.0", "id": 5, "method": "GetTask", "params": {"id": "{{taskId}}"}}'
    )
    assert get.variables is not None
    assert get.variables.origin("taskId").source == "a capture of an earlier request"
    view = send_and_wait(qtbot, get, wait_until)
    assert f'"id": "{task_id}"' in view.pretty_view.toPlainText()
    assert "TASK_STATE_INPUT_REQUIRED" in view.pretty_view.toPlainText()


def test_assertions_are_saved_into_the_spec_and_reopen_intact(
    qtbot: Any, window: MainWindow, tmp_path: Path
) -> None:
    tab = window.new_a2a_tab("http://127.0.0.1:9/")
    panel = tab.assertions_panel
    tab.editor_tabs.setCurrentWidget(panel)
    add_assertion(qtbot, panel, "/result/task/id", "matches", "^[0-9a-f-]+$")
    add_assertion(qtbot, panel, "itemCount", "lessThan", "10")
    add_assertion(qtbot, panel, "/error", "exists", "false")
    add_assertion(qtbot, panel, "/id", "equals", '"1"')  # the string "1", not the number
    panel.captures_model.add_row("contextId", "/result/task/contextId")
    path = tmp_path / "checks.a2a.yaml"
    assert window.spec.save_tab(tab, path) == []
    text = path.read_text(encoding="utf-8")
    assert "itemCount:" in text and "contextId: /result/task/contextId" in text
    doc = window.spec.open_spec(path)
    assert doc is not None
    tab.close_later()
    window.tabs.removeTab(window.tabs.indexOf(tab))
    reopened = window.spec.open_operation(doc.operations()[0])
    assert reopened.assertions_panel.assertions() == (
        Assertion("/result/task/id", AssertionOp.MATCHES, "^[0-9a-f-]+$"),
        Assertion("itemCount", AssertionOp.LESS_THAN, 10),
        Assertion("/error", AssertionOp.EXISTS, False),
        Assertion("/id", AssertionOp.EQUALS, "1"),
    )
    assert reopened.assertions_panel.captures() == (("contextId", "/result/task/contextId"),)
    assert not reopened.dirty
    assert str(reopened.assertions_panel.model.index(3, 2).data()) == '"1"'
    # A capture named what no {{variable}} can be is refused as typed.
    model = reopened.assertions_panel.captures_model
    assert not model.setData(model.index(0, 0), "context id")


def test_stream_level_assertions_after_a_streamed_send(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = window.new_a2a_tab(sdk_peer["jsonrpc_url"])
    tab.method_combo.setCurrentIndex(tab.method_combo.findData("SendStreamingMessage"))
    type_into(qtbot, find(tab, QLineEdit, "messageTextEdit"), "stream 3 10")
    qtbot.mouseClick(find(tab, QPushButton, "generateBodyButton"), Qt.MouseButton.LeftButton)
    qtbot.mouseClick(find(tab, QPushButton, "replaceBodyButton"), Qt.MouseButton.LeftButton)
    panel = tab.assertions_panel
    panel.model.add_row("finalState", AssertionOp.EQUALS, "completed")
    panel.model.add_row("itemCount", AssertionOp.LESS_THAN, "3")
    panel.model.add_row("/result/statusUpdate/taskId", AssertionOp.EXISTS, "")
    qtbot.mouseClick(find(tab, QPushButton, "sendButton"), Qt.MouseButton.LeftButton)
    wait_until(lambda: not tab.busy and panel.model.results()[0] is not None, timeout=20)
    texts = result_texts(panel)
    assert texts[0] == "✓ pass" and texts[2] == "✓ pass"
    assert texts[1].startswith("✗ expected lessThan 3, got ")
    assert find(panel, QLabel, "assertionsSummary").text() == "2 of 3 passed, 1 failed"
