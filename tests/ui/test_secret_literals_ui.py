"""A ``Cookie`` header that mixes a ``{{variable}}`` with literal values (issue 29, kind 3),
typed on the Headers page: *Save to spec*, the session file and *Copy as curl* hold a
variable for each literal cookie value, never the value."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from app.paths import session_path
from app.spec import variables
from app.ui.shell.main_window import MainWindow

pytestmark = pytest.mark.gui

CSRF = "csrf-7f3a9c1e5b"
COOKIE = f"session={{{{sid}}}}; csrftoken={CSRF}"


@pytest.fixture
def no_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    def refuse(name: str, value: str) -> None:
        raise variables.NoKeyring("the test keeps the developer's keyring untouched")

    monkeypatch.setattr(variables, "keyring_set", refuse)
    yield


def test_a_mixed_cookie_is_saved_kept_and_copied_without_its_literal(
    qtbot: Any,
    qloop: Any,
    window: MainWindow,
    tmp_path: Path,
    no_keyring: None,
    wait_until: Callable[..., None],
) -> None:
    tab = window.new_a2a_tab("http://127.0.0.1:18777/")
    tab.headers_panel.add_header("Cookie", COOKIE)
    path = tmp_path / "mine.a2a.yaml"
    assert window.spec.save_tab(tab, path) == []
    raw = path.read_text()
    assert CSRF not in raw
    assert "session={{sid}}; csrftoken={{csrftoken.127.0.0.1-18777}}" in raw

    tab.headers_panel.add_header("Cookie", "lang={{lang}}; other=other-literal-value")
    tab.response_view.copy_curl()
    copied = QApplication.clipboard().text()
    assert "curl" in copied and CSRF not in copied and "other-literal-value" not in copied

    qloop.run_until_complete(window.shutdown())  # what closing the app does: the session saved
    session = session_path().read_text()
    assert CSRF not in session and "other-literal-value" not in session
