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
