"""*Help → Documentation* (``documentationAction``, F1): the manual shipped with the app, read
offline in a window of its own.

The pages are the Markdown files of ``app.docs`` (the top-level ``docs/`` folder;
:func:`app.shipped.doc_page`), listed on the left — the user's guide first, the notes for
whoever changes the app after — and rendered by ``QTextBrowser.setSource`` (Qt reads ``.md``
as Markdown; images load from beside the page, scaled to the view's width). Links are
followed here, never by Qt itself: a link to another page opens it (``#section`` scrolls to
the heading GitHub would give that anchor), a web link opens in the browser only when
clicked, and a link to a file the manual does not ship (``../README.md``) is said so.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, QSize, Qt, QUrl
from PySide6.QtGui import (
    QDesktopServices,
    QImage,
    QKeySequence,
    QPalette,
    QShortcut,
    QStandardItem,
    QStandardItemModel,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QTextBrowser,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from app.shipped import doc_page, doc_pages

GUIDE = (
    "GUI.md",
    "CLI.md",
    "SAVED_REQUESTS.md",
    "HISTORY.md",
    "CHECKS.md",
    "SECURITY.md",
    "PROTOCOL.md",
    "INSTALL.md",
)
"""The user's guide, in reading order; every other page is a note for developers."""

HOME = GUIDE[0]
WEB_SCHEMES = frozenset({"http", "https", "mailto"})
PATH_ROLE = Qt.ItemDataRole.UserRole + 1


def heading_anchor(text: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces → ``-``
    (``"§2 Layers"`` → ``"2-layers"``)."""
    kept = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return kept.replace(" ", "-")


def page_title(path: Path) -> str:
    """The page's first ``# `` heading as a short title (``"Saved requests: OpenAPI 3.2
    with x-a2a"`` → ``"Saved requests"``), else its file name."""
    try:
        with path.open(encoding="utf-8") as page:
            heading = next((line[2:] for line in page if line.startswith("# ")), "")
    except OSError:
        heading = ""
    short = re.split(r": | — ", re.sub(r"\([^)]*\)|`", "", heading))[0].strip()
    return short or path.name


class DocBrowser(QTextBrowser):
    """A ``QTextBrowser`` whose images are no wider than the page."""

    def loadResource(self, kind: int, name: QUrl | str) -> Any:
        resource = super().loadResource(kind, name)
        if kind != QTextDocument.ResourceType.ImageResource.value or resource is None:
            return resource
        image = resource if isinstance(resource, QImage) else QImage.fromData(resource)
        width = max(320, self.viewport().width() - 40)
        if image.width() > width:
            image = image.scaledToWidth(width, Qt.TransformationMode.SmoothTransformation)
        return image


class DocsViewer(QWidget):
    """The manual: the pages on the left, the page on the right, back and forward above."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("documentationViewer")
        self.setWindowTitle("A2A Workbench — Documentation")
        self.folder = doc_page(HOME).parent

        self.pages = QStandardItemModel(self)
        self.page_list = QTreeView()
        self.page_list.setObjectName("documentationPageList")
        self.page_list.setModel(self.pages)
        self.page_list.setHeaderHidden(True)
        self.page_list.setRootIsDecorated(False)
        self.page_list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.page_list.clicked.connect(self._on_page_clicked)
        self.page_list.activated.connect(self._on_page_clicked)
        self._fill_pages()

        self.browser = DocBrowser()
        self.browser.setObjectName("documentationBrowser")
        self.browser.setOpenLinks(False)  # followed by _follow, web links only when clicked
        self.browser.anchorClicked.connect(self.follow)
        self.browser.sourceChanged.connect(self._on_source_changed)
        self.browser.document().setDocumentMargin(16)

        self.back_button = _tool_button("documentationBackButton", "◀  Back", "Back (Alt+Left)")
        self.back_button.clicked.connect(self.browser.backward)
        self.browser.backwardAvailable.connect(self.back_button.setEnabled)
        self.forward_button = _tool_button(
            "documentationForwardButton", "Forward  ▶", "Forward (Alt+Right)"
        )
        self.forward_button.clicked.connect(self.browser.forward)
        self.browser.forwardAvailable.connect(self.forward_button.setEnabled)
        self.status_label = QLabel()
        self.status_label.setObjectName("documentationStatusLabel")
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        self.status_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        for keys, slot in (
            (QKeySequence.StandardKey.Back, self.browser.backward),
            (QKeySequence.StandardKey.Forward, self.browser.forward),
            (QKeySequence.StandardKey.Close, self.close),
        ):
            QShortcut(keys, self, slot)

        bar = QHBoxLayout()
        bar.addWidget(self.back_button)
        bar.addWidget(self.forward_button)
        bar.addSpacing(12)
        bar.addWidget(self.status_label, 1)
        right = QWidget()
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(bar)
        column.addWidget(self.browser, 1)
        splitter = QSplitter()
        splitter.addWidget(self.page_list)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([250, 790])
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)
        self.resize(1040, 720)
        self.back_button.setEnabled(False)
        self.forward_button.setEnabled(False)
        self.open_page(HOME)

    def sizeHint(self) -> QSize:
        return QSize(1040, 720)

    # --- pages ---------------------------------------------------------------------

    def _fill_pages(self) -> None:
        names = doc_pages()
        guide = [n for n in GUIDE if n in names]
        notes = [n for n in names if n not in guide]
        for title, group in (("User's guide", guide), ("Notes for developers", notes)):
            head = QStandardItem(title)
            head.setSelectable(False)
            font = head.font()
            font.setBold(True)
            head.setFont(font)
            for name in group:
                item = QStandardItem(page_title(self.folder / name))
                item.setData(name, PATH_ROLE)
                item.setToolTip(name)
                head.appendRow(item)
            self.pages.appendRow(head)
        self.page_list.expandAll()

    def page_names(self) -> list[str]:
        """The listed pages' file names, in list order."""
        return [
            str(group.child(row).data(PATH_ROLE))
            for group in (self.pages.item(i) for i in range(self.pages.rowCount()))
            for row in range(group.rowCount())
        ]

    def current_page(self) -> str:
        """The shown page's file name (``GUI.md``)."""
        return Path(self.browser.source().toLocalFile()).name

    def open_page(self, name: str, anchor: str = "") -> None:
        """Show the page ``name`` of the manual, at the heading ``anchor`` if given."""
        url = QUrl.fromLocalFile(str(self.folder / name))
        shown = QUrl(self.browser.source())
        shown.setFragment("")
        if shown.toLocalFile() != url.toLocalFile():
            self.browser.setSource(url, QTextDocument.ResourceType.MarkdownResource)
        self.scroll_to(anchor)
        self.status_label.clear()

    def scroll_to(self, anchor: str) -> bool:
        """Scroll to the heading whose GitHub anchor is ``anchor`` (the top for ``""``)."""
        bar = self.browser.verticalScrollBar()
        if not anchor:
            bar.setValue(0)
            return True
        document = self.browser.document()
        block = document.begin()
        while block.isValid():
            if block.blockFormat().headingLevel() and heading_anchor(block.text()) == anchor:
                top = document.documentLayout().blockBoundingRect(block).top()
                bar.setValue(int(top))
                return True
            block = block.next()
        return False

    # --- links ---------------------------------------------------------------------

    def follow(self, link: QUrl) -> None:
        """Go where a clicked ``link`` points (the module docstring says how)."""
        if link.scheme() in WEB_SCHEMES:
            QDesktopServices.openUrl(link)
            self.status_label.setText(f"Opened in your browser: {link.toString()}")
            return
        target = self.browser.source().resolved(link)
        path = Path(target.toLocalFile()) if target.isLocalFile() else None
        if path is None:
            self.status_label.setText(f"Cannot open {link.toString()} here")
            return
        anchor = target.fragment()
        shipped = path.parent == self.folder and path.suffix == ".md" and path.is_file()
        if shipped:
            self.open_page(path.name, anchor)
            if anchor and not self.scroll_to(anchor):
                self.status_label.setText(f"No section #{anchor} on {path.name}")
            return
        self.status_label.setText(
            f"{link.toString()} is not part of the manual shipped with the app"
        )

    def _on_page_clicked(self, index: QModelIndex) -> None:
        name = index.data(PATH_ROLE)
        if isinstance(name, str) and name != self.current_page():
            self.open_page(name)

    def _on_source_changed(self, url: QUrl) -> None:
        name = Path(url.toLocalFile()).name
        for group in (self.pages.item(i) for i in range(self.pages.rowCount())):
            for row in range(group.rowCount()):
                item = group.child(row)
                if item.data(PATH_ROLE) == name:
                    self.page_list.setCurrentIndex(item.index())
                    return


def show_documentation(window: QWidget, page: str = "", anchor: str = "") -> DocsViewer:
    """*Help → Documentation*: ``window``'s manual viewer in front (made on first use), at
    ``page`` if given."""
    viewer = window.findChild(DocsViewer, "documentationViewer")
    if viewer is None:
        viewer = DocsViewer(window)
    if page:
        viewer.open_page(page, anchor)
    viewer.show()
    viewer.raise_()
    viewer.activateWindow()
    return viewer


def _tool_button(name: str, text: str, tip: str) -> QToolButton:
    button = QToolButton()
    button.setObjectName(name)
    button.setText(text)
    button.setToolTip(tip)
    button.setAutoRaise(True)
    return button
