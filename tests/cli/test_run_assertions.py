"""``run`` evaluates saved assertions, passes captures on, exits 1 on a failure, writes JUnit."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.shipped import resource_path

pytestmark = pytest.mark.peer

REPO = Path(__file__).resolve().parents[2]
SCENARIO = resource_path("examples/demo-scenario.a2a.yaml")


def run_cli(*args: str) -> tuple[int, list[dict[str, Any]], str]:
    proc = subprocess.run(
        [sys.executable, "-m", "app", "run", *args],
        capture_output=True, text=True, timeout=120, cwd=REPO,
    )  # fmt: skip
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return proc.returncode, records, proc.stdout


def test_the_bundled_scenario_runs_send_get_cancel_unattended(
    sdk_peer: dict[str, Any], tmp_path: Path
) -> None:
    report = tmp_path / "report.xml"
    status, records, _ = run_cli(
        str(SCENARIO), "--var", f"baseUrl={sdk_peer['base_url']}", "--junit", str(report),
        "--no-history",
    )  # fmt: skip
    assert status == 0
    captured = [r for r in records if r["event"] == "capture"]
    assert [(r["variable"], r["captured"]) for r in captured] == [
        ("taskId", True), ("contextId", True),
    ]  # fmt: skip
    task_id = captured[0]["value"]
    requests = [r for r in records if r["event"] == "request"]
    assert [task_id in json.dumps(r["body"]) for r in requests] == [False, False, True, True]
    checks = [r for r in records if r["event"] == "assertion"]
    assert all(r["passed"] for r in checks), checks
    assert {r["operation"] for r in checks} == {"stream", "ask", "get-task", "cancel-task"}
    stream = [r for r in checks if r["operation"] == "stream"]
    assert [(r["path"], r["actual"]) for r in stream][:1] == [("finalState", "completed")]
    assert 0 < stream[1]["actual"] < 10  # itemCount
    assert checks[0].keys() >= {"operation", "path", "op", "expected", "actual", "passed"}
    root = ET.parse(report).getroot()
    # A case per request (four) and per assertion, none failed.
    assert root.get("tests") == str(len(checks) + 4) and root.get("failures") == "0"
    assert root.get("errors") == "0"
    assert [s.get("name") for s in root] == ["stream", "ask", "get-task", "cancel-task"]
    assert root.find("testsuite/testcase[@name='/result/id equals {{taskId}}']") is not None
    first = root.find("testsuite/testcase")
    assert first is not None and first.get("name", "").startswith("request ")
    assert float(first.get("time", "0")) > 0  # the exchange's real duration


def test_a_failed_assertion_exits_1_and_is_a_junit_failure(
    sdk_peer: dict[str, Any], tmp_path: Path
) -> None:
    spec = yaml.safe_load(SCENARIO.read_text(encoding="utf-8"))
    x = spec["paths"]["/a2a/ask"]["post"]["x-a2a"]
    x["assertions"] = [
        {"finalState": "completed"},
        {"path": "/result/task/id", "op": "exists"},
    ]
    x["captures"] = {"taskId": "/result/task/nope"}
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    report = tmp_path / "report.xml"
    status, records, _ = run_cli(
        str(path), "--operation", "ask", "--var", f"baseUrl={sdk_peer['base_url']}",
        "--junit", str(report), "--no-history",
    )  # fmt: skip
    assert status == 1
    checks = [r for r in records if r["event"] == "assertion"]
    assert [r["passed"] for r in checks] == [False, True]
    assert checks[0]["actual"] == "input-required"
    assert checks[0]["message"] == 'expected equals "completed", got "input-required"'
    (capture,) = [r for r in records if r["event"] == "capture"]
    assert capture["captured"] is False and "nothing at /result/task/nope" in capture["message"]
    failure = ET.parse(report).getroot().find("testsuite/testcase/failure")
    assert failure is not None and "input-required" in failure.get("message", "")
    _, _, text = run_cli(
        str(path), "--operation", "ask", "--var", f"baseUrl={sdk_peer['base_url']}",
        "--output", "pretty", "--no-history",
    )  # fmt: skip
    assert "✗ assert finalState equals completed  — expected equals" in text
    assert "✓ assert /result/task/id exists" in text
