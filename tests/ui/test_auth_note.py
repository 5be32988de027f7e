"""The Auth page says where a credential goes when the request is saved, and saving does
exactly that: the file holds a {{variable}}, the value goes to the secret store."""

from __future__ import annotations

import dataclasses
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QLabel

from app.protocol.net.auth import AuthKind
from app.spec import variables
from app.spec.document import load
from app.spec.requests import to_a2a_request
from app.spec.variables import NoKeyring, ScopeError
from app.ui.shell.main_window import MainWindow

pytestmark = pytest.mark.gui
TOKEN = "tok-0123456789-secret"


def test_the_auth_note_tells_what_save_does_with_the_token(
    qtbot: Any, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_keyring(name: str, value: str) -> None:
        raise NoKeyring("no backend in the test")

    monkeypatch.setattr(variables, "keyring_set", no_keyring)
    tab = window.new_a2a_tab("http://127.0.0.1:9/")
    tab.auth_panel.set_kind(AuthKind.BEARER)
    qtbot.keyClicks(tab.auth_panel.bearer_token.edit, TOKEN)
    note = tab.auth_panel.findChild(QLabel, "authNote")
    assert note is not None
    text = note.text()
    for promise in ("only to this tab's endpoint", "{{token.host-port}}", "OS keyring",
                    "secrets.json", "only for requests to that host", "session"):  # fmt: skip
        assert promise in text, promise
    assert "not saved" not in text

    path = tmp_path / "mine.a2a.yaml"
    assert window.spec.save_tab(tab, path) == []
    raw = path.read_text(encoding="utf-8")
    assert TOKEN not in raw and "{{token.127.0.0.1-9}}" in raw  # only the reference
    store = window.spec.store.fallback_path
    assert store is not None and store.name == "secrets.json"
    assert json.loads(store.read_text(encoding="utf-8")) == {"token.127.0.0.1-9": TOKEN}
    assert stat.S_IMODE(os.stat(store).st_mode) == 0o600  # readable only by you
    assert str(store) in window.statusBar().currentMessage()

    # Used only for requests to that host: aimed elsewhere, nothing is sent.
    (op,) = load(path).operations()
    resolver = window.spec.resolver()
    assert to_a2a_request(op.request, resolver).request.headers[-1] == (
        "Authorization",
        f"Bearer {TOKEN}",
    )
    elsewhere = dataclasses.replace(op.request, endpoint="http://other:9/")
    with pytest.raises(ScopeError):
        to_a2a_request(elsewhere, resolver)
