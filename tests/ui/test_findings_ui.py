"""Findings, schema problems and the deadline as the request tab shows them."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDoubleSpinBox, QLabel, QLineEdit, QPushButton

from app.protocol.events import Outcome
from app.ui.shell.main_window import MainWindow
from tests.helpers.bad_server import Canned, bad_server
from tests.ui.test_request_tab import find, new_tab, send_and_wait, type_into

pytestmark = pytest.mark.gui


def test_a_deviating_state_is_a_finding_in_the_response_view(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    task = {"id": "t1", "contextId": "c1", "status": {"state": "completed"}}
    result = {"jsonrpc": "2.0", "id": None, "result": {"task": task}}
    canned = Canned(body=json.dumps(result).encode())
    with bad_server(canned) as url:
        tab = new_tab(qtbot, window)
        type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), url)
        view = send_and_wait(qtbot, tab, wait_until)
    assert view.outcome is Outcome.OK
    label = find(tab, QLabel, "responseFindingsLabel")
    assert label.isVisible() and "state-spelling" in label.text()
    assert "$.result.task.status.state" in label.text()


def test_a_body_without_role_is_held_back_with_its_json_path(
    qtbot: Any, window: MainWindow
) -> None:
    tab = new_tab(qtbot, window)
    tab.endpoint_edit.setText("http://127.0.0.1:9/")  # Send needs one; the body never leaves
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
            "params": {"message": {"messageId": "m", "parts": [{"text": "hi"}]}}}  # fmt: skip
    tab.body_editor.setPlainText(json.dumps(body))
    qtbot.mouseClick(find(tab, QPushButton, "sendButton"), Qt.MouseButton.LeftButton)
    assert not tab.busy
    text = find(tab, QLabel, "shapeBannerText").text()
    assert "$.params.message" in text and "role" in text


def test_the_deadline_field_sets_the_request_deadline(qtbot: Any, window: MainWindow) -> None:
    tab = new_tab(qtbot, window)
    spin = find(tab, QDoubleSpinBox, "deadlineSpin")
    assert tab.build_request().deadline is None
    spin.setValue(2.5)
    assert tab.build_request().deadline == 2.5
