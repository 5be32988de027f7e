"""The whole app as ``make run`` starts it: window, demo agent child, one Send, clean exit."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_selftest_sends_to_the_demo_agent_and_shuts_down_cleanly() -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run(
        [sys.executable, "-m", "app", "--selftest"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "selftest: ok: 200 OK" in proc.stdout
    for noise in ("Event loop stopped", "Task was destroyed", "Traceback", "never retrieved"):
        assert noise not in proc.stderr
    match = re.search(r"demo agent pid (\d+)", proc.stdout)
    assert match, proc.stdout
    pid = int(match.group(1))
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    raise AssertionError(f"demo agent {pid} still running after the app exited")
