"""The menu bar's five titled menus, on their own: what the first frame shows of the menus.

Their actions follow right after the first paint (:class:`app.ui.menus.WindowMenus`):
importing QAction and QKeySequence and building some fifty actions is not needed to draw
the bar (bench/startup.py), and no menu can be opened before the event loop runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMainWindow, QMenu


class TitledMenus(NamedTuple):
    """File, Edit, View, Request and Help, in menu-bar order."""

    file: QMenu
    edit: QMenu
    view: QMenu
    request: QMenu
    help: QMenu


def add_titled_menus(window: QMainWindow) -> TitledMenus:
    """Add the five menus (empty) to ``window``'s menu bar."""
    bar = window.menuBar()
    menus = []
    for title, name in (
        ("&File", "menuFile"),
        ("&Edit", "menuEdit"),
        ("&View", "menuView"),
        ("&Request", "menuRequest"),
        ("&Help", "menuHelp"),
    ):
        menu = bar.addMenu(title)
        menu.setObjectName(name)
        menus.append(menu)
    return TitledMenus(*menus)
