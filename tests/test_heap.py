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
