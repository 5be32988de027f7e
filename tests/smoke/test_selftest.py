"""The whole app as ``make run`` starts it: window, demo agent child, one Send, clean exit."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _selftest() -> subprocess.CompletedProcess[str]:
    """``python -m app --selftest`` offscreen, which must pass: 200 OK from the demo agent."""
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
    return proc


def test_selftest_sends_to_the_demo_agent_and_shuts_down_cleanly() -> None:
    proc = _selftest()
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


def test_selftest_neither_reads_nor_writes_the_users_state() -> None:
    """Issue 27, point 10: ``--selftest`` sent the first tab of the user's restored session
    (a stray edit in it failed the test) and rewrote session.json. It runs in a home of its
    own now: the user's files stay as they were and it still passes."""
    from app.paths import history_path, session_path, settings_path
    from app.protocol.types import Binding, ProtocolVersion
    from app.session import Session, TabState, dumps
    from app.spec.xa2a import SavedRequest

    old_demo = "http://127.0.0.1:9"  # the last run's demo agent: restored tabs move to the new
    stray = SavedRequest(
        name="SendMessage",
        version=ProtocolVersion.V1_0,
        binding=Binding.JSONRPC,
        endpoint=old_demo + "/",
        method="SendMessage",
        body='{"message": {"role": "ROLE_USER", "parts": [{"text": "a stray edit"}]}}',
    )
    session = Session([TabState(stray, dirty=True)], demo={"base_url": old_demo})
    files = {
        session_path(): dumps(session),
        settings_path(): '{"theme": "dark"}\n',
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    stamps = {path: path.stat().st_mtime_ns for path in files}

    _selftest()
    for path, text in files.items():
        assert path.read_text(encoding="utf-8") == text
        assert path.stat().st_mtime_ns == stamps[path]
    assert not history_path().exists()  # the selftest's exchange is not the user's history
