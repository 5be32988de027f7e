"""A lazy tree model over a parsed JSON value: nodes are made when their parent is expanded.

Columns: ``Key`` (member name or ``[index]``), ``Value`` (scalars as JSON, containers as a
count) and ``Type``. A container's children are handed to the view in blocks of
:data:`FETCH_BLOCK` through ``canFetchMore`` / ``fetchMore``, so a body with a million
array items costs nothing until that array is opened, and then one block at a time as the
view scrolls. The value is parsed before it gets here (the exchange parses bodies off the
GUI thread).

Paths use the JSONPath normalized form of RFC 9535 §2.7, with dot notation for member names
that are plain identifiers: ``$.result.status.state``, ``$.parts[0]``, ``$['a-b']``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from app.ui.response.formatting import pretty_json
from app.ui.shell.plain_text import plain_tip, shown

FETCH_BLOCK = 500
"""Children handed to the view per ``fetchMore``."""

COLUMNS = ("Key", "Value", "Type")
COL_KEY, COL_VALUE, COL_TYPE = range(len(COLUMNS))

_VALUE_CHARS = 300  # the Value column shows at most this much of a long string
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

_Index = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()


class _Node:
    """One value in the tree; ``key`` is a member name (str) or an array index (int)."""

    __slots__ = ("children", "items", "key", "parent", "row", "value")

    def __init__(self, key: str | int | None, value: Any, parent: _Node | None, row: int) -> None:
        self.key = key
        self.value = value
        self.parent = parent
        self.row = row
        self.children: list[_Node] = []
        self.items: list[tuple[str | int, Any]] | None = None  # made on the first fetch

    @property
    def size(self) -> int:
        value = self.value
        return len(value) if isinstance(value, dict | list) else 0

    def pending(self) -> list[tuple[str | int, Any]]:
        if self.items is None:
            value = self.value
            self.items = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
        return self.items


def type_name(value: Any) -> str:
    """The JSON type of ``value``: object, array, string, number, boolean, null."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return "number"


def summary(value: Any) -> str:
    """One line for the Value column."""
    if isinstance(value, dict):
        n = len(value)
        return f"{{{n} member{'s' * (n != 1)}}}"
    if isinstance(value, list):
        n = len(value)
        return f"[{n} item{'s' * (n != 1)}]"
    if isinstance(value, str):
        text = json.dumps(value[:_VALUE_CHARS], ensure_ascii=False)
        return text if len(value) <= _VALUE_CHARS else text[:-1] + '…"'
    return json.dumps(value)


def path_step(key: str | int) -> str:
    """One step of a JSONPath: ``.name``, ``['odd name']`` or ``[3]``."""
    if isinstance(key, int):
        return f"[{key}]"
    if _IDENTIFIER.fullmatch(key):
        return f".{key}"
    escaped = key.replace("\\", "\\\\").replace("'", "\\'")
    return f"['{escaped}']"


def copy_text(value: Any) -> str:
    """What *Copy value* puts on the clipboard: a string as it is, anything else as JSON."""
    return value if isinstance(value, str) else pretty_json(value)


def _pairs(value: Any) -> Iterator[tuple[Any, Any]]:
    return iter(value.items()) if isinstance(value, dict) else enumerate(value)


class JsonTreeModel(QAbstractItemModel):
    """The tree of one JSON value (:meth:`set_value`); the root's members are top rows."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._root = _Node(None, None, None, 0)
        self._value: Any = None
        self._scalar = False

    def set_value(self, value: Any) -> None:
        """Show ``value`` (a parsed JSON value); a scalar is shown as one row keyed ``$``."""
        self.beginResetModel()
        self._value = value
        self._scalar = not isinstance(value, dict | list)
        self._root = _Node(None, {"$": value} if self._scalar else value, None, 0)
        if self._scalar:
            self._root.children.append(_Node("$", value, self._root, 0))
        self.endResetModel()

    def clear(self) -> None:
        """Show nothing."""
        self.beginResetModel()
        self._root = _Node(None, None, None, 0)
        self._value = None
        self._scalar = False
        self.endResetModel()

    @property
    def root_value(self) -> Any:
        """The value shown (None when cleared)."""
        return self._value

    # --- reading nodes -----------------------------------------------------------------

    def _node(self, index: _Index) -> _Node:
        if index.isValid():
            node = index.internalPointer()
            assert isinstance(node, _Node)
            return node
        return self._root

    def value_at(self, index: _Index) -> Any:
        """The JSON value of the row at ``index`` (the whole value for an invalid index)."""
        return self._node(index).value if index.isValid() else self._value

    def path_at(self, index: _Index) -> str:
        """The JSONPath of the row at ``index`` (``$`` for the root)."""
        if self._scalar:
            return "$"
        steps: list[str] = []
        node: _Node | None = self._node(index)
        while node is not None and node.parent is not None:
            assert node.key is not None
            steps.append(path_step(node.key))
            node = node.parent
        return "$" + "".join(reversed(steps))

    # --- QAbstractItemModel -------------------------------------------------------------

    def index(self, row: int, column: int, parent: _Index = _ROOT) -> QModelIndex:
        if column < 0 or column >= len(COLUMNS) or row < 0:
            return QModelIndex()
        node = self._node(parent)
        if row >= len(node.children):
            return QModelIndex()
        return self.createIndex(row, column, node.children[row])

    def parent(self, child: _Index = _ROOT) -> QModelIndex:  # type: ignore[override]
        if not child.isValid():
            return QModelIndex()
        parent = self._node(child).parent
        if parent is None or parent is self._root:
            return QModelIndex()
        return self.createIndex(parent.row, 0, parent)

    def rowCount(self, parent: _Index = _ROOT) -> int:
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self._node(parent).children)

    def columnCount(self, parent: _Index = _ROOT) -> int:
        return len(COLUMNS)

    def hasChildren(self, parent: _Index = _ROOT) -> bool:
        if parent.isValid() and parent.column() != 0:
            return False
        node = self._node(parent)
        return bool(node.children) or node.size > 0

    def canFetchMore(self, parent: _Index) -> bool:
        if parent.isValid() and parent.column() != 0:
            return False
        node = self._node(parent)
        return len(node.children) < node.size

    def fetchMore(self, parent: _Index) -> None:
        if not self.canFetchMore(parent):
            return
        node = self._node(parent)
        items = node.pending()
        first = len(node.children)
        last = min(first + FETCH_BLOCK, len(items)) - 1
        self.beginInsertRows(parent, first, last)
        for row in range(first, last + 1):
            key, value = items[row]
            node.children.append(_Node(key, value, node, row))
        if len(node.children) == len(items):
            node.items = None  # the children hold the values now
        self.endInsertRows()

    def fetch_all(self, parent: _Index) -> None:
        """Fetch every child of ``parent`` (expand all, tests)."""
        while self.canFetchMore(parent):
            self.fetchMore(parent)

    def search(self, needle: str, limit: int) -> list[tuple[int, ...]]:
        """Rows whose key or scalar value contains ``needle`` (case-insensitive), in display
        order, as row paths from the top; at most ``limit``. Walks the whole value, loaded
        or not (a few milliseconds per megabyte)."""
        sought = needle.casefold()
        if not sought or self._root.value is None:
            return []
        found: list[tuple[int, ...]] = []
        # Pre-order, as the rows are displayed: a row, then what it contains, then its sibling.
        stack: list[tuple[tuple[int, ...], Iterator[tuple[int, tuple[Any, Any]]]]] = [
            ((), enumerate(_pairs(self._root.value)))
        ]
        while stack and len(found) < limit:
            path, rows = stack[-1]
            step = next(rows, None)
            if step is None:
                stack.pop()
                continue
            row, (key, child) = step
            here = (*path, row)
            text = key if isinstance(key, str) else f"[{key}]"
            if not isinstance(child, dict | list):
                # NUL keeps a match from spanning the key and the value.
                text += "\0" + (child if isinstance(child, str) else json.dumps(child))
            if sought in text.casefold():
                found.append(here)
            if isinstance(child, dict | list) and child:
                stack.append((here, enumerate(_pairs(child))))
        return found

    def index_for_rows(self, rows: tuple[int, ...]) -> QModelIndex:
        """The index at a row path from :meth:`search`, fetching the blocks on the way."""
        index = QModelIndex()
        for row in rows:
            while self.rowCount(index) <= row and self.canFetchMore(index):
                self.fetchMore(index)
            index = self.index(row, 0, index)
        return index

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        node = self._node(index)
        column = index.column()
        # Keys and values are the agent's: shown with control characters escaped (a value's
        # JSON spelling escapes C0 only), tooltips never read as HTML.
        if role == Qt.ItemDataRole.DisplayRole:
            if column == COL_KEY:
                return f"[{node.key}]" if isinstance(node.key, int) else shown(str(node.key))
            if column == COL_VALUE:
                return shown(summary(node.value))
            return type_name(node.value)
        if role == Qt.ItemDataRole.ToolTipRole and column == COL_KEY:
            return plain_tip(self.path_at(index))
        long_text = isinstance(node.value, str) and len(node.value) > 80
        if role == Qt.ItemDataRole.ToolTipRole and column == COL_VALUE and long_text:
            return plain_tip(node.value[:2000])
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(COLUMNS)
        ):
            return COLUMNS[section]
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
