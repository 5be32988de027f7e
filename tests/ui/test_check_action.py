"""Request → Check this agent… on the real demo agent: the report fills in, and a finding's
exchange opens in History."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QPushButton, QTreeView

from app.check.check_model import CheckEvent, CheckStatus, EndReason
from app.check.runner import CheckOptions, run_check
from app.ui.check.check_report import CheckReportView
from app.ui.check.check_report_model import CHECK, EXCHANGE_ROLE
from app.ui.shell.main_window import MainWindow
from tests.helpers.screenshots import SHOTS

pytestmark = [pytest.mark.gui, pytest.mark.peer]


def test_check_this_agent_on_the_demo_agent_and_open_an_exchange(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    seen: list[CheckOptions] = []

    def fewer_checks(options: CheckOptions) -> AsyncIterator[CheckEvent]:
        seen.append(options)  # the card, core and error checks keep the test short
        return run_check(dataclasses.replace(options, only=("card", "core", "errors")))

    window.check.runner = fewer_checks
    wait_until(lambda: window.history.store is not None)  # opened on a thread at start-up
    window.new_a2a_tab(sdk_peer["jsonrpc_url"])
    action = window.findChild(QAction, "checkAgentAction")
    assert action is not None and action in window.menus.request.actions()
    action.trigger()
    view = window.findChild(CheckReportView, "checkReportView")
    assert view is not None and view.isVisible() and view.running
    wait_until(lambda: view.ended is not None, timeout=60)
    assert view.ended is not None and view.ended.reason is EndReason.COMPLETED
    assert seen[0].card_url == sdk_peer["base_url"]
    assert seen[0].history is window.history.store
    titles = view.model.group_titles()
    assert [t.split(" (")[0] for t in titles] == ["Agent Card", "Core methods", "Errors"]
    assert all(r.status is not CheckStatus.FAIL for r in view.model.results), [
        (r.check_id, r.interface, r.detail) for r in view.model.results
        if r.status is CheckStatus.FAIL
    ]  # fmt: skip
    assert len({r.interface for r in view.model.results if r.interface}) == 6

    # A core result's first exchange, double-clicked, is shown in History.
    core = view.model.item(1, CHECK)
    result_item = next(
        core.child(r, CHECK) for r in range(core.rowCount()) if core.child(r, CHECK).rowCount()
    )
    link = result_item.child(0, CHECK)
    entry_id = link.data(EXCHANGE_ROLE)
    tree = view.findChild(QTreeView, "checkResultsTree")
    tree.expand(view.shown.mapFromSource(result_item.index()))
    tree.scrollTo(view.shown.mapFromSource(link.index()))
    qtbot.wait(20)
    centre = tree.visualRect(view.shown.mapFromSource(link.index())).center()
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    qtbot.mouseDClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    viewer = window.history_dock.panel.viewer
    wait_until(lambda: viewer.isVisible() and viewer.entry_id == entry_id, timeout=15)
    assert window.history_dock.isVisible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    window.resize(1400, 900)
    window.check.dock.raise_()
    qtbot.wait(50)
    window.grab().save(str(SHOTS / "assert-check-report-demo.png"))


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
