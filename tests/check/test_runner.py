"""The run's bounds and bookkeeping: cancelling, the budget, exchanges in the history."""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from pathlib import Path
from typing import Any

import pytest

from app.check.check_model import CheckResult, CheckStatus, EndReason
from app.check.runner import CheckOptions, run_check
from app.errors import UsageError
from app.history.store import HistoryStore
from tests.check.helpers import collect


async def test_cancelling_the_consumer_mid_run_leaves_no_task_running(
    faulty_peers: dict[str, Any],
) -> None:
    seen: list[CheckResult] = []

    async def consume() -> None:
        async for event in run_check(CheckOptions(faulty_peers["cards"]["push-silent"])):
            if isinstance(event, CheckResult):
                seen.append(event)

    task = asyncio.create_task(consume())
    while len(seen) < 3:  # in the middle of the interface checks
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # The test's leak check (tests/conftest.py) fails the test if anything still runs.


async def test_closing_the_stream_stops_the_run(faulty_peers: dict[str, Any]) -> None:
    count = 0
    async with aclosing(run_check(CheckOptions(faulty_peers["cards"]["no-stream"]))) as events:
        async for event in events:
            count += isinstance(event, CheckResult)
            if count == 4:
                break
    assert count == 4


async def test_checks_left_when_the_budget_runs_out_are_skipped(
    faulty_peers: dict[str, Any],
) -> None:
    options = CheckOptions(faulty_peers["cards"]["wrong-codes"], budget_s=0.6)
    _, results, end = await collect(options)
    assert end.reason is EndReason.BUDGET
    skipped = [r for r in results if "budget" in r.detail]
    assert skipped and all(r.status is CheckStatus.SKIP for r in skipped)
    assert results[-1].status is CheckStatus.SKIP


async def test_every_finding_links_the_exchanges_recorded_in_the_history(
    faulty_peers: dict[str, Any], tmp_path: Path
) -> None:
    store = HistoryStore.open(tmp_path / "history.sqlite3")
    try:
        options = CheckOptions(
            faulty_peers["cards"]["wrong-codes"], history=store, only=("errors.task-not-found",)
        )
        _, results, _ = await collect(options)
        named = [r for r in results if r.check_id == "errors.task-not-found"]
        assert [r.status for r in named] == [CheckStatus.FAIL, CheckStatus.FAIL]
        for result in named:
            assert len(result.exchanges) == 1
            entry = store.entry(result.exchanges[0])
            assert entry is not None
            assert entry.operation == "errors.task-not-found"
            assert entry.rpc_method == "GetTask"
    finally:
        store.close()


async def test_an_interface_index_beyond_the_card_is_a_usage_error(
    faulty_peers: dict[str, Any],
) -> None:
    with pytest.raises(UsageError, match="lists 2 interface"):
        await collect(CheckOptions(faulty_peers["cards"]["wrong-codes"], interface=5))


async def test_one_chosen_interface_is_checked_alone(faulty_peers: dict[str, Any]) -> None:
    options = CheckOptions(faulty_peers["cards"]["wrong-codes"], interface=1, only=("core",))
    events, results, _ = await collect(options)
    assert {r.interface for r in results if r.interface} == {
        f"HTTP+JSON 1.0 {faulty_peers['base_url']}/wrong-codes/rest"
    }
    assert events[0].interfaces == (f"HTTP+JSON 1.0 {faulty_peers['base_url']}/wrong-codes/rest",)  # type: ignore[union-attr]
