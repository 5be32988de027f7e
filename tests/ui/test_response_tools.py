"""Response tools as a person uses them: find (Ctrl+F, F3, Esc), the JSON tree, copy
buttons, the headers table, the live elapsed counter and timings, the timeout field, the
one-line summary of an HTML error page and the timeline filter — against the demo agent."""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QDoubleSpinBox,
    QLabel,
    QLineEdit,
    QTableView,
    QTreeView,
    QWidget,
)

from app.protocol.events import Outcome
from app.ui.request.request_tab import RequestTab
from app.ui.response.find_bar import FindBar, find_matches
from app.ui.response.json_tree import JsonTreePage
from app.ui.response.json_tree_model import FETCH_BLOCK, JsonTreeModel, path_step
from app.ui.response.response_view import ResponseView
from app.ui.shell.main_window import MainWindow
from app.ui.timeline.timeline_filter import parse_filter
from tests.helpers.bad_server import Canned, bad_server
from tests.ui.test_responsiveness import MAX_STALL_S, StallMeter

pytestmark = pytest.mark.gui

SCREENSHOTS = Path(os.environ.get("A2A_SCREENSHOT_DIR", "/tmp/a2a-workbench-screenshots"))


def new_tab(
    window: MainWindow, endpoint: str, method: str = "SendMessage", text: str = ""
) -> RequestTab:
    action = window.findChild(QAction, "newA2ARequestAction")
    assert action is not None
    action.trigger()
    tab = window.current_tab()
    assert tab is not None
    tab.endpoint_edit.setText(endpoint)
    tab.method_combo.setCurrentIndex(tab.method_combo.findData(method))
    if text:
        tab.message_text_edit.setText(text)
    tab.generate_preview()
    tab.replace_body()
    return tab


def child(parent: QWidget, kind: type, name: str) -> Any:
    widget = parent.findChild(kind, name)
    assert widget is not None, name
    return widget


def click(qtbot: Any, parent: QWidget, name: str) -> None:
    button = child(parent, QAbstractButton, name)
    assert button.isEnabled(), name
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def send(qtbot: Any, tab: RequestTab, wait_until: Callable[..., None]) -> ResponseView:
    view: ResponseView = child(tab, ResponseView, "responseView")
    click(qtbot, tab, "sendButton")
    wait_until(lambda: view.outcome is not None and not tab.busy, timeout=20)
    return view


def clipboard() -> str:
    return QGuiApplication.clipboard().text()


def screenshot(widget: QWidget, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    assert widget.grab().save(str(SCREENSHOTS / name))


# --- find ----------------------------------------------------------------------------------


def test_find_steps_through_the_pretty_and_raw_views(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = new_tab(window, sdk_peer["jsonrpc_url"], text="12 30")
    view = send(qtbot, tab, wait_until)
    assert view.outcome is Outcome.OK
    bar = child(view, FindBar, "findBar")
    assert bar.isHidden()

    view.pretty_view.setFocus()
    qtbot.keyClick(view.pretty_view, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert bar.isVisible()
    edit = child(bar, QLineEdit, "findEdit")
    assert edit.hasFocus()
    count = child(bar, QLabel, "findCountLabel")
    qtbot.keyClicks(edit, "ID")  # case-insensitive: messageId, contextId, "id"
    total = view.pretty_view.toPlainText().lower().count("id")
    assert total >= 2
    assert count.text() == f"1 of {total}"
    assert view.pretty_view.textCursor().selectedText().lower() == "id"

    qtbot.keyClick(edit, Qt.Key.Key_F3)
    assert count.text() == f"2 of {total}"
    qtbot.keyClick(edit, Qt.Key.Key_F3, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClick(edit, Qt.Key.Key_F3, Qt.KeyboardModifier.ShiftModifier)
    assert count.text() == f"{total} of {total}"  # wraps around

    qtbot.keyClick(edit, Qt.Key.Key_F3)
    screenshot(window, "resp-find.png")
    edit.selectAll()
    qtbot.keyClicks(edit, "Sum: 42")
    assert count.text() == "1 of 1"
    view.tabs.setCurrentWidget(view.raw_view)  # the same bar searches the Raw view now
    assert count.text() == f"1 of {view.raw_view.toPlainText().count('Sum: 42')}"
    edit.selectAll()
    qtbot.keyClicks(edit, "no such text")
    assert count.text() == "no matches"
    assert not view.raw_view.textCursor().hasSelection()

    qtbot.keyClick(edit, Qt.Key.Key_Escape)
    assert bar.isHidden()
    assert view.raw_view.extraSelections() == []


def test_find_in_the_timeline_detail_and_the_filter(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = new_tab(window, sdk_peer["jsonrpc_url"], "SendStreamingMessage", "stream 4 20")
    panel = tab.timeline
    click(qtbot, tab, "sendButton")
    wait_until(lambda: not tab.busy and panel.ending is not None, timeout=20)
    total = panel.model.rowCount()

    filter_edit = child(panel, QLineEdit, "timelineFilterEdit")
    qtbot.keyClicks(filter_edit, "kind:status")
    table = child(panel, QTableView, "timelineView")
    shown = table.model().rowCount()
    assert 4 <= shown < total
    assert child(panel, QLabel, "timelineFilterCountLabel").text() == f"{shown} of {total} rows"
    filter_edit.clear()
    qtbot.keyClicks(filter_edit, "progress 3/4")
    assert table.model().rowCount() == 1
    table.selectRow(0)  # the filtered row's own detail is shown
    assert "progress 3/4" in panel.json_view.toPlainText()
    tree = child(panel, JsonTreePage, "timelineJsonTreePage")
    assert tree.model.rowCount() > 0

    table.setFocus()
    qtbot.keyClick(table, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    bar = child(panel, FindBar, "findBar")
    assert bar.isVisible()
    qtbot.keyClicks(child(bar, QLineEdit, "findEdit"), "3/4")
    assert child(bar, QLabel, "findCountLabel").text() == "1 of 1"
    panel.detail_tabs.setCurrentWidget(tree)
    screenshot(window, "resp-timeline-filter-tree.png")
    filter_edit.clear()
    assert table.model() is panel.model and table.model().rowCount() == total


# --- the JSON tree ---------------------------------------------------------------------------


def test_json_tree_expands_and_copies_values_and_paths(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = new_tab(window, sdk_peer["jsonrpc_url"], text="stream 2 10")
    view = send(qtbot, tab, wait_until)
    assert view.outcome is Outcome.OK
    view.tabs.setCurrentWidget(view.tree_page)
    tree = child(view, QTreeView, "jsonTreeView")
    model = tree.model()
    keys = [model.index(r, 0).data() for r in range(model.rowCount())]
    assert keys == ["id", "jsonrpc", "result"] or set(keys) == {"id", "jsonrpc", "result"}

    click(qtbot, view, "expandAllButton")
    match = model.match(
        model.index(0, 0), Qt.ItemDataRole.DisplayRole, "state", -1,
        Qt.MatchFlag.MatchExactly | Qt.MatchFlag.MatchRecursive,
    )  # fmt: skip
    assert match
    tree.setCurrentIndex(match[0])
    assert child(view, QLabel, "jsonPathLabel").text() == "$.result.task.status.state"
    click(qtbot, view, "copyJsonPathButton")
    assert clipboard() == "$.result.task.status.state"
    click(qtbot, view, "copyJsonValueButton")
    assert clipboard() == "TASK_STATE_COMPLETED"
    screenshot(window, "resp-json-tree.png")

    click(qtbot, view, "collapseAllButton")
    assert not tree.isExpanded(model.index(2, 0))

    # Find works in the tree too: keys and values, loaded or not; F3 selects the next row.
    tree.setFocus()
    qtbot.keyClick(tree, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    bar = child(view, FindBar, "findBar")
    qtbot.keyClicks(child(bar, QLineEdit, "findEdit"), "progress")
    count = child(bar, QLabel, "findCountLabel").text()
    assert count.startswith("1 of ") and int(count.split(" of ")[1]) >= 2
    assert "progress" in tree.currentIndex().sibling(tree.currentIndex().row(), 1).data()
    first = child(view, QLabel, "jsonPathLabel").text()
    qtbot.keyClick(child(bar, QLineEdit, "findEdit"), Qt.Key.Key_F3)
    assert child(bar, QLabel, "findCountLabel").text().startswith("2 of ")
    assert child(view, QLabel, "jsonPathLabel").text() != first


def test_a_big_body_opens_in_the_tree_block_by_block(qtbot: Any) -> None:
    page = JsonTreePage()
    qtbot.addWidget(page)
    big = {"items": [{"n": i, "text": "x" * 20} for i in range(200_000)]}
    started = time.perf_counter()
    page.set_value(big)
    model = page.model
    items = model.index(0, 0)
    assert model.rowCount(items) == FETCH_BLOCK  # opened, first block only
    assert time.perf_counter() - started < 1.0
    model.fetchMore(items)
    assert model.rowCount(items) == 2 * FETCH_BLOCK
    opened = page.expand_all()
    assert opened == 5_000 and "first 5,000" in page.path_label.text()


def test_json_tree_model_paths_and_scalars(qtmodeltester: Any, qapp: Any) -> None:
    model = JsonTreeModel()
    model.set_value({"a-b": [1, {"c": None}], "ok": True})
    model.fetch_all(QModelIndex())
    qtmodeltester.check(model)
    first = model.index(0, 0)
    model.fetch_all(first)
    second = model.index(1, 0, first)
    model.fetch_all(second)
    assert model.path_at(model.index(0, 0, second)) == "$['a-b'][1].c"
    assert model.index(0, 1, second).data() == "null"
    assert path_step("it's") == "['it\\'s']"
    model.set_value("just text")
    assert model.rowCount() == 1 and model.path_at(model.index(0, 0)) == "$"


def test_find_matches_count_utf16_positions() -> None:
    assert find_matches("aXbxc", "x") == [1, 3]
    assert find_matches("😀 x", "x") == [3]  # the emoji takes two UTF-16 units
    assert find_matches("abc", "") == []
    assert parse_filter("kind:status -foo bar")[0].column is not None


# --- copy buttons and headers ------------------------------------------------------------------


def test_copy_body_raw_header_and_curl_with_the_token_masked(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer_token: dict[str, Any]
) -> None:
    tab = new_tab(window, sdk_peer_token["jsonrpc_url"], text="12 30")
    tab.editor_tabs.setCurrentWidget(tab.auth_panel)
    kind = child(tab, QComboBox, "authKindCombo")
    kind.setCurrentIndex(kind.findText("Bearer token"))
    qtbot.keyClicks(child(tab, QLineEdit, "bearerTokenEdit"), sdk_peer_token["token"])
    view = send(qtbot, tab, wait_until)
    assert view.outcome is Outcome.OK, view.error_label.text()

    click(qtbot, view, "copyBodyButton")
    assert json.loads(clipboard())["result"]
    click(qtbot, view, "copyRawButton")
    assert "Sum: 42" in clipboard()

    view.tabs.setCurrentWidget(view.headers_view)
    table = child(view, QTableView, "responseHeadersView")
    names = [table.model().index(r, 0).data().lower() for r in range(table.model().rowCount())]
    table.selectRow(names.index("content-type"))
    click(qtbot, view, "copyHeaderButton")
    assert clipboard().lower() == "content-type: application/json"
    click(qtbot, view, "copyAllHeadersButton")
    assert clipboard() == view.headers_view.toPlainText()
    screenshot(window, "resp-headers.png")

    click(qtbot, view, "copyCurlButton")
    command = clipboard()
    assert command.startswith("curl ") and sdk_peer_token["jsonrpc_url"] in command
    assert sdk_peer_token["token"] not in command
    assert "${A2A_WB_" in command and "12 30" in command


# --- waiting: elapsed counter, timings, timeout ----------------------------------------------


def test_elapsed_counter_runs_while_waiting_then_shows_the_timings(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = new_tab(window, sdk_peer["jsonrpc_url"], text="stream 4 250")  # ~1 s task
    elapsed = child(tab, QLabel, "elapsedLabel")
    click(qtbot, tab, "sendButton")

    def counting() -> bool:  # a tick may be skipped on a loaded machine: any count ≥ 0.3 s
        shown = re.search(r"(\d+\.\d) s", elapsed.text())
        return shown is not None and float(shown.group(1)) >= 0.3

    wait_until(counting, timeout=5)
    assert elapsed.text().startswith(("waiting…", "receiving…"))
    assert tab.response_view.status_label.text() in ("Sending…", "200 OK")
    view = tab.response_view
    wait_until(lambda: view.outcome is not None and not tab.busy, timeout=20)
    assert view.outcome is Outcome.OK
    text = elapsed.text()
    assert "sent" in text and "headers" in text and "body" in text and "ms" in text
    assert "waiting" not in text


def test_the_timeout_field_bounds_the_wait(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = new_tab(window, sdk_peer["jsonrpc_url"], text="stream 10 300")  # ~3 s task
    spin = child(tab, QDoubleSpinBox, "timeoutSpin")
    assert spin.value() == 30.0
    spin.selectAll()
    qtbot.keyClicks(spin.lineEdit(), "0.5")
    spin.interpretText()
    assert spin.value() == 0.5
    started = time.monotonic()
    view = send(qtbot, tab, wait_until)
    assert view.outcome is Outcome.TRANSPORT_ERROR
    assert "within 0.5 s" in view.error_label.text()
    assert time.monotonic() - started < 2.5
    assert tab.to_saved().timeout == 0.5

    tab.set_default_timeout(60.0)  # the settings' default: a changed field keeps its value
    assert spin.value() == 0.5
    other = new_tab(window, sdk_peer["jsonrpc_url"])
    assert other.to_saved().timeout is None
    other.set_default_timeout(60.0)
    assert other.timeout_spin.value() == 60.0 and other.to_saved().timeout is None


# --- errors ------------------------------------------------------------------------------------


def test_an_html_error_page_is_one_line_and_the_status_is_said_once(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    page = (
        b"<!DOCTYPE html><html><head><title>Sign in &ndash; Gateway</title>"
        b"<style>body{}</style></head><body><h1>401</h1>"
        + b"<p>lorem</p>" * 300
        + b"</body></html>"
    )
    canned = Canned(status=401, headers={"Content-Type": "text/html; charset=utf-8"}, body=page)
    with bad_server(canned) as url:
        tab = new_tab(window, url)
        view = send(qtbot, tab, wait_until)
    assert view.outcome is Outcome.RPC_ERROR
    banner = view.error_label.text()
    assert "\n" not in banner and "<" not in banner
    assert "text/html" in banner and "“Sign in – Gateway”" in banner and "Raw" in banner
    shown = banner + " " + view.status_label.text()
    assert shown.count("Unauthorized") == 1 and "401" in view.status_label.text()
    assert view.raw_view.toPlainText().startswith("<!DOCTYPE html>")
    screenshot(view, "resp-html-error.png")


def test_a_big_json_response_fills_the_tree_without_freezing_the_window(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    items = [
        {"artifactId": f"a{i}", "parts": [{"text": "lorem ipsum " * 4}]} for i in range(60_000)
    ]
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"items": items}}).encode()
    assert len(body) > 5 * 1024 * 1024
    with bad_server(Canned(body=body)) as url:
        tab = new_tab(window, url)
        view = tab.response_view
        with StallMeter() as meter:
            click(qtbot, tab, "sendButton")
            wait_until(lambda: view.outcome is not None and not tab.busy, timeout=30)
            view.tabs.setCurrentWidget(view.tree_page)
            # A big body's value is not kept: the tree parses it once shown, off the GUI thread.
            wait_until(lambda: not view.tree_page.pending, timeout=30)
            tree = child(view, QTreeView, "jsonTreeView")
            model = tree.model()
            result = model.index(next(
                r for r in range(model.rowCount()) if model.index(r, 0).data() == "result"
            ), 0)  # fmt: skip
            tree.expand(model.index(0, 0, result))  # the 60 000 items: the first block
            qtbot.wait(50)
    assert FETCH_BLOCK <= model.rowCount(model.index(0, 0, result)) < 60_000  # blocks, as shown
    assert model.index(0, 1, result).data() == "[60000 items]"
    assert meter.longest < MAX_STALL_S, f"the window froze for {meter.longest:.2f} s"


def test_escape_in_the_view_closes_the_find_bar(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = new_tab(window, sdk_peer["jsonrpc_url"], text="1 2")
    view = send(qtbot, tab, wait_until)
    view.pretty_view.setFocus()
    qtbot.keyClick(view.pretty_view, Qt.Key.Key_F3)  # F3 with the bar closed opens it
    bar = child(view, FindBar, "findBar")
    assert bar.isVisible()
    view.pretty_view.setFocus()
    qtbot.keyClick(view.pretty_view, Qt.Key.Key_Escape)
    assert bar.isHidden() and view.pretty_view.hasFocus()
