"""A temporary home for a test or a process it starts: never the developer's ``HOME``, its
settings, session, history or keyring files."""

from __future__ import annotations

from pathlib import Path


def temporary_home(root: Path) -> dict[str, str]:
    """The environment variables that put every per-user directory under ``root``: ``HOME``
    and the XDG base directories (app/paths.py reads them through platformdirs)."""
    return {
        "HOME": str(root),
        "XDG_CONFIG_HOME": str(root / "config"),
        "XDG_DATA_HOME": str(root / "data"),
        "XDG_STATE_HOME": str(root / "state"),
        "XDG_CACHE_HOME": str(root / "cache"),
    }
