"""The History dock as a person uses it: send, see the rows, filter, open, compare, delete."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QPushButton, QTableView

from app.history.store import HistoryFilter, HistoryStore
from app.protocol.events import ExchangeEnd, Outcome, RequestSent
from app.protocol.request import A2ARequest
from app.ui.history_dock import HistoryDock, HistoryPanel
from app.ui.history_model import HistoryModel
from app.ui.main_window import MainWindow

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
