"""The window's named environments: each open collection's ``x-a2a-environments`` and the one
selected in it, ``environmentCombo``, the Environments dialog, and what they change.

Every collection keeps its own environments and selection (:class:`Collection`). The combo
and the dialog show those of the *shown* collection: the current tab's, else the one current
in the spec tree. A tab's resolver (endpoint, headers, query, auth, tenant and body; order
in :mod:`app.spec.variables`) uses its own collection's selected environment (a tab of no
collection: the shown one's); so do the endpoint marks
(:mod:`app.ui.request.variable_marks`) and the send error's advice (*set it in
Environments*). Every collection's ``demo`` environment is filled with the bundled demo
agent's addresses, for this session only: a save writes the values the document had (its
ports change at every start, and the file must not with them). Before a save,
:meth:`EnvironmentController.offer_variable` offers to store ``{{variable}}`` instead of a
literal origin that equals a variable's value, so the saved request survives the agent's
next port. The dialog's OK writes the environments into the collection's file (when it is an
editable one) off the GUI thread, else marks the collection unsaved; every *Save to spec*
into a collection writes its environments too.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QMainWindow, QMenu, QMessageBox

from app.spec import environments as envs
from app.spec.document import SpecDocument, SpecError
from app.spec.environments import DEMO_ENVIRONMENT, Environment
from app.spec.save import save_environments
from app.spec.variables import Resolver, SecretStore, references
from app.spec.xa2a import SavedRequest
from app.ui.collections.collection import Collection
from app.ui.collections.environment_combo import EnvironmentCombo, main_toolbar
from app.ui.collections.environments_dialog import EnvironmentsDialog
from app.ui.request.variable_marks import VariableMarks
from app.ui.shell.host import TabHost
from app.ui.shell.plain_text import plain_box
from app.ui.shell.tasks import OwnedTask

if TYPE_CHECKING:
    from app.ui.request.request_tab import RequestTab

Asker = Callable[[str, str, Callable[[bool], None]], None]
"""``ask(variable, origin, answer)``: ask whether to store ``{{variable}}`` for ``origin``;
``answer(True)`` for yes."""

DEMO_VARIABLES = {"base_url": "baseUrl", "grpc_target": "grpcTarget"}
"""Demo agent ready-line key → the variable of the ``demo`` environment it fills."""


class EnvironmentController(QObject):
    """Environments of one main window's collections.

    ``shown`` returns the collection the combo shows; ``collection_of`` a tab's collection
    (None: it belongs to none); ``saved`` is called with the collection after the
    dialog's changes were written into its file. ``ask_use_variable`` asks the save-time
    question (replaceable, e.g. by tests); ``offer_variables`` False skips it.

    Signals:
        changed: the environments or the selection changed (no args).
    """

    changed = Signal()

    def __init__(
        self,
        host: TabHost,
        window: QMainWindow,
        menu: QMenu,
        *,
        store: SecretStore,
        defaults: Mapping[str, str],
        shown: Callable[[], Collection | None],
        collection_of: Callable[[RequestTab], Collection | None],
        saved: Callable[[Collection, SpecDocument], None],
        protected: Path,
    ) -> None:
        super().__init__(window)
        self.host = host
        self.window = window
        self.store = store
        self.defaults = defaults
        self._shown = shown
        self._collection_of = collection_of
        self._saved = saved
        self._protected = protected
        self._saving = OwnedTask()
        self.demo_values: dict[str, str] = {}
        self._saved_demo: dict[str, dict[str, str]] = {}
        """Each collection's (by key) ``demo`` environment values as its document holds
        them: a save writes these back, not the demo agent's ports of this session
        (:meth:`for_saving`)."""
        self.captured: dict[str, str] = {}
        """Values the requests' ``x-a2a.captures`` took this session; they win over the
        environment, for every request sent after them."""
        self.offer_variables = True
        self.ask_use_variable: Asker = self._ask_with_dialog
        self.dialog: EnvironmentsDialog | None = None

        self.combo = EnvironmentCombo()
        self.combo.chosen.connect(self.select)
        self.action = QAction("&Environments…", window)
        self.action.setObjectName("environmentsAction")
        self.action.triggered.connect(self.open_dialog)
        toolbar = main_toolbar(window)
        label = QLabel(" Environment ")
        label.setBuddy(self.combo)
        toolbar.addWidget(label)
        toolbar.addWidget(self.combo)
        toolbar.addAction(self.action)
        menu.addAction(self.action)
        self._show_enabled(None)

    # --- the environments and the selection ---------------------------------------------

    @property
    def environments(self) -> list[Environment]:
        """The shown collection's environments ([] when no collection is open)."""
        shown = self._shown()
        return shown.environments if shown is not None else []

    @property
    def active(self) -> str:
        """The environment selected in the shown collection ("" for none)."""
        shown = self._shown()
        return shown.active if shown is not None else ""

    def load(
        self, collection: Collection, *, just_saved: bool = False, active: str | None = None
    ) -> None:
        """Take ``collection.document``'s environments; its selection stays when the
        document has it (``active``: select that one if it is there), else the first
        environment is selected. ``just_saved``: the document was written from these
        environments, so the secret values already known and *No environment* stay."""
        known = {(e.name, v.name): v for e in collection.environments for v in e.variables}
        found, problems = envs.read(collection.document.data)
        for env in found:
            for var in env.variables:
                old = known.get((env.name, var.name))
                if just_saved and var.secret and old is not None and old.loaded:
                    var.value, var.loaded = old.value, True
        collection.environments = found
        demo = envs.find(found, DEMO_ENVIRONMENT)
        self._saved_demo[collection.key] = {v.name: v.value for v in demo.variables} if demo else {}
        self._fill_demo(collection)
        names = [e.name for e in found]
        if active is not None and (active in names or not active):
            collection.active = active
        elif collection.active not in names and not (just_saved and not collection.active):
            collection.active = names[0] if names else ""
        if problems:
            self.host.messages.show("; ".join(problems), 15000)
        self.refresh()

    def select(self, name: str) -> None:
        """Make ``name`` ("" for none) the shown collection's selected environment."""
        shown = self._shown()
        if shown is None:
            return
        shown.active = name if envs.find(shown.environments, name) else ""
        self.refresh()
        label = f"environment {shown.active}" if shown.active else "no environment"
        self.host.messages.show(f"Sending {shown.name}'s requests with {label}", 5000)

    def set_demo_info(self, info: Mapping[str, Any], collections: list[Collection]) -> None:
        """Fill every collection's ``demo`` environment from the demo agent's ready line."""
        self.demo_values = {
            var: str(info[key]) for key, var in DEMO_VARIABLES.items() if info.get(key)
        }
        for collection in collections:
            self._fill_demo(collection)
        self.refresh()

    def _fill_demo(self, collection: Collection) -> None:
        demo = envs.find(collection.environments, DEMO_ENVIRONMENT)
        if demo is not None:
            for name, value in self.demo_values.items():
                demo.set(name, value)

    def resolver(self, collection: Collection | None = None) -> Resolver:
        """A resolver over ``collection``'s (default: the shown one's) selected environment,
        the app's values, the environment variables, the keyring and the fallback file;
        its errors point at Environments."""
        owner = collection if collection is not None else self._shown()
        environments = owner.environments if owner is not None else []
        active = owner.active if owner is not None else ""
        where = f"environment {active}" if active else "choose or add one"
        resolver = envs.resolver_for(
            environments,
            active,
            values=self.captured,
            defaults=self.defaults,
            store=self.store,
            gui_hint=f"set it in Environments ({where})",
        )
        return dataclasses.replace(resolver, values_source="a capture of an earlier request")

    def resolver_of(self, tab: RequestTab) -> Resolver:
        """The resolver of ``tab``: its collection's, else the shown collection's."""
        return self.resolver(self._collection_of(tab))

    def refresh(self) -> None:
        """Show the shown collection's environments; give every tab its resolver."""
        shown = self._shown()
        names = (e.name for e in shown.environments) if shown is not None else ()
        self.combo.set_environments(names, shown.active if shown is not None else "")
        self._show_enabled(shown)
        for tab in self.host.request_tabs():
            tab.variables = self.resolver_of(tab)
            tab.refresh_card_url()
        self.changed.emit()

    def _show_enabled(self, shown: Collection | None) -> None:
        if shown is None:
            tip = "Open or create a collection first: environments are kept in one"
        else:
            tip = f"The environments of {shown.name}: their variables fill in {{{{variables}}}}"
        self.combo.setEnabled(shown is not None)
        self.combo.setToolTip(tip)
        self.action.setEnabled(shown is not None)
        self.action.setToolTip(
            tip if shown is None else f"Edit the named environments of {shown.name}"
        )

    def _on_captured(self, values: dict[str, str]) -> None:
        self.captured.update(values)
        for tab in self.host.request_tabs():
            tab.variables = self.resolver_of(tab)
        self.changed.emit()

    def watch(self, tab: RequestTab) -> None:
        """Resolve ``tab``'s variables with its environment and mark its endpoint."""
        tab.variables = self.resolver_of(tab)
        tab.captured.connect(self._on_captured)
        marks = VariableMarks(tab.endpoint_edit, lambda: tab.variables)
        self.changed.connect(marks.refresh)  # Qt disconnects it when the tab goes

    # --- the dialog --------------------------------------------------------------------

    def open_dialog(self) -> EnvironmentsDialog | None:
        """Show the Environments dialog of the shown collection (secret values read from
        the keyring first); None when no collection is open."""
        shown = self._shown()
        if shown is None:
            return None
        envs.load_secrets(shown.environments, self.store)
        dialog = EnvironmentsDialog(shown.environments, shown.active, self.window)
        dialog.setWindowTitle(f"Environments — {shown.name}")
        dialog.accepted.connect(lambda: self._on_dialog_accepted(dialog, shown))
        dialog.finished.connect(lambda _result: dialog.deleteLater())
        self.dialog = dialog
        dialog.open()
        return dialog

    def _on_dialog_accepted(self, dialog: EnvironmentsDialog, collection: Collection) -> None:
        collection.environments = dialog.result_environments()
        self._fill_demo(collection)
        if dialog.current_name:
            collection.active = dialog.current_name
        elif envs.find(collection.environments, collection.active) is None:
            collection.active = ""
        self.dialog = None
        self.refresh()
        self.save_later(collection)

    def save_later(self, collection: Collection) -> None:
        """Write ``collection``'s environments into its file, off the GUI thread; one that
        cannot be written (no file yet, the bundled example, a read-only document) keeps
        them and is marked unsaved (*Save collection as…* writes them)."""
        doc = collection.document
        if not collection.writable(self._protected):
            collection.pending = True
            self._saved(collection, doc)
            self.host.messages.show(
                f"Environments of {collection.name} changed; File → Save collection as… keeps them",
                10000,
            )
            return
        assert doc.path is not None  # writable
        self._saving.start(self._save(collection, doc, doc.path, self.for_saving(collection)))

    async def _save(
        self, collection: Collection, doc: SpecDocument, path: Path, copy: list[Environment]
    ) -> None:
        try:
            written, notes = await asyncio.to_thread(
                save_environments, path, copy, current=doc, store=self.store
            )
        except SpecError as exc:
            self.host.messages.show(f"Environments not saved: {exc}", 15000)
            return
        self._saved(collection, written)
        self.host.messages.show(" · ".join([f"Environments saved to {path}", *notes]), 10000)

    async def shutdown(self) -> None:
        """Let a save in progress finish."""
        await self._saving.join()

    def for_saving(self, collection: Collection) -> list[Environment]:
        """A copy of ``collection``'s environments for a save in a worker thread, its
        ``demo`` environment as the document had it (the demo agent's ports change every
        start)."""
        return envs.without_session_values(
            collection.environments,
            DEMO_ENVIRONMENT,
            self.demo_values,
            self._saved_demo.get(collection.key, {}),
        )

    def carried(self, tab: RequestTab, saved: SavedRequest) -> list[Environment]:
        """For a save into a new file: the environments ``tab``'s ``{{variables}}`` come from
        (its collection's, else the shown one's: the demo agent's example), each with only
        the variables ``saved`` uses, as their file has them (:meth:`for_saving`), so that
        ``run FILE --env demo`` replays it; environments left empty are dropped."""
        owner = self._collection_of(tab) or self._shown()
        texts = [saved.endpoint, saved.agent_card_url, saved.body, saved.tenant, saved.command]
        texts += [v for _, v in (*saved.headers, *saved.query, *saved.auth.params)]
        used = {name for text in texts for name in references(text)}
        kept = []
        for env in self.for_saving(owner) if owner is not None else []:
            env.variables = [v for v in env.variables if v.name in used]
            if env.variables:
                kept.append(env)
        return kept

    # --- saving a request ------------------------------------------------------------

    def offer_variable(
        self, tab: RequestTab, proceed: Callable[[], None], collection: Collection | None = None
    ) -> None:
        """Before saving ``tab`` into ``collection``: when its endpoint's origin is the
        value of a variable of that collection's environment, ask whether to store
        ``{{variable}}`` instead (yes puts it in the endpoint field); then ``proceed()``
        either way."""
        endpoint = tab.endpoint_edit.text()
        owner = collection if collection is not None else self._shown()
        name = (
            envs.variable_for_origin(owner.environments, owner.active, endpoint)
            if owner is not None
            else None
        )
        if name is None or not self.offer_variables:
            proceed()
            return

        def answer(yes: bool) -> None:
            if yes:
                tab.endpoint_edit.setText(envs.with_variable(endpoint, name))
            proceed()

        self.ask_use_variable(name, envs.origin_of(endpoint), answer)

    def card_url_with_variable(
        self, saved: SavedRequest, collection: Collection | None = None
    ) -> SavedRequest:
        """``saved`` with its ``agentCardUrl`` origin replaced by the variable its endpoint
        starts with, when that variable's value (in ``collection``'s environment, default
        the shown one's) is exactly that origin."""
        owner = collection if collection is not None else self._shown()
        env = envs.find(owner.environments, owner.active) if owner is not None else None
        url = saved.agent_card_url
        if env is None or not url or not saved.endpoint.startswith("{{"):
            return saved
        for var in env.variables:
            used = saved.endpoint.startswith(f"{{{{{var.name}}}}}")
            if used and not var.secret and var.value.rstrip("/") == envs.origin_of(url):
                return dataclasses.replace(saved, agent_card_url=envs.with_variable(url, var.name))
        return saved

    def _ask_with_dialog(self, name: str, origin: str, answer: Callable[[bool], None]) -> None:
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Save with a variable?",
            f"The endpoint starts with {origin}, the value of {{{{{name}}}}}.\n\n"
            f"Save {{{{{name}}}}} instead of {origin}, so the saved request follows the "
            "environment (e.g. the demo agent's next port)?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self.window,
        )
        plain_box(box).setObjectName("useVariableBox")  # the origin is the endpoint's text
        box.setDefaultButton(QMessageBox.StandardButton.Yes)
        box.finished.connect(lambda result: answer(result == QMessageBox.StandardButton.Yes.value))
        box.finished.connect(lambda _result: box.deleteLater())
        box.open()
