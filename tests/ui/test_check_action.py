"""Request → Check this agent… on the real demo agent: the report opens as a tab of the main
area with a screenful of results, a finding's exchange opens below it and in History, n/a is
counted apart from skip, and closing the tab stops the run."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QPushButton, QTabWidget, QTreeView, QWidget

from app.check.check_model import CheckEvent, CheckStatus, EndReason
from app.check.runner import CheckOptions, run_check
from app.ui.check.check_report import CheckReportView
from app.ui.check.check_report_model import CHECK
from app.ui.response.response_view import ResponseView
from app.ui.shell.main_window import MainWindow
from tests.helpers.screenshots import SHOTS

pytestmark = [pytest.mark.gui, pytest.mark.peer]


def only(*prefixes: str, seen: list[CheckOptions] | None = None) -> Any:
    """A runner making only the checks whose ids start with ``prefixes`` (shorter tests)."""

    def runner(options: CheckOptions) -> AsyncIterator[CheckEvent]:
        if seen is not None:
            seen.append(options)
        return run_check(dataclasses.replace(options, only=prefixes))

    return runner


def rows_in_sight(tree: QTreeView) -> int:
    """How many top-level rows the tree shows whole, without scrolling."""
    model = tree.model()
    area = QRect(0, 0, tree.viewport().width(), tree.viewport().height())
    return sum(area.contains(tree.visualRect(model.index(r, 0))) for r in range(model.rowCount()))


def test_the_report_is_a_tab_with_a_screenful_of_results_and_opens_an_exchange(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    seen: list[CheckOptions] = []
    window.check.runner = only("card", "core", "errors", seen=seen)
    wait_until(lambda: window.history.store is not None)  # opened on a thread at start-up
    window.new_a2a_tab(sdk_peer["jsonrpc_url"])
    action = window.findChild(QAction, "checkAgentAction")
    assert action is not None and action in window.menus.request.actions()
    action.trigger()
    view = window.findChild(CheckReportView, "checkReportView")
    tabs = window.findChild(QTabWidget, "requestTabs")
    assert view is not None and view.running
    # In the main area, in front, as a tab of its own.
    assert tabs.currentWidget() is view and view.isVisible()
    assert tabs.tabText(tabs.currentIndex()) == "Check report"
    wait_until(lambda: view.ended is not None, timeout=60)
    assert view.ended is not None and view.ended.reason is EndReason.COMPLETED
    assert seen[0].card_url == sdk_peer["base_url"]
    assert seen[0].history is window.history.store
    assert all(r.status is not CheckStatus.FAIL for r in view.model.results), [
        (r.check_id, r.interface, r.detail) for r in view.model.results
        if r.status is CheckStatus.FAIL
    ]  # fmt: skip
    assert len({r.interface for r in view.model.results if r.interface}) == 6

    # Point 5 of issue 27: the report dock showed ~1.5 rows at 1280×800.
    assert (window.width(), window.height()) == (1280, 800)
    tree = view.findChild(QTreeView, "checkResultsTree")
    assert len(view.model.results) > 20
    assert rows_in_sight(tree) >= 15

    # A core result with exchanges, clicked: it and its first exchange show below, read-only,
    # read back from History.
    shown = tree.model()
    row = next(
        r for r in range(shown.rowCount())
        if view.shown.result_at(shown.index(r, 0)).check_id == "core.get-task"
    )  # fmt: skip
    result = view.shown.result_at(shown.index(row, 0))
    assert result is not None and result.exchanges
    index = shown.index(row, CHECK)
    tree.scrollTo(index)
    qtbot.wait(20)
    qtbot.mouseClick(
        tree.viewport(), Qt.MouseButton.LeftButton, pos=tree.visualRect(index).center()
    )
    pane = view.findChild(QWidget, "checkDetailPane")
    assert pane.isVisible()
    label = pane.findChild(QLabel, "checkExchangeLabel")
    first = result.exchanges[0]
    wait_until(lambda: label.text().startswith(f"Exchange #{first}"), timeout=15)
    wait_until(lambda: "→" in label.text(), timeout=15)
    shown_exchange = pane.findChild(ResponseView, "checkExchangeResponseView")
    assert shown_exchange.isVisible()
    assert rows_in_sight(tree) >= 5  # the row picked and its neighbours stay in sight
    assert tree.visualRect(index).intersects(tree.viewport().rect())

    # Open in History: the History dock shows the same entry.
    qtbot.mouseClick(
        pane.findChild(QPushButton, "checkOpenInHistoryButton"), Qt.MouseButton.LeftButton
    )
    viewer = window.history_dock.panel.viewer
    wait_until(lambda: viewer.isVisible() and viewer.entry_id == first, timeout=15)
    assert window.history_dock.isVisible()
    window.history_dock.hide()
    qtbot.wait(50)
    window.grab().save(str(SHOTS / "assert-check-report-demo.png"))


def test_a_card_without_streaming_or_push_counts_n_a_apart_from_skip(
    qtbot: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    sdk_peer: dict[str, Any],
    tmp_path: Path,
) -> None:
    card = httpx.get(sdk_peer["card_url"]).json()
    card["capabilities"] = {**card["capabilities"], "streaming": False, "pushNotifications": False}
    card.pop("signatures", None)
    path = tmp_path / "quiet-card.json"
    path.write_text(json.dumps(card), encoding="utf-8")
    window.check.runner = only("card.available", "streaming", "push", "gaps")
    tab = window.new_a2a_tab(sdk_peer["jsonrpc_url"])
    tab.card_panel.url_edit.setText(str(path))  # the card page's field: a card file
    window.check.check_current_tab()
    view = window.check.view
    wait_until(lambda: view.ended is not None, timeout=60)
    statuses = [r.status for r in view.model.results]
    na = {r.check_id for r in view.model.results if r.status is CheckStatus.NA}
    assert {"streaming.lifecycle", "streaming.subscribe-unknown", "push.config",
            "push.delivery", "gaps.resubscribe"} <= na  # fmt: skip
    assert CheckStatus.SKIP not in statuses
    summary = view.findChild(QLabel, "checkSummaryLabel").text()
    counts = {s: statuses.count(s) for s in CheckStatus}
    assert counts[CheckStatus.NA] >= 18  # 6 interfaces × 2 streaming, 2 versions × 3 more
    assert summary.endswith(
        f"— {counts[CheckStatus.FAIL]} fail · {counts[CheckStatus.WARN]} warn · 0 skip · "
        f"{counts[CheckStatus.PASS]} pass · {counts[CheckStatus.NA]} n/a"
    )


def test_closing_the_report_tab_stops_its_run_and_view_brings_it_back(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    window.new_a2a_tab(sdk_peer["jsonrpc_url"])
    window.check.check_current_tab()
    view = window.check.view
    wait_until(lambda: len(view.model.results) >= 3, timeout=30)
    tabs = window.tabs
    index = tabs.indexOf(view)
    assert index >= 0 and view.running
    close = tabs.tabBar().tabButton(index, tabs.tabBar().ButtonPosition.RightSide)
    qtbot.mouseClick(close, Qt.MouseButton.LeftButton)
    wait_until(lambda: view.ended is not None, timeout=10)
    assert view.ended is not None and view.ended.reason is EndReason.CANCELLED
    assert tabs.indexOf(view) < 0 and not view.running
    kept = len(view.model.results)
    report = window.findChild(QAction, "checkReportAction")
    assert report is not None and report in window.menus.view.actions()
    report.trigger()
    assert tabs.currentWidget() is view and len(view.model.results) == kept
    # With the report in front, Check this agent runs the same agent again.
    window.check.action.trigger()
    assert view.running
    view.stop()
    wait_until(lambda: not view.running, timeout=10)


def test_a_tab_without_a_card_url_says_what_to_type(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    tab = window.new_a2a_tab("127.0.0.1:50051")  # a gRPC target
    tab.card_panel.url_edit.clear()
    window.check.check_current_tab()
    assert window.statusBar().currentMessage() == (
        "Check this agent: 127.0.0.1:50051 is not a card URL: type the agent's card URL on"
        " the Agent Card page"
    )
    assert not window.check.view.running
    assert window.tabs.indexOf(window.check.view) < 0  # no empty report tab


def test_stop_cancels_a_real_run_and_leaves_nothing_running(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    window.new_a2a_tab(sdk_peer["jsonrpc_url"])
    window.check.check_current_tab()
    view = window.check.view
    wait_until(lambda: len(view.model.results) >= 3, timeout=30)
    stop = view.findChild(QPushButton, "checkStopButton")
    qtbot.mouseClick(stop, Qt.MouseButton.LeftButton)
    wait_until(lambda: view.ended is not None, timeout=10)
    assert view.ended is not None and view.ended.reason is EndReason.CANCELLED
    assert not view.running and not stop.isEnabled()
    assert view.findChild(QLabel, "checkSummaryLabel").text().startswith("Stopped in ")
    # The qloop fixture fails the test if any task of the run is still pending.
