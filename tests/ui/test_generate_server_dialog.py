"""*Request → Generate server…* as a person uses it: load a card, edit it, pick a language,
Generate, read how to start the project."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
)

from app.ui.collections.generate_server_dialog import GenerateServerDialog
from app.ui.shell.main_window import MainWindow
from tests.generate.cards import card_03, demo_card
from tests.generate.test_source import _request, _spec
from tests.helpers.screenshots import SHOTS
from tests.ui.test_card_panel import click, fetch_demo_card, find

pytestmark = pytest.mark.gui


def open_dialog(window: MainWindow) -> GenerateServerDialog:
    action = find(window, QAction, "generateServerAction")
    assert action.isEnabled()
    action.trigger()
    dialog = window.generate_server_dialog
    assert isinstance(dialog, GenerateServerDialog) and dialog.isVisible()
    assert dialog.objectName() == "generateServerDialog"
    return dialog


@pytest.fixture
def card_file(tmp_path: Path) -> Path:
    card = demo_card()
    card["name"] = "Weather agent"
    card["description"] = "Tells the weather."
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card))
    return path


def load(qtbot: Any, dialog: GenerateServerDialog, source: str, wait_until: Callable[..., None]):
    edit = find(dialog, QLineEdit, "serverSourceEdit")
    edit.clear()
    qtbot.keyClicks(edit, source)
    click(qtbot, find(dialog, QPushButton, "serverSourceLoadButton"))
    wait_until(lambda: not dialog.loading)


def generate(qtbot: Any, dialog: GenerateServerDialog, wait_until: Callable[..., None]) -> str:
    click(qtbot, find(dialog, QPushButton, "generateServerButton"))
    wait_until(lambda: not dialog.generating, timeout=15)
    return str(find(dialog, QLabel, "serverStatusLabel").text())


def items(widget: QListWidget) -> list[str]:
    return [widget.item(i).text() for i in range(widget.count())]


def test_load_edit_generate_node_and_read_how_to_start(
    qtbot: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    card_file: Path,
    tmp_path: Path,
) -> None:
    dialog = open_dialog(window)
    generate_button = find(dialog, QPushButton, "generateServerButton")
    assert not generate_button.isEnabled()  # no card yet

    load(qtbot, dialog, str(card_file), wait_until)
    name = find(dialog, QLineEdit, "serverCardNameEdit")
    assert name.text() == "Weather agent"
    skills = find(dialog, QTableWidget, "serverSkillsTable")
    assert skills.rowCount() == 5 and skills.item(0, 0).text() == "sum"
    interfaces = items(find(dialog, QListWidget, "serverInterfacesList"))
    assert interfaces == [
        "JSONRPC 1.0   http://127.0.0.1:8000/",
        "HTTP+JSON 1.0   http://127.0.0.1:8000/rest",
        "GRPC 1.0   http://127.0.0.1:50051",
    ]
    assert "the card validates" in find(dialog, QLabel, "serverFindingsLabel").text()

    # Edit in place: the name, a skill, the port; the preview follows.
    name.selectAll()
    qtbot.keyClicks(name, "Forecast agent")
    skills.item(1, 1).setText("Echo back")
    port = find(dialog, QSpinBox, "serverPortSpin")
    port.setValue(9100)
    assert items(find(dialog, QListWidget, "serverInterfacesList"))[0].endswith(
        "http://127.0.0.1:9100/"
    )
    language = find(dialog, QComboBox, "serverLanguageCombo")
    assert [language.itemText(i) for i in range(language.count())] == ["python", "node"]
    language.setCurrentIndex(language.findText("node"))

    out = tmp_path / "forecast-server"
    qtbot.keyClicks(find(dialog, QLineEdit, "serverOutputEdit"), str(out))
    status = generate(qtbot, dialog, wait_until)
    assert status.startswith(f"Wrote {len(dialog.written)} files to {out}")

    card = json.loads((out / "agent-card.json").read_text())
    assert card["name"] == "Forecast agent"
    assert card["skills"][1]["name"] == "Echo back"
    assert card["supportedInterfaces"][0]["url"] == "http://127.0.0.1:9100/"
    assert json.loads((out / "package.json").read_text())["name"] == "forecast-agent"
    commands = find(dialog, QPlainTextEdit, "serverStartCommands").toPlainText().splitlines()
    assert commands == [f"cd {out} && npm install", 'A2A_TOKEN="<32+ random characters>" npm start']
    click(qtbot, find(dialog, QPushButton, "serverCopyCommandsButton"))
    assert QGuiApplication.clipboard().text().splitlines() == commands

    SHOTS.mkdir(parents=True, exist_ok=True)
    dialog.grab().save(str(SHOTS / "genui-dialog-generated.png"))


def test_findings_follow_the_edits_and_block_an_impossible_plan(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], card_file: Path
) -> None:
    dialog = open_dialog(window)
    load(qtbot, dialog, str(card_file), wait_until)
    qtbot.keyClicks(find(dialog, QLineEdit, "serverOutputEdit"), "/tmp/unused")
    generate_button = find(dialog, QPushButton, "generateServerButton")
    assert generate_button.isEnabled()

    for name in ("serverBindingJsonRpcCheck", "serverBindingRestCheck", "serverBindingGrpcCheck"):
        find(dialog, QCheckBox, name).setChecked(False)
    findings = find(dialog, QListWidget, "serverFindingsList")
    assert items(findings) == ["error: choose at least one binding"]
    assert not generate_button.isEnabled()
    assert items(find(dialog, QListWidget, "serverInterfacesList")) == []

    find(dialog, QCheckBox, "serverBindingGrpcCheck").setChecked(True)
    assert generate_button.isEnabled()
    assert items(find(dialog, QListWidget, "serverInterfacesList")) == [
        "GRPC 1.0   http://127.0.0.1:50051"
    ]
    find(dialog, QSpinBox, "serverGrpcPortSpin").setValue(8000)
    assert "must differ" in items(findings)[0]
    assert not generate_button.isEnabled()
    find(dialog, QSpinBox, "serverGrpcPortSpin").setValue(50051)

    # The card validator speaks as the card is typed.
    find(dialog, QLineEdit, "serverCardNameEdit").clear()
    label = find(dialog, QLabel, "serverFindingsLabel").text()
    assert label == "Findings: 0 error(s), 1 warning(s)"
    assert items(findings)[0] == "warning: name: required field is empty"
    assert "1 warning" in find(dialog, QLabel, "serverStatusLabel").text()
    assert generate_button.isEnabled()  # a warning does not block

    find(dialog, QCheckBox, "serverCompatCheck").setChecked(True)
    assert "GRPC 0.3   http://127.0.0.1:50051" in items(
        find(dialog, QListWidget, "serverInterfacesList")
    )

    SHOTS.mkdir(parents=True, exist_ok=True)
    dialog.grab().save(str(SHOTS / "genui-dialog-findings.png"))


def test_a_non_empty_folder_is_refused_until_overwrite_is_ticked(
    qtbot: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    card_file: Path,
    tmp_path: Path,
) -> None:
    out = tmp_path / "busy"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    dialog = open_dialog(window)
    load(qtbot, dialog, str(card_file), wait_until)
    qtbot.keyClicks(find(dialog, QLineEdit, "serverOutputEdit"), str(out))
    status = generate(qtbot, dialog, wait_until)
    assert status.startswith("Not written:") and "not empty" in status
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    assert find(dialog, QPlainTextEdit, "serverStartCommands").toPlainText() == ""

    find(dialog, QCheckBox, "serverForceCheck").setChecked(True)
    status = generate(qtbot, dialog, wait_until)
    assert status.startswith("Wrote")
    assert (out / "pyproject.toml").is_file()  # python is the first language
    assert "pip install -e ." in find(dialog, QPlainTextEdit, "serverStartCommands").toPlainText()
    assert (out / "notes.txt").read_text() == "mine"


def test_a_bad_source_says_why(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], tmp_path: Path
) -> None:
    dialog = open_dialog(window)
    load(qtbot, dialog, str(tmp_path / "missing.json"), wait_until)
    assert "cannot read" in find(dialog, QLabel, "serverStatusLabel").text()
    assert not find(dialog, QPushButton, "generateServerButton").isEnabled()


@pytest.mark.peer
def test_opens_on_the_current_tabs_card(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    _tab, panel = fetch_demo_card(qtbot, window, wait_until, sdk_peer)
    assert isinstance(panel.card, dict)
    dialog = open_dialog(window)
    assert find(dialog, QLineEdit, "serverCardNameEdit").text() == panel.card["name"]
    assert find(dialog, QLabel, "serverCardOriginLabel").text() == f"From {panel.source}"
    assert find(dialog, QTableWidget, "serverSkillsTable").rowCount() == len(panel.card["skills"])
    # The demo card's signatures and push capability are not the new server's: noted.
    notes = [t for t in items(find(dialog, QListWidget, "serverFindingsList")) if "note:" in t]
    assert any("signatures" in t for t in notes)
    dialog.close()
    qtbot.waitUntil(lambda: window.generate_server_dialog is None)


def test_opens_on_the_opened_spec(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], tmp_path: Path
) -> None:
    spec = _spec(tmp_path, _request("forecast", agent_card=card_03()))
    assert window.spec.open_spec(spec, remember=False) is not None
    dialog = open_dialog(window)
    assert find(dialog, QLineEdit, "serverSourceEdit").text() == str(spec)
    wait_until(lambda: not dialog.loading)
    assert find(dialog, QLineEdit, "serverCardNameEdit").text() == "Weather"
    notes = items(find(dialog, QListWidget, "serverFindingsList"))
    assert any("reshaped the 0.3 card" in text for text in notes)


def test_add_and_remove_skills(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], card_file: Path
) -> None:
    dialog = open_dialog(window)
    load(qtbot, dialog, str(card_file), wait_until)
    skills = find(dialog, QTableWidget, "serverSkillsTable")
    click(qtbot, find(dialog, QPushButton, "addServerSkillButton"))
    assert skills.rowCount() == 6
    skills.item(5, 3).setText("weather; forecast")
    assert dialog.plan_result is not None
    added = dialog.plan_result.plan.card["skills"][5]
    assert added["id"] == "skill-6" and added["tags"] == ["weather", "forecast"]
    skills.selectRow(0)
    click(qtbot, find(dialog, QPushButton, "removeServerSkillButton"))
    assert [s["id"] for s in dialog.plan_result.plan.card["skills"]] == [
        "echo", "stream", "ask", "fail", "skill-6"
    ]  # fmt: skip
