"""Before the GUI starts: are the system libraries Qt loads at run time there?

PySide6 wheels carry Qt itself but not the X11/OpenGL client libraries of the system. When
one is missing, Qt aborts with "Could not load the Qt platform plugin "xcb" … Reinstalling
the application may fix this problem", which names neither the library nor the package.
This check loads each library the way Qt's plugin loader will (``dlopen`` by soname, so the
same search path applies) and, for the missing ones, names the packages to install on
Debian/Ubuntu and Fedora. It imports no Qt and runs only on Linux.

It runs before Qt is imported for the xcb plugin only (:func:`check_before_qt`): that plugin
is loaded by ``QApplication``, whose abort names no library. With another plugin (Wayland,
offscreen) a missing QtGui library makes the import of PySide6 raise an ``ImportError``, and
the check explains it then: a start that works loads no library twice and skips
:mod:`ctypes` (bench/startup.py).

The lists follow what ``ldd`` reports for ``libQt6Gui.so.6`` (every platform, offscreen
included) and for the xcb platform plugin ``libqxcb.so`` / ``libQt6XcbQpa.so.6``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import NamedTuple


class SystemLibrary(NamedTuple):
    """A shared library by soname, with the package that provides it per distribution.

    (A NamedTuple, not a dataclass: this runs before the first paint, which does not
    otherwise import :mod:`dataclasses`.)
    """

    soname: str
    debian: str
    fedora: str


QT_GUI_LIBRARIES: tuple[SystemLibrary, ...] = (
    SystemLibrary("libEGL.so.1", "libegl1", "libglvnd-egl"),
    SystemLibrary("libGL.so.1", "libgl1", "libglvnd-glx"),
    SystemLibrary("libfontconfig.so.1", "libfontconfig1", "fontconfig"),
    SystemLibrary("libfreetype.so.6", "libfreetype6", "freetype"),
    SystemLibrary("libglib-2.0.so.0", "libglib2.0-0", "glib2"),
    SystemLibrary("libxkbcommon.so.0", "libxkbcommon0", "libxkbcommon"),
    SystemLibrary("libX11.so.6", "libx11-6", "libX11"),
    SystemLibrary("libdbus-1.so.3", "libdbus-1-3", "dbus-libs"),
)
"""Needed by QtGui whatever the platform plugin."""

XCB_LIBRARIES: tuple[SystemLibrary, ...] = (
    SystemLibrary("libxcb.so.1", "libxcb1", "libxcb"),
    SystemLibrary("libX11-xcb.so.1", "libx11-xcb1", "libX11-xcb"),
    SystemLibrary("libxkbcommon-x11.so.0", "libxkbcommon-x11-0", "libxkbcommon-x11"),
    # Since Qt 6.5 the xcb plugin needs xcb-cursor, the one most often missing.
    SystemLibrary("libxcb-cursor.so.0", "libxcb-cursor0", "xcb-util-cursor"),
    SystemLibrary("libxcb-icccm.so.4", "libxcb-icccm4", "xcb-util-wm"),
    SystemLibrary("libxcb-image.so.0", "libxcb-image0", "xcb-util-image"),
    SystemLibrary("libxcb-keysyms.so.1", "libxcb-keysyms1", "xcb-util-keysyms"),
    SystemLibrary("libxcb-render-util.so.0", "libxcb-render-util0", "xcb-util-renderutil"),
    SystemLibrary("libxcb-util.so.1", "libxcb-util1", "xcb-util"),
    SystemLibrary("libxcb-randr.so.0", "libxcb-randr0", "libxcb"),
    SystemLibrary("libxcb-render.so.0", "libxcb-render0", "libxcb"),
    SystemLibrary("libxcb-shape.so.0", "libxcb-shape0", "libxcb"),
    SystemLibrary("libxcb-shm.so.0", "libxcb-shm0", "libxcb"),
    SystemLibrary("libxcb-sync.so.1", "libxcb-sync1", "libxcb"),
    SystemLibrary("libxcb-xfixes.so.0", "libxcb-xfixes0", "libxcb"),
    SystemLibrary("libxcb-xkb.so.1", "libxcb-xkb1", "libxcb"),
)
"""Needed by the xcb (X11) platform plugin only."""


def platform_plugin(environ: Mapping[str, str]) -> str:
    """The platform plugin Qt will try first: ``QT_QPA_PLATFORM`` (its first entry, without
    options) when set, else ``wayland`` in a Wayland session and ``xcb`` otherwise."""
    requested = environ.get("QT_QPA_PLATFORM", "").strip()
    if requested:
        return requested.split(";")[0].split(":")[0].strip().lower()
    if environ.get("XDG_SESSION_TYPE") == "wayland" or (
        environ.get("WAYLAND_DISPLAY") and not environ.get("DISPLAY")
    ):
        return "wayland"
    return "xcb"


def check_before_qt(environ: Mapping[str, str] | None = None) -> bool:
    """Whether :func:`gui_problem` must run before Qt is imported (the xcb plugin's turn);
    otherwise it explains an ``ImportError`` of PySide6 afterwards."""
    return platform_plugin(os.environ if environ is None else environ) == "xcb"


def _loads(soname: str) -> bool:
    import ctypes  # only while checking: a start that needs no check does without it

    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def missing_libraries(
    environ: Mapping[str, str], *, platform: str = sys.platform
) -> list[SystemLibrary]:
    """The libraries Qt will need for ``environ``'s platform plugin that cannot be loaded."""
    if platform != "linux":
        return []
    wanted = list(QT_GUI_LIBRARIES)
    if platform_plugin(environ) == "xcb":
        wanted += XCB_LIBRARIES
    return [lib for lib in wanted if not _loads(lib.soname)]


def _packages(names: Sequence[str]) -> str:
    return " ".join(dict.fromkeys(names))


def gui_problem(
    environ: Mapping[str, str] | None = None, *, platform: str = sys.platform
) -> str | None:
    """A message saying what to install (or set) before Qt can start, or None when ready."""
    env = os.environ if environ is None else environ
    missing = missing_libraries(env, platform=platform)
    if missing:
        plugin = platform_plugin(env)
        return (
            f"a2a-workbench: Qt (platform plugin {plugin!r}) needs system libraries that "
            f"are missing: {', '.join(lib.soname for lib in missing)}\n"
            "Install them with\n"
            f"  Debian/Ubuntu: sudo apt-get install {_packages([m.debian for m in missing])}\n"
            f"  Fedora:        sudo dnf install {_packages([m.fedora for m in missing])}\n"
            "or run without a display with QT_QPA_PLATFORM=offscreen."
        )
    if platform == "linux" and platform_plugin(env) == "xcb" and not env.get("DISPLAY"):
        return (
            "a2a-workbench: no X11 display (DISPLAY is not set) for Qt's xcb platform plugin; "
            "start it from a desktop session, or run without a display with "
            "QT_QPA_PLATFORM=offscreen."
        )
    return None
