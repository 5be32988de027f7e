"""app/paths.py: every user directory and file of the app, named in one place."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app import paths
from app.paths import settings_path, user_config_dir

APP = Path(__file__).resolve().parent.parent / "app"


def test_every_directory_is_the_one_platformdirs_names() -> None:
    import platformdirs

    assert paths.user_config_dir() == platformdirs.user_config_dir("a2a-workbench")
    assert paths.user_data_dir() == platformdirs.user_data_dir("a2a-workbench")
    assert paths.user_state_dir() == platformdirs.user_state_dir("a2a-workbench")
    assert paths.user_cache_dir() == platformdirs.user_cache_dir("a2a-workbench")
    assert paths.user_log_dir() == platformdirs.user_log_dir("a2a-workbench")


def test_every_file_is_in_its_directory() -> None:
    config, data = Path(paths.user_config_dir()), Path(paths.user_data_dir())
    assert paths.settings_path() == config / "settings.json"
    assert paths.network_settings_path() == config / "network.json"
    assert paths.recent_specs_path() == config / "recent-specs.json"
    assert paths.secrets_path() == config / "secrets.json"
    assert paths.session_path() == data / "session.json"
    assert paths.history_path() == data / "history.sqlite3"
    assert paths.KEYRING_SERVICE == paths.APP_NAME == "a2a-workbench"


def test_the_tests_use_a_temporary_home() -> None:
    """tests/conftest.py points HOME and every directory away from the developer's own."""
    where = [
        paths.user_config_dir(),
        paths.user_data_dir(),
        paths.user_state_dir(),
        paths.user_cache_dir(),
        paths.user_log_dir(),
    ]
    home = Path(os.environ["XDG_CONFIG_HOME"]).parent
    assert all(Path(d).is_relative_to(home) for d in where), where
    # HOME too: what reads it directly (keyring backends, Qt, the processes a test starts).
    assert Path(os.environ["HOME"]) == home == Path.home()


def test_isolate_puts_every_directory_under_one_folder(tmp_path: Path) -> None:
    """``--selftest``'s home (app/ui/shell/application.py), on every platform."""
    users = [paths.session_path(), paths.settings_path(), paths.history_path()]
    paths.isolate(tmp_path)
    try:
        dirs = [paths.user_config_dir(), paths.user_data_dir(), paths.user_state_dir()]
        dirs += [paths.user_cache_dir(), paths.user_log_dir()]
        assert all(Path(d).parent == tmp_path for d in dirs) and len(set(dirs)) == 5
        assert paths.session_path().is_relative_to(tmp_path)
        assert paths.settings_path().is_relative_to(tmp_path)
    finally:
        paths.isolate(None)
    assert [paths.session_path(), paths.settings_path(), paths.history_path()] == users


def test_no_other_module_builds_a_user_path() -> None:
    """platformdirs is named in app/paths.py only: every other module asks it."""
    offenders = sorted(
        path.relative_to(APP.parent).as_posix()
        for path in APP.rglob("*.py")
        if path != APP / "paths.py" and "platformdirs" in path.read_text(encoding="utf-8")
    )
    assert not offenders, f"use app.paths instead of platformdirs: {offenders}"


@pytest.mark.parametrize(
    ("xdg", "home"),
    [
        ("/tmp/xdg-config", "/home/u"),
        ("/tmp/xdg-config/", "/home/u"),
        (None, "/home/u"),
        (None, "/home/u/"),
        ("", "/home/u"),
        ("relative/dir", "/home/u"),  # platformdirs decides (ignored or used, by version)
        (" /tmp/x", "/home/u"),
        (None, "relative-home"),
    ],
)
def test_the_config_dir_is_the_one_platformdirs_names(
    monkeypatch: pytest.MonkeyPatch, xdg: str | None, home: str
) -> None:
    import platformdirs

    if xdg is None:
        monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CONFIG_HOME", xdg)
    monkeypatch.setenv("HOME", home)
    try:
        expected = platformdirs.user_config_dir("a2a-workbench")
    except RuntimeError:  # no home directory platformdirs accepts
        return
    assert user_config_dir() == expected
    assert settings_path() == Path(expected) / "settings.json"
