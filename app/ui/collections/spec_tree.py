"""The spec dock's tree: every open collection, its saved requests grouped by tag.

``specTree`` (a QTreeView over :class:`SpecTreeModel`) has one top-level row per open
collection (its name, `` *`` while unsaved, its file in the tooltip), a row per tag under
it and a row per saved request under its first tag: the method's badge
(:mod:`app.ui.collections.method_badge`) and the request's name, whole at the dock's
default width. Double-clicking a request emits ``open_requested``; the window opens it in a
tab exactly as it was saved. The dock's controller (opening, saving, closing collections)
is :mod:`app.ui.collections.spec_dock`; the tree's context menu and editing actions are
:mod:`app.ui.collections.spec_tree_actions`.
"""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QFont, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QLabel,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from app.spec.document import SavedOperation
from app.ui.collections.collection import ROOT_NODE, Collection
from app.ui.collections.method_badge import BADGE_ROLE, BadgeDelegate, badge_for

OPERATION_ROLE = Qt.ItemDataRole.UserRole + 1
COLLECTION_ROLE = Qt.ItemDataRole.UserRole + 2
"""The key of the collection a row belongs to (every row has one)."""
NODE_ROLE = Qt.ItemDataRole.UserRole + 4
"""A collapsible row's name among ``Collection.collapsed``: ``""`` or its tag."""
LABEL_ROLE = Qt.ItemDataRole.UserRole + 5
"""A collection row's (name, file name or "", unsaved)."""

UNSAVED_MARK = " *"
"""After the name of an unsaved collection, as after the title of an unsaved tab."""
EMPTY_HINT = "No collection open: File → Open spec…, New collection or Import…"
UNTAGGED = "Untagged"


class SpecTreeModel(QStandardItemModel):
    """Collections → tag groups → operation rows. Operation rows carry their
    :class:`SavedOperation` under ``OPERATION_ROLE``; every row its collection's key."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, 1, parent)
        self.setHorizontalHeaderLabels(["Request"])

    def collection_item(self, key: str) -> QStandardItem | None:
        """The top-level row of collection ``key``."""
        for row in range(self.rowCount()):
            item = self.item(row)
            if item is not None and item.data(COLLECTION_ROLE) == key:
                return item
        return None

    def set_collection(self, collection: Collection) -> QStandardItem:
        """Show ``collection`` (added last, or its row refilled where it is)."""
        item = self.collection_item(collection.key)
        if item is None:
            item = _item("", collection.key)
            item.setData(ROOT_NODE, NODE_ROLE)
            font = QFont(item.font())
            font.setBold(True)
            item.setFont(font)
            self.appendRow(item)
        else:
            item.removeRows(0, item.rowCount())
        operations = collection.document.operations()
        file = collection.path.name if collection.path is not None else ""
        item.setData((collection.name, file, collection.unsaved), LABEL_ROLE)
        self._label_collections()
        item.setToolTip(_collection_tip(collection, len(operations)))
        groups: dict[str, QStandardItem] = {}
        for op in operations:
            req = op.request
            tag = req.tags[0] if req.tags else UNTAGGED
            group = groups.get(tag)
            if group is None:
                group = _item(tag, collection.key)
                group.setData(tag, NODE_ROLE)
                group.setToolTip(f"Tag {tag}")
                item.appendRow(group)
                groups[tag] = group
            row = _item(req.name or req.operation_id, collection.key)
            row.setData(op, OPERATION_ROLE)
            row.setData(badge_for(req.method, req.version), BADGE_ROLE)
            row.setToolTip(
                f"{req.name or req.operation_id}\n{req.method} · {req.binding.value} · "
                f"A2A {req.version.value}\n{req.endpoint}\noperationId {req.operation_id}"
            )
            group.appendRow(row)
        return item

    def remove_collection(self, key: str) -> None:
        """Drop collection ``key``'s rows."""
        item = self.collection_item(key)
        if item is not None:
            self.removeRow(item.row())
            self._label_collections()

    def _label_collections(self) -> None:
        """Each collection's name (its file's too, when another has the same name) and
        the unsaved mark."""
        items = [self.item(row) for row in range(self.rowCount())]
        labels = [item.data(LABEL_ROLE) for item in items if item is not None]
        names = [label[0] for label in labels]
        for item, (name, file, unsaved) in zip(items, labels, strict=True):
            text = f"{name} — {file}" if file and names.count(name) > 1 else name
            text += UNSAVED_MARK if unsaved else ""
            if item is not None and item.text() != text:
                item.setText(text)

    def operation(self, index: QModelIndex | QPersistentModelIndex) -> SavedOperation | None:
        """The operation of the row at ``index``, or None for a collection or a tag."""
        if not index.isValid():
            return None
        value = index.data(OPERATION_ROLE)  # one column
        return value if isinstance(value, SavedOperation) else None

    def collection_key(self, index: QModelIndex | QPersistentModelIndex) -> str:
        """The key of the collection ``index`` is in ("" for no row)."""
        value = index.data(COLLECTION_ROLE) if index.isValid() else None
        return value if isinstance(value, str) else ""

    def operation_indexes(self, key: str = "") -> Iterator[QModelIndex]:
        """The operation rows of collection ``key`` (every collection's for "")."""
        for row in range(self.rowCount()):
            top = self.index(row, 0)
            if key and self.collection_key(top) != key:
                continue
            for g in range(self.rowCount(top)):
                group = self.index(g, 0, top)
                for r in range(self.rowCount(group)):
                    yield self.index(r, 0, group)

    def find(self, key: str, operation_id: str) -> QModelIndex | None:
        """The row of request ``operation_id`` in collection ``key``."""
        for index in self.operation_indexes(key):
            op = self.operation(index)
            if op is not None and op.request.operation_id == operation_id:
                return index
        return None


def _item(text: str, key: str) -> QStandardItem:
    item = QStandardItem(text)
    item.setEditable(False)
    item.setData(key, COLLECTION_ROLE)
    return item


def _collection_tip(collection: Collection, count: int) -> str:
    doc = collection.document
    where = str(collection.path) if collection.path is not None else "Not saved to a file yet"
    lines = [collection.name, where, f"{count} request(s)"]
    if doc.read_only:
        lines.append("Read-only (opened from an older OpenAPI version)")
    if collection.pending and collection.path is not None:
        lines.append("Changes not in the file yet: Save collection as… keeps them")
    return "\n".join(lines)


class SpecDock(QDockWidget):
    """Dock showing the open collections (``objectName`` ``specDock``).

    Signals:
        open_requested: a request row was activated (args: collection key, SavedOperation).
        selected: the current row changed (args: its collection's key or "", the
            SavedOperation or None).
        collapsed_changed: the user collapsed or expanded a row (args: collection key,
            node: ``""`` or a tag, True when collapsed).
    """

    open_requested = Signal(str, object)
    selected = Signal(str, object)
    collapsed_changed = Signal(str, str, bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Collections", parent)
        self.setObjectName("specDock")
        self.model = SpecTreeModel(self)
        self.tree = QTreeView()
        self.tree.setObjectName("specTree")
        self.tree.setModel(self.model)
        self.tree.setItemDelegate(BadgeDelegate(self.tree))
        self.tree.setUniformRowHeights(True)
        self.tree.setHeaderHidden(True)
        self.tree.setIndentation(10)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        # One column as wide as the dock: names are whole at the default width, a longer
        # one ends in "…" (its tooltip holds it) rather than adding a horizontal scrollbar.
        self.tree.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.tree.header().setStretchLastSection(True)
        self.tree.setMinimumWidth(240)
        self.file_label = QLabel(EMPTY_HINT)
        self.file_label.setObjectName("specFileLabel")
        self.file_label.setWordWrap(True)
        self.problems_label = QLabel()
        self.problems_label.setObjectName("specProblemsLabel")
        self.problems_label.setWordWrap(True)
        self.problems_label.setTextFormat(Qt.TextFormat.PlainText)
        self.problems_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.problems_label.hide()
        self._applying = False

        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.file_label)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.problems_label)
        self.setWidget(body)

        # `activated` is a double-click (or Enter) on every platform; connecting
        # doubleClicked as well opened each request twice.
        self.tree.activated.connect(self._on_tree_activated)
        self.tree.selectionModel().currentChanged.connect(self._on_tree_current_changed)
        self.tree.expanded.connect(lambda index: self._on_expanded(index, False))
        self.tree.collapsed.connect(lambda index: self._on_expanded(index, True))

    # --- showing collections -----------------------------------------------------------

    def show_collection(self, collection: Collection) -> None:
        """Add ``collection`` or refill its rows, with the rows it had collapsed collapsed;
        the current request stays current when it is still there."""
        current = self.tree.currentIndex()
        key = self.model.collection_key(current)
        op = self.model.operation(current)
        node = current.data(NODE_ROLE) if current.isValid() else None
        item = self.model.set_collection(collection)
        self._apply_collapsed(collection, item.index())
        if key == collection.key:
            again = self.model.find(key, op.request.operation_id) if op is not None else None
            if again is None and isinstance(node, str):
                again = self._node_index(item.index(), node)
            self.tree.setCurrentIndex(again or item.index())
        self.file_label.setVisible(self.model.rowCount() == 0)

    def remove_collection(self, key: str) -> None:
        """Drop collection ``key`` from the tree."""
        self.model.remove_collection(key)
        self.file_label.setVisible(self.model.rowCount() == 0)
        if self.model.rowCount() == 0:
            self.show_problems(None)

    def select_collection(self, key: str) -> None:
        """Make collection ``key``'s row the current one, in sight."""
        item = self.model.collection_item(key)
        if item is not None:
            self.tree.setCurrentIndex(item.index())
            self.tree.scrollTo(item.index())

    def current_key(self) -> str:
        """The key of the collection the current row is in ("" for none)."""
        return self.model.collection_key(self.tree.currentIndex())

    def show_problems(self, collection: Collection | None) -> None:
        """The notice and problems of ``collection`` under the tree (hidden when none)."""
        doc = collection.document if collection is not None else None
        lines = ([doc.notice] if doc is not None and doc.notice else []) + [
            f"Skipped {p.place}: {p.message}" if p.kind == "skipped" else _capitalised(p.wording)
            for p in (doc.problems if doc is not None else [])
        ]
        self.problems_label.setText("\n".join(lines))
        self.problems_label.setVisible(bool(lines))

    def operation_count(self, key: str = "") -> int:
        """Request rows shown (of collection ``key``, else of all)."""
        return sum(1 for _ in self.model.operation_indexes(key))

    def _apply_collapsed(self, collection: Collection, top: QModelIndex) -> None:
        self._applying = True
        try:
            self.tree.setExpanded(top, ROOT_NODE not in collection.collapsed)
            for g in range(self.model.rowCount(top)):
                group = self.model.index(g, 0, top)
                self.tree.setExpanded(group, group.data(NODE_ROLE) not in collection.collapsed)
        finally:
            self._applying = False

    def _node_index(self, top: QModelIndex, node: str) -> QModelIndex | None:
        if node == ROOT_NODE:
            return top
        for g in range(self.model.rowCount(top)):
            group = self.model.index(g, 0, top)
            if group.data(NODE_ROLE) == node:
                return group
        return None

    # --- the user's clicks ---------------------------------------------------------

    def _on_expanded(self, index: QModelIndex, collapsed: bool) -> None:
        node = index.data(NODE_ROLE)
        if not self._applying and isinstance(node, str):
            self.collapsed_changed.emit(self.model.collection_key(index), node, collapsed)

    def _on_tree_activated(self, index: QModelIndex) -> None:
        op = self.model.operation(index)
        if op is not None:
            self.open_requested.emit(self.model.collection_key(index), op)

    def _on_tree_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self.selected.emit(self.model.collection_key(current), self.model.operation(current))


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]
