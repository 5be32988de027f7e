"""``a2a-workbench push-receiver`` as a person runs it: start, post to it, Ctrl+C."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import httpx
import pytest

from app.commands.push_receiver import is_loopback

REPO = Path(__file__).resolve().parents[2]


def _start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "app", "push-receiver", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )


def _record(stream: IO[str] | None) -> dict[str, Any]:
    assert stream is not None
    line = stream.readline()
    assert line, "no record"
    record: dict[str, Any] = json.loads(line)
    return record


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_prints_listening_then_deliveries_then_exits_0(sig: signal.Signals) -> None:
    proc = _start()
    try:
        listening = _record(proc.stdout)
        assert listening["event"] == listening["type"] == "listening"
        assert listening["url"].startswith("http://127.0.0.1:")
        assert "cannot reach 127.0.0.1" in listening["note"] and len(listening["token"]) >= 20
        token = listening["token"]
        body = {"task": {"id": "t-9", "status": {"state": "TASK_STATE_COMPLETED"}}}
        headers = {"X-A2A-Notification-Token": token, "Authorization": "Basic dXNlcjpwYXNz"}
        assert httpx.post(listening["url"], json=body, headers=headers).status_code == 200
        delivery = _record(proc.stdout)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert delivery["event"] == delivery["type"] == "delivery" and delivery["seq"] == 1
    assert (delivery["token_ok"], delivery["scheme"], delivery["task_id"]) == (True, "Basic", "t-9")
    assert delivery["body"] == body and delivery["method"] == "POST" and delivery["path"] == "/push"
    assert token not in json.dumps(delivery) and "dXNlcjpwYXNz" not in json.dumps(delivery)
    # `type` is kept beside `event` for one release (CHANGELOG.md).
    assert json.loads(out.splitlines()[-1]) == {"event": "end", "type": "end", "deliveries": 1}
    assert err == ""


def test_bad_port_is_a_usage_error() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "app", "push-receiver", "--port", "70000"],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=REPO,
    )
    assert proc.returncode == 3 and "--port 70000" in proc.stderr and proc.stdout == ""


def test_a_host_beyond_loopback_is_warned_about_and_an_unbindable_one_exits_1() -> None:
    # 192.0.2.1 (TEST-NET-1) is no address of this machine: nothing listens beyond loopback.
    proc = subprocess.run(
        [sys.executable, "-m", "app", "push-receiver", "--host", "192.0.2.1"],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=REPO,
    )
    assert proc.returncode == 1 and proc.stdout == ""
    assert "warning: listening on 192.0.2.1, beyond loopback" in proc.stderr
    assert "cannot listen on 192.0.2.1:0" in proc.stderr


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("::1", True), ("localhost", True), ("0.0.0.0", False),
     ("example.org", False), ("10.0.0.1", False)],
)  # fmt: skip
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback
