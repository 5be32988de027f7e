"""History → *Export as fixture…* as a person uses it: select an entry, tick *whole task*,
stable ids, a value to redact, JSON; the fixture written holds the task's story, no
credential and no marked value, and the replay reads it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QCheckBox, QComboBox, QDialogButtonBox, QLineEdit, QPlainTextEdit

from app.protocol.methods.catalog import TemplateContext
from app.protocol.types import Binding
from app.replay.fixture import load
from app.ui.shell.main_window import MainWindow
from tests.helpers.screenshots import SHOTS
from tests.replay.session import record, request_for, stream_task_id
from tests.ui.test_history_dock import open_dock, select_rows, wait_rows

pytestmark = [pytest.mark.gui, pytest.mark.peer]
TOKEN = "gui-token-5150"


def test_export_whole_task_as_fixture(
    qtbot: Any,
    qloop: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    sdk_peer: dict[str, Any],
    tmp_path: Path,
) -> None:
    panel = open_dock(window)
    wait_until(lambda: panel.model.store is not None)
    store = panel.model.store
    assert store is not None
    rpc = sdk_peer["jsonrpc_url"]

    def send(method: str, ctx: TemplateContext) -> Any:
        request = request_for(rpc, method, Binding.JSONRPC, ctx, TOKEN)
        return qloop.run_until_complete(record(store, method, request))

    stream = send("SendStreamingMessage", TemplateContext(text="stream 2 10"))
    send("SendMessage", TemplateContext(text="12 30"))  # another story
    task_id = stream_task_id(stream.events)
    send("GetTask", TemplateContext(task_id=task_id))
    panel.model.reload()
    view = wait_rows(wait_until, panel, 3)
    select_rows(qtbot, view, 0)  # the GetTask only: "whole task" adds the stream

    SHOTS.mkdir(parents=True, exist_ok=True)
    panel.resize(1200, 360)
    panel.grab().save(str(SHOTS / "replay-history-panel.png"))
    action = panel.findChild(QAction, "exportFixtureAction")
    assert action is not None and action.isEnabled() and action.text() == "Export as fixture…"
    action.trigger()
    dialog = panel.fixture_dialog
    assert dialog is not None and dialog.objectName() == "exportFixtureDialog"
    wait_until(dialog.isVisible)
    dialog.findChild(QComboBox, "fixtureFormatCombo").setCurrentText("JSON")
    out = dialog.findChild(QLineEdit, "fixtureOutEdit")
    assert out.text().endswith(".json")
    out.setText(str(tmp_path / "story.json"))
    for name in ("fixtureStableIdsCheck", "fixtureWholeTaskCheck"):
        box = dialog.findChild(QCheckBox, name)
        qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))
        assert box.isChecked(), name
    qtbot.keyClicks(dialog.findChild(QPlainTextEdit, "fixtureRedactEdit"), "progress 1/2")
    dialog.grab().save(str(SHOTS / "replay-export-dialog.png"))
    save = dialog.findChild(QDialogButtonBox, "fixtureButtons").button(
        QDialogButtonBox.StandardButton.Save
    )
    qtbot.mouseClick(save, Qt.MouseButton.LeftButton)
    wait_until(
        lambda: (tmp_path / "story.json").exists() and not panel._working.running, timeout=20
    )

    data = (tmp_path / "story.json").read_bytes()
    assert TOKEN.encode() not in data and b"progress 1/2" not in data
    assert task_id.encode() not in data and b'\\"task-1\\"' in data
    fixture = load(tmp_path / "story.json")
    assert [x.method for x in fixture.exchanges] == ["SendStreamingMessage", "GetTask"]
    assert json.loads(fixture.exchanges[1].body)["params"]["id"] == "task-1"
