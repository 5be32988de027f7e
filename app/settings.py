"""The user's desktop settings: theme, default request timeout, editor font, window layout.

One JSON file, ``settings.json`` in the user config directory (:mod:`app.paths`) (next to
``recent-specs.json``), written atomically (:func:`app.fileio.atomic_write`). Qt-free: the
window layout is kept as the opaque bytes Qt gives (base64 in the file). History retention
is not here: it lives in the history store itself (:mod:`app.history.retention`), so the CLI
and the GUI share it.

A missing or unreadable file gives the defaults; an unreadable one is set aside
(:func:`app.fileio.set_aside`) the next time settings are saved, never overwritten in place.
"""

from __future__ import annotations

import base64
import contextlib
from enum import StrEnum
from pathlib import Path
from typing import Any, NamedTuple

from app.paths import settings_path

SCHEMA_VERSION = 2
"""2: ``default_timeout`` is the network timeout and ``default_deadline`` the deadline; a
version-1 file's ``default_timeout`` was the deadline, and is read as such."""

DEFAULT_TIMEOUT_S = 30.0
"""The network timeout of a request that sets none (``app.protocol.request.DEFAULT_TIMEOUT_S``,
not imported: the settings are read before the first paint, the protocol modules after)."""
_MAX_SECONDS = 86400.0  # a day, as a saved request's timeout (app/spec/xa2a.py)


class ThemeChoice(StrEnum):
    """Which colour scheme the window uses."""

    SYSTEM = "system"  # follow the operating system's light/dark setting
    LIGHT = "light"
    DARK = "dark"


# NamedTuples and a plain class, not dataclasses: the settings are read before the first
# paint, which does not otherwise import :mod:`dataclasses` (bench/startup.py).


class Settings(NamedTuple):
    """What the Settings dialog edits (immutable: ``_replace`` gives a changed copy).

    ``default_timeout`` is the network timeout of a request that sets none (seconds);
    ``default_deadline`` seeds a new request tab's deadline (seconds, ``0`` = none);
    ``editor_font`` empty and ``editor_font_size`` ``0`` mean the system fixed-width font.
    """

    theme: ThemeChoice = ThemeChoice.SYSTEM
    default_timeout: float = DEFAULT_TIMEOUT_S
    editor_font: str = ""
    editor_font_size: int = 0
    default_deadline: float = 0.0


class WindowLayout(NamedTuple):
    """The main window's geometry and dock/toolbar layout, as Qt serialised them."""

    geometry: bytes = b""
    state: bytes = b""


class SettingsFile:
    """:class:`Settings` and :class:`WindowLayout` read from and written to ``path``.

    ``damaged``: the file exists but could not be read (set aside on save).
    """

    __slots__ = ("damaged", "layout", "path", "settings")

    def __init__(
        self,
        path: Path,
        settings: Settings | None = None,
        layout: WindowLayout | None = None,
        damaged: bool = False,
    ) -> None:
        self.path = path
        self.settings = Settings() if settings is None else settings
        self.layout = WindowLayout() if layout is None else layout
        self.damaged = damaged

    def __repr__(self) -> str:
        return f"SettingsFile({str(self.path)!r}, {self.settings!r}, damaged={self.damaged})"

    @classmethod
    def load(cls, path: Path | None = None) -> SettingsFile:
        """Read ``path`` (default :func:`~app.paths.settings_path`); defaults for what is
        missing."""
        path = settings_path() if path is None else Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            return cls(path)
        import json  # only when there is a file: a first start paints without it

        try:
            data = json.loads(text)
            if not isinstance(data, dict):
                raise ValueError("not an object")
            settings = _settings(data.get("settings", {}), data.get("schema_version", 1))
            return cls(path, settings, _layout(data.get("window", {})))
        except ValueError:
            return cls(path, damaged=True)

    def save(self) -> None:
        """Write everything atomically (a damaged previous file is set aside first)."""
        import json

        from app.fileio import atomic_write, set_aside  # not needed to start the window

        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.damaged:
            with contextlib.suppress(OSError):
                set_aside(self.path)
            self.damaged = False
        s = self.settings
        body: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "settings": {
                "theme": s.theme.value,
                "default_timeout": s.default_timeout,
                "default_deadline": s.default_deadline,
                "editor_font": s.editor_font,
                "editor_font_size": s.editor_font_size,
            },
            "window": {
                "geometry": base64.b64encode(self.layout.geometry).decode("ascii"),
                "state": base64.b64encode(self.layout.state).decode("ascii"),
            },
        }
        atomic_write(self.path, json.dumps(body, indent=2) + "\n")


def _settings(raw: object, schema: object = SCHEMA_VERSION) -> Settings:
    # Each field on its own: one bad value falls back to its default, the rest is kept.
    default = Settings()
    if not isinstance(raw, dict):
        return default
    values: dict[str, Any] = {}
    with contextlib.suppress(ValueError):
        values["theme"] = ThemeChoice(raw.get("theme", default.theme))
    if schema == 1:  # its "default_timeout" set the deadline
        timeout, deadline = None, _seconds(raw.get("default_timeout"))
    else:
        timeout, deadline = (
            _seconds(raw.get("default_timeout")),
            _seconds(raw.get("default_deadline")),
        )
    if timeout is not None and 0 < timeout <= _MAX_SECONDS:
        values["default_timeout"] = timeout
    if deadline is not None and 0 <= deadline <= _MAX_SECONDS:
        values["default_deadline"] = deadline
    font = raw.get("editor_font")
    if isinstance(font, str):
        values["editor_font"] = font
    size = raw.get("editor_font_size")
    if isinstance(size, int) and not isinstance(size, bool) and 0 <= size <= 96:
        values["editor_font_size"] = size
    return default._replace(**values)


def _seconds(value: object) -> float | None:
    # As written: 30 stays 30 when the file is saved again (no churn to 30.0).
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    return None


def _layout(raw: object) -> WindowLayout:
    if not isinstance(raw, dict):
        return WindowLayout()

    def blob(key: str) -> bytes:
        value = raw.get(key)
        if not isinstance(value, str):
            return b""
        try:
            return base64.b64decode(value, validate=True)
        except ValueError:
            return b""

    return WindowLayout(blob("geometry"), blob("state"))
