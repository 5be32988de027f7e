"""Named environments in the window: the toolbar combo, the Environments dialog, the endpoint
marks, the send error's advice, and saving (``{{baseUrl}}`` instead of the literal origin,
secrets never in the file) — against the real SDK peer."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QAction, QHelpEvent
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFileDialog,
    QInputDialog,
    QMessageBox,
    QToolTip,
)

from app.protocol.events import Outcome
from app.spec.document import load
from app.spec.environments import SECRET_MARKER, X_ENVIRONMENTS
from app.ui.collections.collection_actions import NEW_FILE
from app.ui.collections.environment_combo import EnvironmentCombo
from app.ui.collections.environments_dialog import SECRET_COL, VALUE_COL, EnvironmentsDialog
from app.ui.collections.spec_dock import EXAMPLE_SPEC
from app.ui.request.request_tab import RequestTab
from app.ui.request.variable_marks import MASK, UNRESOLVED_PROPERTY, VariableMarks
from app.ui.shell.main_window import MainWindow
from tests.cli.test_run import run_cli
from tests.ui.test_auth_headers import send_and_wait

pytestmark = pytest.mark.gui
SHOTS_ENV = "A2A_WB_SCREENSHOTS"
OPERATION = "sum-numbers-1-0-json-rpc"
SECRET = "env-secret-value-4711"


def spec_file(tmp_path: Path, environments: dict[str, dict[str, str]]) -> Path:
    data = yaml.safe_load(EXAMPLE_SPEC.read_text())
    data[X_ENVIRONMENTS] = environments
    path = tmp_path / "mine.a2a.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def combo(window: MainWindow) -> EnvironmentCombo:
    found = window.findChild(QComboBox, "environmentCombo")
    assert isinstance(found, EnvironmentCombo)
    return found


def pick_environment(window: MainWindow, text: str) -> None:
    box = combo(window)
    index = box.findText(text)
    assert index >= 0, text
    box.setCurrentIndex(index)
    box.activated.emit(index)  # what a click on the entry emits


def open_dialog(window: MainWindow) -> EnvironmentsDialog:
    action = window.findChild(QAction, "environmentsAction")
    assert action is not None
    action.trigger()
    dialog = window.findChild(EnvironmentsDialog, "environmentsDialog")
    assert dialog is not None and dialog.isVisible()
    return dialog


def hover_text(tab: RequestTab, name: str) -> str:
    """The tooltip shown when hovering ``{{name}}`` in the endpoint field."""
    edit = tab.endpoint_edit
    marks = edit.findChild(VariableMarks)
    assert marks is not None
    y = edit.height() // 2
    x = next(x for x in range(edit.width()) if marks.name_at(x, y) == name)
    pos = QPoint(x, y)
    QApplication.sendEvent(edit, QHelpEvent(QEvent.Type.ToolTip, pos, edit.mapToGlobal(pos)))
    text = QToolTip.text()
    QToolTip.hideText()
    return text


def test_switching_the_environment_changes_what_is_sent(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any],
    tmp_path: Path,
) -> None:  # fmt: skip
    path = spec_file(
        tmp_path,
        {"nowhere": {"baseUrl": "http://127.0.0.1:9"}, "peer": {"baseUrl": sdk_peer["base_url"]}},
    )
    assert window.spec.open_spec(path) is not None
    assert [combo(window).itemText(i) for i in range(combo(window).count())] == [
        "No environment", "nowhere", "peer",
    ]  # fmt: skip
    assert combo(window).active == "nowhere"  # the first one is selected on opening
    op = window.spec.document.find(OPERATION) if window.spec.document else None
    assert op is not None
    tab = window.spec.open_operation(op)
    assert tab.endpoint_edit.property(UNRESOLVED_PROPERTY) == ""
    assert "http://127.0.0.1:9\n(from environment nowhere)" in hover_text(tab, "baseUrl")

    view = send_and_wait(qtbot, tab, wait_until)
    assert view.outcome is Outcome.TRANSPORT_ERROR

    pick_environment(window, "peer")
    assert sdk_peer["base_url"] in hover_text(tab, "baseUrl")
    view = send_and_wait(qtbot, tab, wait_until)
    assert view.outcome is Outcome.OK, view.error_label.text()
    assert "Sum: 42" in view.pretty_view.toPlainText()

    # No environment: {{baseUrl}} has no value; the field marks it, the error says where.
    pick_environment(window, "No environment")
    assert tab.endpoint_edit.property(UNRESOLVED_PROPERTY) == "baseUrl"
    assert "set it in Environments" in hover_text(tab, "baseUrl")
    shots = Path(os.environ.get(SHOTS_ENV) or tmp_path)
    window.grab().save(str(shots / "env-window-unresolved.png"))
    view = send_and_wait(qtbot, tab, wait_until)
    assert view.outcome is Outcome.USAGE_ERROR
    assert "{{baseUrl}}" in view.error_label.text()
    assert "set it in Environments" in view.error_label.text()
    assert "--var" not in view.error_label.text()
    assert window.spec.save_tab(tab, path) == []  # a save keeps the choice of none
    assert combo(window).active == ""


def test_the_dialog_edits_environments_and_masks_secrets(
    qtbot: Any, window: MainWindow, tmp_path: Path, wait_until: Callable[..., None]
) -> None:
    path = spec_file(tmp_path, {"demo": {"baseUrl": "http://127.0.0.1:8000"}})
    window.spec.open_spec(path)
    dialog = open_dialog(window)
    qtbot.mouseClick(dialog.add_env_button, Qt.MouseButton.LeftButton)
    dialog.env_list.currentItem().setText("staging")  # renamed in place
    row = dialog.add_variable("baseUrl", "https://staging.example.com")
    row = dialog.add_variable("token", SECRET)
    dialog.cell(row, SECRET_COL).setCheckState(Qt.CheckState.Checked)
    delegate = dialog.table.itemDelegate()
    index = dialog.table.model().index(row, VALUE_COL)

    def shown() -> str:
        from PySide6.QtWidgets import QStyleOptionViewItem

        option = QStyleOptionViewItem()
        delegate.initStyleOption(option, index)  # type: ignore[attr-defined]
        return str(option.text)

    assert shown() == MASK
    shots = Path(os.environ.get(SHOTS_ENV) or tmp_path)
    dialog.grab().save(str(shots / "env-dialog-masked.png"))
    qtbot.mouseClick(dialog.show_secrets, Qt.MouseButton.LeftButton)
    assert shown() == SECRET
    dialog.grab().save(str(shots / "env-dialog-shown.png"))
    qtbot.mouseClick(dialog.show_secrets, Qt.MouseButton.LeftButton)
    # A throwaway environment and variable: added, then removed again.
    qtbot.mouseClick(dialog.add_env_button, Qt.MouseButton.LeftButton)
    assert dialog.current_name == "new"
    qtbot.mouseClick(dialog.add_var_button, Qt.MouseButton.LeftButton)
    assert dialog.table.rowCount() == 1
    qtbot.mouseClick(dialog.remove_var_button, Qt.MouseButton.LeftButton)
    assert dialog.table.rowCount() == 0
    qtbot.mouseClick(dialog.remove_env_button, Qt.MouseButton.LeftButton)
    dialog.env_list.setCurrentRow(1)
    assert dialog.current_name == "staging" and dialog.table.rowCount() == 2
    dialog.buttons.button(dialog.buttons.StandardButton.Ok).click()
    assert not dialog.isVisible()
    assert [e.name for e in window.spec.environments.environments] == ["demo", "staging"]

    assert combo(window).active == "staging"
    # Written into the open document off the GUI thread; the secret only in the store.
    wait_until(lambda: b"staging" in path.read_bytes())
    raw = path.read_bytes()
    assert SECRET.encode() not in raw
    saved = yaml.safe_load(raw)[X_ENVIRONMENTS]
    assert saved["staging"] == {"baseUrl": "https://staging.example.com", "token": SECRET_MARKER}
    tab = window.new_a2a_tab("{{baseUrl}}/{{token}}")
    assert MASK in hover_text(tab, "token") and SECRET not in hover_text(tab, "token")
    assert "secret, from environment staging" in hover_text(tab, "token")


def test_saving_offers_the_variable_and_a_restart_keeps_the_environments(
    qtbot: Any, window: MainWindow, qloop: Any, wait_until: Callable[..., None],
    sdk_peer: dict[str, Any], tmp_path: Path,
) -> None:  # fmt: skip
    path = spec_file(
        tmp_path, {"demo": {"baseUrl": "http://127.0.0.1:8000", "token": SECRET_MARKER}}
    )
    window.spec.open_spec(path)
    window.spec.set_demo_info(sdk_peer)  # the demo environment follows the demo agent
    dialog = open_dialog(window)
    token_row = next(
        r for r in range(dialog.table.rowCount()) if dialog.cell(r, 0).text() == "token"
    )
    dialog.cell(token_row, VALUE_COL).setText(SECRET)
    dialog.buttons.button(dialog.buttons.StandardButton.Ok).click()
    wait_until(lambda: "Environments saved" in window.statusBar().currentMessage())
    # The demo agent's port of this session is not written: the file keeps its own.
    assert sdk_peer["base_url"].encode() not in path.read_bytes()
    assert b"http://127.0.0.1:8000" in path.read_bytes()

    tab = window.new_a2a_tab(sdk_peer["jsonrpc_url"])  # a literal origin, as Use this interface
    assert sdk_peer["jsonrpc_url"].startswith(sdk_peer["base_url"])
    save = window.findChild(QAction, "saveToSpecAction")
    assert save is not None
    save.trigger()
    # The tab belongs to no collection: which one? The open file is offered first.
    which = window.findChild(QInputDialog, "saveTargetDialog")
    assert which is not None and which.isVisible()
    assert which.textValue() == "A2A Workbench demo agent (mine.a2a.yaml)"
    which.accept()
    box = window.findChild(QMessageBox, "useVariableBox")
    assert box is not None and box.isVisible()
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.Yes)
    assert "{{baseUrl}}" in box.text()
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    wait_until(lambda: not tab.dirty)
    assert tab.endpoint_edit.text() == "{{baseUrl}}/"

    raw = path.read_bytes()
    assert SECRET.encode() not in raw
    doc = load(path)
    new = [op for op in doc.operations() if op.request.operation_id == tab.saved_base.operation_id]
    assert [op.request.endpoint for op in new] == ["{{baseUrl}}/"]

    view = send_and_wait(qtbot, tab, wait_until)  # still reaches the agent
    assert view.outcome is Outcome.OK, view.error_label.text()

    # A restart: a new window opens the saved file; environments and secrets are back.
    second = MainWindow()
    try:
        second.spec.open_spec(path)
        assert combo(second).active == "demo"
        reopened = open_dialog(second)
        rows = {reopened.cell(r, 0).text(): r for r in range(reopened.table.rowCount())}
        assert reopened.cell(rows["token"], VALUE_COL).text() == SECRET  # from the store
        assert reopened.cell(rows["token"], SECRET_COL).checkState() == Qt.CheckState.Checked
        reopened.reject()
        # The saved request follows the demo environment, wherever the agent listens next.
        assert second.spec.resolver().lookup("baseUrl") == "http://127.0.0.1:8000"
        second.spec.set_demo_info(sdk_peer)
        assert second.spec.resolver().lookup("baseUrl") == sdk_peer["base_url"]
        second.spec.set_demo_info({**sdk_peer, "base_url": "http://127.0.0.1:1"})
        assert second.spec.resolver().lookup("baseUrl") == "http://127.0.0.1:1"
    finally:
        qloop.run_until_complete(second.shutdown())
        second.close_now()
        second.deleteLater()


def test_the_card_url_follows_the_variable_the_endpoint_uses(
    window: MainWindow, tmp_path: Path
) -> None:
    import dataclasses

    window.spec.open_spec(spec_file(tmp_path, {"demo": {"baseUrl": "http://127.0.0.1:8000"}}))
    op = window.spec.document.find(OPERATION) if window.spec.document else None
    assert op is not None
    fetched = dataclasses.replace(
        op.request, agent_card_url="http://127.0.0.1:8000/.well-known/agent-card.json"
    )
    saved = window.spec.environments.card_url_with_variable(fetched)
    assert saved.agent_card_url == "{{baseUrl}}/.well-known/agent-card.json"
    other = dataclasses.replace(fetched, agent_card_url="http://127.0.0.1:9/card.json")
    assert window.spec.environments.card_url_with_variable(other) == other


def test_a_request_saved_into_a_new_file_carries_its_environment_so_run_replays_it(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None],
    sdk_peer: dict[str, Any], tmp_path: Path,
) -> None:  # fmt: skip
    """Newcomer point 1: saved with *Save {{baseUrl}}* into a new file, the request could not
    be replayed: the file had no environment and `run` talked of the keyring. The new file
    gets the environment its {{variables}} came from, with only those variables."""
    source = spec_file(tmp_path, {"demo": {"baseUrl": sdk_peer["base_url"], "other": "x"}})
    window.spec.open_spec(source)
    window.spec.environments.ask_use_variable = lambda _name, _origin, answer: answer(True)
    tab = window.new_a2a_tab(sdk_peer["jsonrpc_url"])
    save = window.findChild(QAction, "saveToSpecAction")
    assert save is not None
    save.trigger()
    which = window.findChild(QInputDialog, "saveTargetDialog")
    assert which is not None and which.isVisible()
    which.setTextValue(NEW_FILE)
    which.accept()
    assert tab.endpoint_edit.text() == "{{baseUrl}}/"  # Save {{baseUrl}}: yes
    dialog = next(d for d in window.findChildren(QFileDialog) if d.isVisible())
    target = tmp_path / "replay.a2a.yaml"
    dialog.selectFile(str(target))
    dialog.accept()
    wait_until(lambda: target.exists() and not tab.dirty)
    data = yaml.safe_load(target.read_text())
    assert data[X_ENVIRONMENTS] == {"demo": {"baseUrl": sdk_peer["base_url"]}}

    status, records, _ = run_cli(str(target), "--env", "demo")
    assert status == 0 and [r["outcome"] for r in records if r["event"] == "end"] == ["ok"]
    status, records, stderr = run_cli(str(target))  # no --env: it says which one
    assert status == 3 and "keyring" not in stderr.lower()
    assert "pass --env demo (the file's environment that sets it)" in records[0]["message"]
