"""The log gate: what a test logs at ERROR or above fails it, unless the test says why.

An error the app logs is a bug report nobody reads (a traceback in a log line, "Task exception
was never retrieved", a background task that died): the suite treats it like a warning
(``filterwarnings = error``) and fails the test in which it was logged. A test that provokes
such a record on purpose carries ``@pytest.mark.logs_error("why")``; the marker fails the
test too when nothing was logged, so it cannot go stale. Unraisable exceptions ("Exception
ignored in …") and exceptions in threads reach pytest as warnings, which fail already.
"""

from __future__ import annotations

import logging

import pytest

MARKER = "logs_error"
MARKER_HELP = f"{MARKER}(reason): the test logs at ERROR or above on purpose (say why)"


class ErrorRecords(logging.Handler):
    """Keeps every record at ERROR or above, from any thread, while it is attached."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def attach(self) -> ErrorRecords:
        """Listen on the root logger (every logger that propagates)."""
        logging.getLogger().addHandler(self)
        return self

    def detach(self) -> None:
        logging.getLogger().removeHandler(self)

    def __enter__(self) -> ErrorRecords:
        return self.attach()

    def __exit__(self, *exc: object) -> None:
        self.detach()


def describe(record: logging.LogRecord) -> str:
    """``ERROR asyncio: Task exception was never retrieved (ValueError: boom)``."""
    text = f"{record.levelname} {record.name}: {record.getMessage()}"
    if record.exc_info and record.exc_info[1] is not None:
        exc = record.exc_info[1]
        text += f" ({type(exc).__name__}: {exc})"
    return text


def verdict(item: pytest.Item, records: list[logging.LogRecord]) -> str | None:
    """Why ``item`` fails the gate, or None when it passes."""
    marker = item.get_closest_marker(MARKER)
    if marker is None:
        if not records:
            return None
        shown = "; ".join(describe(r) for r in records[:5])
        more = f" (and {len(records) - 5} more)" if len(records) > 5 else ""
        return (
            f"logged at ERROR: {shown}{more}. Fix the cause, or mark the test "
            f'@pytest.mark.{MARKER}("why") if it provokes the error on purpose'
        )
    if not marker.args or not str(marker.args[0]).strip():
        return f"@pytest.mark.{MARKER} needs a reason: why does the test log an error?"
    if not records:
        return f"marked @pytest.mark.{MARKER} but logged nothing at ERROR: remove the marker"
    return None
