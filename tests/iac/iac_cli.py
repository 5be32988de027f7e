"""Running our CLI (``python -m app …``) against the iac-code peer, one subprocess a command
(the commands bind ``sys.stdout`` once), with its JSON lines parsed."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Cli:
    """One command's exit status, JSON records and whole output (stdout + stderr)."""

    code: int
    records: list[dict[str, Any]]
    output: str

    def events(self, name: str) -> list[dict[str, Any]]:
        """The records whose ``event`` (``check``: ``type``) is ``name``."""
        return [r for r in self.records if r.get("event", r.get("type")) == name]

    def body(self) -> Any:
        """The body of the one ``response`` record."""
        (response,) = self.events("response")
        return response["body"]


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 90) -> Cli:
    """``python -m app ARGS`` from the checkout; ``env`` replaces the environment (fixtures
    wider than a test, which run before the per-test temporary home is set, pass their own)."""
    proc = subprocess.run(
        [sys.executable, "-m", "app", *args],
        capture_output=True, text=True, cwd=REPO, env=env, timeout=timeout, check=False,
    )  # fmt: skip
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return Cli(proc.returncode, records, proc.stdout + proc.stderr)


def fetch_card_with_token(info: dict[str, Any], path: Path) -> Path:
    """What a user can do today about the guarded card: GET it with the token, keep the file."""
    response = httpx.get(
        info["card_url"], headers={"Authorization": f"Bearer {info['token']}"},
        timeout=10, trust_env=False,
    )  # fmt: skip
    response.raise_for_status()
    path.write_bytes(response.content)
    return path
