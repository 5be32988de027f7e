"""The JSON tree page: a collapsible tree of a response or stream item with its tools.

objectNames: ``jsonTreePage`` (this widget), ``jsonTreeView`` (the ``QTreeView``),
``expandAllButton``, ``collapseAllButton``, ``copyJsonValueButton``, ``copyJsonPathButton``,
``jsonPathLabel`` (the selected row's path).

Children are fetched lazily (:class:`app.ui.response.json_tree_model.JsonTreeModel`); *Expand all*
opens at most :data:`EXPAND_ALL_LIMIT` rows so that a huge body cannot freeze the window.
A big body's value is not kept once its pretty text is written: the page is given a way to
parse it again (:meth:`JsonTreePage.set_source`) and does so in a worker thread when first
shown, saying "parsing…" meanwhile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QModelIndex, QPoint, Qt
from PySide6.QtGui import QGuiApplication, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QMenu,
    QPushButton,
    QSizePolicy,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from app.ui.response.json_tree_model import COL_KEY, COL_TYPE, COL_VALUE, JsonTreeModel, copy_text
from app.ui.shell.plain_text import PlainLabel, plain_tip
from app.ui.shell.tasks import OwnedTask
from app.ui.shell.widgets import monospace_font

EXPAND_ALL_LIMIT = 5_000
"""*Expand all* stops after opening this many rows (and says so)."""

_OPEN_AT_START = 20  # top-level containers opened when a value is shown (envelope, result)


class JsonTreePage(QWidget):
    """A :class:`JsonTreeModel` in a tree view with expand/collapse and copy buttons."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("jsonTreePage")
        self.model = JsonTreeModel(self)
        self.view = QTreeView()
        self.view.setObjectName("jsonTreeView")
        self.view.setModel(self.model)
        self.view.setUniformRowHeights(True)  # no per-row measuring for big arrays
        self.view.setAlternatingRowColors(True)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setFont(monospace_font())
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._on_context_menu)
        header = self.view.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(COL_VALUE, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(COL_TYPE, QHeaderView.ResizeMode.ResizeToContents)
        header.resizeSection(COL_KEY, self.fontMetrics().horizontalAdvance("M" * 22))

        self.expand_button = _button(
            "expandAllButton", "Expand all", f"Open every row (up to {EXPAND_ALL_LIMIT:,})"
        )
        self.collapse_button = _button("collapseAllButton", "Collapse all", "Close every row")
        self.copy_value_button = _button(
            "copyJsonValueButton", "Copy value", "Copy the selected value (strings unquoted)"
        )
        self.copy_path_button = _button(
            "copyJsonPathButton", "Copy path", "Copy the selected row's JSONPath ($.result…)"
        )
        self.path_label = PlainLabel(multiline=False)  # the agent's member names
        self.path_label.setObjectName("jsonPathLabel")
        self.path_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # A long path is clipped, never widening the window (the tooltip has it whole).
        self.path_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.expand_button.clicked.connect(self.expand_all)
        self.collapse_button.clicked.connect(self.view.collapseAll)
        self.copy_value_button.clicked.connect(self.copy_value)
        self.copy_path_button.clicked.connect(self.copy_path)
        self.view.selectionModel().currentRowChanged.connect(self._on_current_changed)

        tools = QHBoxLayout()
        tools.setContentsMargins(0, 0, 0, 0)
        for button in (
            self.expand_button,
            self.collapse_button,
            self.copy_value_button,
            self.copy_path_button,
        ):
            tools.addWidget(button)
        tools.addWidget(self.path_label, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(tools)
        layout.addWidget(self.view, 1)
        self._source: Callable[[], Any] | None = None
        self._parsing = OwnedTask()
        self._update_buttons()

    def set_value(self, value: Any) -> None:
        """Show ``value`` (parsed JSON), its top-level containers open (the first block)."""
        if self._source is not None:
            self._parsing.cancel()
            self._source = None
        self.model.set_value(value)
        root = QModelIndex()
        self.model.fetchMore(root)
        for row in range(min(self.model.rowCount(root), _OPEN_AT_START)):
            child = self.model.index(row, 0, root)
            if self.model.hasChildren(child):
                self.model.fetchMore(child)  # now, even while the view is hidden
                self.view.expand(child)
        self.path_label.setText("")
        self._update_buttons()

    def clear(self) -> None:
        """Show nothing."""
        self._parsing.cancel()
        self._source = None
        self.model.clear()
        self.path_label.setText("")
        self._update_buttons()

    def set_source(self, parse: Callable[[], Any]) -> None:
        """Show the value ``parse`` returns, parsed in a worker thread when the page is
        first shown ("parsing…" meanwhile): a big body's value is not kept until then."""
        self.clear()
        self._source = parse
        self.path_label.setText("parsed when shown")
        if self.isVisible():
            self._start_parsing()

    @property
    def pending(self) -> bool:
        """True while a value given by :meth:`set_source` is not shown yet."""
        return self._source is not None

    async def shutdown(self) -> None:
        """Stop a parse in progress (the tab closes)."""
        self._source = None
        await self._parsing.shutdown()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._start_parsing()

    def _start_parsing(self) -> None:
        parse = self._source
        if parse is None or self._parsing.running:
            return
        self.path_label.setText("parsing…")
        self._parsing.start(self._parse(parse))

    async def _parse(self, parse: Callable[[], Any]) -> None:
        value = await asyncio.to_thread(parse)
        if self._source is parse:
            self._source = None
            self.set_value(value)

    def expand_all(self) -> int:
        """Open rows breadth-first, at most :data:`EXPAND_ALL_LIMIT`; returns how many."""
        model, view = self.model, self.view
        queue = [QModelIndex()]
        opened = 0
        view.setUpdatesEnabled(False)
        try:
            while queue and opened < EXPAND_ALL_LIMIT:
                parent = queue.pop(0)
                while model.canFetchMore(parent) and model.rowCount(parent) < EXPAND_ALL_LIMIT:
                    model.fetchMore(parent)
                for row in range(model.rowCount(parent)):
                    child = model.index(row, 0, parent)
                    if model.hasChildren(child):
                        view.expand(child)
                        queue.append(child)
                        opened += 1
                        if opened >= EXPAND_ALL_LIMIT:
                            break
        finally:
            view.setUpdatesEnabled(True)
        if opened >= EXPAND_ALL_LIMIT:
            self.path_label.setText(f"expanded the first {EXPAND_ALL_LIMIT:,} containers")
        return opened

    def select_rows(self, rows: tuple[int, ...]) -> None:
        """Open the way to the row at ``rows`` (a :meth:`JsonTreeModel.search` path), select
        it and scroll to it."""
        index = self.model.index_for_rows(rows)
        parent = index.parent()
        while parent.isValid():
            self.view.expand(parent)
            parent = parent.parent()
        self.view.setCurrentIndex(index)
        self.view.scrollTo(index)

    def current_path(self) -> str:
        """The JSONPath of the selected row ("" when none)."""
        index = self.view.currentIndex()
        return self.model.path_at(index) if index.isValid() else ""

    def copy_value(self) -> None:
        """Put the selected value on the clipboard (the whole value when nothing is selected)."""
        index = self.view.currentIndex()
        if index.isValid() or self.model.rowCount() > 0:
            QGuiApplication.clipboard().setText(copy_text(self.model.value_at(index)))

    def copy_path(self) -> None:
        """Put the selected row's JSONPath on the clipboard."""
        path = self.current_path()
        if path:
            QGuiApplication.clipboard().setText(path)

    def _on_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        path = self.model.path_at(current) if current.isValid() else ""
        self.path_label.setText(path)
        self.path_label.setToolTip(plain_tip(path))
        self._update_buttons()

    def _update_buttons(self) -> None:
        has_rows = self.model.rowCount() > 0
        selected = self.view.currentIndex().isValid()
        self.expand_button.setEnabled(has_rows)
        self.collapse_button.setEnabled(has_rows)
        self.copy_value_button.setEnabled(has_rows)
        self.copy_path_button.setEnabled(selected)

    def _on_context_menu(self, pos: QPoint) -> None:
        index = self.view.indexAt(pos)
        if not index.isValid():
            return
        self.view.setCurrentIndex(index)
        menu = QMenu(self)
        menu.addAction("Copy value", self.copy_value)
        menu.addAction("Copy path", self.copy_path)
        menu.addSeparator()
        menu.addAction("Expand all", self.expand_all)
        menu.addAction("Collapse all", self.view.collapseAll)
        menu.popup(self.view.viewport().mapToGlobal(pos))


def _button(name: str, text: str, tip: str) -> QPushButton:
    button = QPushButton(text)
    button.setObjectName(name)
    button.setToolTip(tip)
    return button
