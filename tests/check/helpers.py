"""Running a check to its end, for the tests."""

from __future__ import annotations

from app.check.check_model import CheckEnded, CheckEvent, CheckResult, CheckStatus
from app.check.runner import CheckOptions, run_check


async def collect(options: CheckOptions) -> tuple[list[CheckEvent], list[CheckResult], CheckEnded]:
    """Every event of the run, its results, and its end record."""
    events = [event async for event in run_check(options)]
    results = [e for e in events if isinstance(e, CheckResult)]
    end = events[-1]
    assert isinstance(end, CheckEnded)
    return events, results, end


def by_status(results: list[CheckResult], status: CheckStatus) -> list[tuple[str, str]]:
    """``(check_id, interface)`` of the results with ``status``."""
    return [(r.check_id, r.interface) for r in results if r.status is status]
