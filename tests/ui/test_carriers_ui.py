"""The custom carriers in the window, against the real iac-code: the binding picker marks them
non-standard, a stdio tab's command field starts the agent (its log, Stop agent), a stream
over it fills the timeline; the card page's *Send credentials* box reads iac-code's guarded
card; the push receiver's public URL goes into the push config."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QPushButton

from app.protocol import exchange
from app.protocol.net.auth import AuthKind
from app.protocol.stream.stream_items import ItemKind, TaskState
from app.protocol.types import Binding
from app.ui.shell.main_window import MainWindow
from tests.ui.test_timeline import click, new_tab, panel_of, rows

pytestmark = [pytest.mark.gui, pytest.mark.peer, pytest.mark.timeout(600)]


def test_a_stream_over_a_stdio_agent_fills_the_timeline(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], iac_stdio: dict[str, Any]
) -> None:
    tab = new_tab(window, "stdio://iac-code", "SendStreamingMessage", "hello over stdio")
    combo = tab.findChild(QComboBox, "bindingCombo")
    labels = [combo.itemText(i) for i in range(combo.count())]
    assert "stdio (non-standard)" in labels and "JSONRPC" in labels
    command = tab.findChild(QLineEdit, "agentCommandEdit")
    assert command.isHidden()  # JSON-RPC over HTTP starts nothing
    combo.setCurrentIndex(combo.findData(Binding.STDIO))
    assert not command.isHidden()
    command.setText(iac_stdio["command_line"])
    state = tab.agent_controls.state_label
    # "not started", or "ended (0)" when an earlier test ran the same command line.
    assert not state.text().startswith("running")
    tab.generate_preview()
    tab.replace_body()
    panel = panel_of(tab)
    click(qtbot, tab, "sendButton")
    wait_until(lambda: not tab.busy and panel.ending is not None, timeout=90)
    kinds = [r.kind for r in rows(panel)]
    assert kinds[0] is ItemKind.TASK and ItemKind.STATUS_UPDATE in kinds
    assert panel.state is TaskState.INPUT_REQUIRED
    assert state.text().startswith("running (pid ")
    tab.findChild(QPushButton, "agentLogButton").click()
    assert tab.agent_controls._log is not None and tab.agent_controls._log.isVisible()
    tab.agent_controls._log.close()
    click(qtbot, tab, "stopAgentButton")
    wait_until(lambda: state.text().startswith("ended"), timeout=30)
    assert not any(a.running for a in exchange.agents())


def test_send_credentials_reads_a_guarded_card(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], iac_http: dict[str, Any]
) -> None:
    tab = new_tab(window, iac_http["jsonrpc_url"], "SendMessage", "hi")
    tab.auth_panel.set_kind(AuthKind.BEARER)
    tab.auth_panel.bearer_token.edit.setText(iac_http["token"])
    panel = tab.card_panel
    panel.url_edit.setText(iac_http["base_url"])
    panel.fetch()
    wait_until(lambda: not panel.busy)
    assert "Send credentials" in panel.detail_label.text()  # the 401 names the option
    box = panel.findChild(QCheckBox, "cardAuthCheck")
    assert not box.isChecked()
    box.setChecked(True)
    panel.fetch()
    wait_until(lambda: not panel.busy)
    assert panel.view is not None and panel.view.name
    assert any("Bearer ****" in v for n, v in panel.last_fetch.request_headers)


def test_the_push_config_gets_the_public_url(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    tab = new_tab(window, "http://127.0.0.1:9/", "CreateTaskPushNotificationConfig", "")
    wiring = tab.push
    wiring.public_edit.setText("https://tunnel.example")
    click(qtbot, tab, "pushReceiverButton")
    wait_until(lambda: "https://tunnel.example/push" in tab.body_editor.toPlainText())
    body = json.loads(tab.body_editor.toPlainText())
    assert "https://tunnel.example/push" in json.dumps(body)
    assert "it must lead to the receiver at http://127.0.0.1:" in wiring.status.text()
