"""Handing freed heap memory back is safe to call anywhere, any time."""

from __future__ import annotations

import ctypes
import importlib
import subprocess
import sys
import threading
from types import ModuleType

import pytest

from app import heap


def test_trim_runs_on_any_thread() -> None:
    pieces = [bytes(65536) for _ in range(64)]
    joined = b"".join(pieces)
    pieces.clear()
    heap.trim()
    worker = threading.Thread(target=heap.trim)
    worker.start()
    worker.join()
    assert len(joined) == 64 * 65536


def _reloaded(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    def no_process(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a process started: {args}")

    monkeypatch.setattr(subprocess, "Popen", no_process)
    return importlib.reload(heap)


def test_loading_starts_no_process(monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        assert _reloaded(monkeypatch)._trim is not None or not sys.platform.startswith("linux")
    finally:
        monkeypatch.undo()
        importlib.reload(heap)


@pytest.mark.parametrize("problem", ["no library", "no malloc_trim"])
def test_without_glibc_trim_does_nothing(monkeypatch: pytest.MonkeyPatch, problem: str) -> None:
    def cdll(name: str) -> object:
        if problem == "no library":
            raise OSError(f"{name}: cannot open shared object file")
        return object()  # musl's libc: no malloc_trim

    monkeypatch.setattr(ctypes, "CDLL", cdll)
    try:
        module = _reloaded(monkeypatch)
        assert module._trim is None
        module.trim()
    finally:
        monkeypatch.undo()
        importlib.reload(heap)


def test_configure_twice_is_harmless() -> None:
    heap.configure()
    heap.configure()
    assert len(b"".join([bytes(1 << 20)] * 8)) == 8 << 20


def test_the_gui_collector_waits_while_a_big_value_is_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.ui.shell import gui_gc

    collected: list[int] = []
    monkeypatch.setattr(gui_gc.gc, "collect", lambda generation: collected.append(generation) or 0)
    monkeypatch.setattr(gui_gc.gc, "get_count", lambda: (10_000, 0, 0))
    monkeypatch.setattr(gui_gc, "_postponed", 0)
    with heap.building():
        assert heap.is_building()
        for _ in range(gui_gc.MAX_POSTPONED):
            gui_gc.collect_due()
        assert collected == []  # the young value is not walked
        gui_gc.collect_due()  # ... but not for ever
        assert collected == [0]
    assert not heap.is_building()
    gui_gc.collect_due()
    assert collected == [0, 0]
