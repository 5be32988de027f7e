"""A collection for the MCP tests: the shipped example with a saved credential, made one of
the user's collections (``recent-specs.json``) and its secret put in the fallback secrets
file (the tests have no keyring)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from app.paths import recent_specs_path, secrets_path
from app.shipped import example_spec
from app.spec.recent_specs import write_recent

SEND = "sum-numbers-1-0-json-rpc"
"""The saved SendMessage of the example (JSON-RPC 1.0)."""


def saved_collection(folder: Path, secret: str = "", *, known: bool = True) -> Path:
    """The example spec in ``folder``; with ``secret``, its SendMessage sends
    ``Authorization: Bearer {{token}}`` and the secrets file holds ``token``; ``known``
    lists it in the window's recent specs."""
    data = yaml.safe_load(example_spec().read_text(encoding="utf-8"))
    if secret:
        op = data["paths"][f"/a2a/{SEND}"]["post"]
        op["x-a2a"]["auth"] = {"type": "bearer", "token": "{{token}}"}
        store = secrets_path()
        store.parent.mkdir(parents=True, exist_ok=True)
        store.write_text(json.dumps({"token": secret}), encoding="utf-8")
        store.chmod(0o600)
    path = folder / "mine.a2a.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    if known:
        write_recent(recent_specs_path(), [str(path)])
    return path
