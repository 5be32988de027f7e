"""Specs in the window: the spec tree, opening and saving tabs, the documentation view."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from openapi_spec_validator import validate
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QCheckBox, QPushButton, QTreeView

from app.protocol import exchange
from app.protocol.events import ExchangeEnd, ExchangeError
from app.protocol.methods.catalog import METHODS
from app.protocol.net.auth import AuthKind
from app.protocol.request import A2ARequest
from app.protocol.types import Binding
from app.spec.document import load
from app.spec.recent_specs import read_recent
from app.spec.xa2a import strip_private_metadata
from app.ui.collections.method_badge import BADGE_ROLE, Badge
from app.ui.collections.spec_dock import EXAMPLE_SPEC
from app.ui.request.request_tab import RequestTab
from app.ui.shell.main_window import MainWindow
from tests.helpers.bindings import STANDARD_BINDINGS

pytestmark = pytest.mark.gui
# Screenshots go to $A2A_WB_SCREENSHOTS when set (to look at them), else to tmp_path.
SHOTS_ENV = "A2A_WB_SCREENSHOTS"


def tree(window: MainWindow) -> QTreeView:
    view = window.findChild(QTreeView, "specTree")
    assert view is not None
    return view


def operation_index(window: MainWindow, operation_id: str) -> Any:
    index = window.spec.dock.model.find("", operation_id)
    if index is None:
        raise AssertionError(operation_id)
    return index


def test_spec_tree_shows_one_row_per_operation_grouped_by_tag(
    qtbot: Any, window: MainWindow, qtmodeltester: Any
) -> None:
    assert window.spec.open_spec(EXAMPLE_SPEC) is not None
    model = window.spec.dock.model
    qtmodeltester.check(model)
    top = model.index(0, 0)
    assert model.rowCount() == 1 and top.data() == "A2A Workbench demo agent"
    assert str(EXAMPLE_SPEC) in top.data(Qt.ItemDataRole.ToolTipRole)
    groups = [model.index(r, 0, top).data() for r in range(model.rowCount(top))]
    assert groups == ["A2A 1.0", "A2A 0.3"]
    assert window.spec.dock.operation_count() == 12
    row = operation_index(window, "stream-progress-0-3-grpc")
    assert row.data() == "Stream progress (0.3 gRPC)"
    assert row.data(BADGE_ROLE) == Badge("STREAM", "stream")
    assert "message/stream · GRPC · A2A 0.3" in row.data(Qt.ItemDataRole.ToolTipRole)
    assert str(EXAMPLE_SPEC.resolve()) in read_recent(window.spec.recent_path)


def test_double_click_opens_the_request_exactly_as_saved(qtbot: Any, window: MainWindow) -> None:
    window.spec.open_spec(EXAMPLE_SPEC)
    index = operation_index(window, "sum-numbers-0-3-http-json")
    view = tree(window)
    view.scrollTo(index)
    rect = view.visualRect(index)
    assert rect.isValid()
    # A real double-click is press, release, then the double-click event.
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    tab = window.current_tab()
    assert isinstance(tab, RequestTab)
    assert len(window.request_tabs()) == 1  # one double-click, one tab
    saved = load(EXAMPLE_SPEC).find("sum-numbers-0-3-http-json")
    assert saved is not None
    assert tab.to_saved() == saved.request
    assert tab.message_text_edit.text() == "12 30"  # Generate renders the same message
    # The bundled example is never written: Ctrl+S asks for a file instead.
    assert window.spec.target_for(tab) is None
    assert tab.endpoint_edit.text() == "{{baseUrl}}/rest"
    assert window.tabs.tabText(window.tabs.currentIndex()) == "Sum numbers (0.3 HTTP+JSON)"
    assert not tab.dirty
    assert window.spec.target_for(window.new_a2a_tab("http://127.0.0.1:9/")) is None


def test_save_to_spec_marks_unsaved_tabs_and_writes_no_secret(
    qtbot: Any, window: MainWindow, tmp_path: Path, wait_until: Any
) -> None:
    tab = window.new_a2a_tab("http://127.0.0.1:9/")
    tab.auth_panel.set_kind(AuthKind.BEARER)
    tab.auth_panel.bearer_token.edit.setText("very-secret-token")
    tab.headers_panel.add_header("X-Trace", "on")
    assert tab.dirty and window.tabs.tabText(window.tabs.indexOf(tab)).endswith(" *")
    path = tmp_path / "mine.a2a.yaml"
    assert window.spec.save_tab(tab, path) == []
    raw = path.read_bytes()
    assert b"very-secret-token" not in raw and b"{{token.127.0.0.1-9}}" in raw
    validate(yaml.safe_load(raw))
    assert not tab.dirty and not window.tabs.tabText(window.tabs.indexOf(tab)).endswith("*")
    save = window.findChild(QAction, "saveToSpecAction")
    assert save is not None and save.shortcut().toString() == "Ctrl+S"
    tab.body_editor.setPlainText(tab.body_editor.toPlainText().replace("hello", "bye"))
    assert tab.dirty
    save.trigger()  # Ctrl+S saves into the same operation, off the GUI thread
    wait_until(lambda: not tab.dirty)
    doc = load(path)
    assert len(doc.operations()) == 1 and "bye" in doc.operations()[0].request.body
    assert not tab.dirty
    assert window.spec.dock.operation_count() == 1


def test_invalid_documents_are_reported_and_the_window_keeps_its_state(
    qtbot: Any, window: MainWindow, tmp_path: Path
) -> None:
    window.spec.open_spec(EXAMPLE_SPEC)
    bad = tmp_path / "bad.yaml"
    bad.write_text("openapi: 3.2.0\npaths: [\n")
    assert window.spec.open_spec(bad) is None
    assert "invalid YAML at line" in window.statusBar().currentMessage()
    assert window.spec.dock.operation_count() == 12  # the open spec is untouched


def test_documentation_view_and_copy_for_llm(
    qtbot: Any, window: MainWindow, tmp_path: Path
) -> None:
    window.spec.open_spec(EXAMPLE_SPEC)
    window.spec.set_demo_info({"base_url": "http://127.0.0.1:8000", "grpc_target": "h:1"})
    tree(window).setCurrentIndex(operation_index(window, "stream-progress-1-0-http-json"))
    view = window.spec.doc_view
    text = view.browser.toPlainText()
    assert "Stream progress (1.0 HTTP+JSON)" in text and "SendStreamingMessage" in text
    llm = view.llm_text()
    assert "x-a2a:" in llm and "requestSchema:" in llm and "lf.a2a.v1.SendMessageRequest" in llm
    assert "$ref" not in llm.split("requestSchema:")[1].split("responseSchema:")[0]
    view.tabs.setCurrentIndex(1)
    assert "curl -sS -N -X POST" in view.code.toPlainText()
    assert "http://127.0.0.1:8000/rest/message:stream" in view.code.toPlainText()
    shots = Path(os.environ.get(SHOTS_ENV) or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    window.resize(1400, 900)
    qtbot.wait(50)
    window.spec.dock.grab().save(str(shots / "spec-tree.png"))
    view.tabs.setCurrentIndex(0)
    qtbot.wait(50)
    window.spec.doc_dock.grab().save(str(shots / "documentation-view.png"))
    window.grab().save(str(shots / "window-with-spec.png"))


def _endpoint(peer: dict[str, Any], binding: Binding) -> str:
    return {
        Binding.JSONRPC: peer["jsonrpc_url"],
        Binding.HTTP_JSON: peer["rest_url"],
        Binding.GRPC: peer["grpc_target"],
    }[binding]


async def _answer(request: A2ARequest) -> tuple[str, Any]:
    outcome, code = "", None
    async for event in exchange.run(request):
        if isinstance(event, ExchangeError) and code is None:
            code = event.code
        if isinstance(event, ExchangeEnd):
            outcome = event.outcome.value
    return outcome, code


@pytest.mark.peer
def test_round_trip_tabs_file_tabs_for_every_method_binding_and_version(
    qtbot: Any, window: MainWindow, qloop: Any, tmp_path: Path, sdk_peer: dict[str, Any]
) -> None:
    path = tmp_path / "all.a2a.yaml"
    originals: list[tuple[RequestTab, A2ARequest]] = []
    for spec in METHODS:
        # The peer's bindings (the carriers' saving: tests/spec/test_carriers_saved.py).
        for binding in STANDARD_BINDINGS:
            if not spec.supports(binding):
                continue
            tab = window.new_a2a_tab(_endpoint(sdk_peer, binding), "12 30")
            tab.version_combo.setCurrentIndex(tab.version_combo.findData(spec.version))
            tab.binding_combo.setCurrentIndex(tab.binding_combo.findData(binding))
            tab.method_combo.setCurrentIndex(tab.method_combo.findData(spec.name))
            tab.generate_preview()
            tab.replace_body()
            assert window.spec.save_tab(tab, path, force=True) == []
            originals.append((tab, tab.build_request()))
    doc = load(path)
    validate(yaml.safe_load(path.read_text()))
    ops = doc.operations()
    assert len(ops) == len(originals)
    for (tab, request), op in zip(originals, ops, strict=True):
        reopened = window.spec.open_operation(op)
        assert reopened.to_saved() == tab.to_saved()
        again = reopened.build_request()
        assert again == request
        first = qloop.run_until_complete(asyncio.wait_for(_answer(request), 30))
        second = qloop.run_until_complete(asyncio.wait_for(_answer(again), 30))
        assert first == second, (op.request.operation_id, first, second)


def test_a_file_that_cannot_be_saved_over_is_reported_in_the_message_bar(
    qtbot: Any, window: MainWindow, tmp_path: Path, wait_until: Any
) -> None:
    path = tmp_path / "odd.a2a.yaml"
    path.write_text(EXAMPLE_SPEC.read_text().replace("info:\n", "info:\n  x-odd: !Ref It\n", 1))
    before = path.read_bytes()
    doc = window.spec.open_spec(path)
    assert doc is not None and doc.unrepresented
    label = window.spec.dock.problems_label.text()
    assert "Not representable, file will not be saved over: info.x-odd" in label
    window.spec.open_operation(doc.operations()[0])
    save = window.findChild(QAction, "saveToSpecAction")
    assert save is not None
    save.trigger()  # the tab belongs to the file: Ctrl+S would save over it
    wait_until(lambda: "Not saved over" in window.statusBar().currentMessage())
    assert path.read_bytes() == before


def test_saving_a_tab_with_a_fetched_card_writes_its_url_and_snapshot(
    qtbot: Any, window: MainWindow, tmp_path: Path, wait_until: Any, sdk_peer: dict[str, Any]
) -> None:
    tab = window.new_a2a_tab(sdk_peer["jsonrpc_url"])
    path = tmp_path / "cards.a2a.yaml"
    assert window.spec.save_tab(tab, path) == []
    x = next(iter(yaml.safe_load(path.read_bytes())["paths"].values()))["post"]["x-a2a"]
    assert "agentCardUrl" not in x and "agentCard" not in x  # no card fetched, none saved

    panel = tab.card_panel
    tab.result_tabs.setCurrentWidget(panel)
    strip = panel.findChild(QCheckBox, "stripPrivateMetadataCheck")
    assert strip is not None and strip.isChecked()
    fetch_button = panel.findChild(QPushButton, "fetchCardButton")
    qtbot.mouseClick(fetch_button, Qt.MouseButton.LeftButton)
    wait_until(lambda: not panel.busy and panel.card is not None, timeout=15)
    for ticked in (True, False):
        strip.setChecked(ticked)
        saved = tmp_path / f"card-{ticked}.a2a.yaml"
        assert window.spec.save_tab(tab, saved, force=True) == []
        ops = yaml.safe_load(saved.read_bytes())["paths"]
        x = next(iter(ops.values()))["post"]["x-a2a"]
        assert x["agentCardUrl"] == sdk_peer["card_url"]
        expected = strip_private_metadata(panel.card) if ticked else panel.card
        assert x["agentCard"] == expected

    reopened = window.new_a2a_tab("")
    reopened.load_saved(load(saved).operations()[0].request)
    assert reopened.card_panel.url_edit.text() == sdk_peer["card_url"]
