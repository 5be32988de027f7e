"""``recent-specs.json``: the specs the window opened last, newest first.

The spec dock's *Recent specs* menu writes it; the MCP server reads it to know the user's
collections (:mod:`app.commands.mcp.known_collections`). Where it lives:
:func:`app.paths.recent_specs_path`.
"""

from __future__ import annotations

import json
from pathlib import Path

from app.fileio import atomic_write

RECENT_LIMIT = 10


def read_recent(path: Path) -> list[str]:
    """Recent spec paths, newest first ([] when the file is missing or unreadable)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    items = data.get("recent", []) if isinstance(data, dict) else []
    return [str(p) for p in items if isinstance(p, str)][:RECENT_LIMIT]


def write_recent(path: Path, items: list[str]) -> None:
    """Write the recent list atomically (temp file + rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {"schema_version": 1, "recent": items[:RECENT_LIMIT]}
    atomic_write(path, json.dumps(body, indent=2) + "\n")
