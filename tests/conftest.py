"""Shared fixtures: real peers (Python and JavaScript SDK servers), a qasync loop for GUI tests.

GUI tests run offscreen; every test gets its own config and data directories.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")

pytest_plugins = ["tests.peers.fixtures", "tests.peers.js_fixtures"]


@pytest.fixture(autouse=True)
def _isolated_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Settings and data go to a temporary home, never the developer's."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))


@pytest.fixture
def qloop(qapp: Any) -> Iterator[asyncio.AbstractEventLoop]:
    """A qasync event loop on pytest-qt's QApplication (docs/ARCHITECTURE.md §7.5).

    Errors in background tasks fail the test; tasks still pending at the end are cancelled.
    """
    import qasync

    loop = qasync.QEventLoop(qapp, already_running=False)
    asyncio.set_event_loop(loop)
    errors: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: errors.append(context))
    try:
        yield loop
    finally:
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        asyncio.set_event_loop(None)
        loop.close()
    assert not errors, f"background task errors: {errors}"


@pytest.fixture
def wait_until(qloop: asyncio.AbstractEventLoop) -> Callable[..., None]:
    """``wait_until(predicate, timeout=10)``: run the loop until ``predicate()`` is true."""

    def wait(predicate: Callable[[], Any], timeout: float = 10.0) -> None:
        async def poll() -> None:
            while not predicate():
                await asyncio.sleep(0.02)

        qloop.run_until_complete(asyncio.wait_for(poll(), timeout))

    return wait
