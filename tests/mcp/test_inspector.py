"""The MCP Inspector (``@modelcontextprotocol/inspector``, pinned in
tests/mcp/inspector/package-lock.json) as the client: its CLI mode starts
``a2a-workbench mcp`` over stdio, lists the tools (its ``--strict`` schema portability check
finding nothing to warn about) and calls ``fetch_card`` and ``send`` against the demo agent.

It runs from the lockfile (``npx --no-install``), offline, with a home of its own (npm and
the Inspector write there) and the server's environment passed with ``-e`` (an MCP client
hands a stdio server only a few variables of its own).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.harness import NO_KEYRING, REPO

INSPECTOR = Path(__file__).parent / "inspector"
pytestmark = [
    pytest.mark.peer,
    pytest.mark.skipif(shutil.which("node") is None, reason="Node.js runs the Inspector"),
]
PASSED_ON = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "PYTHONPATH")


def inspector(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``npx --no-install mcp-inspector --cli`` against ``a2a-workbench mcp``."""
    assert (INSPECTOR / "node_modules" / ".bin" / "mcp-inspector").exists(), (
        f"the MCP Inspector is missing: run `make unit` (npm ci in {INSPECTOR})"
    )
    server_env = {**{k: os.environ[k] for k in PASSED_ON if k in os.environ}, **NO_KEYRING}
    env = {
        **os.environ,
        "HOME": str(home),
        "MCP_CATALOG_PATH": str(home / "catalog.json"),
        "NPM_CONFIG_UPDATE_NOTIFIER": "false",
        "NO_COLOR": "1",
    }
    command = [
        "npx",
        "--no-install",
        "mcp-inspector",
        "--cli",
        "--cwd",
        str(REPO),
        *(f"-e{k}={v}" for k, v in server_env.items()),
        sys.executable,
        "-m",
        "app",
        "mcp",
        *args,
    ]
    return subprocess.run(
        command, cwd=INSPECTOR, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def answer(done: subprocess.CompletedProcess[str]) -> Any:
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_inspector_lists_the_tools_and_calls_fetch_card_and_send(
    sdk_peer: dict[str, Any], tmp_path: Path
) -> None:
    listed = inspector(tmp_path, "--method", "tools/list", "--strict")
    tools = {t["name"]: t for t in answer(listed)["tools"]}
    assert {"fetch_card", "send", "check_agent", "verify_card_signature"} <= set(tools)
    assert "warning" not in listed.stderr.lower(), listed.stderr  # portable schemas
    assert tools["send"]["annotations"]["openWorldHint"] is True

    card = answer(
        inspector(
            tmp_path,
            "--method",
            "tools/call",
            "--tool-name",
            "fetch_card",
            "--tool-arg",
            f"url={sdk_peer['base_url']}",
        )
    )
    assert not card.get("isError") and card["structuredContent"]["outcome"] == "valid"

    sent = answer(
        inspector(
            tmp_path,
            "--method",
            "tools/call",
            "--tool-name",
            "send",
            "--tool-arg",
            f"url={sdk_peer['jsonrpc_url']}",
            "--tool-arg",
            "text=12 30",
        )
    )
    result = sent["structuredContent"]
    assert result["ok"] and result["result"]["message"]["parts"][0]["text"] == "Sum: 42"
