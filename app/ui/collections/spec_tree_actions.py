"""Managing saved requests from the spec tree: rename, duplicate, delete, move to a tag,
*Reveal in tab* — each undoable (Ctrl+Z in the spec dock).

The tree's context menu and shortcuts (active while the spec dock has the focus):

=====================  =================================  ==========================
action                 ``objectName``                     shortcut
=====================  =================================  ==========================
Rename…                ``renameOperationAction``          F2
Duplicate              ``duplicateOperationAction``       Ctrl+D
Delete                 ``deleteOperationAction``          Delete
Move to tag ▸          ``moveOperationMenu``              (a tag, or *New tag…*)
Reveal in tab          ``revealOperationAction``          —
Undo / Redo            ``undoSpecEditAction`` / …Redo…    Ctrl+Z / Ctrl+Shift+Z
Close collection       ``closeSpecAction``                —
=====================  =================================  ==========================

On a collection's own row the menu offers *New request* (``newRequestInCollectionAction``:
a tab that belongs to the collection), *Save collection as…* and *Close collection*; on
empty space *New collection* and *Open spec…*.

Each edit is an :mod:`app.spec.edit` function applied to a copy of the collection's
document and written over its file (atomically, in a worker thread, one edit after the other) by
:func:`app.spec.save.save_edit`; the tree then shows the document as written. Tabs holding
the edited request follow: a rename or move changes their saved name or tags, a delete
detaches them (their next save adds the request again, and the message says so).
The bundled example is never written: the editing actions are disabled on it, as on a
collection without a file yet.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QModelIndex, QObject, QPoint, Qt
from PySide6.QtGui import QAction, QKeySequence, QUndoCommand, QUndoStack
from PySide6.QtWidgets import QInputDialog, QLineEdit, QMenu

from app.spec import edit
from app.spec.document import SavedOperation, SpecDocument, SpecError
from app.spec.save import save_edit
from app.ui.shell.tasks import OwnedTask

if TYPE_CHECKING:
    from app.ui.collections.collection import Collection
    from app.ui.collections.collection_actions import CollectionActions
    from app.ui.collections.spec_tree import SpecDock
    from app.ui.request.request_tab import RequestTab
    from app.ui.shell.host import TabHost

READ_ONLY_HINT = "Read-only here: save a request into your own spec (Ctrl+S) to manage it"
UNSAVED_HINT = "Not in a file yet: Save collection as… first, then manage its requests"
Change = Callable[[SpecDocument], Any]
After = Callable[[Any], None]


class SpecTreeHost(Protocol):
    """What the actions use of the spec controller (``SpecController`` of
    :mod:`app.ui.collections.spec_dock`, which creates them: typed here, not imported)."""

    @property
    def host(self) -> TabHost:
        """The window's request tabs and messages."""
        ...

    @property
    def dock(self) -> SpecDock:
        """The dock whose tree the actions act on."""
        ...

    @property
    def current(self) -> Collection | None:
        """The collection of the tree's current row."""
        ...

    @property
    def document(self) -> SpecDocument | None:
        """The current collection's document."""
        ...

    @property
    def write_lock(self) -> asyncio.Lock:
        """Held while a document is read, changed and written."""
        ...

    @property
    def actions(self) -> CollectionActions:
        """New, save and close collections."""
        ...

    @property
    def open_action(self) -> QAction:
        """File → Open spec…"""
        ...

    def collection_at(self, path: Path | None) -> Collection | None:
        """The open collection of the spec file ``path``."""
        ...

    def open_operation(
        self, op: SavedOperation, collection: Collection | None = None
    ) -> RequestTab:
        """Open a saved request in a tab (or focus the tab holding it)."""
        ...

    def adopt(self, tab: RequestTab, collection: Collection | None) -> None:
        """Make ``tab`` belong to ``collection``."""
        ...

    def show_document(self, doc: SpecDocument) -> None:
        """Show ``doc`` as written, in the collection of its file."""
        ...


def tab_of(host: TabHost, spec_path: Path | None, operation_id: str) -> RequestTab | None:
    """The open tab holding request ``operation_id`` of the spec at ``spec_path``, if any."""
    for tab in host.request_tabs():
        if tab.draft.is_operation(spec_path, operation_id):
            return tab
    return None


class _Edit(QUndoCommand):
    """One undoable edit: ``forward`` and ``backward`` each run through the edit queue."""

    def __init__(
        self, text: str, forward: Callable[[], None], backward: Callable[[], None]
    ) -> None:
        super().__init__(text)
        self._forward = forward
        self._backward = backward

    def redo(self) -> None:
        self._forward()

    def undo(self) -> None:
        self._backward()


class SpecTreeActions(QObject):
    """The spec tree's request-managing actions, their menu and their undo stack."""

    def __init__(self, controller: SpecTreeHost, protected: Path, *, parent: QObject) -> None:
        super().__init__(parent)
        self.controller = controller
        self.host: TabHost = controller.host
        self.protected = protected
        self.tree = controller.dock.tree
        self.undo_stack = QUndoStack(self)
        self._queue: deque[tuple[Path, str, Change, After]] = deque()
        self._worker = OwnedTask()

        self.rename_action = self._action("&Rename…", "renameOperationAction", "F2", self.rename)
        self.duplicate_action = self._action(
            "D&uplicate", "duplicateOperationAction", "Ctrl+D", self.duplicate
        )
        self.delete_action = self._action("&Delete", "deleteOperationAction", "Delete", self.delete)
        self.reveal_action = self._action(
            "Reveal in &tab", "revealOperationAction", "", self.reveal
        )
        self.new_request_action = self._action(
            "&New request", "newRequestInCollectionAction", "", self.new_request
        )
        self.undo_action = self.undo_stack.createUndoAction(self, "&Undo")
        self.undo_action.setObjectName("undoSpecEditAction")
        self.redo_action = self.undo_stack.createRedoAction(self, "&Redo")
        self.redo_action.setObjectName("redoSpecEditAction")
        for action, keys in ((self.undo_action, "Ctrl+Z"), (self.redo_action, "Ctrl+Shift+Z")):
            action.setShortcut(QKeySequence(keys))
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            controller.dock.addAction(action)
        self.move_menu = QMenu("&Move to tag", self.tree)
        self.move_menu.setObjectName("moveOperationMenu")
        self.move_menu.aboutToShow.connect(self._fill_move_menu)

        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._on_context_menu)
        self.tree.selectionModel().currentChanged.connect(self._update_enabled)
        self.menu: QMenu | None = None
        self._update_enabled()

    def _action(self, text: str, name: str, keys: str, slot: Callable[[], object]) -> QAction:
        action = QAction(text, self)
        action.setObjectName(name)
        if keys:
            action.setShortcut(QKeySequence(keys))
            # Only while the tree has the focus: F2, Delete and Ctrl+D mean other things
            # in the request editor.
            action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        action.triggered.connect(lambda _checked=False: slot())
        self.tree.addAction(action)
        return action

    # --- what the actions apply to ---------------------------------------------------

    def selected(self) -> SavedOperation | None:
        """The operation of the tree's current row (None on a tag row or nothing)."""
        return self.controller.dock.model.operation(self.tree.currentIndex())

    def editable(self) -> bool:
        """Whether the current collection's file may be changed (not read-only, not the
        example)."""
        current = self.controller.current
        return current is not None and current.writable(self.protected)

    def hint(self) -> str:
        """Why the current collection's requests cannot be edited ("" when they can)."""
        current = self.controller.current
        if current is None or self.editable():
            return ""
        return UNSAVED_HINT if current.path is None else READ_ONLY_HINT

    def _update_enabled(self, *_args: object) -> None:
        has_op = self.selected() is not None
        can_edit = has_op and self.editable()
        for action in (self.rename_action, self.duplicate_action, self.delete_action):
            action.setEnabled(can_edit)
        self.move_menu.setEnabled(can_edit)
        self.reveal_action.setEnabled(has_op)
        self.new_request_action.setEnabled(self.controller.current is not None)
        tip = self.hint()
        for action in (self.rename_action, self.duplicate_action, self.delete_action):
            action.setToolTip(tip or action.text().replace("&", "").rstrip("…"))

    def _target(self) -> tuple[SavedOperation, Path] | None:
        op = self.selected()
        doc = self.controller.document
        if op is None or doc is None or doc.path is None:
            if op is not None and self.hint():
                self.host.messages.show(self.hint(), 10000)
            return None
        if not self.editable():
            self.host.messages.show(self.hint(), 10000)
            return None
        return op, doc.path

    # --- the context menu --------------------------------------------------------------

    def _on_context_menu(self, pos: QPoint) -> None:
        self.show_menu_at(pos)

    def show_menu_at(self, pos: QPoint) -> QMenu:
        """The context menu of the row at ``pos`` (viewport coordinates): a request's
        actions, a collection's, or on empty space *New collection* and *Open spec…*."""
        index = self.tree.indexAt(pos)
        if index.isValid():
            self.tree.setCurrentIndex(index)
        self._update_enabled()
        collections = self.controller.actions
        menu = QMenu(self.tree)
        menu.setObjectName("specTreeMenu")
        if not index.isValid():
            menu.addAction(collections.new_action)
            menu.addAction(self.controller.open_action)
        elif self.selected() is None:  # a collection's or a tag's row
            menu.addAction(self.new_request_action)
            menu.addSeparator()
            menu.addAction(collections.save_as_action)
            menu.addAction(collections.close_action)
        else:
            if self.hint():
                hint = menu.addAction(self.hint())
                hint.setObjectName("specTreeReadOnlyHint")
                hint.setEnabled(False)
            menu.addAction(self.reveal_action)
            menu.addSeparator()
            menu.addAction(self.rename_action)
            menu.addAction(self.duplicate_action)
            menu.addMenu(self.move_menu)
            menu.addSeparator()
            menu.addAction(self.delete_action)
            menu.addSeparator()
            menu.addAction(self.undo_action)
            menu.addAction(self.redo_action)
            menu.addSeparator()
            menu.addAction(collections.close_action)
        self.menu = menu  # kept for tests and screenshots; replaced by the next one
        menu.popup(self.tree.viewport().mapToGlobal(pos))
        return menu

    def _fill_move_menu(self) -> None:
        self.move_menu.clear()
        doc = self.controller.document
        op = self.selected()
        current = op.request.tags[0] if op is not None and op.request.tags else ""
        for tag in edit.tags_in_use(doc) if doc is not None else []:
            action = self.move_menu.addAction(tag)
            action.setObjectName(f"moveToTag:{tag}")
            action.setEnabled(tag != current)
            action.triggered.connect(lambda _checked=False, t=tag: self.move(t))
        self.move_menu.addSeparator()
        new = self.move_menu.addAction("&New tag…")
        new.setObjectName("moveToNewTagAction")
        new.triggered.connect(lambda _checked=False: self.ask_new_tag())

    # --- the actions -------------------------------------------------------------------

    def reveal(self) -> RequestTab | None:
        """*Reveal in tab*: focus the tab holding the selected request (open it if none)."""
        op = self.selected()
        return self.controller.open_operation(op) if op is not None else None

    def new_request(self) -> RequestTab | None:
        """*New request* on a collection: a new tab that belongs to it (Ctrl+S saves there)."""
        current = self.controller.current
        if current is None:
            return None
        tab = self.host.new_a2a_tab()
        self.controller.adopt(tab, current)
        self.host.messages.show(f"New request in {current.name}: Ctrl+S saves it there", 8000)
        return tab

    def rename(self) -> QInputDialog | None:
        """F2: ask for the selected request's new name (a non-modal dialog)."""
        target = self._target()
        if target is None:
            return None
        op, _ = target
        dialog = self._ask("Rename request", "Name:", op.request.name, "renameOperationDialog")
        dialog.textValueSelected.connect(lambda name: self.rename_to(op, name))
        dialog.open()
        return dialog

    def rename_to(self, op: SavedOperation, name: str) -> None:
        """Rename ``op`` to ``name`` (undoable)."""
        target = self._target_of(op)
        name = name.strip()
        if target is None or not name or name == op.request.name:
            return
        op_id, old = op.request.operation_id, op.request.name

        def relabel(label: str) -> After:
            return lambda _result: self._relabel(target, op_id, name=label)

        self._push(
            f"Rename {old!r} to {name!r}",
            target,
            op_id,
            (lambda doc: edit.rename(doc, op_id, name), relabel(name)),
            (lambda doc: edit.rename(doc, op_id, old), relabel(old)),
        )

    def duplicate(self) -> None:
        """Ctrl+D: copy the selected request right below it (undoable)."""
        target = self._target()
        if target is None:
            return
        op, path = target
        op_id = op.request.operation_id
        created: list[str] = []

        def done(new_id: str) -> None:
            created[:] = [new_id]
            self.host.messages.show(f"Duplicated {op.request.name!r} as {new_id}", 8000)

        self._push(
            f"Duplicate {op.request.name!r}",
            path,
            op_id,
            (lambda doc: edit.duplicate(doc, op_id), done),
            (lambda doc: edit.delete(doc, created[0]), lambda _r: None),
        )

    def delete(self) -> None:
        """Delete: remove the selected request from the file (undoable: Ctrl+Z)."""
        target = self._target()
        if target is None:
            return
        op, path = target
        op_id, name = op.request.operation_id, op.request.name
        removed: list[edit.Removed] = []
        detached: list[RequestTab] = []

        def deleted(result: edit.Removed) -> None:
            removed[:] = [result]
            tab = tab_of(self.host, path, op_id)
            detached[:] = [tab] if tab is not None else []
            text = f"Deleted {name!r} — Ctrl+Z in Collections undoes it"
            if tab is not None:
                tab.draft.relabel(operation_id="")
                text += "; its tab stays open and Ctrl+S there saves it as a new request"
            self.host.messages.show(text, 15000)

        def restored(_result: object) -> None:
            for tab in detached:
                if tab in self.host.request_tabs():
                    tab.draft.relabel(operation_id=op_id)
            self.host.messages.show(f"Restored {name!r}", 8000)

        self._push(
            f"Delete {name!r}",
            path,
            "",
            (lambda doc: edit.delete(doc, op_id), deleted),
            (lambda doc: edit.restore(doc, removed[0]), restored),
            select_after_undo=op_id,
        )

    def ask_new_tag(self) -> QInputDialog | None:
        """*Move to tag ▸ New tag…*: ask for a tag name and move the request there."""
        target = self._target()
        if target is None:
            return None
        dialog = self._ask("Move to a new tag", "Tag:", "", "moveOperationDialog")
        dialog.textValueSelected.connect(lambda tag: self.move(tag))
        dialog.open()
        return dialog

    def move(self, tag: str) -> None:
        """Put the selected request under ``tag`` (undoable)."""
        target = self._target()
        tag = tag.strip()
        if target is None or not tag:
            return
        op, path = target
        op_id, old_tags = op.request.operation_id, list(op.request.tags)

        def retag(result: list[str] | None, tags: list[str] | None = None) -> None:
            new = tags if tags is not None else [tag, *(t for t in old_tags[1:] if t != tag)]
            self._relabel(path, op_id, tags=tuple(new))

        self._push(
            f"Move {op.request.name!r} to {tag!r}",
            path,
            op_id,
            (lambda doc: edit.move(doc, op_id, tag), retag),
            (lambda doc: edit.set_tags(doc, op_id, old_tags), lambda r: retag(r, old_tags)),
        )

    # --- running edits -----------------------------------------------------------------

    def _target_of(self, op: SavedOperation) -> Path | None:
        doc = self.controller.document
        if doc is None or doc.path is None or not self.editable():
            return None
        return doc.path if doc.find(op.request.operation_id) is not None else None

    def _push(
        self,
        text: str,
        path: Path,
        select: str,
        forward: tuple[Change, After],
        backward: tuple[Change, After],
        *,
        select_after_undo: str = "",
    ) -> None:
        def run_forward() -> None:
            self.submit(path, select, *forward)

        def run_backward() -> None:
            self.submit(path, select_after_undo or select, *backward)

        self.undo_stack.push(_Edit(text, run_forward, run_backward))

    def _relabel(self, path: Path, op_id: str, **changes: Any) -> None:
        tab = tab_of(self.host, path, op_id)
        if tab is not None:
            tab.draft.relabel(**changes)
            tab.title_changed.emit(tab.title())

    @property
    def busy(self) -> bool:
        """True while edits are being written."""
        return self._worker.running or bool(self._queue)

    def submit(self, path: Path, select: str, change: Change, after: After) -> None:
        """Queue ``change`` for the document at ``path``; ``after`` gets its result on the
        GUI thread once the file is written. Edits are written one after the other."""
        self._queue.append((path, select, change, after))
        if not self._worker.running:
            self._worker.start(self._drain())

    async def _drain(self) -> None:
        while self._queue:
            path, select, change, after = self._queue.popleft()
            async with self.controller.write_lock:  # a tab being saved writes first
                owner = self.controller.collection_at(path)
                if owner is None:
                    self._fail(f"{path} is no longer open; the edit was not made")
                    return
                doc = owner.document
                try:
                    written, result = await asyncio.to_thread(save_edit, doc, change)
                except SpecError as exc:
                    self._fail(str(exc))
                    return
                self.controller.show_document(written)
            if select:
                self.select(select, path)
            after(result)
            self._update_enabled()

    def _fail(self, text: str) -> None:
        # The stack no longer matches the file: start afresh rather than undo the wrong thing.
        self._queue.clear()
        self.undo_stack.clear()
        self.host.messages.show(f"Not changed: {text}", 15000)

    def select(self, operation_id: str, path: Path | None = None) -> QModelIndex | None:
        """Make the row of ``operation_id`` the tree's current row: in the collection of
        ``path``, else in the current one (else in any)."""
        owner = self.controller.collection_at(path) if path is not None else None
        owner = owner or self.controller.current
        model = self.controller.dock.model
        index = model.find(owner.key if owner is not None else "", operation_id)
        if index is not None:
            self.tree.setCurrentIndex(index)
            self.tree.scrollTo(index)
        return index

    def documents_changed(self) -> None:
        """A collection was closed: edits waiting to be undone may be in its file."""
        self.undo_stack.clear()
        self._update_enabled()

    async def join(self) -> None:
        """Wait for queued edits to be written (window shutdown)."""
        await self._worker.join()

    def _ask(self, title: str, label: str, text: str, name: str) -> QInputDialog:
        dialog = QInputDialog(self.tree.window())
        dialog.setObjectName(name)
        dialog.setWindowTitle(title)
        dialog.setLabelText(label)
        dialog.setTextValue(text)
        dialog.setTextEchoMode(QLineEdit.EchoMode.Normal)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        return dialog
