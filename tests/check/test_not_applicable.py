"""*Not applicable* is counted apart from *skipped*: a card that claims neither streaming nor
push notifications, checked against the real demo agent (a2a-sdk), in the jsonl records, the
pretty summary line and the JUnit report (docs/CLI.md, "check")."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.check.check_model import CheckStatus
from app.check.runner import CheckOptions
from app.commands.check import main
from tests.check.helpers import by_status, collect

# What the card without streaming and push makes not applicable on a JSON-RPC 1.0 interface
# of the demo agent (which declares no security and requires no extension).
NOT_CLAIMED = {
    "card.caching",  # the card is read from a file: no HTTP headers
    "streaming.lifecycle",
    "streaming.subscribe-unknown",
    "streaming.subscribe-finished",
    "streaming.concurrent",
    "push.config",
    "push.delivery",
    "gaps.resubscribe",
    "extensions.required",
    "security.unauthenticated",
    "extended-card.without-credentials",
    "errors.table",  # JSON-RPC codes are the same in both error tables
}
PARITY = {"parity.send", "parity.get-task", "parity.cancel", "parity.task-not-found",
          "parity.list-tasks"}  # fmt: skip


@pytest.fixture
def quiet_card(sdk_peer: dict[str, Any], tmp_path: Path) -> Path:
    """The demo agent's own card, claiming neither streaming nor push notifications."""
    card = httpx.get(sdk_peer["card_url"]).json()
    card["capabilities"] = {
        **card.get("capabilities", {}),
        "streaming": False,
        "pushNotifications": False,
    }
    card.pop("signatures", None)  # no longer what was signed
    path = tmp_path / "quiet-card.json"
    path.write_text(json.dumps(card), encoding="utf-8")
    return path


async def test_unclaimed_capabilities_are_not_applicable_and_a_narrowed_run_skips(
    quiet_card: Path,
) -> None:
    # Interface 0 only: parity has the card's other bindings to compare with, but this run
    # does not call them, so parity could not be tested (skip), which is not n/a.
    _, results, end = await collect(CheckOptions(str(quiet_card), interface=0, call_timeout_s=5))
    assert {check_id for check_id, _ in by_status(results, CheckStatus.NA)} == NOT_CLAIMED
    assert {check_id for check_id, _ in by_status(results, CheckStatus.SKIP)} == PARITY
    assert end.counts[CheckStatus.NA] == len(NOT_CLAIMED)
    assert end.counts[CheckStatus.SKIP] == len(PARITY)


def test_jsonl_pretty_and_junit_count_n_a_apart_from_skip(
    quiet_card: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "report.xml"
    argv = [str(quiet_card), "--interface", "0", "--timeout", "5", "--no-history"]
    main([*argv, "--junit", str(report)])
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    findings = [r for r in records if r["type"] == "finding"]
    na = {r["id"] for r in findings if r["status"] == "n/a"}
    assert na == NOT_CLAIMED
    assert {r["id"] for r in findings if r["status"] == "skip"} == PARITY
    streaming = next(r for r in findings if r["id"] == "streaming.lifecycle")
    assert streaming["detail"] == "the card does not claim streaming"
    end = records[-1]
    assert list(end["counts"]) == ["pass", "fail", "warn", "skip", "n/a"]
    assert end["counts"]["n/a"] == len(NOT_CLAIMED)
    assert end["counts"]["skip"] == len(PARITY)

    # JUnit: an n/a is a <skipped> whose message and property say so.
    root = ET.parse(report).getroot()
    assert int(root.get("skipped", "")) == len(NOT_CLAIMED) + len(PARITY)
    cases = {c.get("name", "").split(" [")[0]: c for c in root.iter("testcase")}
    lifecycle = cases["streaming.lifecycle"]
    skipped = lifecycle.find("skipped")
    assert skipped is not None
    assert skipped.get("message") == "n/a: the card does not claim streaming"
    assert [(p.get("name"), p.get("value")) for p in lifecycle.iter("property")] == [
        ("status", "n/a"),
        ("tck", "CORE-STREAM-001,CORE-STREAM-002,CORE-STREAM-003,STREAM-ORDER-001,JSONRPC-SSE-001"),
    ]
    parity = cases["parity.send"]
    parity_skip = parity.find("skipped")
    assert parity_skip is not None
    assert not parity_skip.get("message", "").startswith("n/a")
    assert [p.get("name") for p in parity.iter("property")] == ["tck"]

    # The pretty summary line counts them apart too.
    main([*argv, "--output", "pretty"])
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("· n/a   streaming.lifecycle [JSONRPC 1.0") for line in lines)
    assert f"{len(PARITY)} skip, {len(NOT_CLAIMED)} n/a in " in lines[-1]
