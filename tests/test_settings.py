"""The settings file: defaults when missing, a round trip, bad values and damaged files."""

from __future__ import annotations

import json
from pathlib import Path

from app.paths import settings_path
from app.settings import Settings, SettingsFile, ThemeChoice, WindowLayout


def test_missing_file_gives_the_defaults(tmp_path: Path) -> None:
    loaded = SettingsFile.load(tmp_path / "settings.json")
    assert loaded.settings == Settings()
    assert loaded.layout == WindowLayout()
    assert settings_path().name == "settings.json"


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "cfg" / "settings.json"
    file = SettingsFile(path)
    file.settings = Settings(ThemeChoice.DARK, 12.5, "DejaVu Sans Mono", 13)
    file.layout = WindowLayout(b"\x01geometry\xff", b"\x00state")
    file.save()
    again = SettingsFile.load(path)
    assert again.settings == file.settings
    assert again.layout == file.layout
    assert json.loads(path.read_text(encoding="utf-8"))["settings"]["theme"] == "dark"


def test_bad_values_fall_back_one_by_one(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    settings = {"theme": "purple", "default_timeout": -3, "editor_font": "Mono"}
    settings["editor_font_size"] = True
    raw = {"settings": settings, "window": {"geometry": "not base64!"}}
    path.write_text(json.dumps(raw), encoding="utf-8")
    loaded = SettingsFile.load(path)
    assert loaded.settings == Settings(editor_font="Mono")
    assert loaded.layout.geometry == b""


def test_damaged_file_is_set_aside_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text("{not json", encoding="utf-8")
    loaded = SettingsFile.load(path)
    assert loaded.damaged and loaded.settings == Settings()
    loaded.save()
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("settings.json.bad-")]
    assert len(kept) == 1 and kept[0].read_text(encoding="utf-8") == "{not json"
    assert SettingsFile.load(path).settings == Settings()


def test_the_default_timeout_is_the_network_timeout_and_the_deadline_its_own(
    tmp_path: Path,
) -> None:
    from app.protocol.request import DEFAULT_TIMEOUT_S

    assert Settings().default_timeout == DEFAULT_TIMEOUT_S  # a request's own default
    assert Settings().default_deadline == 0.0  # none
    path = tmp_path / "settings.json"
    file = SettingsFile(path)
    file.settings = Settings(default_timeout=12.5, default_deadline=90.0)
    file.save()
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["schema_version"] == 2
    assert saved["settings"]["default_timeout"] == 12.5
    assert saved["settings"]["default_deadline"] == 90.0
    assert SettingsFile.load(path).settings == file.settings


def test_a_version_1_files_default_timeout_was_the_deadline(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    raw = {"schema_version": 1, "settings": {"theme": "dark", "default_timeout": 45.0}}
    path.write_text(json.dumps(raw), encoding="utf-8")
    loaded = SettingsFile.load(path).settings
    assert loaded.default_deadline == 45.0 and loaded.default_timeout == 30.0
    assert loaded.theme is ThemeChoice.DARK
