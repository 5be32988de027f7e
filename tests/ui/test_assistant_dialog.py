"""Help → *Use with a coding assistant*: the configuration snippets for Claude Code, VS Code
and Cursor, with this install's command line, ready to copy."""

from __future__ import annotations

import json
import shlex
from typing import Any

from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QDialog, QPushButton

from app.install import launch_command
from app.ui.shell.main_window import MainWindow


def test_help_shows_ready_to_paste_configuration(window: MainWindow, qtbot: Any) -> None:
    action = window.findChild(QAction, "codingAssistantAction")
    assert action is not None and action in window.menus.help.actions()
    action.trigger()
    box = window.findChild(QDialog, "codingAssistantDialog")
    assert box is not None and box.isVisible()
    program, *args = launch_command()
    assert args[-1] == "mcp"

    claude = box.snippet_text("Claude Code")
    assert f"claude mcp add a2a-workbench -- {shlex.join([program, *args])}" in claude
    vscode = json.loads(box.snippet_text("VS Code"))
    assert vscode["servers"]["a2a-workbench"] == {"type": "stdio", "command": program,
                                                   "args": args}  # fmt: skip
    cursor = json.loads(box.snippet_text("Cursor"))
    assert cursor["mcpServers"]["a2a-workbench"] == {"command": program, "args": args}

    box.tabs.setCurrentIndex(2)
    copy = box.tabs.currentWidget().findChild(QPushButton, "copySnippetButton")
    copy.click()
    assert json.loads(QGuiApplication.clipboard().text()) == cursor
    box.reject()
