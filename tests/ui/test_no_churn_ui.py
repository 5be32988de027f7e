"""Saved files that churned, in the window (issue 29, kind 9): *Save to spec* and the
Environments dialog's OK leave an unchanged document's bytes alone — the demo agent's
ports of this session are not written, ``timeout: 12`` stays ``12``, and an environment
value the app cannot use is said in the message bar and kept in the file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.shipped import example_spec
from app.spec import variables
from app.ui.shell.main_window import MainWindow
from tests.ui.test_environments import open_dialog

pytestmark = pytest.mark.gui

DEMO_INFO = {"base_url": "http://127.0.0.1:39123", "grpc_target": "127.0.0.1:39124"}


@pytest.fixture
def spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    def no_keyring(name: str, value: str) -> None:
        raise variables.NoKeyring("the test keeps the developer's keyring untouched")

    monkeypatch.setattr(variables, "keyring_set", no_keyring)
    text = example_spec().read_text()
    text = text.replace("      x-a2a:\n", "      x-a2a:\n        timeout: 12\n", 1)
    text = text.replace(
        "x-a2a-environments:\n",
        "x-a2a-environments:\n  local:\n    port: 8000\n    nested: {a: 1}\n",
        1,
    )
    path = tmp_path / "mine.a2a.yaml"
    path.write_text(text)
    return path


def test_saving_an_unchanged_request_changes_nothing_in_the_file(
    qtbot: Any, window: MainWindow, spec: Path, wait_until: Callable[..., None]
) -> None:
    window.spec.set_demo_info(DEMO_INFO)  # the demo agent started on new ports
    doc = window.spec.open_spec(spec)
    assert doc is not None
    assert "other problem(s), see the Collections dock" in window.statusBar().currentMessage()
    listed = window.spec.dock.problems_label.text()
    assert "Environment entry not used: x-a2a-environments.local.nested (line 31)" in listed
    assert "not a text value (an object); kept in the file as written" in listed
    tab = window.spec.open_operation(doc.operations()[0])
    assert window.spec.resolver().lookup("baseUrl") == DEMO_INFO["base_url"]

    assert window.spec.save_tab(tab, spec) == []  # the app's own form of the file
    first = spec.read_bytes()
    assert window.spec.save_tab(tab, spec) == []
    assert spec.read_bytes() == first
    saved = yaml.safe_load(first)
    assert saved["x-a2a-environments"]["demo"] == {
        "baseUrl": "http://127.0.0.1:8000", "grpcTarget": "127.0.0.1:50051",
    }  # fmt: skip
    assert saved["x-a2a-environments"]["local"] == {"port": 8000, "nested": {"a": 1}}
    assert b"timeout: 12\n" in first and b"39123" not in first

    tab.timeout_spin.setValue(15)
    assert window.spec.save_tab(tab, spec) == []
    assert b"timeout: 15\n" in spec.read_bytes()

    before = spec.read_bytes()
    dialog = open_dialog(window)  # OK without a change: the environments are written again
    dialog.buttons.button(dialog.buttons.StandardButton.Ok).click()
    wait_until(lambda: "Environments saved" in window.statusBar().currentMessage())
    assert spec.read_bytes() == before
