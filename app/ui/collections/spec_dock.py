"""The spec dock's controller: the open collections side by side, File → Open spec… /
Recent specs / Save to spec, saving tabs and opening saved requests in tabs.

Every open spec file is a collection of the dock (:class:`Collection`); *Open* adds one (a
file already open is read again), an import or *New collection* adds one without a file.
A tab belongs to at most one collection: the spec file it was opened from or saved to, or
the unsaved collection it was opened from (the tab's ``collectionKey`` property). *Save to
spec* writes into the tab's collection and asks which one when the tab belongs to none
(:mod:`app.ui.collections.collection_actions`, which also closes and saves whole
collections). File work runs in worker threads.

The dock's tree is :mod:`app.ui.collections.spec_tree`, its editing actions
:mod:`app.ui.collections.spec_tree_actions`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QFileDialog, QMainWindow, QMenu, QMessageBox

from app.paths import secrets_path
from app.session import CollectionState
from app.shipped import example_spec
from app.spec.document import SavedOperation, SpecDocument, SpecError, load
from app.spec.save import SaveResult, for_target, save_request, save_target
from app.spec.variables import Resolver, SecretStore
from app.spec.xa2a import SavedRequest
from app.ui.collections.collection import Collection, new_title
from app.ui.collections.collection_actions import SPEC_FILTER, CollectionActions
from app.ui.collections.doc_view import DocView
from app.ui.collections.environment_controller import EnvironmentController
from app.ui.collections.recent_specs_menu import RecentSpecs
from app.ui.collections.spec_tree import SpecDock
from app.ui.collections.spec_tree_actions import SpecTreeActions, tab_of
from app.ui.shell.host import TabHost
from app.ui.shell.plain_text import plain_box, shown
from app.ui.shell.tasks import OwnedTask

if TYPE_CHECKING:
    from app.ui.request.request_tab import RequestTab

COLLECTION_PROPERTY = "collectionKey"
"""A tab's dynamic property: the key of the unsaved collection it was opened from."""


EXAMPLE_SPEC = example_spec()
"""The example document for the demo agent, opened at the first start (``make run``)."""
EXAMPLE_IN_SESSION = "(bundled example)"
"""The example's path in the session file: where the app is installed may change."""


class SpecController(QObject):
    """Wires collections into the main window: the docks, File → New collection / Open
    spec… / Recent specs / Save to spec / Save collection as… / Close collection, saving
    tabs and opening saved requests in tabs.

    ``values`` holds non-secret variable values (``baseUrl``, ``grpcTarget`` from the demo
    agent); secrets go to the keyring (or the private fallback file) on save. ``host``
    holds the tabs; ``window`` (the same main window) the docks and dialogs.

    Signals:
        collections_changed: a collection was opened, closed, saved elsewhere, or its
            environment or collapsed rows changed (what the session keeps; no args).
    """

    collections_changed = Signal()

    def __init__(self, host: TabHost, window: QMainWindow, file_menu: QMenu) -> None:
        super().__init__(window)
        self.host = host
        self.window = window
        self.protected = EXAMPLE_SPEC
        self._opening = OwnedTask()
        self._reopening = OwnedTask()  # the last session's collections
        self._saving = OwnedTask()
        # Held by each save and each spec-tree edit while it reads, changes and writes.
        self.write_lock = asyncio.Lock()
        self.collections: list[Collection] = []
        self._restoring: list[CollectionState] | None = None
        self.values: dict[str, str] = {}
        self.store = SecretStore(secrets_path())
        self.dock = SpecDock(window)
        self.doc_view = DocView(lambda: self.values)
        self.doc_dock = QDockWidget("Documentation", window)
        self.doc_dock.setObjectName("docDock")
        self.doc_dock.setWidget(self.doc_view)
        window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.dock)
        window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.doc_dock)
        window.splitDockWidget(self.dock, self.doc_dock, Qt.Orientation.Vertical)
        # A quarter of a 1280 px screen: the example's request names whole beside their
        # badges (tests/ui/test_collections.py), the rest for the request tab. The
        # collections get most of the height: two of them fit before the tree scrolls, and
        # the documentation below has room for a request's summary and its first fields.
        window.resizeDocks([self.dock], [320], Qt.Orientation.Horizontal)
        window.resizeDocks([self.dock, self.doc_dock], [560, 220], Qt.Orientation.Vertical)

        self.save_action = QAction("&Save to spec", window)
        self.save_action.setObjectName("saveToSpecAction")
        self.save_action.setShortcut(QKeySequence("Ctrl+S"))
        self.save_action.triggered.connect(self._on_save_triggered)
        self.open_action = QAction("&Open spec…", window)
        self.open_action.setObjectName("openSpecAction")
        self.open_action.setShortcut(QKeySequence("Ctrl+O"))
        self.open_action.triggered.connect(self._on_open_triggered)
        self.recent = RecentSpecs(
            window, self.open_spec_later, lambda text: self.host.messages.show(text, 8000)
        )
        self.recent_path = self.recent.path
        self.recent_menu = self.recent.menu
        self.environments = EnvironmentController(
            host, window, file_menu, store=self.store, defaults=self.values,
            shown=self.shown, collection_of=self.collection_of,
            saved=self._environments_saved, protected=EXAMPLE_SPEC,
        )  # fmt: skip
        self.actions = CollectionActions(self, window)
        environments_action = self.environments.action
        file_menu.removeAction(environments_action)  # after the collections' entries
        file_menu.addSeparator()
        file_menu.addAction(self.actions.new_action)
        file_menu.addAction(self.open_action)
        file_menu.addMenu(self.recent_menu)
        file_menu.addAction(self.save_action)
        file_menu.addAction(self.actions.save_as_action)
        file_menu.addAction(self.actions.close_action)
        file_menu.addAction(environments_action)

        self.dock.open_requested.connect(self._on_open_requested)
        self.dock.selected.connect(self._on_dock_selected)
        self.dock.collapsed_changed.connect(self._on_collapsed_changed)
        host.tabs.currentChanged.connect(lambda _index: self.environments.refresh())
        self.environments.changed.connect(self.collections_changed)
        # Rename, duplicate, delete, move, reveal, close: the tree's context menu and keys.
        self.tree_actions = SpecTreeActions(self, EXAMPLE_SPEC, parent=self)

    # --- the collections -------------------------------------------------------------

    @property
    def current(self) -> Collection | None:
        """The collection of the spec tree's current row (None when there is none)."""
        return self.collection(self.dock.current_key())

    @property
    def document(self) -> SpecDocument | None:
        """The current collection's document."""
        current = self.current
        return current.document if current is not None else None

    def collection(self, key: str) -> Collection | None:
        """The open collection ``key``."""
        return next((c for c in self.collections if c.key == key), None)

    def collection_at(self, path: Path | None) -> Collection | None:
        """The open collection of the spec file ``path``."""
        return next((c for c in self.collections if c.is_file(path)), None)

    def collection_of(self, tab: RequestTab) -> Collection | None:
        """The collection ``tab`` belongs to (None: none, or not open)."""
        if tab.draft.spec_path is not None:
            return self.collection_at(tab.draft.spec_path)
        key = tab.property(COLLECTION_PROPERTY)
        return self.collection(key) if isinstance(key, str) else None

    def adopt(self, tab: RequestTab, collection: Collection | None) -> None:
        """Make ``tab`` belong to ``collection`` (None: to none) and use its environment."""
        tab.draft.spec_path = collection.path if collection is not None else None
        tab.setProperty(COLLECTION_PROPERTY, collection.key if collection is not None else "")
        tab.variables = self.environments.resolver_of(tab)
        tab.refresh_card_url()
        self.environments.refresh()

    def tabs_of(self, collection: Collection) -> list[RequestTab]:
        """The open tabs that belong to ``collection``."""
        return [t for t in self.host.request_tabs() if self.collection_of(t) is collection]

    def shown(self) -> Collection | None:
        """The collection whose environments the toolbar shows: the current tab's, else
        the spec tree's current one."""
        tab = self.host.current_tab()
        owner = self.collection_of(tab) if tab is not None else None
        return owner or self.current

    def add(self, doc: SpecDocument, *, pending: bool = False, select: bool = True) -> Collection:
        """Show ``doc`` as a new collection, after the others."""
        collection = Collection(doc, pending=pending)
        self.collections.append(collection)
        self.environments.load(collection)
        self.dock.show_collection(collection)
        if select:
            self.dock.select_collection(collection.key)
        self.collections_changed.emit()
        return collection

    def refresh(self, collection: Collection) -> None:
        """Show ``collection`` again (its document, name or unsaved mark changed)."""
        self.dock.show_collection(collection)
        if collection is self.current:
            self.dock.show_problems(collection)

    def drop(self, collection: Collection) -> None:
        """Close ``collection`` without a question (its tabs stay open, in no collection)."""
        if collection not in self.collections:
            return
        index = self.collections.index(collection)
        self.collections.remove(collection)
        self.dock.remove_collection(collection.key)
        for tab in self.host.request_tabs():
            if tab.property(COLLECTION_PROPERTY) == collection.key:
                tab.setProperty(COLLECTION_PROPERTY, "")
        self.tree_actions.documents_changed()
        if self.collections:
            neighbour = self.collections[min(index, len(self.collections) - 1)]
            self.dock.select_collection(neighbour.key)
        self.environments.refresh()
        self.collections_changed.emit()

    def new_collection(self) -> Collection:
        """*File → New collection*: an empty collection without a file yet."""
        doc = SpecDocument.new(title=new_title([c.name for c in self.collections]))
        collection = self.add(doc)
        self.host.messages.show(
            f"{collection.name}: Ctrl+S on a request saves it here (you choose the file)", 10000
        )
        return collection

    # --- variables ---------------------------------------------------------------

    def set_demo_info(self, info: dict[str, Any]) -> None:
        """The demo agent's addresses (its ready line): the app's values and every
        collection's ``demo`` environment."""
        if info.get("base_url"):
            self.values["baseUrl"] = str(info["base_url"])
        if info.get("grpc_target"):
            self.values["grpcTarget"] = str(info["grpc_target"])
        # Every collection's `demo` environment; every tab's resolver.
        self.environments.set_demo_info(info, self.collections)

    def resolver(self) -> Resolver:
        """A resolver over the shown collection's environment, the demo agent's values,
        the environment variables, the keyring and the fallback file."""
        return self.environments.resolver()

    def _environments_saved(self, collection: Collection, doc: SpecDocument) -> None:
        """The Environments dialog's changes were written into ``doc`` (or kept)."""
        if collection in self.collections:
            collection.document = doc
            self.refresh(collection)

    # --- opening -------------------------------------------------------------------

    def open_spec(self, path: Path, *, remember: bool = True) -> SpecDocument | None:
        """Open ``path`` as a collection; on failure say why and keep everything else."""
        try:
            doc = load(Path(path))
        except SpecError as exc:
            self.warn("Cannot open spec", str(exc))
            return None
        return self._opened(doc, remember)

    def open_spec_later(self, path: Path) -> None:
        """:meth:`open_spec` with reading and parsing in a worker thread (menu actions)."""

        async def open_async() -> None:
            self.host.messages.show(f"Opening {path}…")
            try:
                doc = await asyncio.to_thread(load, Path(path))
            except SpecError as exc:
                self.warn("Cannot open spec", str(exc))
                return
            self._opened(doc, True)

        self._opening.start(open_async())

    def _opened(
        self, doc: SpecDocument, remember: bool, state: CollectionState | None = None
    ) -> SpecDocument:
        """Show ``doc``: a new collection, or the open one of its file read again."""
        collection = self.collection_at(doc.path)
        if collection is not None and collection.pending:
            self.dock.select_collection(collection.key)
            self.host.messages.show(
                f"{doc.path} is open with changes its file does not hold: not read again", 10000
            )
            return collection.document
        if collection is None:
            collection = Collection(doc)
            if state is not None:
                collection.collapsed = set(state.collapsed)
            self.collections.append(collection)
        else:
            collection.document = doc
        self.environments.load(collection, active=state.environment if state else None)
        self.dock.show_collection(collection)
        self.dock.select_collection(collection.key)
        self.dock.show_problems(collection)
        self.collections_changed.emit()
        if remember:
            self.remember(doc.path)
        if state is not None:  # the last session's: the status bar says it once for all
            return doc
        message = doc.notice or f"Opened {doc.path}"
        if skipped := sum(1 for p in doc.problems if p.kind == "skipped"):
            message += f" · {skipped} invalid request(s) skipped"
        if others := len(doc.problems) - skipped:
            message += f" · {others} other problem(s), see the Collections dock"
        self.host.messages.show(message, 10000)
        return doc

    def open_document(self, doc: SpecDocument) -> Collection:
        """Open a document that has no file yet (an import) as a new unsaved collection."""
        collection = self.add(doc, pending=True)
        self.dock.show_problems(collection)
        return collection

    def show_document(self, doc: SpecDocument) -> None:
        """Show ``doc`` as written: in the open collection of its file, else a new one."""
        collection = self.collection_at(doc.path)
        if collection is None:
            self.add(doc)
            return
        collection.document = doc
        self.refresh(collection)

    def open_operation(
        self, op: SavedOperation, collection: Collection | None = None
    ) -> RequestTab:
        """Open a saved request of ``collection`` (default: the current one) in a new tab,
        exactly as saved; a request already open in a tab focuses that tab instead."""
        owner = collection if collection is not None else self.current
        path = owner.path if owner is not None else None
        open_tab = tab_of(self.host, path, op.request.operation_id)
        if open_tab is not None:
            self.host.tabs.setCurrentWidget(open_tab)
            return open_tab
        tab = self.host.new_a2a_tab()
        tab.load_saved(op.request)
        self.adopt(tab, owner)
        return tab

    def _on_open_requested(self, key: str, op: SavedOperation) -> None:
        self.open_operation(op, self.collection(key))

    def _on_dock_selected(self, key: str, op: SavedOperation | None) -> None:
        collection = self.collection(key)
        self.doc_view.show_operation(collection.document if collection else None, op)
        self.dock.show_problems(collection)
        self.environments.refresh()
        self.actions.update_enabled()

    def _on_collapsed_changed(self, key: str, node: str, collapsed: bool) -> None:
        collection = self.collection(key)
        if collection is not None:
            (collection.collapsed.add if collapsed else collection.collapsed.discard)(node)
            self.collections_changed.emit()

    def _on_open_triggered(self) -> None:
        dialog = QFileDialog(self.window, "Open spec", str(self.start_folder()), SPEC_FILTER)
        dialog.setObjectName("openSpecDialog")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(lambda name: self.open_spec_later(Path(name)))
        dialog.open()

    def remember(self, path: Path | None) -> None:
        """Put ``path`` first in *Recent specs*."""
        self.recent.remember(path)

    def start_folder(self) -> Path:
        """Where the Open and Save dialogs start: the last folder used (not the bundled
        example's), else the documents folder."""
        return self.recent.folder(skip=self.protected.resolve().parent)

    # --- the session -------------------------------------------------------------------

    def collection_states(self) -> list[CollectionState]:
        """The open spec files, their environments and collapsed rows, for the session
        (collections without a file are not kept: quitting asks about them)."""
        if self._restoring is not None:  # not read yet: keep what the last session had
            return list(self._restoring)
        return [
            CollectionState(
                EXAMPLE_IN_SESSION if c.is_file(EXAMPLE_SPEC) else str(c.path),
                c.active,
                tuple(sorted(c.collapsed)),
            )
            for c in self.collections
            if c.path is not None
        ]

    def restore_collections(self, states: list[CollectionState]) -> None:
        """Open the last session's collections: read in a worker thread, shown in their
        order, each with its environment and collapsed rows."""
        if not states:
            return
        self._restoring = list(states)

        def read_all() -> list[SpecDocument | str]:
            found: list[SpecDocument | str] = []
            for state in states:
                path = EXAMPLE_SPEC if state.path == EXAMPLE_IN_SESSION else Path(state.path)
                try:
                    found.append(load(path))
                except SpecError as exc:
                    found.append(str(exc))
            return found

        async def restore() -> None:
            try:
                read = await asyncio.to_thread(read_all)
            finally:
                self._restoring = None
            problems = [r for r in read if isinstance(r, str)]
            opened = [
                self._opened(doc, False, state)
                for state, doc in zip(states, read, strict=True)
                if isinstance(doc, SpecDocument)
            ]
            first = self.collection_at(opened[0].path) if opened else None
            if first is not None:  # as the dock showed it: from the top
                self.dock.select_collection(first.key)
            if problems:  # a file moved or deleted since: say so; the rest came back
                text = f"Reopened {len(opened)} of {len(states)} collection(s)"
                self.host.messages.show(" · ".join([text, *problems]), 15000)

        self._reopening.start(restore())

    # --- saving --------------------------------------------------------------------

    def target_for(self, tab: RequestTab) -> Path | None:
        """Where Ctrl+S writes ``tab`` without asking: its collection's file, else its own
        spec file; None (ask the user) when it belongs to none, to one without a file, or
        to the example bundled with the app, which is never written to."""
        owner = self.collection_of(tab)
        if owner is not None:
            return owner.path if owner.writable(EXAMPLE_SPEC) else None
        return save_target(tab.draft.spec_path, None, EXAMPLE_SPEC)

    def save_tab(
        self, tab: RequestTab, path: Path | None = None, *, force: bool = False
    ) -> list[str]:
        """Save ``tab`` into the spec at ``path`` (or :meth:`target_for`), blocking.

        Secrets are replaced by ``{{variables}}`` and stored in the keyring (or the private
        fallback file). When the resulting operation does not validate and ``force`` is
        False, nothing is written and the validation errors are returned. The GUI uses
        :meth:`save_tab_async`, which does the same with the file work off its thread.

        Returns:
            [] when saved; else the validation errors (nothing written).

        Raises:
            SpecError: the file cannot be read or written.
        """
        target, saved, source = self._save_input(tab, path)
        owner = self.collection_at(target) or source
        result = save_request(
            saved, target, current=owner.document if owner else None, store=self.store,
            force=force, environments=self.environments.for_saving(owner) if owner else None,
            carried=self.environments.carried(tab, saved),
        )  # fmt: skip
        return self._save_done(tab, target, result, source)

    async def save_tab_async(
        self, tab: RequestTab, path: Path | None = None, *, force: bool = False
    ) -> list[str]:
        """:meth:`save_tab` with loading, validation, keyring and writing in a thread."""
        async with self.write_lock:  # one read-modify-write of a spec file at a time
            target, saved, source = self._save_input(tab, path)
            owner = self.collection_at(target) or source
            self.host.messages.show(f"Saving to {target}…")
            result = await asyncio.to_thread(
                save_request, saved, target, current=owner.document if owner else None,
                store=self.store, force=force,
                environments=self.environments.for_saving(owner) if owner else None,
                carried=self.environments.carried(tab, saved),
            )  # fmt: skip
            return self._save_done(tab, target, result, source)

    def _save_input(
        self, tab: RequestTab, path: Path | None
    ) -> tuple[Path, SavedRequest, Collection | None]:
        """The target, the request as it goes there and, when the tab's collection has no
        file yet and goes whole into the new ``target``, that collection."""
        target = Path(path) if path is not None else self.target_for(tab)
        if target is None:
            raise SpecError("No spec file chosen")
        owner = self.collection_of(tab)
        source = None
        if owner is not None and owner.path is None and self.collection_at(target) is None:
            source = owner if not target.exists() else None
        saved = self.environments.card_url_with_variable(tab.to_saved(), owner)
        in_source = (
            source is not None
            and bool(saved.operation_id)
            and source.document.find(saved.operation_id) is not None
        )
        if in_source:  # one of the unsaved collection's requests: updated there
            return target, saved, source
        return target, for_target(saved, tab.draft.spec_path, target), source

    def _save_done(
        self, tab: RequestTab, target: Path, result: SaveResult, source: Collection | None
    ) -> list[str]:
        if result.doc is None:
            self.host.messages.clear()
            return result.errors
        tab.mark_saved(result.saved, spec_path=target)
        owner = self.collection_at(target)
        if owner is None and source is not None and source in self.collections:
            self.became_file(source, result.doc)
            owner = source
        elif owner is not None:
            owner.document = result.doc
            self.environments.load(owner, just_saved=True)
            self.refresh(owner)
        else:  # a file that was not open: it opens beside the others
            owner = self.add(result.doc, select=False)
        self.adopt(tab, owner)
        self.remember(target)
        message = f"Saved {result.saved.operation_id} to {target}"
        if result.notes:
            message += " · " + " · ".join(result.notes)
        self.host.messages.show(message, 10000)
        return []

    def became_file(self, collection: Collection, doc: SpecDocument) -> None:
        """``collection`` was written whole into ``doc.path``: it and its tabs follow."""
        tabs = self.tabs_of(collection)
        collection.document = doc
        collection.pending = False
        for tab in tabs:
            self.adopt(tab, collection)
        self.environments.load(collection, just_saved=True)
        self.refresh(collection)
        self.collections_changed.emit()

    def _on_save_triggered(self) -> None:
        tab = self.host.current_tab()
        if tab is not None:  # a body that does not fit the tab: its banner asks first
            tab.before_save(lambda: self.actions.save_tab(tab))

    def save_interactive(self, tab: RequestTab, target: Path, force: bool = False) -> None:
        """Save ``tab`` into ``target`` off the GUI thread; problems in a dialog."""
        self._saving.start(self._save_and_report(tab, target, force))

    async def shutdown(self) -> None:
        """Let a save in progress finish; stop opening a spec."""
        await self._saving.join()
        await self.actions.join()
        await self.tree_actions.join()
        await self.environments.shutdown()
        await self._opening.shutdown()
        await self._reopening.shutdown()

    async def _save_and_report(self, tab: RequestTab, target: Path, force: bool) -> None:
        try:
            errors = await self.save_tab_async(tab, target, force=force)
        except SpecError as exc:
            self.warn("Cannot save", str(exc))
            return
        if errors:
            box = QMessageBox(
                QMessageBox.Icon.Warning,
                "The saved document would not be valid OpenAPI 3.2",
                shown("openapi-spec-validator reports:\n\n" + "\n".join(errors)),
                QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Cancel,
                self.window,
            )
            plain_box(box)  # the errors quote the document
            box.button(QMessageBox.StandardButton.Save).setText("Save anyway")

            def on_finished(result: int) -> None:
                if result == QMessageBox.StandardButton.Save:
                    self.save_interactive(tab, target, force=True)

            box.finished.connect(on_finished)
            box.open()

    def warn(self, title: str, text: str) -> None:
        """Say what went wrong in the status bar and in a (non-modal) message box."""
        self.host.messages.show(text, 15000)
        box = QMessageBox(QMessageBox.Icon.Warning, title, shown(text), parent=self.window)
        plain_box(box).setObjectName("specMessageBox")  # the text quotes the file
        box.open()
