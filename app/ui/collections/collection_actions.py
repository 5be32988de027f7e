"""Whole collections: *New collection*, *Save collection as…*, *Close collection*, the
question before unsaved work is dropped (closing one, quitting) and where *Save to spec*
writes a tab that belongs to no collection.

=========================  ==========================  ====================================
action / dialog            ``objectName``              what it does
=========================  ==========================  ====================================
New collection             ``newSpecAction``           an empty collection, no file yet
Save collection as…        ``saveCollectionAction``    the whole collection into a file
Close collection           ``closeSpecAction``         asks first when it holds unsaved work
unsaved work               ``unsavedChangesDialog``    Save (all) / Discard / Cancel
which collection           ``saveTargetDialog``        *Save to spec* of a tab of none
a collection's file        ``saveCollectionDialog``    where a collection without one goes
=========================  ==========================  ====================================

Quitting with unsaved collections asks once for all of them; *Save all* asks a file for
each one that has none and writes them one after the other (off the GUI thread), then
quits. Every dialog is non-modal (``open()``).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMainWindow, QMessageBox

from app.spec import environments as envs
from app.spec.document import SpecDocument, SpecError
from app.spec.save import save_document
from app.spec.variables import SecretStore
from app.ui.collections.collection import Collection
from app.ui.shell.tasks import OwnedTask

if TYPE_CHECKING:
    from app.ui.collections.environment_controller import EnvironmentController
    from app.ui.request.request_tab import RequestTab
    from app.ui.shell.host import TabHost

SPEC_FILTER = "OpenAPI documents (*.yaml *.yml *.json);;All files (*)"
NEW_FILE = "A new spec file…"
"""The last choice of ``saveTargetDialog``: no open collection, a file picked next."""


class CollectionHost(Protocol):
    """What the actions use of the spec controller (``SpecController`` of
    :mod:`app.ui.collections.spec_dock`, which creates them: typed here, not imported)."""

    @property
    def host(self) -> TabHost:
        """The window's request tabs and messages."""
        ...

    @property
    def collections(self) -> list[Collection]:
        """The open collections, in the dock's order."""
        ...

    @property
    def current(self) -> Collection | None:
        """The collection of the spec tree's current row."""
        ...

    @property
    def protected(self) -> Path:
        """The example bundled with the app: never written."""
        ...

    @property
    def store(self) -> SecretStore:
        """Where secret values go."""
        ...

    @property
    def write_lock(self) -> asyncio.Lock:
        """Held while a spec file is read, changed and written."""
        ...

    @property
    def environments(self) -> EnvironmentController:
        """The collections' environments."""
        ...

    def collection_of(self, tab: RequestTab) -> Collection | None: ...
    def adopt(self, tab: RequestTab, collection: Collection | None) -> None: ...
    def new_collection(self) -> Collection: ...
    def drop(self, collection: Collection) -> None: ...
    def became_file(self, collection: Collection, doc: SpecDocument) -> None: ...
    def remember(self, path: Path | None) -> None: ...
    def start_folder(self) -> Path: ...
    def target_for(self, tab: RequestTab) -> Path | None: ...
    def save_interactive(self, tab: RequestTab, target: Path, force: bool = False) -> None: ...
    def warn(self, title: str, text: str) -> None: ...


class CollectionActions(QObject):
    """The collection actions of one window and the questions they ask."""

    def __init__(self, spec: CollectionHost, window: QMainWindow) -> None:
        super().__init__(window)
        self.spec = spec
        self.window = window
        self._work = OwnedTask()
        self.box: QMessageBox | None = None
        """The open ``unsavedChangesDialog``, if any."""
        self.new_action = self._action("&New collection", "newSpecAction", spec.new_collection)
        self.save_as_action = self._action(
            "Save collection &as…", "saveCollectionAction", lambda: self.save_as(spec.current)
        )
        self.close_action = self._action(
            "Clos&e collection", "closeSpecAction", lambda: self.close(spec.current)
        )
        self.new_action.setToolTip("An empty collection; Ctrl+S on a request saves it there")
        self.update_enabled()

    def _action(self, text: str, name: str, slot: Callable[[], object]) -> QAction:
        action = QAction(text, self.window)
        action.setObjectName(name)
        action.triggered.connect(lambda _checked=False: slot())
        return action

    def update_enabled(self) -> None:
        """Enable the actions that act on the current collection while there is one."""
        current = self.spec.current
        for action, what in ((self.save_as_action, "Save"), (self.close_action, "Close")):
            action.setEnabled(current is not None)
            action.setToolTip(
                f"{what} the collection selected in Collections"
                if current is not None
                else "Select a collection in Collections first"
            )

    # --- closing and quitting ----------------------------------------------------------

    def close(self, collection: Collection | None) -> None:
        """*Close collection*: drop ``collection``, asking first when it holds unsaved
        work. Its tabs stay open."""
        if collection is None:
            return
        if not collection.has_work:
            self.spec.drop(collection)
            self.spec.host.messages.show(f"Closed {collection.name}", 5000)
            return
        self.ask_unsaved([collection], lambda: self.spec.drop(collection), quitting=False)

    def confirm_quit(self, proceed: Callable[[], None]) -> None:
        """Quitting: ``proceed()`` at once, or after asking once about every collection
        with unsaved work (*Save all* saves them first; *Cancel* does not quit)."""
        unsaved = [c for c in self.spec.collections if c.has_work]
        if not unsaved:
            proceed()
            return
        if self.box is not None and self.box.isVisible():
            self.box.raise_()
            return
        self.ask_unsaved(unsaved, proceed, quitting=True)

    def ask_unsaved(
        self, collections: list[Collection], then: Callable[[], None], *, quitting: bool
    ) -> QMessageBox:
        """Ask about ``collections``' unsaved work: *Save* (each, then ``then()``),
        *Discard* (``then()``) or *Cancel*."""
        names = "\n".join(f"• {c.name} — {_what_is_unsaved(c)}" for c in collections)
        if quitting:
            title, question = "Quit A2A Workbench?", "These collections hold unsaved work:"
        else:
            title, question = f"Close {collections[0].name}?", "This collection holds unsaved work:"
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            title,
            f"{question}\n\n{names}",
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
            self.window,
        )
        box.setObjectName("unsavedChangesDialog")
        box.setInformativeText(
            "Save writes each into a spec file (you choose where when it has none); "
            "Discard drops the unsaved work."
        )
        save = box.button(QMessageBox.StandardButton.Save)
        save.setText("Save all" if len(collections) > 1 or quitting else "Save")
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        box.button(QMessageBox.StandardButton.Discard).setText(
            "Discard and quit" if quitting else "Discard"
        )

        def on_finished(result: int) -> None:
            self.box = None
            if result == QMessageBox.StandardButton.Save.value:
                self.save_all(collections, then)
            elif result == QMessageBox.StandardButton.Discard.value:
                then()

        box.finished.connect(on_finished)
        box.finished.connect(lambda _result: box.deleteLater())
        self.box = box
        box.open()
        return box

    def save_all(self, collections: list[Collection], then: Callable[[], None]) -> None:
        """Save each of ``collections`` (a file asked for each), one after the other; then
        ``then()``. Cancelling a file dialog, or a failed write, stops there."""
        queue = list(collections)

        def next_one() -> None:
            if not queue:
                then()
                return
            collection = queue.pop(0)
            if collection not in self.spec.collections:
                next_one()
                return
            self.ask_file(collection, lambda path: self.write(collection, path, next_one))

        next_one()

    # --- saving a whole collection -----------------------------------------------------

    def save_as(self, collection: Collection | None) -> QFileDialog | None:
        """*Save collection as…*: the whole collection into a file the user picks."""
        if collection is None:
            return None
        return self.ask_file(collection, lambda path: self.write(collection, path, lambda: None))

    def ask_file(self, collection: Collection, chosen: Callable[[Path], None]) -> QFileDialog:
        """Ask where ``collection`` goes (``saveCollectionDialog``, non-modal)."""
        start = collection.path  # the bundled example's folder is the app's: not there
        if start is None or collection.is_file(self.spec.protected):
            start = self.spec.start_folder() / _file_name(collection)
        dialog = QFileDialog(
            self.window, f"Save collection {collection.name} as", str(start), SPEC_FILTER
        )
        dialog.setObjectName("saveCollectionDialog")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.fileSelected.connect(lambda name: chosen(Path(name)))
        dialog.finished.connect(lambda _result: dialog.deleteLater())
        dialog.open()
        return dialog

    def write(self, collection: Collection, path: Path, then: Callable[[], None]) -> None:
        """Write ``collection`` whole into ``path`` off the GUI thread, then ``then()``."""
        self._work.start(self._write(collection, path, then))

    async def _write(self, collection: Collection, path: Path, then: Callable[[], None]) -> None:
        spec = self.spec
        snapshot = envs.snapshot(collection.environments)
        async with spec.write_lock:
            spec.host.messages.show(f"Saving {collection.name} to {path}…")
            try:
                written, notes = await asyncio.to_thread(
                    save_document, collection.document, path, environments=snapshot,
                    store=spec.store,
                )  # fmt: skip
            except SpecError as exc:
                spec.warn("Cannot save the collection", str(exc))
                return
        if collection in spec.collections:
            spec.became_file(collection, written)
        spec.remember(path)
        spec.host.messages.show(" · ".join([f"Saved {collection.name} to {path}", *notes]), 10000)
        then()

    async def join(self) -> None:
        """Wait for a collection being written (window shutdown)."""
        await self._work.join()

    # --- Save to spec ------------------------------------------------------------------

    def save_tab(self, tab: RequestTab) -> None:
        """*Save to spec* (Ctrl+S) for ``tab``: into its collection; a tab of none asks
        which one first (or for a new file when no collection can take it)."""
        owner = self.spec.collection_of(tab)
        if owner is None and tab.draft.spec_path is None:
            protected = self.spec.protected
            choices = [c for c in self.spec.collections if c.path is None or c.writable(protected)]
            if choices:
                self.ask_target(tab, choices)
                return
        self._offer(tab, owner)

    def ask_target(self, tab: RequestTab, choices: list[Collection]) -> QInputDialog:
        """Ask which of ``choices`` (or a new file) ``tab`` is saved into
        (``saveTargetDialog``, non-modal)."""
        labels: dict[str, Collection | None] = {}
        for collection in choices:
            where = collection.path.name if collection.path is not None else "no file yet"
            label = f"{collection.name} ({where})"
            while label in labels:
                label += " "
            labels[label] = collection
        labels[NEW_FILE] = None
        dialog = QInputDialog(self.window)
        dialog.setObjectName("saveTargetDialog")
        dialog.setWindowTitle("Save to spec")
        dialog.setLabelText(f"Save “{tab.title().rstrip(' *')}” into which collection?")
        dialog.setComboBoxItems(list(labels))
        dialog.setComboBoxEditable(False)
        dialog.setOption(QInputDialog.InputDialogOption.UseListViewForComboBoxItems)
        current = self.spec.current
        preferred = next((k for k, v in labels.items() if v is current and v is not None), None)
        dialog.setTextValue(preferred or next(iter(labels)))
        dialog.setOkButtonText("Save")

        def chosen(text: str) -> None:
            if text in labels and tab in self.spec.host.request_tabs():
                collection = labels[text]
                tab.draft.relabel(operation_id="")  # a new request there, never another's
                self.spec.adopt(tab, collection)
                self._offer(tab, collection)

        dialog.textValueSelected.connect(chosen)
        dialog.finished.connect(lambda _result: dialog.deleteLater())
        dialog.open()
        return dialog

    def _offer(self, tab: RequestTab, owner: Collection | None) -> None:
        # First: store {{baseUrl}} instead of the demo agent's origin?
        self.spec.environments.offer_variable(tab, lambda: self._write_tab(tab, owner), owner)

    def _write_tab(self, tab: RequestTab, owner: Collection | None) -> None:
        if tab not in self.spec.host.request_tabs():
            return  # closed meanwhile
        if owner is not None and owner.path is None:  # the collection needs a file first

            def then() -> None:
                self._write_tab(tab, owner)

            self.ask_file(owner, lambda path: self.write(owner, path, then))
            return
        target = self.spec.target_for(tab)
        if target is not None:
            self.spec.save_interactive(tab, target)
            return
        start = self.spec.start_folder() / "requests.a2a.yaml"  # not the checkout: cwd
        dialog = QFileDialog(self.window, "Save to spec", str(start), SPEC_FILTER)
        dialog.setObjectName("saveToSpecDialog")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.fileSelected.connect(lambda name: self.spec.save_interactive(tab, Path(name)))
        dialog.finished.connect(lambda _result: dialog.deleteLater())
        dialog.open()


def _what_is_unsaved(collection: Collection) -> str:
    if collection.path is None:
        count = len(collection.document.operations())
        return f"{count} request(s), not saved to a file yet"
    return f"changes not in {collection.path.name}"


def _file_name(collection: Collection) -> str:
    """A file name from the collection's name: ``imported-from-curl.a2a.yaml``."""
    slug = re.sub(r"[^a-z0-9]+", "-", collection.name.lower()).strip("-") or "collection"
    return f"{slug}.a2a.yaml"
