"""Help → Documentation (issue 27, *First run and help*): the manual shipped with the app, read
offline in the app — links between pages work, a ``#section`` scrolls to its heading, web
links open in the browser only when clicked."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtGui import QAction, QDesktopServices, QTextCursor, QTextDocument
from PySide6.QtWidgets import QLabel, QTextBrowser, QToolButton

from app.shipped import doc_pages
from app.ui.help.docs_viewer import GUIDE, DocsViewer, heading_anchor
from app.ui.shell.main_window import MainWindow

pytestmark = [pytest.mark.gui]


@pytest.fixture
def opened(window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> tuple[DocsViewer, list[QUrl]]:
    """Help → Documentation triggered; web links land in the returned list, not a browser."""
    browsed: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: browsed.append(url) or True)
    action = window.findChild(QAction, "documentationAction")
    assert action is not None and action in window.menus.help.actions()
    assert action.shortcut().toString() == "F1"
    action.trigger()
    viewer = window.findChild(DocsViewer, "documentationViewer")
    assert viewer is not None and viewer.isVisible()
    return viewer, browsed


def _link_position(browser: QTextBrowser, href: str) -> QPoint:
    """Where a person clicks the first link to ``href`` (scrolled into view)."""
    block = browser.document().begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            fragment = fragments.fragment()
            if fragment.charFormat().anchorHref() == href:
                cursor = QTextCursor(browser.document())
                cursor.setPosition(fragment.position() + 1)
                browser.setTextCursor(cursor)
                browser.ensureCursorVisible()
                return browser.cursorRect(cursor).center()
            fragments += 1
        block = block.next()
    raise AssertionError(f"no link to {href}")


def _click_link(qtbot: Any, browser: QTextBrowser, href: str) -> None:
    spot = _link_position(browser, href)
    qtbot.mouseClick(browser.viewport(), Qt.MouseButton.LeftButton, pos=spot)


def _status(viewer: DocsViewer) -> str:
    label = viewer.findChild(QLabel, "documentationStatusLabel")
    assert label is not None
    return label.text()


def test_it_lists_every_shipped_page_and_opens_the_guide(
    opened: tuple[DocsViewer, list[QUrl]],
) -> None:
    viewer, _ = opened
    names = viewer.page_names()
    assert sorted(names) == doc_pages() and len(names) >= 14
    assert names[: len(GUIDE)] == list(GUIDE)  # the user's guide first
    browser = viewer.findChild(QTextBrowser, "documentationBrowser")
    assert browser is not None and viewer.current_page() == "GUI.md"
    assert "The request tab" in browser.toPlainText()


def test_links_between_pages_and_to_sections_work(
    qtbot: Any, opened: tuple[DocsViewer, list[QUrl]]
) -> None:
    viewer, browsed = opened
    browser = viewer.browser
    _click_link(qtbot, browser, "SAVED_REQUESTS.md")
    assert viewer.current_page() == "SAVED_REQUESTS.md"
    assert "x-a2a" in browser.toPlainText() and browsed == []
    qtbot.mouseClick(
        viewer.findChild(QToolButton, "documentationBackButton"), Qt.MouseButton.LeftButton
    )
    assert viewer.current_page() == "GUI.md"

    _click_link(qtbot, browser, "CLI.md#check")
    assert viewer.current_page() == "CLI.md"
    top = browser.cursorForPosition(QPoint(4, 4)).block()
    assert heading_anchor(top.text()) == "check"  # scrolled to the heading


def test_a_web_link_opens_in_the_browser_only_when_clicked(
    qtbot: Any, opened: tuple[DocsViewer, list[QUrl]]
) -> None:
    viewer, browsed = opened
    assert browsed == []  # showing a page opens nothing
    _click_link(qtbot, viewer.browser, "https://a2a-protocol.org")
    assert [u.toString() for u in browsed] == ["https://a2a-protocol.org"]
    assert viewer.current_page() == "GUI.md"
    assert "browser" in _status(viewer)


def test_a_link_outside_the_manual_is_said_so(
    qtbot: Any, opened: tuple[DocsViewer, list[QUrl]]
) -> None:
    viewer, browsed = opened
    _click_link(qtbot, viewer.browser, "../README.md")
    assert viewer.current_page() == "GUI.md" and browsed == []
    assert "not part of the manual" in _status(viewer)


def test_screenshots_load_no_wider_than_the_page(opened: tuple[DocsViewer, list[QUrl]]) -> None:
    viewer, _ = opened
    document = viewer.browser.document()
    images = []
    block = document.begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            fmt = fragments.fragment().charFormat()
            if fmt.isImageFormat():
                images.append(fmt.toImageFormat().name())
            fragments += 1
        block = block.next()
    assert images, "GUI.md shows the Welcome tab's screenshot"
    for name in images:
        image = document.resource(QTextDocument.ResourceType.ImageResource.value, QUrl(name))
        assert image is not None and not image.isNull()
        assert image.width() <= viewer.browser.viewport().width()


def test_the_page_list_opens_a_page(qtbot: Any, opened: tuple[DocsViewer, list[QUrl]]) -> None:
    viewer, _ = opened
    tree = viewer.page_list
    model = viewer.pages
    guide = model.item(0)
    row = next(r for r in range(guide.rowCount()) if guide.child(r).toolTip() == "CHECKS.md")
    index = guide.child(row).index()
    tree.scrollTo(index)
    qtbot.mouseClick(
        tree.viewport(), Qt.MouseButton.LeftButton, pos=tree.visualRect(index).center()
    )
    assert viewer.current_page() == "CHECKS.md"
