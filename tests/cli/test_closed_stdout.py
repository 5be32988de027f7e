"""A reader that goes away (``send … | head -1``, ``card … | head``) ends a command quietly:
exit status 0 for what it read, and no BrokenPipeError traceback on stderr."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.peer

REPO = Path(__file__).resolve().parents[2]


def with_closed_stdout(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``python -m app ARGS`` writing into a pipe whose reader has already gone."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [sys.executable, "-m", "app", *args],
            stdout=write, stderr=subprocess.PIPE, text=True, timeout=120, cwd=REPO,
        )  # fmt: skip
    finally:
        os.close(write)


@pytest.mark.parametrize(
    "command",
    [
        ["send", "{jsonrpc_url}", "--method", "SendStreamingMessage", "--text", "stream 3 10"],
        ["card", "{base_url}"],
        ["card", "{base_url}", "--output", "pretty"],
        ["check", "{card_url}", "--interface", "0", "--timeout", "5"],
    ],
    ids=["send", "card", "card-pretty", "check"],
)
def test_a_closed_stdout_ends_quietly_with_status_0(
    sdk_peer: dict[str, Any], command: list[str]
) -> None:
    args = [part.format(**sdk_peer) for part in command]
    if args[0] in ("send", "check"):
        args.append("--no-history")
    done = with_closed_stdout(*args)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr
