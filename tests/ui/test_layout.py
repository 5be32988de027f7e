"""A layout that holds: at 1280×800, 1600×1000 and 1920×1080, light and dark, no text of
the window is cut, the card URL field is wide enough to read, and the splitters stay where
they are when a card is fetched, a page or tab is switched, or the theme changes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QLineEdit,
    QPushButton,
    QSplitter,
    QToolBar,
    QToolButton,
    QWidget,
)

from app.settings import ThemeChoice
from app.ui.request.request_tab import RequestTab
from app.ui.shell import theme
from app.ui.shell.main_window import MainWindow
from tests.helpers.text_fit import cut_texts

pytestmark = pytest.mark.gui

SIZES = [(1280, 800), (1600, 1000), (1920, 1080)]
DIRECT = Qt.FindChildOption.FindDirectChildrenOnly
URL_40 = "http://127.0.0.1:41234/.well-known/agent"  # forty characters


@pytest.fixture(autouse=True)
def _system_theme_afterwards(qapp: Any) -> Iterator[None]:
    """The theme is application-wide: later tests start with the default one."""
    yield
    theme.manager().apply(ThemeChoice.SYSTEM)


def choose_theme(window: MainWindow, qtbot: Any, dark: bool) -> None:
    """View → Theme → Light or Dark, as a person picks it."""
    action = window.findChild(QAction, "themeDarkAction" if dark else "themeLightAction")
    assert action is not None
    action.trigger()
    qtbot.waitUntil(lambda: theme.is_dark(window.palette()) is dark)


def settle(qtbot: Any) -> None:
    """Let layouts run and the window paint what changed."""
    QApplication.processEvents()
    qtbot.wait(30)
    QApplication.processEvents()


def demo_tab(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], peer: dict[str, Any]
) -> RequestTab:
    """A new request tab at the demo agent, its Agent Card fetched with the button."""
    action = window.findChild(QAction, "newA2ARequestAction")
    assert action is not None
    action.trigger()
    tab = window.current_tab()
    assert tab is not None
    tab.endpoint_edit.setText(peer["jsonrpc_url"])
    tab.result_tabs.setCurrentWidget(tab.card_panel)
    settle(qtbot)
    button = tab.card_panel.findChild(QPushButton, "fetchCardButton")
    assert button is not None
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    wait_until(lambda: not tab.card_panel.busy and tab.card_panel.view is not None, timeout=15)
    settle(qtbot)
    return tab


def _path(widget: QWidget, root: QWidget) -> str:
    """Where ``widget`` sits under ``root``: names (or classes) and sibling indexes (any
    request tab is "the request tab": one is shown at a time)."""
    parts = []
    w: QWidget | None = widget
    while w is not None and w is not root:
        parent = w.parentWidget()
        if isinstance(w, RequestTab):
            parts.append("RequestTab")
            w = parent
            continue
        siblings = parent.findChildren(type(w), options=DIRECT) if parent is not None else [w]
        parts.append(f"{w.objectName() or type(w).__name__}[{siblings.index(w)}]")
        w = parent
    return "/".join(reversed(parts))


def splitter_sizes(window: MainWindow) -> dict[str, list[int]]:
    """Every visible splitter's sizes, by where it sits, and the docks' widths and heights."""
    found: dict[str, list[int]] = {}
    for splitter in window.findChildren(QSplitter):
        if splitter.isVisible():
            found[_path(splitter, window)] = splitter.sizes()
    for dock in window.findChildren(QDockWidget):
        if dock.isVisible():
            found[dock.objectName()] = [dock.width(), dock.height()]
    return found


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_no_label_button_or_tab_is_cut(
    qtbot: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    sdk_peer: dict[str, Any],
    size: tuple[int, int],
    dark: bool,
) -> None:
    window.resize(*size)
    choose_theme(window, qtbot, dark)
    tab = demo_tab(qtbot, window, wait_until, sdk_peer)

    cut: list[str] = []
    for page in range(tab.editor_tabs.count()):  # beside the Agent Card page
        tab.editor_tabs.setCurrentIndex(page)
        settle(qtbot)
        cut += [f"{tab.editor_tabs.tabText(page)} page: {why}" for why in cut_texts(window)]
    tab.editor_tabs.setCurrentIndex(0)
    for page in range(tab.result_tabs.count()):  # beside the Body page
        tab.result_tabs.setCurrentIndex(page)
        settle(qtbot)
        cut += [f"{tab.result_tabs.tabText(page)} page: {why}" for why in cut_texts(window)]
    assert not cut, "\n".join(sorted(set(cut)))


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_card_url_field_shows_forty_characters(
    qtbot: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    sdk_peer: dict[str, Any],
    size: tuple[int, int],
) -> None:
    window.resize(*size)
    tab = demo_tab(qtbot, window, wait_until, sdk_peer)

    field = tab.card_panel.findChild(QLineEdit, "cardUrlEdit")
    assert field is not None and field.isVisible()
    room = field.contentsRect().width() - 8  # the line edit's frame and text margins
    assert room >= field.fontMetrics().horizontalAdvance(URL_40)


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_splitters_stay_put_across_fetch_card_pages_tabs_and_themes(
    qtbot: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    sdk_peer: dict[str, Any],
    size: tuple[int, int],
) -> None:
    window.resize(*size)
    action = window.findChild(QAction, "newA2ARequestAction")
    assert action is not None
    action.trigger()
    tab = window.current_tab()
    assert tab is not None
    tab.endpoint_edit.setText(sdk_peer["jsonrpc_url"])
    settle(qtbot)
    before = splitter_sizes(window)

    demo_tab(qtbot, window, wait_until, sdk_peer)  # a second tab, its card fetched
    window.tabs.setCurrentWidget(tab)
    settle(qtbot)
    assert splitter_sizes(window) == before, "after Fetch card in another tab"
    tab.result_tabs.setCurrentWidget(tab.card_panel)
    qtbot.mouseClick(
        tab.card_panel.findChild(QPushButton, "fetchCardButton"), Qt.MouseButton.LeftButton
    )
    wait_until(lambda: not tab.card_panel.busy and tab.card_panel.view is not None, timeout=15)
    settle(qtbot)
    tab.result_tabs.setCurrentIndex(0)
    settle(qtbot)
    assert splitter_sizes(window) == before, "after Fetch card"
    for page in range(tab.editor_tabs.count()):
        tab.editor_tabs.setCurrentIndex(page)
        for result in range(tab.result_tabs.count()):
            tab.result_tabs.setCurrentIndex(result)
            settle(qtbot)
    tab.editor_tabs.setCurrentIndex(0)
    tab.result_tabs.setCurrentIndex(0)
    settle(qtbot)
    assert splitter_sizes(window) == before, "after switching pages"
    for dark in (True, False):
        choose_theme(window, qtbot, dark)
        settle(qtbot)
    assert splitter_sizes(window) == before, "after switching themes"


def parts_shown(window: MainWindow) -> dict[str, bool]:
    """Which docks and toolbars are shown."""
    return {
        part.objectName(): part.isVisible()
        for part in (*window.findChildren(QDockWidget), *window.findChildren(QToolBar))
    }


def test_reset_layout_restores_exactly_the_first_start_layout(qtbot: Any, qloop: Any) -> None:
    # As the application starts it: the frame painted first, the docks added after.
    window = MainWindow(deferred=True)
    window.resize(1280, 800)
    window.show()
    settle(qtbot)
    try:
        window.complete_setup()
        tab = window.new_a2a_tab("http://127.0.0.1:9/")
        settle(qtbot)
        first = parts_shown(window), splitter_sizes(window)
        assert first[0]["specDock"] and first[0]["docDock"] and first[0]["mainToolBar"]
        assert not first[0]["historyDock"]

        # A person moves things about: closes panels, opens History, drags splitters.
        window.spec.dock.close()
        window.findChild(QToolBar, "mainToolBar").toggleViewAction().trigger()
        window.history_dock.toggleViewAction().trigger()
        tab.findChild(QSplitter, "requestSplitter").setSizes([800, 60])
        tab.timeline.findChild(QSplitter, "timelineSplitter").setSizes([500, 0])
        settle(qtbot)
        assert parts_shown(window) != first[0]

        action = window.findChild(QAction, "resetLayoutAction")
        assert action is not None
        action.trigger()
        settle(qtbot)
        assert parts_shown(window) == first[0]
        assert splitter_sizes(window) == first[1]
    finally:
        qloop.run_until_complete(window.shutdown())
        window.close_now()
        window.deleteLater()


# A 1280×800 screen less a task bar or top bar and the window's title bar (GNOME: 27 + 37,
# Windows: 40 + 31, macOS: 25 + 28 px): what the window's inside may need at most.
SCREEN_INSIDE = (1200, 728)


def test_with_every_panel_open_the_window_still_fits_a_1280_by_800_screen(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = demo_tab(qtbot, window, wait_until, sdk_peer)
    for dock in window.findChildren(QDockWidget):
        if not dock.isVisible():
            dock.toggleViewAction().trigger()  # View → History, View → Check report
    settle(qtbot)
    assert all(parts_shown(window).values())
    pages = [(tab.editor_tabs, i) for i in range(tab.editor_tabs.count())]
    pages += [(tab.result_tabs, i) for i in range(tab.result_tabs.count())]
    for tabs, index in pages:
        tabs.setCurrentIndex(index)
        settle(qtbot)
        need = window.minimumSizeHint()
        where = tabs.tabText(index)
        assert need.width() <= SCREEN_INSIDE[0], where
        assert need.height() <= SCREEN_INSIDE[1], where


def test_the_card_sections_wrap_instead_of_hiding(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    window.resize(1280, 800)
    tab = demo_tab(qtbot, window, wait_until, sdk_peer)
    bar = tab.card_panel.findChild(QWidget, "cardSectionsBar")
    sections = tab.card_panel.sections
    assert bar is not None and bar.isVisible()
    titles = [b for b in bar.findChildren(QToolButton) if b.isVisible()]
    assert [b.text() for b in titles] == [sections.tabText(i) for i in range(sections.count())]
    assert titles[0].text() == "Interfaces (6)"
    # Eight titles in a pane of ~500 px: two rows, each title whole, none behind an arrow.
    rows = {b.y() for b in titles}
    assert len(rows) == 2
    assert all(b.width() >= b.sizeHint().width() for b in titles)
    # A title is a tab: clicking it shows its page and marks it.
    raw = next(b for b in titles if b.text() == "Raw")
    qtbot.mouseClick(raw, Qt.MouseButton.LeftButton)
    assert sections.currentIndex() == tab.card_panel.readout.raw_index and raw.isChecked()
    assert not titles[0].isChecked()


def test_the_timeline_detail_stays_readable_with_history_open(
    qtbot: Any, window: MainWindow
) -> None:
    window.resize(1280, 800)
    tab = window.new_a2a_tab("http://127.0.0.1:9/")
    tab.result_tabs.setCurrentWidget(tab.timeline)
    action = window.findChild(QAction, "historyDockAction")
    assert action is not None
    action.trigger()  # View → History: a dock below the tabs
    settle(qtbot)
    assert window.history_dock.isVisible()
    detail, table = tab.timeline.json_view, tab.timeline.view
    lines = detail.fontMetrics().height()
    # The JSON of the selected event: at least seven lines, and as tall as the table.
    assert detail.viewport().height() >= 7 * lines
    assert abs(detail.height() - table.height()) <= 3 * lines
    # History itself gets a fifth of the window, not the most of it.
    assert window.history_dock.height() <= window.height() // 4
