"""The shared CLI surface: ``--help`` lists the subcommands; every usage error exits 3."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from app.commands import SUBCOMMANDS, SUMMARIES
from app.errors import UsageError, WorkbenchError

REPO = Path(__file__).resolve().parents[2]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
    )


def test_help_lists_every_subcommand_without_starting_the_gui() -> None:
    proc = cli("--help")
    assert proc.returncode == 0 and proc.stderr == ""
    assert set(SUMMARIES) == set(SUBCOMMANDS)
    width = max(map(len, SUMMARIES))  # the column fits the longest name (generate-server)
    for name, summary in SUMMARIES.items():
        assert f"{name:<{width}}  {summary}" in proc.stdout
    assert "--no-demo" in proc.stdout


@pytest.mark.parametrize("command", ["send", "run", "verify", "demo-agent"])
def test_a_usage_error_exits_3_and_is_printed_once_on_stderr(command: str) -> None:
    proc = cli(command, "--no-such-option")
    assert proc.returncode == 3
    (line,) = proc.stderr.splitlines()  # once, without argparse's usage banner
    assert line.startswith(f"a2a-workbench {command}: ")


def test_cli_usage_errors_are_usage_errors_of_the_one_tree() -> None:
    from app.commands.cli import CliUsageError

    exc = CliUsageError("bad", "a2a-workbench send")
    assert isinstance(exc, UsageError) and isinstance(exc, WorkbenchError)
    assert str(exc) == "a2a-workbench send: bad" and exc.detail == "bad"
