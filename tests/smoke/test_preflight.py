"""The GUI's start-up check for the system libraries Qt loads (app/preflight.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from app import preflight
from app.preflight import SystemLibrary, gui_problem, missing_libraries, platform_plugin

REPO = Path(__file__).resolve().parents[2]
FAKE = SystemLibrary("liba2a-wb-does-not-exist.so.7", "liba2a-wb-fake7", "a2a-wb-fake")
FAKE_XCB = SystemLibrary("libxcb-a2a-wb-fake.so.0", "libxcb-a2a-wb-fake0", "xcb-util-a2a-wb")


@pytest.fixture
def fake_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    """One missing library for QtGui and one for the xcb plugin; the real ones present."""
    monkeypatch.setattr(preflight, "QT_GUI_LIBRARIES", (*preflight.QT_GUI_LIBRARIES[:1], FAKE))
    monkeypatch.setattr(preflight, "XCB_LIBRARIES", (FAKE_XCB,))


@pytest.mark.parametrize(
    ("environ", "plugin"),
    [
        ({"QT_QPA_PLATFORM": "offscreen"}, "offscreen"),
        ({"QT_QPA_PLATFORM": "xcb"}, "xcb"),
        ({"QT_QPA_PLATFORM": "XCB:nograb;wayland"}, "xcb"),
        ({"QT_QPA_PLATFORM": "wayland;xcb"}, "wayland"),
        ({"DISPLAY": ":0"}, "xcb"),
        ({"XDG_SESSION_TYPE": "wayland", "DISPLAY": ":0"}, "wayland"),
        ({"WAYLAND_DISPLAY": "wayland-0"}, "wayland"),
        ({}, "xcb"),
    ],
)
def test_the_platform_plugin_is_the_one_qt_tries_first(
    environ: dict[str, str], plugin: str
) -> None:
    assert platform_plugin(environ) == plugin


def test_a_missing_library_is_named_with_its_packages(fake_missing: None) -> None:
    problem = gui_problem({"QT_QPA_PLATFORM": "xcb", "DISPLAY": ":0"}, platform="linux")
    assert problem is not None
    assert f"missing: {FAKE.soname}, {FAKE_XCB.soname}\n" in problem
    assert "Debian/Ubuntu: sudo apt-get install liba2a-wb-fake7 libxcb-a2a-wb-fake0\n" in problem
    assert "Fedora:        sudo dnf install a2a-wb-fake xcb-util-a2a-wb\n" in problem
    assert "QT_QPA_PLATFORM=offscreen" in problem


def test_offscreen_needs_no_xcb_libraries(fake_missing: None) -> None:
    assert missing_libraries({"QT_QPA_PLATFORM": "offscreen"}, platform="linux") == [FAKE]
    problem = gui_problem({"QT_QPA_PLATFORM": "offscreen"}, platform="linux")
    assert problem is not None and FAKE_XCB.soname not in problem


def test_one_package_is_named_once(monkeypatch: pytest.MonkeyPatch) -> None:
    twins = (FAKE, SystemLibrary("libxcb-a2a-wb-twin.so.1", "libxcb-twin1", FAKE.fedora))
    monkeypatch.setattr(preflight, "QT_GUI_LIBRARIES", twins)
    problem = gui_problem({"QT_QPA_PLATFORM": "minimal"}, platform="linux")
    assert problem is not None
    assert f"Fedora:        sudo dnf install {FAKE.fedora}\n" in problem


def test_nothing_is_checked_off_linux(fake_missing: None) -> None:
    assert gui_problem({"QT_QPA_PLATFORM": "xcb"}, platform="darwin") is None


def test_the_libraries_of_the_offscreen_tests_are_present() -> None:
    assert gui_problem({"QT_QPA_PLATFORM": "offscreen"}) is None


def test_xcb_without_a_display_says_so() -> None:
    problem = gui_problem({"QT_QPA_PLATFORM": "xcb"}, platform="linux")
    # Either a library is missing on this machine (named) or the display is.
    assert problem is not None and ("DISPLAY is not set" in problem or "missing:" in problem)


def test_the_gui_start_path_stops_before_qt_with_the_message() -> None:
    script = textwrap.dedent(
        f"""
        import sys
        from app import preflight
        preflight.XCB_LIBRARIES = (preflight.SystemLibrary({FAKE_XCB.soname!r}, "d", "f"),)
        from app.__main__ import main
        status = main([])
        assert "PySide6" not in sys.modules, "Qt was imported"
        sys.exit(status)
        """
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "xcb", "DISPLAY": ":0", "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.returncode == 1, proc.stderr
    assert FAKE_XCB.soname in proc.stderr and "Traceback" not in proc.stderr


def test_without_xcb_a_failed_qt_import_is_explained() -> None:
    # Offscreen or Wayland: no check before Qt (a start that works skips it); a QtGui
    # library missing makes the import of PySide6 fail, and the same message follows.
    script = textwrap.dedent(
        f"""
        import sys
        from app import preflight
        preflight.QT_GUI_LIBRARIES = (preflight.SystemLibrary({FAKE.soname!r}, "d", "f"),)
        sys.modules["PySide6"] = None  # what a missing libEGL does to the import of Qt
        from app.__main__ import main
        sys.exit(main([]))
        """
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.returncode == 1, proc.stderr
    assert FAKE.soname in proc.stderr and "Traceback" not in proc.stderr


def test_only_the_xcb_plugin_is_checked_before_qt() -> None:
    assert preflight.check_before_qt({"DISPLAY": ":0"})
    assert not preflight.check_before_qt({"QT_QPA_PLATFORM": "offscreen"})
    assert not preflight.check_before_qt({"WAYLAND_DISPLAY": "wayland-0"})
