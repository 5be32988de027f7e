"""The clean peers (the bundled demo agent on a2a-sdk, the @a2a-js/sdk peer) fail no check.

The demo agent warns of nothing either (it works around a2a-sdk where the SDK falls short,
app/demo/sdk_workarounds.py); the JS peer's one warning is a real deviation of its SDK,
explained in docs/CHECKS.md ("Known warnings on the SDK peers").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.check.check_model import CheckEnded, CheckProgress, CheckStarted, CheckStatus, EndReason
from app.check.runner import CheckOptions
from app.protocol.net.auth import AuthConfig
from tests.check.helpers import by_status, collect

# (check id, interface prefix): each a deviation of the SDK, docs/CHECKS.md.
JS_WARNINGS = {("errors.invalid-request", "JSONRPC 1.0")}


def _warned(results: list[Any]) -> set[tuple[str, str]]:
    found = by_status(results, CheckStatus.WARN)
    return {(check_id, " ".join(where.split()[:2])) for check_id, where in found}


async def test_the_demo_agent_fails_no_check(sdk_peer: dict[str, Any]) -> None:
    events, results, end = await collect(CheckOptions(sdk_peer["card_url"], call_timeout_s=5))
    assert by_status(results, CheckStatus.FAIL) == []
    assert by_status(results, CheckStatus.WARN) == []
    assert end.reason is EndReason.COMPLETED
    started = events[0]
    assert isinstance(started, CheckStarted)
    assert len(started.interfaces) == 6  # 1.0 and 0.3 over JSON-RPC, REST and gRPC
    assert started.planned == len(results)
    progress = [e for e in events if isinstance(e, CheckProgress)]
    assert len(progress) == len(results) - 1
    # "N of N checks": the progress counts results, as CheckStarted and the summary do
    # (it counted one check fewer: "205 of 205" beside 206 results).
    assert {p.total for p in progress} == {len(results)}
    assert progress[-1].done == len(results) - 1
    passed = {r.check_id for r in results if r.status is CheckStatus.PASS}
    # Every area the card's claims open was exercised and passed somewhere.
    for check_id in (
        "card.valid", "card.interface-answers", "core.send-message", "core.get-task",
        "core.list-tasks", "core.cancel-task", "errors.task-not-found", "errors.not-cancelable",
        "errors.method-not-found", "streaming.lifecycle", "push.config", "push.delivery",
        "extended-card.with-credentials", "parity.send", "parity.cancel", "gaps.resubscribe",
        "card.caching", "core.content-type", "core.camel-case", "errors.content-type",
        "core.history-length", "core.multi-turn", "errors.terminal-task", "errors.list-filter",
        "streaming.subscribe-finished", "streaming.concurrent", "parity.list-tasks",
        "errors.table",
    ):  # fmt: skip
        assert check_id in passed, check_id
    assert end.counts[CheckStatus.PASS] == len(
        passed_results := by_status(results, CheckStatus.PASS)
    )
    assert passed_results


async def test_the_js_peer_fails_no_check(js_peer: dict[str, Any]) -> None:
    _, results, end = await collect(CheckOptions(js_peer["card_url"], call_timeout_s=5))
    assert by_status(results, CheckStatus.FAIL) == []
    assert _warned(results) <= JS_WARNINGS
    for warning in (r for r in results if r.status is CheckStatus.WARN):
        assert "JSON-RPC 2.0 §5.1" in warning.detail  # the clause it deviates from
    assert end.reason is EndReason.COMPLETED
    assert {r.check_id for r in results if r.status is CheckStatus.PASS} >= {
        "parity.send", "parity.task-not-found", "push.delivery", "streaming.lifecycle",
        "parity.list-tasks", "streaming.concurrent", "errors.list-filter", "errors.table",
    }  # fmt: skip


async def test_declared_security_is_enforced_by_the_demo_agent_with_a_token(
    sdk_peer_token: dict[str, Any],
) -> None:
    options = CheckOptions(
        sdk_peer_token["card_url"],
        auth=AuthConfig.bearer(sdk_peer_token["token"]),
        only=("security", "extended-card", "core.send"),
    )
    _, results, end = await collect(options)
    assert by_status(results, CheckStatus.FAIL) == []
    assert isinstance(end, CheckEnded)
    statuses = {(r.check_id, r.status) for r in results}
    assert ("security.unauthenticated", CheckStatus.PASS) in statuses
    assert ("extended-card.without-credentials", CheckStatus.PASS) in statuses
    assert ("core.send-message", CheckStatus.PASS) in statuses


async def test_a_pure_0_3_card_is_checked_over_its_0_3_interfaces(
    sdk_peer: dict[str, Any], tmp_path: Path
) -> None:
    # The demo agent's 0.3 interfaces, described the 0.3 way: url + preferredTransport +
    # additionalInterfaces, supportsAuthenticatedExtendedCard.
    card = {
        "name": "demo, as a 0.3 card",
        "description": "the demo agent's 0.3 interfaces",
        "version": "1.0.0",
        "protocolVersion": "0.3.0",
        "url": sdk_peer["jsonrpc_url"],
        "preferredTransport": "JSONRPC",
        "additionalInterfaces": [
            {"url": sdk_peer["jsonrpc_url"], "transport": "JSONRPC"},
            {"url": sdk_peer["rest_url"], "transport": "HTTP+JSON"},
            {"url": sdk_peer["grpc_target"], "transport": "GRPC"},
        ],
        "capabilities": {"streaming": True, "pushNotifications": True},
        "supportsAuthenticatedExtendedCard": True,
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "Echo", "description": "echo", "tags": ["demo"]}],
    }
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card), encoding="utf-8")
    events, results, end = await collect(CheckOptions(str(path), call_timeout_s=5))
    started = events[0]
    assert isinstance(started, CheckStarted)
    assert [label.split()[:2] for label in started.interfaces] == [
        ["JSONRPC", "0.3"], ["HTTP+JSON", "0.3"], ["GRPC", "0.3"],
    ]  # fmt: skip
    assert by_status(results, CheckStatus.FAIL) == []
    assert by_status(results, CheckStatus.WARN) == []
    passed = {r.check_id for r in results if r.status is CheckStatus.PASS}
    assert {"parity.send", "extended-card.with-credentials", "push.delivery"} <= passed
    assert end.reason is EndReason.COMPLETED


async def test_without_credentials_a_secured_agent_says_what_it_wants(
    sdk_peer_token: dict[str, Any],
) -> None:
    options = CheckOptions(sdk_peer_token["card_url"], interface=0, only=("security",))
    _, results, end = await collect(options)
    answers = [r for r in results if r.check_id == "card.interface-answers"]
    assert [r.status for r in answers] == [CheckStatus.FAIL]
    assert "wants credentials" in answers[0].detail
    # Refused, not unreachable: the checks go on.
    assert end.reason is EndReason.COMPLETED
    assert ("security.unauthenticated", CheckStatus.PASS) in {
        (r.check_id, r.status) for r in results
    }
