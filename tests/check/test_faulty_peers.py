"""Each planted defect of tests/check/faulty_peers.py is named by a failing check.

The table is the proof docs/CHECKS.md quotes: defect → the check id that must fail.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.check.check_model import CheckStatus
from app.check.runner import CheckOptions
from app.protocol.net.auth import AuthConfig
from tests.check.faulty_peers import TOKEN
from tests.check.helpers import by_status, collect

PLANTED = {
    "no-stream": {"streaming.lifecycle"},
    "wrong-codes": {"errors.task-not-found"},
    "push-silent": {"push.delivery"},
    "open-extended": {"extended-card.without-credentials"},
    "rest-disagrees": {"parity.send", "parity.get-task"},
    "extension-ignored": {"extensions.required"},
    "parse-crash": {"errors.parse-error"},
    "filter-accepted": {"errors.list-filter"},
    "wrong-content-type": {"core.content-type"},
    "table-mixed": {"errors.table"},
}
# Each planted defect's a2a-tck requirement ids, as the failing finding names them.
PLANTED_TCK = {
    "filter-accepted": "CORE-ERR-002",
    "wrong-content-type": "HTTP_JSON-SVC-001",
    "table-mixed": "GRPC-ERR-002",
}


@pytest.mark.parametrize("defect", sorted(PLANTED))
async def test_the_planted_defect_is_named_by_a_failing_check(
    faulty_peers: dict[str, Any], defect: str
) -> None:
    auth = AuthConfig.bearer(TOKEN) if defect == "open-extended" else AuthConfig.none()
    # The area of the defect only (and the card's checks, which every run makes): the other
    # areas of these peers are the SDK's own, checked clean in test_clean_peers.py.
    area = tuple({check_id.split(".")[0] + "." for check_id in PLANTED[defect]})
    options = CheckOptions(
        faulty_peers["cards"][defect], auth=auth, call_timeout_s=2, only=("card.", *area)
    )
    _, results, _ = await collect(options)
    failed = {check_id for check_id, _ in by_status(results, CheckStatus.FAIL)}
    assert PLANTED[defect] <= failed, by_status(results, CheckStatus.FAIL)
    named = [r for r in results if r.check_id in PLANTED[defect] and r.status is CheckStatus.FAIL]
    assert all(r.section.startswith("A2A 1.0 §") for r in named)
    assert all(r.detail for r in named)
    assert all(r.tck for r in named)
    if defect in PLANTED_TCK:
        assert all(PLANTED_TCK[defect] in r.tck for r in named), [r.tck for r in named]


async def test_an_agent_claiming_no_streaming_refuses_the_stream_method(
    faulty_peers: dict[str, Any],
) -> None:
    options = CheckOptions(faulty_peers["cards"]["plain"], only=("streaming.", "push."))
    _, results, _ = await collect(options)
    assert by_status(results, CheckStatus.FAIL) == []
    refused = [r for r in results if r.check_id == "streaming.refused"]
    assert [r.status for r in refused] == [CheckStatus.PASS, CheckStatus.PASS]
    # The card claims no push: config and delivery are not applicable (which is not "could
    # not be tested"), and a push config is refused with PushNotificationNotSupported.
    claimed = [r for r in results if r.check_id in ("push.config", "push.delivery")]
    assert {r.status for r in claimed} == {CheckStatus.NA}
    assert {r.detail for r in claimed} == {"the card does not claim push notifications"}
    refusals = [r for r in results if r.check_id == "push.not-supported"]
    assert [r.status for r in refusals] == [CheckStatus.PASS, CheckStatus.PASS]


async def test_an_enforced_required_extension_passes_and_every_other_call_carries_it(
    faulty_peers: dict[str, Any],
) -> None:
    options = CheckOptions(
        faulty_peers["cards"]["extension-enforced"], only=("extensions.", "core.")
    )
    _, results, _ = await collect(options)
    assert by_status(results, CheckStatus.FAIL) == []
    statuses = {(r.check_id, r.status) for r in results}
    assert ("extensions.required", CheckStatus.PASS) in statuses
    assert ("core.send-message", CheckStatus.PASS) in statuses


async def test_a_card_without_caching_headers_is_named_by_a_warning(
    faulty_peers: dict[str, Any],
) -> None:
    # Cache-Control and ETag are SHOULDs (1.0 §8.6.1), Last-Modified a MAY: a warning.
    options = CheckOptions(faulty_peers["cards"]["no-cache"], only=("card.",))
    _, results, _ = await collect(options)
    (caching,) = [r for r in results if r.check_id == "card.caching"]
    assert caching.status is CheckStatus.WARN
    assert "no Cache-Control" in caching.detail and "no ETag" in caching.detail
    assert "Last-Modified header (MAY)" in caching.detail
    assert caching.tck == ("CARD-CACHE-001", "CARD-CACHE-002", "CARD-CACHE-003")
    assert by_status(results, CheckStatus.FAIL) == []


async def test_an_agent_following_the_v1_0_0_error_table_passes(
    faulty_peers: dict[str, Any],
) -> None:
    options = CheckOptions(faulty_peers["cards"]["table-v100"], call_timeout_s=3)
    _, results, _ = await collect(options)
    assert by_status(results, CheckStatus.FAIL) == []
    assert by_status(results, CheckStatus.WARN) == []
    (table,) = [r for r in results if r.check_id == "errors.table"]
    assert table.status is CheckStatus.PASS
    assert table.detail.startswith("the agent follows the A2A v1.0.0 error table")
    assert "TaskNotCancelableError: HTTP 409" in table.detail
    assert "gRPC UNIMPLEMENTED" in table.detail
    passed = {
        (r.check_id, r.interface.split(" ")[0]) for r in results if r.status is CheckStatus.PASS
    }
    assert ("errors.not-cancelable", "HTTP+JSON") in passed
    assert ("errors.terminal-task", "GRPC") in passed


async def test_an_agent_that_finishes_every_task_at_once_fails_nothing(
    faulty_peers: dict[str, Any],
) -> None:
    # As a generic echo agent does: nothing is left running to cancel, resubscribe to or
    # join, which is not the agent's fault (n/a, with the reason).
    _, results, _ = await collect(CheckOptions(faulty_peers["cards"]["fast-finish"]))
    assert by_status(results, CheckStatus.FAIL) == []
    assert by_status(results, CheckStatus.WARN) == []
    not_applicable = {r.check_id: r.detail for r in results if r.status is CheckStatus.NA}
    assert "before the cancel landed" in not_applicable["core.cancel-task"]
    assert "before the resubscription" in not_applicable["gaps.resubscribe"]
    assert "ended before a second stream could join" in not_applicable["streaming.concurrent"]
