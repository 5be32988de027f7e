"""The spec dock's controller: File → Save to spec / Open spec… / Recent specs, saving tabs
and opening saved requests in tabs.

The dock's tree of operations is :mod:`app.ui.collections.spec_tree`, its editing actions
:mod:`app.ui.collections.spec_tree_actions`.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QMainWindow,
    QMenu,
    QMessageBox,
)

from app.paths import recent_specs_path, secrets_path
from app.shipped import example_spec
from app.spec.document import SavedOperation, SpecDocument, SpecError, atomic_write, load
from app.spec.save import SaveResult, for_target, save_request, save_target
from app.spec.variables import Resolver, SecretStore
from app.spec.xa2a import SavedRequest
from app.ui.collections.doc_view import DocView
from app.ui.collections.environment_controller import EnvironmentController
from app.ui.collections.spec_tree import SpecDock
from app.ui.collections.spec_tree_actions import SpecTreeActions, tab_of
from app.ui.shell.host import TabHost
from app.ui.shell.plain_text import plain_box, shown
from app.ui.shell.tasks import OwnedTask

if TYPE_CHECKING:
    from app.ui.request.request_tab import RequestTab

# --------------------------------------------------------------------------- controller


RECENT_LIMIT = 10


def read_recent(path: Path) -> list[str]:
    """Recent spec paths, newest first ([] when the file is missing or unreadable)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    items = data.get("recent", []) if isinstance(data, dict) else []
    return [str(p) for p in items if isinstance(p, str)][:RECENT_LIMIT]


def write_recent(path: Path, items: list[str]) -> None:
    """Write the recent list atomically (temp file + rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {"schema_version": 1, "recent": items[:RECENT_LIMIT]}
    atomic_write(path, json.dumps(body, indent=2) + "\n")


EXAMPLE_SPEC = example_spec()
"""The example document for the demo agent, opened at start-up (``make run``)."""


class SpecController(QObject):
    """Wires specs into the main window: the docks, File → Save to spec / Open spec… /
    Recent specs, saving tabs and opening saved requests in tabs.

    ``values`` holds non-secret variable values (``baseUrl``, ``grpcTarget`` from the demo
    agent); secrets go to the keyring (or the private fallback file) on save. ``host``
    holds the tabs; ``window`` (the same main window) the docks and dialogs.
    """

    def __init__(self, host: TabHost, window: QMainWindow, file_menu: QMenu) -> None:
        super().__init__(window)
        self.host = host
        self.window = window
        self._opening = OwnedTask()
        self._saving = OwnedTask()
        # Held by each save and each spec-tree edit while it reads, changes and writes.
        self.write_lock = asyncio.Lock()
        self.document: SpecDocument | None = None
        self.values: dict[str, str] = {}
        self.store = SecretStore(secrets_path())
        self.recent_path = recent_specs_path()
        self.dock = SpecDock(window)
        self.doc_view = DocView(lambda: self.values)
        self.doc_dock = QDockWidget("Documentation", window)
        self.doc_dock.setObjectName("docDock")
        self.doc_dock.setWidget(self.doc_view)
        window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.dock)
        window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.doc_dock)
        window.splitDockWidget(self.dock, self.doc_dock, Qt.Orientation.Vertical)
        # A third of a 1280 px screen or less: the request tab needs the rest.
        window.resizeDocks([self.dock], [320], Qt.Orientation.Horizontal)
        window.resizeDocks([self.dock, self.doc_dock], [320, 480], Qt.Orientation.Vertical)

        self.save_action = QAction("&Save to spec", window)
        self.save_action.setObjectName("saveToSpecAction")
        self.save_action.setShortcut(QKeySequence("Ctrl+S"))
        self.save_action.triggered.connect(self._on_save_triggered)
        self.open_action = QAction("&Open spec…", window)
        self.open_action.setObjectName("openSpecAction")
        self.open_action.setShortcut(QKeySequence("Ctrl+O"))
        self.open_action.triggered.connect(self._on_open_triggered)
        self.recent_menu = QMenu("&Recent specs", window)
        self.recent_menu.setObjectName("recentSpecsMenu")
        file_menu.addSeparator()
        file_menu.addAction(self.open_action)
        file_menu.addMenu(self.recent_menu)
        file_menu.addAction(self.save_action)
        self._fill_recent()
        self.environments = EnvironmentController(
            host, window, file_menu, store=self.store, defaults=self.values,
            document=lambda: self.document, saved=self._environments_saved,
            protected=EXAMPLE_SPEC,
        )  # fmt: skip

        self.dock.open_requested.connect(self.open_operation)
        self.dock.selected.connect(self._on_dock_selected)
        # Rename, duplicate, delete, move, reveal: the tree's context menu and shortcuts.
        self.tree_actions = SpecTreeActions(self, EXAMPLE_SPEC, parent=self)

    # --- variables ---------------------------------------------------------------

    def set_demo_info(self, info: dict[str, Any]) -> None:
        """Variables for the example document from the demo agent's ready line."""
        if info.get("base_url"):
            self.values["baseUrl"] = str(info["base_url"])
        if info.get("grpc_target"):
            self.values["grpcTarget"] = str(info["grpc_target"])
        self.environments.set_demo_info(info)  # the `demo` environment; every tab's resolver

    def resolver(self) -> Resolver:
        """A resolver over the selected environment, the demo agent's values, the
        environment variables, the keyring and the fallback file."""
        return self.environments.resolver()

    def _environments_saved(self, doc: SpecDocument) -> None:
        """The Environments dialog's changes were written into ``doc`` (the open one)."""
        self.document = doc
        self.dock.set_document(doc)

    # --- opening -------------------------------------------------------------------

    def open_spec(self, path: Path, *, remember: bool = True) -> SpecDocument | None:
        """Open ``path`` in the spec tree; on failure say why and keep everything else."""
        try:
            doc = load(Path(path))
        except SpecError as exc:
            self._warn("Cannot open spec", str(exc))
            return None
        return self._opened(doc, remember)

    def open_spec_later(self, path: Path) -> None:
        """:meth:`open_spec` with reading and parsing in a worker thread (menu actions)."""

        async def open_async() -> None:
            self.host.messages.show(f"Opening {path}…")
            try:
                doc = await asyncio.to_thread(load, Path(path))
            except SpecError as exc:
                self._warn("Cannot open spec", str(exc))
                return
            self._opened(doc, True)

        self._opening.start(open_async())

    def _opened(self, doc: SpecDocument, remember: bool) -> SpecDocument:
        self.show_document(doc)
        self.environments.set_document(doc)
        self.tree_actions.documents_changed()
        self.doc_view.show_operation(None, None)
        if remember:
            self._remember(doc.path)
        message = doc.notice or f"Opened {doc.path}"
        if skipped := sum(1 for p in doc.problems if p.kind == "skipped"):
            message += f" · {skipped} invalid request(s) skipped"
        if others := len(doc.problems) - skipped:
            message += f" · {others} other problem(s), see the spec dock"
        self.host.messages.show(message, 10000)
        return doc

    def open_document(self, doc: SpecDocument) -> None:
        """Open a document that has no file yet (an import) in the spec tree."""
        self._opened(doc, remember=False)

    def show_document(self, doc: SpecDocument) -> None:
        """Make ``doc`` the open document and show it in the tree."""
        self.document = doc
        self.dock.set_document(doc)

    def open_operation(self, op: SavedOperation) -> RequestTab:
        """Open a saved request in a new tab, exactly as saved; a request already open in
        a tab focuses that tab instead."""
        path = self.document.path if self.document else None
        open_tab = tab_of(self.host, path, op.request.operation_id)
        if open_tab is not None:
            self.host.tabs.setCurrentWidget(open_tab)
            return open_tab
        tab = self.host.new_a2a_tab()
        tab.load_saved(op.request)
        tab.variables = self.resolver()
        tab.refresh_card_url()
        tab.draft.spec_path = self.document.path if self.document else None
        return tab

    def _on_dock_selected(self, op: SavedOperation | None) -> None:
        self.doc_view.show_operation(self.document, op)

    def _on_open_triggered(self) -> None:
        dialog = QFileDialog(self.window, "Open spec", "", _FILTER)
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(lambda name: self.open_spec_later(Path(name)))
        dialog.open()

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        items = read_recent(self.recent_path)
        for item in items:
            action = self.recent_menu.addAction(item)
            action.triggered.connect(lambda _checked=False, p=item: self.open_spec_later(Path(p)))
        self.recent_menu.setEnabled(bool(items))

    def _remember(self, path: Path | None) -> None:
        if path is None:
            return
        text = str(Path(path).resolve())
        items = [text, *(p for p in read_recent(self.recent_path) if p != text)]
        try:
            write_recent(self.recent_path, items)
        except OSError as exc:
            self.host.messages.show(f"Could not update recent specs: {exc}", 8000)
        self._fill_recent()

    # --- saving --------------------------------------------------------------------

    def target_for(self, tab: RequestTab) -> Path | None:
        """Where Ctrl+S writes ``tab``: its spec, else the open (editable) spec; None (ask the
        user) when that is the example bundled with the app, which is never written to."""
        return save_target(tab.draft.spec_path, self.document, EXAMPLE_SPEC)

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
        target, saved = self._save_input(tab, path)
        result = save_request(
            saved, target, current=self.document, store=self.store, force=force,
            environments=self.environments.for_saving(),
        )  # fmt: skip
        return self._save_done(tab, target, result)

    async def save_tab_async(
        self, tab: RequestTab, path: Path | None = None, *, force: bool = False
    ) -> list[str]:
        """:meth:`save_tab` with loading, validation, keyring and writing in a thread."""
        async with self.write_lock:  # one read-modify-write of a spec file at a time
            target, saved = self._save_input(tab, path)
            self.host.messages.show(f"Saving to {target}…")
            result = await asyncio.to_thread(
                save_request, saved, target, current=self.document, store=self.store, force=force,
                environments=self.environments.for_saving(),
            )  # fmt: skip
            return self._save_done(tab, target, result)

    def _save_input(self, tab: RequestTab, path: Path | None) -> tuple[Path, SavedRequest]:
        target = Path(path) if path is not None else self.target_for(tab)
        if target is None:
            raise SpecError("No spec file chosen")
        saved = self.environments.card_url_with_variable(tab.to_saved())
        doc = self.document
        imported = (
            tab.draft.spec_path is None
            and doc is not None
            and doc.path is None
            and bool(saved.operation_id)
            and doc.find(saved.operation_id) is not None
        )
        if imported:  # one of the unsaved (imported) document's requests: update it there
            return target, saved
        return target, for_target(saved, tab.draft.spec_path, target)

    def _save_done(self, tab: RequestTab, target: Path, result: SaveResult) -> list[str]:
        if result.doc is None:
            self.host.messages.clear()
            return result.errors
        tab.mark_saved(result.saved, spec_path=target)
        self.show_document(result.doc)
        self.environments.set_document(result.doc, just_saved=True)
        self._remember(target)
        message = f"Saved {result.saved.operation_id} to {target}"
        if result.notes:
            message += " · " + " · ".join(result.notes)
        self.host.messages.show(message, 10000)
        return []

    def _on_save_triggered(self) -> None:
        tab = self.host.current_tab()
        if tab is not None:  # first: store {{baseUrl}} instead of the demo agent's origin?
            self.environments.offer_variable(tab, lambda: self._save_to_target(tab))

    def _save_to_target(self, tab: RequestTab) -> None:
        target = self.target_for(tab)
        if target is None:
            dialog = QFileDialog(self.window, "Save to spec", "requests.a2a.yaml", _FILTER)
            dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
            dialog.fileSelected.connect(lambda name: self._save_interactive(tab, Path(name)))
            dialog.open()
            return
        self._save_interactive(tab, target)

    def _save_interactive(self, tab: RequestTab, target: Path, force: bool = False) -> None:
        self._saving.start(self._save_and_report(tab, target, force))

    async def shutdown(self) -> None:
        """Let a save and edits in progress finish; stop opening a spec."""
        await self._saving.join()
        await self.tree_actions.join()
        await self.environments.shutdown()
        await self._opening.shutdown()

    async def _save_and_report(self, tab: RequestTab, target: Path, force: bool) -> None:
        try:
            errors = await self.save_tab_async(tab, target, force=force)
        except SpecError as exc:
            self._warn("Cannot save", str(exc))
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
                    self._save_interactive(tab, target, force=True)

            box.finished.connect(on_finished)
            box.open()

    def _warn(self, title: str, text: str) -> None:
        self.host.messages.show(text, 15000)
        box = QMessageBox(QMessageBox.Icon.Warning, title, shown(text), parent=self.window)
        plain_box(box).setObjectName("specMessageBox")  # the text quotes the file
        box.open()


_FILTER = "OpenAPI documents (*.yaml *.yml *.json);;All files (*)"
