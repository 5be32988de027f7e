"""Themes: the dark theme is readable (WCAG AA, 4.5:1, from the palette the window paints
with), the window follows the OS colour scheme, and no view hard-codes a colour."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QColor, QGuiApplication, QPalette

from app.settings import ThemeChoice
from app.ui.shell import theme
from app.ui.shell.main_window import MainWindow
from app.ui.shell.widgets import CodeView

pytestmark = pytest.mark.gui


@pytest.fixture(autouse=True)
def _light_afterwards(qapp: Any) -> Iterator[None]:
    """The theme is application-wide: later tests start with the default one."""
    yield
    from app.ui.shell.theme import manager

    manager().apply(ThemeChoice.SYSTEM)


AA = 4.5
UI = Path(__file__).resolve().parents[2] / "app" / "ui"


def choose(window: MainWindow, qtbot: Any, name: str, dark: bool) -> None:
    """View → Theme → ``name``, then wait until the window paints with it."""
    found = window.findChild(QAction, name)
    assert found is not None
    found.trigger()
    qtbot.waitUntil(lambda: theme.is_dark(window.palette()) is dark)


def highlighted_colours(view: CodeView) -> set[str]:
    """The foreground colours the highlighter gave the view's text."""
    colours: set[str] = set()
    block = view.document().begin()
    while block.isValid():
        layout = block.layout()
        for fmt in layout.formats() if layout is not None else []:
            colours.add(fmt.format.foreground().color().name())
        block = block.next()
    return colours


def sheet_colours(sheet: str) -> tuple[str, str]:
    """(color, background) of a style sheet."""
    fg = re.search(r"(?<![-\w])color:\s*(#[0-9a-fA-F]{6})", sheet)
    bg = re.search(r"background:\s*(#[0-9a-fA-F]{6})", sheet)
    assert fg and bg, sheet
    return fg.group(1), bg.group(1)


def test_dark_theme_json_and_badges_are_readable(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    choose(window, qtbot, "themeDarkAction", dark=True)
    tab = window.new_a2a_tab(sdk_peer["jsonrpc_url"], "12 30")
    tab.generate_preview()
    tab.replace_body()
    tab.send_or_cancel()
    wait_until(lambda: tab.response_view.outcome is not None and not tab.busy, timeout=20)
    view = tab.response_view.pretty_view
    assert "Sum: 42" in view.toPlainText()

    base = view.viewport().palette().color(QPalette.ColorRole.Base)
    assert base.lightness() < 64  # painted dark
    for editor in (view, tab.body_editor):
        used = highlighted_colours(editor)
        assert {theme.DARK.json_key, theme.DARK.json_string} <= used, used
        for colour in used:
            assert theme.contrast_ratio(colour, base) >= AA, colour

    fg, bg = sheet_colours(tab.response_view.status_label.styleSheet())  # the "200 OK" badge
    assert theme.contrast_ratio(fg, bg) >= AA

    # Every badge, banner and text colour of the dark table, on what it is drawn on.
    palette = window.palette()
    table = theme.colours()
    assert table is theme.DARK
    check_table(table, palette)

    # Back to light: the highlighter re-colours what is shown.
    choose(window, qtbot, "themeLightAction", dark=False)
    assert theme.LIGHT.json_key in highlighted_colours(view)


def check_table(table: theme.Colours, palette: QPalette) -> None:
    grounds = [palette.color(QPalette.ColorRole.Base), palette.color(QPalette.ColorRole.Window)]
    texts = [table.json_key, table.json_string, table.json_number, table.json_literal]
    texts += [table.text_ok, table.text_warn, table.text_error, table.text_muted]
    texts += list(table.state_text.values())
    for colour in texts:
        for ground in grounds:
            assert theme.contrast_ratio(colour, ground) >= AA, (colour, ground.name())
    badges = [table.badge_ok, table.badge_warn, table.badge_error, table.badge_neutral]
    for colour in badges + list(table.state_badge.values()):
        assert theme.contrast_ratio(table.badge_text, colour) >= AA, colour
    for fg, bg, *_border in (table.error_banner, table.warn_banner, table.finding_row,
                             table.marker_row):  # fmt: skip
        assert theme.contrast_ratio(fg, bg) >= AA, (fg, bg)
    idle_text = palette.color(QPalette.ColorRole.Text)
    assert theme.contrast_ratio(idle_text, grounds[1]) >= AA


def test_light_table_is_readable_too(window: MainWindow) -> None:
    assert not theme.is_dark(window.palette())
    check_table(theme.LIGHT, window.palette())


def test_follow_system_switches_with_the_os(qtbot: Any, window: MainWindow) -> None:
    assert window.desktop.settings.theme is ThemeChoice.SYSTEM
    hints = QGuiApplication.styleHints()
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)  # the OS switched to dark
    qtbot.waitUntil(lambda: theme.is_dark(window.palette()))
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Light)
    qtbot.waitUntil(lambda: not theme.is_dark(window.palette()))
    # A manual choice wins over the OS.
    choose(window, qtbot, "themeLightAction", dark=False)
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    qtbot.wait(50)
    assert not theme.is_dark(window.palette())
    choose(window, qtbot, "themeSystemAction", dark=False)


def test_contrast_ratio_matches_wcag() -> None:
    assert theme.contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert theme.contrast_ratio(QColor("#777777"), "#ffffff") == pytest.approx(4.48, abs=0.01)


def test_no_view_hard_codes_a_colour() -> None:
    offenders = [
        f"{path.name}:{n}"
        for path in sorted(UI.rglob("*.py"))
        if path.name != "theme.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"#[0-9a-fA-F]{6}\b|\bQt\.GlobalColor\.|\"(white|black)\"", line)
    ]
    assert offenders == []
