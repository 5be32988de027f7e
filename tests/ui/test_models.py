"""Every Qt item model in `app/ui` passes pytest-qt's ``qtmodeltester`` with real data.

The models are filled the way the app fills them: the demo agent's card is fetched and
verified, its extended card diffed, a stream sent, a header typed, the bundled spec opened.
Then every model behind a view of the window (and its dialogs) is checked, and the test
fails if a model class defined in `app/ui` was never seen — a new model gets checked by
being shown, with no change here.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import pkgutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QAbstractItemModel, QAbstractProxyModel, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QAbstractItemView, QApplication, QPushButton

import app.ui
from app.check.check_model import CheckArea, CheckResult, CheckStarted, CheckStatus
from app.spec.assertions import Assertion, AssertionOp
from app.ui.collections.import_dialog import open_import
from app.ui.collections.spec_dock import EXAMPLE_SPEC
from app.ui.request.explainer_view import open_explainer
from app.ui.request.request_tab import RequestTab
from app.ui.shell.main_window import MainWindow

pytestmark = [pytest.mark.gui, pytest.mark.peer]

CARD = {
    "name": "Models",
    "supportedInterfaces": [
        {"url": "http://127.0.0.1:1/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
    ],
    "capabilities": {
        "extensions": [{"uri": "https://example.com/ext/v1", "description": "d", "required": True}]
    },
    "securitySchemes": {"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}},
}


def _model_classes() -> set[type[QAbstractItemModel]]:
    """Concrete model classes defined in `app/ui` and its feature folders (bases with
    subclasses there are left out)."""
    found: set[type[QAbstractItemModel]] = set()
    for info in pkgutil.walk_packages(app.ui.__path__, "app.ui."):
        module = importlib.import_module(info.name)
        for _name, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, QAbstractItemModel) and cls.__module__ == info.name:
                found.add(cls)
    return {cls for cls in found if not any(o is not cls and issubclass(o, cls) for o in found)}


def _shown_models() -> list[QAbstractItemModel]:
    """The model of every item view in every top-level window, once each."""
    models: dict[int, QAbstractItemModel] = {}
    for top in QApplication.topLevelWidgets():
        for view in top.findChildren(QAbstractItemView):
            model = view.model()
            while model is not None:
                models[id(model)] = model
                # A proxy's source model is shown through it.
                model = model.sourceModel() if isinstance(model, QAbstractProxyModel) else None
    return list(models.values())


def _click(qtbot: Any, parent: Any, name: str) -> None:
    button = parent.findChild(QPushButton, name)
    assert button is not None and button.isEnabled(), name
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def _new_tab(window: MainWindow, endpoint: str) -> RequestTab:
    action = window.findChild(QAction, "newA2ARequestAction")
    assert action is not None
    action.trigger()
    tab = window.current_tab()
    assert tab is not None
    tab.endpoint_edit.setText(endpoint)
    return tab


def test_every_model_passes_qtmodeltester(
    qtbot: Any,
    qtmodeltester: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    sdk_peer: dict[str, Any],
    tmp_path: Path,
) -> None:
    assert window.spec.open_spec(EXAMPLE_SPEC, remember=False) is not None

    # The card page: interfaces, skills, schemes, extensions, signatures, problems, diff.
    window.on_demo_ready(sdk_peer)
    tab = window.current_tab()
    assert tab is not None
    panel = tab.card_panel
    tab.result_tabs.setCurrentWidget(panel)
    _click(qtbot, panel, "fetchCardButton")
    wait_until(lambda: not panel.busy, timeout=15)
    assert panel.card is not None
    _click(qtbot, panel, "extendedCardButton")
    wait_until(lambda: not panel.extended_busy, timeout=15)

    # The signature dialog's verdicts (verification runs on a worker thread).
    _click(qtbot, panel, "verifySignatureButton")
    dialog = panel.verify_dialog
    assert dialog is not None
    _click(qtbot, dialog, "loadDemoJwksButton")
    _click(qtbot, dialog, "verifyButton")

    async def verified() -> None:
        while dialog.verifying:
            await asyncio.sleep(0.02)

    asyncio.get_event_loop().run_until_complete(asyncio.wait_for(verified(), 30))

    # A header on the request tab, then a stream into the timeline of a second tab, whose card
    # (from a file) offers an extension and a security scheme.
    tab.headers_panel.add_header("X-Trace", "1")
    stream = _new_tab(window, sdk_peer["jsonrpc_url"])
    card = tmp_path / "card.json"
    card.write_text(json.dumps(CARD))
    assert stream.card_panel.load_card_file(str(card))
    stream.method_combo.setCurrentIndex(stream.method_combo.findData("SendStreamingMessage"))
    stream.message_text_edit.setText("count to 3")
    stream.generate_preview()
    stream.replace_body()
    _click(qtbot, stream, "sendButton")
    wait_until(lambda: not stream.busy, timeout=20)

    # A stream item picked in the timeline shows as a JSON tree; a filter typed above the
    # table puts the filter proxy between the model and the view.
    stream.timeline.view.selectRow(0)
    assert stream.timeline.tree_page.model.rowCount() > 0
    qtbot.keyClicks(stream.timeline.filter_edit, "kind:message")
    assert stream.timeline.view.model() is stream.timeline.filter_proxy

    # The history store records off the GUI thread and the dock reloads after each write.
    wait_until(lambda: window.history_dock.panel.model.rowCount() > 0, timeout=15)

    # Assertions and captures saved with the request; a check report with a failure shown
    # through the "only failures and warnings" filter.
    tab.assertions_panel.show_saved(
        (Assertion("/result/kind", AssertionOp.EXISTS), Assertion("finalState", value="completed")),
        (("taskId", "/result/task/id"),),
    )
    report = window.check.view
    report.show_event(CheckStarted("http://127.0.0.1:1/card", "Models", ("JSONRPC 1.0",), 2))
    for status in (CheckStatus.PASS, CheckStatus.FAIL):
        report.show_event(
            CheckResult(f"core.{status}", CheckArea.CORE, "a check", status, "A2A 1.0 §3.1")
        )
    report.problems_check.setChecked(True)

    # The 0.3/1.0 explainer of the first tab's request, and the import preview of a curl line.
    open_explainer(window, tab)
    importer = open_import(window.spec, window)
    importer.curl_edit.setPlainText(
        "curl -X POST http://127.0.0.1:1/ -H 'Content-Type: application/json' "
        """-d '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}}'"""
    )
    importer.preview_curl()
    wait_until(lambda: importer.table.model().rowCount() > 0, timeout=15)

    checked: set[type[QAbstractItemModel]] = set()
    empty: list[str] = []
    for model in _shown_models():
        if model.rowCount() == 0:
            empty.append(type(model).__name__)
            continue
        qtmodeltester.check(model)
        checked.add(type(model))
    classes = _model_classes()
    assert len(classes) > 10, f"the walk of app/ui found only {sorted(c.__name__ for c in classes)}"
    missing = sorted(cls.__name__ for cls in classes - checked)
    assert not missing, f"models never checked with rows (empty: {sorted(set(empty))}): {missing}"
