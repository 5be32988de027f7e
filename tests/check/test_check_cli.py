"""``a2a-workbench check``: records, exit statuses, the JUnit report, history links."""

from __future__ import annotations

import json
import socket
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.commands import SUBCOMMANDS, history
from app.commands.check import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict[str, Any]], str]:
    status = main(list(argv))
    out = capsys.readouterr().out
    records = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return status, records, out


def test_check_is_a_registered_subcommand() -> None:
    assert "check" in SUBCOMMANDS


def test_a_failed_check_exits_1_with_finding_records_and_a_junit_report(
    faulty_peers: dict[str, Any], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "report.xml"
    card = faulty_peers["cards"]["wrong-codes"]
    status, records, _ = run(
        capsys, card, "--no-history", "--junit", str(report), "--timeout", "3", "--interface", "0"
    )
    assert status == 1
    assert records[0]["type"] == "check"
    assert records[0]["agent"] == "faulty peer: wrong-codes"
    findings = [r for r in records if r["type"] == "finding"]
    assert set(findings[0]) == {
        "event", "type", "status", "id", "area", "title", "section", "detail", "interface",
        "exchanges", "tck",
    }  # fmt: skip
    failed = [(f["id"], f["interface"].split()[0]) for f in findings if f["status"] == "fail"]
    assert ("errors.task-not-found", "JSONRPC") in failed
    # The a2a-tck requirement ids: the binding-free one and the JSON-RPC binding's only.
    (named,) = [f for f in findings if f["id"] == "errors.task-not-found"]
    assert named["tck"] == ["CORE-GET-002", "JSONRPC-SSE-002"]
    end = records[-1]
    assert end["type"] == "end" and end["reason"] == "completed"
    assert sum(end["counts"].values()) == len(findings)
    root = ET.parse(report).getroot()
    assert root.tag == "testsuites"
    assert int(root.get("tests", "")) == len(findings)
    assert int(root.get("failures", "")) == end["counts"]["fail"]
    # n/a results are JUnit skips too (their message says n/a: tests/check/test_not_applicable.py).
    assert int(root.get("skipped", "")) == end["counts"]["skip"] + end["counts"]["n/a"]
    suites = {s.get("name") for s in root}
    assert {"check.card", "check.errors", "check.parity"} <= suites
    (case,) = root.findall(
        ".//testcase[@name='errors.task-not-found [" + named["interface"] + "]']"
    )
    assert case.find("failure") is not None
    assert {p.get("name"): p.get("value") for p in case.iter("property")} == {
        "tck": "CORE-GET-002,JSONRPC-SSE-002"
    }


def test_findings_link_the_exchanges_recorded_in_the_shared_history(
    faulty_peers: dict[str, Any],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    # The process-wide store of `send`/`run`, opened afresh in this test's data directory.
    monkeypatch.setattr(history, "_store", None)
    monkeypatch.setattr(history, "_unavailable", False)
    card = faulty_peers["cards"]["no-stream"]
    try:
        status, records, _ = run(capsys, card, "--interface", "0", "--output", "jsonl")
        store = history.shared_store()
        assert store is not None
        findings = [r for r in records if r["type"] == "finding"]
        ids = [i for f in findings for i in f["exchanges"]]
        assert ids
        for exchange_id in ids:
            assert store.entry(exchange_id) is not None
    finally:
        if history._store is not None:
            history._store.close()
    # Interface 0 (JSON-RPC) of the no-stream peer fails only its streaming claim.
    failed = {f["id"] for f in findings if f["status"] == "fail"}
    assert failed == {"streaming.lifecycle"}
    assert status == 1


def test_pretty_output_reads_as_lines_per_check(
    faulty_peers: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    card = faulty_peers["cards"]["wrong-codes"]
    status, _, out = run(capsys, card, "--no-history", "--output", "pretty", "--interface", "0")
    assert status == 1
    lines = out.splitlines()
    assert lines[0].startswith("Checking faulty peer: wrong-codes")
    assert any(line.startswith("✗ FAIL  errors.task-not-found [JSONRPC 1.0") for line in lines)
    assert "      spec: A2A 1.0 §3.1.3, §5.4" in lines
    assert " fail, " in lines[-1] and "(completed)" in lines[-1]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_unreachable_agent_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    status, records, _ = run(capsys, f"http://127.0.0.1:{_closed_port()}/", "--no-history")
    assert status == 2
    assert records[-1]["reason"] == "unreachable"
    assert records[1]["id"] == "card.available" and records[1]["status"] == "fail"


@pytest.mark.parametrize(
    "argv",
    [
        ["--timeout", "0", "http://127.0.0.1:1/"],
        ["--budget", "-1", "http://127.0.0.1:1/"],
        ["--output", "xml", "http://127.0.0.1:1/"],
        ["--header", "no colon", "http://127.0.0.1:1/"],
        [],
    ],
)
def test_bad_arguments_exit_3(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    status, records, _ = run(capsys, *argv)
    assert status == 3
    assert records == [records[0]] and records[0]["kind"] == "usage"


def test_an_interface_beyond_the_card_exits_3(
    faulty_peers: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    card = faulty_peers["cards"]["wrong-codes"]
    status, records, _ = run(capsys, card, "--no-history", "--interface", "7")
    assert status == 3
    assert "lists 2 interface(s)" in records[-1]["message"]


def test_a_card_file_is_read_from_disk(
    faulty_peers: dict[str, Any], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    card = tmp_path / "card.json"
    card.write_bytes(httpx.get(faulty_peers["cards"]["no-stream"]).content)
    status, records, _ = run(capsys, str(card), "--no-history", "--interface", "1")
    assert records[0]["card_url"] == str(card)
    assert status == 1  # the no-stream peer's defect, now over REST


def test_a_card_whose_interfaces_do_not_answer_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    port = _closed_port()
    card = {
        "name": "gone",
        "description": "an agent that is not running",
        "version": "1",
        "supportedInterfaces": [
            {
                "url": f"http://127.0.0.1:{port}/",
                "protocolBinding": "JSONRPC",
                "protocolVersion": "1.0",
            }
        ],
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [],
    }
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card), encoding="utf-8")
    status, records, _ = run(capsys, str(path), "--no-history", "--timeout", "2")
    assert status == 2
    assert records[-1]["reason"] == "unreachable"
    answers = [r for r in records if r.get("id") == "card.interface-answers"]
    assert [r["status"] for r in answers] == ["fail"]
