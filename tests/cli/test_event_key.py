"""One reader for every command's JSON lines: each record names its kind under ``"event"``
(README.md, "Command line"; ``check`` and ``push-receiver`` also under ``"type"``, for one
release: CHANGELOG.md).

Every command that prints JSON lines runs here as a person would run it, against the demo
agent on loopback; ``generate-server`` prints text, not records, and is not among them.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.peer


def read_records(text: str) -> list[dict[str, Any]]:
    """The records of a command's jsonl output; every line must be an object with an
    ``"event"`` string, and ``"type"``, where there is one, must say the same."""
    records: list[dict[str, Any]] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        assert isinstance(record, dict) and isinstance(record.get("event"), str), line
        assert record.get("type", record["event"]) == record["event"], line
        records.append(record)
    assert records, "no records"
    return records


def cli(*args: str, status: int | None = 0) -> list[dict[str, Any]]:
    """Run ``a2a-workbench ARGS``; its records (read by :func:`read_records`)."""
    proc = subprocess.run(
        [sys.executable, "-m", "app", *args], capture_output=True, text=True, cwd=REPO, timeout=180
    )
    if status is not None:
        assert proc.returncode == status, (proc.stdout, proc.stderr)
    return read_records(proc.stdout)


def serve(args: list[str], meanwhile: Callable[[dict[str, Any]], None]) -> list[dict[str, Any]]:
    """Start a long-running command, call ``meanwhile`` with its first record, stop it with
    SIGINT; every record it printed."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first, proc.communicate(timeout=10)
        meanwhile(read_records(first)[0])
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    return read_records(first + rest)


def kinds(records: list[dict[str, Any]]) -> list[str]:
    return [r["event"] for r in records]


def test_send_history_and_replay(sdk_peer: dict[str, Any], tmp_path: Path) -> None:
    url = sdk_peer["jsonrpc_url"]
    sent = cli("send", url, "--method", "SendMessage", "--text", "12 30")
    assert kinds(sent) == ["request", "response", "end"]
    streamed = cli("send", sdk_peer["rest_url"], "--method", "SendStreamingMessage",
                   "--binding", "HTTP+JSON", "--text", "stream 2 10")  # fmt: skip
    assert "item" in kinds(streamed) and kinds(streamed)[-1] == "end"
    usage = cli("send", url, "--method", "Nope", status=3)
    assert kinds(usage) == ["error", "end"]

    entries = cli("history", "list")
    assert kinds(entries) == ["entry", "entry"]
    first = str(entries[-1]["id"])
    assert cli("history", "show", first) == sent
    exported = cli("history", "export", first, "--format", "jsonl", "--out", "-")
    assert [{k: v for k, v in r.items() if k != "exchange"} for r in exported] == sent

    fixture = tmp_path / "fixture.yaml"
    export = [sys.executable, "-m", "app", "history", "export", first, "--format", "fixture"]
    subprocess.run([*export, "--out", str(fixture)], check=True, cwd=REPO, timeout=60)

    def send_to_replay(listening: dict[str, Any]) -> None:
        assert listening["event"] == "listening"
        replayed = cli("send", listening["base_url"], "--method", "SendMessage", "--text", "12 30",
                       "--no-history")  # fmt: skip
        assert kinds(replayed) == ["request", "response", "end"]

    replay = serve(["replay", str(fixture)], send_to_replay)
    assert kinds(replay) == ["listening", "served"]


def test_run(sdk_peer: dict[str, Any]) -> None:
    from app.shipped import example_spec

    records = cli("run", str(example_spec()), "--operation", "sum-numbers-1-0-json-rpc",
                  "--var", f"baseUrl={sdk_peer['base_url']}", "--no-history")  # fmt: skip
    assert kinds(records) == ["request", "response", "end"]
    assert {r["operation"] for r in records} == {"sum-numbers-1-0-json-rpc"}
    usage = cli("run", str(example_spec()), "--operation", "nope", status=3)
    assert kinds(usage) == ["error", "end"]


def test_card_and_verify(sdk_peer: dict[str, Any]) -> None:
    card = cli("card", sdk_peer["card_url"])
    assert kinds(card)[0] == "card" and kinds(card)[-1] == "end"
    verified = cli("verify", sdk_peer["card_url"], "--jwks", sdk_peer["jwks_path"])
    assert kinds(verified) == ["signature", "end"]


def test_check(sdk_peer: dict[str, Any]) -> None:
    records = cli("check", sdk_peer["card_url"], "--interface", "0", "--timeout", "5",
                  "--no-history", status=None)  # fmt: skip
    assert kinds(records)[0] == "check" and kinds(records)[-1] == "end"
    assert set(kinds(records[1:-1])) == {"finding"}
    usage = cli("check", sdk_peer["card_url"], "--timeout", "-1", status=3)
    assert kinds(usage) == ["error"]


def test_push_receiver() -> None:
    def deliver(listening: dict[str, Any]) -> None:
        assert listening["event"] == "listening"
        headers = {"X-A2A-Notification-Token": listening["token"]}
        body = {"task": {"id": "t-1", "status": {"state": "TASK_STATE_COMPLETED"}}}
        assert httpx.post(listening["url"], json=body, headers=headers).status_code == 200

    records = serve(["push-receiver"], deliver)
    assert kinds(records) == ["listening", "delivery", "end"]


def test_demo_agent() -> None:
    records = serve(["demo-agent"], lambda ready: None)
    assert kinds(records) == ["ready"]
