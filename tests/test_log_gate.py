"""The log gate (tests/helpers/log_gate.py) sees errors from any logger and thread, and its
marker is neither optional nor a blanket."""

from __future__ import annotations

import logging
import threading
from typing import Any

import pytest

from tests.helpers import log_gate


class _Unmarked:
    def get_closest_marker(self, name: str) -> Any:
        return None


@pytest.mark.logs_error("the gate's own test logs an error to see it caught")
def test_errors_from_any_thread_are_kept_and_warnings_are_not(
    request: pytest.FixtureRequest,
) -> None:
    with log_gate.ErrorRecords() as gate:
        logging.getLogger("tests.gate").warning("only a warning")
        try:
            raise ValueError("boom")
        except ValueError:
            logging.getLogger("tests.gate").exception("caught")
        worker = threading.Thread(target=logging.getLogger("tests.gate").critical, args=("late",))
        worker.start()
        worker.join()
    assert [r.getMessage() for r in gate.records] == ["caught", "late"]
    assert log_gate.describe(gate.records[0]) == "ERROR tests.gate: caught (ValueError: boom)"
    assert log_gate.verdict(request.node, gate.records) is None
    failure = log_gate.verdict(_Unmarked(), gate.records)
    assert failure is not None and failure.startswith("logged at ERROR: ERROR tests.gate: caught")


def test_a_marker_without_a_reason_or_without_an_error_fails(
    request: pytest.FixtureRequest,
) -> None:
    request.node.add_marker(pytest.mark.logs_error())
    record = logging.makeLogRecord({"levelno": logging.ERROR, "msg": "x"})
    assert "needs a reason" in (log_gate.verdict(request.node, [record]) or "")
    request.node.own_markers.clear()
    request.node.add_marker(pytest.mark.logs_error("stale"))
    assert "remove the marker" in (log_gate.verdict(request.node, []) or "")
    assert log_gate.verdict(_Unmarked(), []) is None
    request.node.own_markers.clear()
