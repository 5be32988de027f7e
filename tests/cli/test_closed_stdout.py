"""A reader that goes away (``send … | head -1``, ``card … | head``) ends a command quietly:
exit status 0 for what it read, and no BrokenPipeError traceback on stderr."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.history.store import HistoryFilter, HistoryStore
from app.protocol.events import Outcome

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


def test_a_stream_cut_off_by_a_closed_stdout_is_recorded_as_cancelled(
    sdk_peer: dict[str, Any],
) -> None:
    """Its History entry kept ``outcome: null``, ``duration_ms: null``, ``items: 0``: the end
    (cancelled) and the items read before the pipe closed are recorded."""
    args = ["send", sdk_peer["jsonrpc_url"], "--method", "SendStreamingMessage"]
    done = with_closed_stdout(*args, "--text", "stream 3 10")
    assert done.returncode == 0, done.stderr
    store = HistoryStore.open()
    try:
        (entry,) = store.entries(HistoryFilter(), limit=10)
    finally:
        store.close()
    assert entry.outcome == Outcome.CANCELLED.value
    assert entry.duration_ms is not None and entry.duration_ms > 0
    # The first line written (the request record) broke the pipe: every item the client
    # read until then is kept, and no more than the agent sent.
    assert 0 <= entry.items <= 5
