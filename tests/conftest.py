"""Shared fixtures: real peers (Python and JavaScript SDK servers, iac-code), a qasync loop for GUI
tests.

GUI tests run offscreen; every test gets its own config and data directories.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import inspect
import os
from collections.abc import Callable, Generator, Iterator
from typing import Any

import pytest

from tests.helpers import leaks, log_gate
from tests.helpers.home import temporary_home

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")
# Hermetic: the app's default proxy mode (system) and gRPC's core read these; a developer's
# proxy must never carry the suite's loopback traffic. Tests that need them use monkeypatch.
for _name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "grpc_proxy"):
    os.environ.pop(_name, None)
    os.environ.pop(_name.upper(), None)

pytest_plugins = [
    "tests.gui_gc",
    "tests.peers.fixtures",
    "tests.peers.js_fixtures",
    "tests.peers.tls_fixtures",
    "tests.peers.oidc_fixtures",
    "tests.peers.iac_fixtures",
]


LEAKS_ALLOWED = "leaks_allowed"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{LEAKS_ALLOWED}(reason): the test may leave tasks or timers running (name the owner)",
    )
    config.addinivalue_line("markers", log_gate.MARKER_HELP)


_ERROR_RECORDS = pytest.StashKey[log_gate.ErrorRecords]()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    """The log gate (tests/helpers/log_gate.py) listens from the first fixture's setup..."""
    item.stash[_ERROR_RECORDS] = log_gate.ErrorRecords().attach()
    return (yield)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    """... to the last fixture's teardown, then judges what was logged at ERROR."""
    gate = item.stash.get(_ERROR_RECORDS, None)
    try:
        result = yield
    finally:
        if gate is not None:
            gate.detach()
    if gate is not None and (failure := log_gate.verdict(item, gate.records)):
        pytest.fail(failure, pytrace=False)
    return result


def _leaks_allowed(item: pytest.Item) -> bool:
    return item.get_closest_marker(LEAKS_ALLOWED) is not None


@pytest.fixture(autouse=True)
def _no_leaked_timers(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fails a test that leaves a Qt timer running once its fixtures are torn down.

    Defined first among the autouse fixtures, so it is torn down last: after the main window
    has shut down and closed. Timers already running before the test are not its doing.
    """
    before = leaks.active_timers()
    yield
    if "qapp" in request.fixturenames:
        # Collect the test's Qt garbage here, in the GUI thread. Left to chance, the collector
        # runs in whatever thread allocates next, e.g. a later test's verification worker, and
        # destroys the widgets there ("Timers cannot be stopped from another thread", crashes).
        gc.collect()
    leaked = leaks.new_timers(before)
    if leaked and not _leaks_allowed(request.node):
        pytest.fail("Qt timers left running: " + "; ".join(leaked), pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """An ``async def`` test fails if tasks it started are still pending when it returns.

    The check runs inside the test's own loop, after a short grace period; tasks that async
    fixtures started before the test (servers, clients) are theirs, not the test's.
    """
    func = getattr(item, "obj", None)
    if not isinstance(item, pytest.Function) or not inspect.iscoroutinefunction(func):
        return (yield)

    @functools.wraps(func)
    async def checked(*args: Any, **kwargs: Any) -> Any:
        before = asyncio.all_tasks()
        result = await func(*args, **kwargs)
        leaked = await leaks.settle(before)
        if leaked and not _leaks_allowed(item):
            pytest.fail("asyncio tasks left running: " + "; ".join(leaked), pytrace=False)
        return result

    item.obj = checked
    try:
        return (yield)
    finally:
        item.obj = func


@pytest.fixture(autouse=True)
def _isolated_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Settings and data go to a temporary home, never the developer's: ``HOME`` and every
    directory of app/paths.py (state and logs under XDG_STATE_HOME), for this process and
    the processes a test starts."""
    for name, value in temporary_home(tmp_path_factory.mktemp("home")).items():
        monkeypatch.setenv(name, value)


def _test_loop(qapp: Any) -> asyncio.AbstractEventLoop:
    """The app's loop (app/ui/shell/event_loop.py), run in pieces by the tests (the app runs
    it once, for good).

    Between the pieces Qt still delivers events: qasync's ``run_until_complete`` ends with
    one more round of them, and ``qtbot.wait()`` / ``waitUntil()`` process them too. The
    callbacks they run (a task's next step) would find no running loop, and
    ``asyncio.timeout()`` or anyio inside them raise "no running event loop" — a failure the
    app, whose loop never stops, cannot have. So the loop stays this thread's running loop
    from the ``qloop`` fixture's start to its end, as in the app.
    """
    from app.ui.shell.event_loop import WorkbenchLoop

    class Loop(WorkbenchLoop):
        def run_forever(self) -> Any:
            try:
                return super().run_forever()
            finally:
                asyncio.events._set_running_loop(self)  # qasync's own finally unset it

    return Loop(qapp, already_running=False)


@pytest.fixture
def qloop(qapp: Any, request: pytest.FixtureRequest) -> Iterator[asyncio.AbstractEventLoop]:
    """A qasync event loop on pytest-qt's QApplication (docs/ARCHITECTURE.md §7.5).

    Errors in background tasks fail the test, and so do tasks still pending at the end (after a
    short grace period; the ``window`` fixture has shut its exchanges down by then). They are
    cancelled either way.
    """
    loop = _test_loop(qapp)
    asyncio.set_event_loop(loop)
    asyncio.events._set_running_loop(loop)
    errors: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: errors.append(context))
    leaked: list[str] = []
    try:
        yield loop
    finally:
        if not loop.is_closed():
            leaked = leaks.settle_loop(loop)
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        asyncio.events._set_running_loop(None)
        asyncio.set_event_loop(None)
        loop.close()
    assert not errors, f"background task errors: {errors}"
    if leaked and not _leaks_allowed(request.node):
        pytest.fail("asyncio tasks left running: " + "; ".join(leaked), pytrace=False)


@pytest.fixture
def wait_until(qloop: asyncio.AbstractEventLoop) -> Callable[..., None]:
    """``wait_until(predicate, timeout=10)``: run the loop until ``predicate()`` is true."""

    def wait(predicate: Callable[[], Any], timeout: float = 10.0) -> None:
        async def poll() -> None:
            while not predicate():
                await asyncio.sleep(0.02)

        qloop.run_until_complete(asyncio.wait_for(poll(), timeout))

    return wait
