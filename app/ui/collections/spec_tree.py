"""The spec dock's tree: the open OpenAPI document's A2A operations, grouped by tag.

``specTree`` (a QTreeView over :class:`SpecTreeModel`) shows one row per operation with
its method, binding and version; double-clicking a row emits ``open_requested`` with the
saved request, which the window opens in a tab exactly as it was saved. The dock's
controller (opening, saving, recent specs) is :mod:`app.ui.collections.spec_dock`; the
tree's editing actions are :mod:`app.ui.collections.spec_tree_actions`.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QHeaderView,
    QLabel,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from app.spec.document import SavedOperation, SpecDocument

OPERATION_ROLE = Qt.ItemDataRole.UserRole + 1
COLUMNS = ("Request", "Method", "Binding", "Version")


class SpecTreeModel(QStandardItemModel):
    """Tag groups → operation rows. Operation rows carry their :class:`SavedOperation`
    under ``OPERATION_ROLE`` in column 0."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(COLUMNS), parent)
        self.setHorizontalHeaderLabels(list(COLUMNS))

    def set_operations(self, operations: list[SavedOperation]) -> None:
        """Replace the rows; groups follow the first tag of each operation, in file order."""
        self.removeRows(0, self.rowCount())
        groups: dict[str, QStandardItem] = {}
        for op in operations:
            tag = op.request.tags[0] if op.request.tags else "Untagged"
            group = groups.get(tag)
            if group is None:
                group = QStandardItem(tag)
                group.setEditable(False)
                group.setToolTip(f"Tag {tag}")
                fillers = [QStandardItem("") for _ in COLUMNS[1:]]
                for f in fillers:
                    f.setEditable(False)
                self.appendRow([group, *fillers])
                groups[tag] = group
            req = op.request
            name = QStandardItem(req.name or req.operation_id)
            name.setData(op, OPERATION_ROLE)
            name.setToolTip(f"{req.operation_id}\n{req.endpoint}")
            cells = [name, QStandardItem(req.method), QStandardItem(req.binding.value),
                     QStandardItem(req.version.value)]  # fmt: skip
            for cell in cells:
                cell.setEditable(False)
            group.appendRow(cells)

    def operation(self, index: QModelIndex) -> SavedOperation | None:
        """The operation of the row ``index`` is on (any column), or None for a group."""
        if not index.isValid():
            return None
        first = index.siblingAtColumn(0)
        value = first.data(OPERATION_ROLE)
        return value if isinstance(value, SavedOperation) else None


class SpecDock(QDockWidget):
    """Dock showing the open spec (``objectName`` ``specDock``).

    Signals:
        open_requested: a row was activated (arg: SavedOperation).
        selected: the current operation changed (arg: SavedOperation or None).
    """

    open_requested = Signal(object)
    selected = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Spec", parent)
        self.setObjectName("specDock")
        self.document: SpecDocument | None = None
        self.model = SpecTreeModel(self)
        self.tree = QTreeView()
        self.tree.setObjectName("specTree")
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(0, 185)
        for col in range(1, len(COLUMNS)):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        # Narrow enough for a 1280 px screen beside the request tab; the columns scroll.
        self.tree.setMinimumWidth(240)
        self.file_label = QLabel("No spec open — File → Open spec…")
        self.file_label.setObjectName("specFileLabel")
        self.file_label.setWordWrap(True)
        self.problems_label = QLabel()
        self.problems_label.setObjectName("specProblemsLabel")
        self.problems_label.setWordWrap(True)
        self.problems_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.problems_label.hide()

        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.file_label)
        layout.addWidget(self.problems_label)
        layout.addWidget(self.tree, 1)
        self.setWidget(body)

        # `activated` is a double-click (or Enter) on every platform; connecting
        # doubleClicked as well opened each request twice.
        self.tree.activated.connect(self._on_tree_double_clicked)
        self.tree.selectionModel().currentChanged.connect(self._on_tree_current_changed)

    def set_document(self, doc: SpecDocument | None) -> None:
        """Show ``doc``'s operations (and its notice and problems)."""
        self.document = doc
        if doc is None:
            self.model.set_operations([])
            self.file_label.setText("No spec open — File → Open spec…")
            self.problems_label.hide()
            return
        operations = doc.operations()
        self.model.set_operations(operations)
        self.tree.expandAll()
        name = doc.path.name if doc.path else "(unsaved spec)"
        text = f"<b>{name}</b> — {len(operations)} request(s)"
        if doc.read_only:
            text += " · read-only"
        self.file_label.setText(text)
        self.file_label.setToolTip(str(doc.path or ""))
        lines = ([doc.notice] if doc.notice else []) + [
            f"Skipped {p.place}: {p.message}" if p.kind == "skipped" else _capitalised(p.wording)
            for p in doc.problems
        ]
        self.problems_label.setText("\n".join(lines))
        self.problems_label.setVisible(bool(lines))

    def operation_count(self) -> int:
        """Operation rows shown (all groups)."""
        return sum(self.model.item(r).rowCount() for r in range(self.model.rowCount()))

    def _on_tree_double_clicked(self, index: QModelIndex) -> None:
        op = self.model.operation(index)
        if op is not None:
            self.open_requested.emit(op)

    def _on_tree_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self.selected.emit(self.model.operation(current))


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]
