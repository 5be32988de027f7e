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


async def test_an_agent_claiming_no_streaming_refuses_the_stream_method(
    faulty_peers: dict[str, Any],
) -> None:
    options = CheckOptions(faulty_peers["cards"]["plain"], only=("streaming.", "push."))
    _, results, _ = await collect(options)
    assert by_status(results, CheckStatus.FAIL) == []
    refused = [r for r in results if r.check_id == "streaming.refused"]
    assert [r.status for r in refused] == [CheckStatus.PASS, CheckStatus.PASS]
    # The card claims no push: not applicable, which is not "could not be tested".
    assert {r.status for r in results if r.check_id.startswith("push.")} == {CheckStatus.NA}
    assert {r.detail for r in results if r.check_id.startswith("push.")} == {
        "the card does not claim push notifications"
    }


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
