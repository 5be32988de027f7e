"""Redocly's recommended lint (``@redocly/cli``, pinned in tests/lint/package.json) finds no
error in the bundled example nor in a document the app saves with every auth type.

It runs ``node_modules/.bin/redocly`` (what ``npx redocly`` runs) offline: telemetry and
the update check are off (``REDOCLY_TELEMETRY=off``, ``CI=true``), no config file is read
from the repository, and ``--extends recommended`` uses the ruleset shipped in the package.
Warnings (``info-license``, ``operation-4xx-response``…) are style advice, not failures.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from app.shipped import example_spec
from tests.helpers.oas_documents import every_auth_document

LINT_DIR = Path(__file__).parent
REDOCLY = LINT_DIR / "node_modules" / ".bin" / "redocly"
pytestmark = pytest.mark.skipif(
    shutil.which("node") is None, reason="Node.js is not installed (Redocly CLI runs on it)"
)


def redocly_lint(path: Path) -> dict[str, Any]:
    """Redocly's JSON report for ``path`` under the recommended ruleset."""
    assert REDOCLY.exists(), f"{REDOCLY} missing: run `make unit` (npm ci in {LINT_DIR})"
    env = {
        **os.environ,
        "REDOCLY_TELEMETRY": "off",
        "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true",
        "CI": "true",
        "NO_COLOR": "1",
    }
    done = subprocess.run(
        [str(REDOCLY), "lint", "--extends", "recommended", "--format", "json", str(path)],
        cwd=LINT_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    try:
        report: dict[str, Any] = json.loads(done.stdout)
    except ValueError:
        pytest.fail(f"redocly exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return report


def errors(report: dict[str, Any]) -> list[str]:
    return [
        f"{p['ruleId']} at {p['location'][0].get('pointer')}: {p['message']}"
        for p in report["problems"]
        if p["severity"] == "error"
    ]


def test_the_bundled_example_has_no_redocly_error() -> None:
    report = redocly_lint(example_spec())
    assert report["version"] == "2.77.0"
    assert errors(report) == [] and report["totals"]["errors"] == 0


def test_a_document_saved_with_every_auth_type_and_environments_has_no_redocly_error(
    tmp_path: Path,
) -> None:
    path = every_auth_document(tmp_path / "saved.a2a.yaml").path
    assert path is not None
    report = redocly_lint(path)
    assert errors(report) == [] and report["totals"]["errors"] == 0
    json_path = tmp_path / "saved.a2a.json"
    every_auth_document(json_path)
    assert errors(redocly_lint(json_path)) == []
