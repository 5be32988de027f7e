"""``run --junit``: a test case per request (sent or not) and per assertion, failures and
errors included, with the requests' real durations (docs/CLI.md, "run")."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from app.protocol.types import Binding, ProtocolVersion
from app.spec.document import SpecDocument
from app.spec.xa2a import SavedRequest

REPO = Path(__file__).resolve().parents[2]


def _spec(tmp_path: Path, base: str, *, task_id: str = "{{taskId}}") -> Path:
    """send (capturing the task id) → GetTask of ``task_id``; no assertions."""
    doc = SpecDocument.new()
    message = {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "stream 1 1"}]}
    doc.upsert(
        SavedRequest(
            name="send", version=ProtocolVersion.V1_0, binding=Binding.HTTP_JSON,
            endpoint=base + "/rest", method="SendMessage", body=json.dumps({"message": message}),
            captures=(("taskId", "/task/id"),),
        )
    )  # fmt: skip
    doc.upsert(
        SavedRequest(
            name="get", version=ProtocolVersion.V1_0, binding=Binding.HTTP_JSON,
            endpoint=base + "/rest", method="GetTask", body=json.dumps({"id": task_id}),
        )
    )  # fmt: skip
    return doc.save(tmp_path / "spec.yaml")


def _run(spec: Path, report: Path) -> tuple[int, ET.Element]:
    done = subprocess.run(
        [sys.executable, "-m", "app", "run", str(spec), "--junit", str(report), "--no-history"],
        capture_output=True, text=True, timeout=120, cwd=REPO,
    )  # fmt: skip
    return done.returncode, ET.parse(report).getroot()


def _cases(root: ET.Element) -> dict[str, ET.Element]:
    return {f"{c.get('classname')}: {c.get('name')}": c for c in root.iter("testcase")}


def test_an_unreachable_agent_is_an_error_case_for_each_request(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}"
    status, root = _run(_spec(tmp_path, dead), tmp_path / "report.xml")
    assert status == 2
    # Before: tests="0" failures="0", and no case for the request that was never sent.
    assert (root.get("tests"), root.get("errors"), root.get("failures")) == ("2", "2", "0")
    cases = _cases(root)
    sent = cases["send: request SendMessage (HTTP+JSON 1.0)"].find("error")
    assert sent is not None and "outcome: transport_error" in (sent.text or "")
    not_sent = cases["get: request GetTask (HTTP+JSON 1.0)"].find("error")
    assert not_sent is not None
    assert "was to be captured by send" in not_sent.get("message", "")


@pytest.mark.peer
def test_a_run_without_assertions_has_a_case_per_request_with_its_duration(
    sdk_peer: dict[str, Any], tmp_path: Path
) -> None:
    status, root = _run(_spec(tmp_path, sdk_peer["base_url"]), tmp_path / "report.xml")
    assert status == 0
    assert (root.get("tests"), root.get("errors"), root.get("failures")) == ("2", "0", "0")
    times = [float(c.get("time", "0")) for c in root.iter("testcase")]
    assert all(t > 0 for t in times), times  # before: every time was 0.000
    assert float(root.get("time", "0")) == pytest.approx(sum(times), abs=0.002)


@pytest.mark.peer
def test_an_error_answer_is_a_failure_case(sdk_peer: dict[str, Any], tmp_path: Path) -> None:
    spec = _spec(tmp_path, sdk_peer["base_url"], task_id="no-such-task")
    status, root = _run(spec, tmp_path / "report.xml")
    assert status == 1
    failure = _cases(root)["get: request GetTask (HTTP+JSON 1.0)"].find("failure")
    assert failure is not None and "outcome: rpc_error" in (failure.text or "")
    assert root.get("failures") == "1" and root.get("errors") == "0"
