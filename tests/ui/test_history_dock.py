"""The History dock as a person uses it: send, see the rows, filter, open, compare, delete."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QComboBox, QLineEdit, QMessageBox, QPushButton, QTableView

from app.history.store import HistoryFilter, HistoryStore, HistoryUnavailable
from app.paths import history_path
from app.protocol.events import ExchangeEnd, Outcome, RequestSent
from app.protocol.request import A2ARequest
from app.ui.history.history_dock import HistoryDock, HistoryPanel
from app.ui.history.history_model import HistoryModel
from app.ui.response.response_view import ResponseView
from app.ui.shell.main_window import MainWindow
from app.ui.shell.widgets import CodeView
from tests.ui.test_request_tab import find, new_tab, send_and_wait, type_into

pytestmark = pytest.mark.gui

SHOTS = Path("/tmp/shots-dock")


def open_dock(window: MainWindow) -> HistoryPanel:
    action = window.findChild(QAction, "historyDockAction")
    assert action is not None
    view_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    assert action in view_menu.actions()
    if not action.isChecked():
        action.trigger()
    dock = window.findChild(HistoryDock, "historyDock")
    assert dock is not None and dock.isVisible()
    return dock.panel


def wait_rows(wait_until: Callable[..., None], panel: HistoryPanel, n: int) -> QTableView:
    view = panel.findChild(QTableView, "historyView")
    assert view is not None
    wait_until(lambda: view.model().rowCount() == n, timeout=20)
    return view


def cell(view: QTableView, row: int, column: int) -> str:
    return str(view.model().index(row, column).data())


def select_rows(qtbot: Any, view: QTableView, *rows: int) -> None:
    view.clearSelection()
    flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
    for row in rows:
        view.selectionModel().select(view.model().index(row, 0), flags)


def click(qtbot: Any, panel: HistoryPanel, name: str) -> None:
    button = panel.findChild(QPushButton, name)
    assert button is not None and button.isEnabled(), name
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def test_exchanges_sent_in_the_gui_are_listed_opened_compared_deleted_and_kept(
    qtbot: Any,
    qloop: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    sdk_peer: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    SHOTS.mkdir(exist_ok=True)
    panel = open_dock(window)
    wait_until(lambda: panel.model.store is not None)

    tab = new_tab(qtbot, window)
    type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), sdk_peer["jsonrpc_url"])
    type_into(qtbot, find(tab, QLineEdit, "messageTextEdit"), "12 30")
    qtbot.mouseClick(find(tab, QPushButton, "generateBodyButton"), Qt.MouseButton.LeftButton)
    qtbot.mouseClick(find(tab, QPushButton, "replaceBodyButton"), Qt.MouseButton.LeftButton)
    assert send_and_wait(qtbot, tab, wait_until).outcome is Outcome.OK
    view = wait_rows(wait_until, panel, 1)

    find(tab, QComboBox, "methodCombo").setCurrentText("SendStreamingMessage")
    qtbot.mouseClick(find(tab, QPushButton, "generateBodyButton"), Qt.MouseButton.LeftButton)
    qtbot.mouseClick(find(tab, QPushButton, "replaceBodyButton"), Qt.MouseButton.LeftButton)
    send_and_wait(qtbot, tab, wait_until)
    wait_rows(wait_until, panel, 2)

    # Newest first: the stream, then the unary call.
    assert cell(view, 0, 1) == "SendStreamingMessage"
    assert cell(view, 1, 1) == "SendMessage"
    assert cell(view, 1, 2) == "JSONRPC" and cell(view, 1, 3) == "1.0"
    assert cell(view, 1, 4) == sdk_peer["jsonrpc_url"]
    assert cell(view, 1, 5) == "ok" and cell(view, 1, 6) == "200"
    assert "item" in cell(view, 0, 8)

    # Filter by text, then by outcome.
    edit = panel.findChild(QLineEdit, "historyFilterEdit")
    qtbot.keyClicks(edit, "Streaming")
    assert view.model().rowCount() == 1 and cell(view, 0, 1) == "SendStreamingMessage"
    assert panel.count_label.text() == "1 entry"
    panel.resize(1200, 420)
    panel.grab().save(str(SHOTS / "history-filtered.png"))
    edit.clear()
    assert view.model().rowCount() == 2
    outcome = panel.findChild(QComboBox, "historyOutcomeCombo")
    outcome.setCurrentText("transport_error")
    assert view.model().rowCount() == 0
    outcome.setCurrentText("Any")
    method = panel.findChild(QComboBox, "historyMethodCombo")
    method.setCurrentText("SendMessage")
    assert view.model().rowCount() == 1
    method.setCurrentText("Any")

    # Open the unary entry: the same response view shows it, read-only.
    select_rows(qtbot, view, 1)
    click(qtbot, panel, "historyOpenButton")
    shown = panel.findChild(ResponseView, "historyResponseView")
    wait_until(lambda: shown.outcome is Outcome.OK)
    assert "Sum: 42" in shown.pretty_view.toPlainText()
    assert shown.pretty_view.isReadOnly()
    # Open the stream: its items are in the timeline.
    select_rows(qtbot, view, 0)
    click(qtbot, panel, "historyOpenButton")
    wait_until(lambda: panel.viewer.timeline.event_count > 0)

    # Compare the two.
    select_rows(qtbot, view, 0, 1)
    click(qtbot, panel, "historyCompareButton")
    wait_until(lambda: panel.compare_dialog is not None and panel.compare_dialog.isVisible())
    compare = panel.compare_dialog.findChild(CodeView, "historyCompareView")
    text = compare.toPlainText()
    assert "=== Response body ===" in text and "=== Stream items ===" in text
    assert "Sum: 42" in text and "# item 1" in text
    panel.compare_dialog.grab().save(str(SHOTS / "history-compare.png"))

    # Open as new request: the tab that sent it comes back.
    select_rows(qtbot, view, 1)
    click(qtbot, panel, "historyOpenRequestButton")
    restored = window.current_tab()
    assert restored is not None and restored is not tab
    assert find(restored, QLineEdit, "endpointEdit").text() == sdk_peer["jsonrpc_url"]
    assert find(restored, QComboBox, "methodCombo").currentText() == "SendMessage"

    # Export all as HAR, then the selection as JSON lines (file dialog answered).
    har = SHOTS.parent / f"dock-{os.getpid()}.har"
    monkeypatch.setattr(
        "PySide6.QtWidgets.QFileDialog.getSaveFileName", lambda *a, **k: (str(har), "")
    )
    view.clearSelection()
    click(qtbot, panel, "historyExportButton")
    wait_until(lambda: "Exported" in window.statusBar().currentMessage())
    assert len(json.loads(har.read_text())["log"]["entries"]) == 2
    har.unlink()
    jsonl = har.with_suffix(".jsonl")
    monkeypatch.setattr(
        "PySide6.QtWidgets.QFileDialog.getSaveFileName", lambda *a, **k: (str(jsonl), "")
    )
    select_rows(qtbot, view, 0)
    (chosen,) = panel.selected_ids()
    click(qtbot, panel, "historyExportButton")
    wait_until(lambda: "Exported 1 entries" in window.statusBar().currentMessage())
    records = [json.loads(text) for text in jsonl.read_text().splitlines()]
    assert [records[0]["event"], records[-1]["event"]] == ["request", "end"]
    assert {r["exchange"] for r in records} == {chosen}
    jsonl.unlink()

    # Delete one; restart keeps the other.
    select_rows(qtbot, view, 0)
    click(qtbot, panel, "historyDeleteButton")
    assert view.model().rowCount() == 1 and cell(view, 0, 1) == "SendMessage"
    qloop.run_until_complete(window.shutdown())

    again = MainWindow()
    again.show()
    try:
        panel2 = open_dock(again)
        wait_until(lambda: panel2.model.store is not None)
        view2 = wait_rows(wait_until, panel2, 1)
        assert cell(view2, 0, 1) == "SendMessage"
        # Delete all asks first.
        answers = iter([QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Yes])
        monkeypatch.setattr("PySide6.QtWidgets.QMessageBox.question", lambda *a, **k: next(answers))
        click(qtbot, panel2, "historyClearButton")
        assert view2.model().rowCount() == 1
        click(qtbot, panel2, "historyClearButton")
        assert view2.model().rowCount() == 0
    finally:
        qloop.run_until_complete(again.shutdown())
        again.close_now()
        again.deleteLater()


def _fill(store: HistoryStore, n: int) -> None:
    for i in range(n):
        request = A2ARequest(f"http://127.0.0.1:{1000 + i % 50}/rpc", "SendMessage", "{}")
        recorder = store.recorder(request, source="test")
        recorder.feed(RequestSent(0.0, "POST", request.endpoint, (), b"{}", "SendMessage"))
        recorder.feed(ExchangeEnd(0.01, Outcome.OK if i % 3 else Outcome.RPC_ERROR))
    assert store.flush(60)


def test_ten_thousand_entries_page_in_and_filter_fast(
    qtbot: Any, qapp: Any, qtmodeltester: Any, tmp_path: Path
) -> None:
    store = HistoryStore.open(tmp_path / "h.sqlite3")
    try:
        _fill(store, 10_000)
        model = HistoryModel()
        started = time.perf_counter()
        model.set_store(store)
        first = time.perf_counter() - started
        assert model.total == 10_000 and model.rowCount() == 200
        assert model.canFetchMore()
        started = time.perf_counter()
        model.fetchMore()
        more = time.perf_counter() - started
        assert model.rowCount() == 400
        assert model.entry(0).id > model.entry(399).id  # newest first
        started = time.perf_counter()
        model.set_filter(HistoryFilter(text=":1007/"))
        filtered = time.perf_counter() - started
        assert model.total == 200
        assert max(first, more, filtered) < 0.05, (first, more, filtered)
        qtmodeltester.check(model)
    finally:
        store.close()


def test_the_window_starts_when_the_history_cannot_be_opened(
    qtbot: Any, qloop: Any, wait_until: Callable[..., None], monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*_args: Any, **_kwargs: Any) -> HistoryStore:
        raise HistoryUnavailable(f"History {history_path()} is not used: schema 99 is newer")

    monkeypatch.setattr(HistoryStore, "open", refuse)
    window = MainWindow()
    window.show()
    try:
        wait_until(lambda: "not recorded" in window.statusBar().currentMessage())
        panel = open_dock(window)
        assert panel.model.store is None and panel.count_label.text() == "History off"
    finally:
        qloop.run_until_complete(window.shutdown())
        window.close_now()
        window.deleteLater()
