"""Looks: one colour (and icon) for each status wherever it shows — the response's badge,
the timeline's state badge, History's outcome column — one icon set on the menus, one
spacing scale."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QBrush, QIcon
from PySide6.QtWidgets import QTableView

from app.protocol.events import Outcome
from app.ui.history.history_model import COL_OUTCOME
from app.ui.shell import icons, spacing, theme
from app.ui.shell.main_window import MainWindow
from app.ui.shell.theme import Status

pytestmark = pytest.mark.gui

UI = Path(__file__).resolve().parents[2] / "app" / "ui"


def badge_background(sheet: str) -> str:
    found = re.search(r"background:\s*(#[0-9a-fA-F]{6})", sheet)
    assert found, sheet
    return found.group(1)


def same_picture(a: QIcon, b: QIcon) -> bool:
    return a.pixmap(16, 16).toImage() == b.pixmap(16, 16).toImage()


def test_every_outcome_and_task_state_has_its_status() -> None:
    from app.protocol.stream.stream_items import TaskState

    assert {o.value for o in Outcome} == set(theme.OUTCOME_STATUS)
    assert {s.value for s in TaskState} == set(theme.STATE_STATUS)
    for table in (theme.LIGHT, theme.DARK):
        assert set(table.status_badge) == set(Status) == set(table.status_text)
        # The task states' colours are the statuses' colours, not colours of their own.
        assert table.badge_for_state("completed") == table.status_badge[Status.OK]
        assert table.badge_for_state("working") == table.status_badge[Status.STREAMING]
        assert table.text_for_state("canceled") == table.status_text[Status.CANCELLED]


def test_a_status_has_one_colour_in_the_response_the_timeline_and_history(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    wait_until(lambda: window.history.store is not None)  # so that both sends are recorded
    table = theme.colours()
    ok = table.status_badge[Status.OK]
    unary = window.new_a2a_tab(sdk_peer["jsonrpc_url"], "12 30")
    unary.send_or_cancel()
    wait_until(lambda: unary.response_view.outcome is Outcome.OK and not unary.busy)
    assert badge_background(unary.response_view.status_label.styleSheet()) == ok

    stream = window.new_a2a_tab(sdk_peer["jsonrpc_url"], "stream 2 20")
    stream.method_combo.setCurrentIndex(stream.method_combo.findData("SendStreamingMessage"))
    stream.generate_preview()
    stream.replace_body()
    stream.send_or_cancel()
    wait_until(lambda: not stream.busy and stream.timeline.ending is not None, timeout=15)
    assert stream.timeline.state_label.text() == "completed"
    assert badge_background(stream.timeline.state_label.styleSheet()) == ok

    action = window.findChild(QAction, "historyDockAction")
    assert action is not None
    action.trigger()
    view = window.history_dock.findChild(QTableView, "historyView")
    assert view is not None
    wait_until(lambda: view.model().rowCount() == 2, timeout=20)
    for row in range(2):
        index = view.model().index(row, COL_OUTCOME)
        assert index.data() == "ok"
        brush = index.data(Qt.ItemDataRole.ForegroundRole)
        assert isinstance(brush, QBrush)
        assert brush.color().name() == table.status_text[Status.OK]
        shown = index.data(Qt.ItemDataRole.DecorationRole)
        assert not shown.isNull()
        assert same_picture(shown, icons.status_icon(Status.OK))


def test_the_menus_use_one_icon_set(window: MainWindow) -> None:
    for name, meaning in icons.ACTION_ICONS.items():
        action = window.findChild(QAction, name)
        if action is None:  # an action another part of the window may not have made
            continue
        assert not action.icon().isNull(), name
        assert same_picture(action.icon(), icons.icon(meaning)), name
    for name in ("newA2ARequestAction", "sendRequestAction", "quitAction", "aboutAction"):
        found = window.findChild(QAction, name)
        assert found is not None and not found.icon().isNull(), name


def test_layouts_take_their_gaps_from_the_spacing_scale() -> None:
    scale = {spacing.TIGHT, spacing.GAP, spacing.GROUP, spacing.MARGIN}
    assert scale == {2, 6, 12}  # a few named distances
    users = [p.name for p in sorted(UI.rglob("*.py")) if "spacing." in p.read_text("utf-8")]
    for expected in ("card_panel.py", "request_form.py", "timeline_header.py", "flow_layout.py"):
        assert expected in users, expected


def test_a_checkable_menu_entry_keeps_its_check_mark(window: MainWindow) -> None:
    # A menu draws an action's icon where its check mark goes: toggles carry none.
    for action in window.findChildren(QAction):
        if action.isCheckable() and action.objectName() in icons.ACTION_ICONS:
            raise AssertionError(action.objectName())
        if action.isCheckable():
            assert action.icon().isNull(), action.objectName() or action.text()


def test_the_menu_icons_show_in_the_dark_theme_too(qtbot: Any, window: MainWindow) -> None:
    dark = window.findChild(QAction, "themeDarkAction")
    assert dark is not None
    dark.trigger()
    qtbot.waitUntil(lambda: theme.is_dark(window.palette()))
    try:
        send = window.findChild(QAction, "sendRequestAction")
        assert send is not None
        image = send.icon().pixmap(16, 16).toImage()
        painted = [
            image.pixelColor(x, y)
            for x in range(image.width())
            for y in range(image.height())
            if image.pixelColor(x, y).alpha() > 128
        ]
        assert painted  # the glyph is there, drawn light on the dark menu
        assert all(c.lightness() > 150 for c in painted)
    finally:
        window.findChild(QAction, "themeSystemAction").trigger()
