"""The window's named environments: the open document's ``x-a2a-environments``, the one
selected in ``environmentCombo``, the Environments dialog, and what they change.

The selected environment feeds every tab's resolver (endpoint, headers, query, auth,
tenant and body; order in :mod:`app.spec.variables`), the endpoint marks
(:mod:`app.ui.request.variable_marks`) and the send error's advice (*set it in Environments*).
The ``demo`` environment is filled with the bundled demo agent's addresses, for this
session only: a save writes the values the document had (its ports change at every start,
and the file must not with them). Before a save,
:meth:`EnvironmentController.offer_variable` offers to store ``{{variable}}`` instead of a
literal origin that equals a variable's value, so the saved request survives the agent's
next port. The dialog's OK writes the environments into the open document (when it is an
editable file) off the GUI thread; every *Save to spec* writes them too.
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
from app.spec.variables import Resolver, SecretStore
from app.spec.xa2a import SavedRequest
from app.ui.collections.environment_combo import EnvironmentCombo, main_toolbar
from app.ui.collections.environments_dialog import EnvironmentsDialog
from app.ui.request.variable_marks import VariableMarks
from app.ui.shell.host import TabHost
from app.ui.shell.tasks import OwnedTask

if TYPE_CHECKING:
    from app.ui.request.request_tab import RequestTab

Asker = Callable[[str, str, Callable[[bool], None]], None]
"""``ask(variable, origin, answer)``: ask whether to store ``{{variable}}`` for ``origin``;
``answer(True)`` for yes."""

DEMO_VARIABLES = {"base_url": "baseUrl", "grpc_target": "grpcTarget"}
"""Demo agent ready-line key → the variable of the ``demo`` environment it fills."""


class EnvironmentController(QObject):
    """Environments of one main window.

    ``document`` returns the open document; ``saved`` is called with the document after the
    dialog's changes were written. ``ask_use_variable`` asks the save-time question
    (replaceable, e.g. by tests); ``offer_variables`` False skips it.

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
        document: Callable[[], SpecDocument | None],
        saved: Callable[[SpecDocument], None],
        protected: Path,
    ) -> None:
        super().__init__(window)
        self.host = host
        self.window = window
        self.store = store
        self.defaults = defaults
        self._document = document
        self._saved = saved
        self._protected = protected
        self._saving = OwnedTask()
        self.environments: list[Environment] = []
        self.active = ""
        self.demo_values: dict[str, str] = {}
        self._saved_demo: dict[str, str] = {}
        """The ``demo`` environment's values as the document holds them: a save writes
        these back, not the demo agent's ports of this session (:meth:`for_saving`)."""
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
        self.action.setToolTip("Edit the named environments and their variables")
        self.action.triggered.connect(self.open_dialog)
        toolbar = main_toolbar(window)
        label = QLabel(" Environment ")
        label.setBuddy(self.combo)
        toolbar.addWidget(label)
        toolbar.addWidget(self.combo)
        toolbar.addAction(self.action)
        menu.addAction(self.action)

    # --- the environments and the selection ---------------------------------------------

    def set_document(self, doc: SpecDocument | None, *, just_saved: bool = False) -> None:
        """Take ``doc``'s environments; the selection stays when ``doc`` has it, else the
        first environment is selected. ``just_saved``: ``doc`` was written from these
        environments, so the secret values already known and *No environment* stay."""
        known = {(e.name, v.name): v for e in self.environments for v in e.variables}
        found, problems = envs.read(doc.data) if doc is not None else ([], [])
        for env in found:
            for var in env.variables:
                old = known.get((env.name, var.name))
                if just_saved and var.secret and old is not None and old.loaded:
                    var.value, var.loaded = old.value, True
        self.environments = found
        demo = envs.find(found, DEMO_ENVIRONMENT)
        self._saved_demo = {v.name: v.value for v in demo.variables} if demo else {}
        self._fill_demo()
        names = [e.name for e in found]
        if self.active not in names and not (just_saved and not self.active):
            self.active = names[0] if names else ""
        if problems:
            self.host.messages.show("; ".join(problems), 15000)
        self._changed()

    def select(self, name: str) -> None:
        """Make ``name`` ("" for none) the selected environment."""
        self.active = name if envs.find(self.environments, name) else ""
        self._changed()
        label = f"environment {self.active}" if self.active else "no environment"
        self.host.messages.show(f"Sending with {label}", 5000)

    def set_demo_info(self, info: Mapping[str, Any]) -> None:
        """Fill the ``demo`` environment from the demo agent's ready line."""
        self.demo_values = {
            var: str(info[key]) for key, var in DEMO_VARIABLES.items() if info.get(key)
        }
        self._fill_demo()
        self._changed()

    def _fill_demo(self) -> None:
        demo = envs.find(self.environments, DEMO_ENVIRONMENT)
        if demo is not None:
            for name, value in self.demo_values.items():
                demo.set(name, value)

    def resolver(self) -> Resolver:
        """A resolver over the selected environment, the app's values, the environment
        variables, the keyring and the fallback file; its errors point at Environments."""
        where = f"environment {self.active}" if self.active else "choose or add one"
        resolver = envs.resolver_for(
            self.environments,
            self.active,
            values=self.captured,
            defaults=self.defaults,
            store=self.store,
            gui_hint=f"set it in Environments ({where})",
        )
        return dataclasses.replace(resolver, values_source="a capture of an earlier request")

    def _changed(self) -> None:
        self.combo.set_environments((e.name for e in self.environments), self.active)
        for tab in self.host.request_tabs():
            tab.variables = self.resolver()
            tab.refresh_card_url()
        self.changed.emit()

    def _on_captured(self, values: dict[str, str]) -> None:
        self.captured.update(values)
        for tab in self.host.request_tabs():
            tab.variables = self.resolver()
        self.changed.emit()

    def watch(self, tab: RequestTab) -> None:
        """Resolve ``tab``'s variables with the selected environment and mark its endpoint."""
        tab.variables = self.resolver()
        tab.captured.connect(self._on_captured)
        marks = VariableMarks(tab.endpoint_edit, lambda: tab.variables)
        self.changed.connect(marks.refresh)  # Qt disconnects it when the tab goes

    # --- the dialog --------------------------------------------------------------------

    def open_dialog(self) -> EnvironmentsDialog:
        """Show the Environments dialog (secret values read from the keyring first)."""
        envs.load_secrets(self.environments, self.store)
        dialog = EnvironmentsDialog(self.environments, self.active, self.window)
        dialog.accepted.connect(lambda: self._on_dialog_accepted(dialog))
        dialog.finished.connect(lambda _result: dialog.deleteLater())
        self.dialog = dialog
        dialog.open()
        return dialog

    def _on_dialog_accepted(self, dialog: EnvironmentsDialog) -> None:
        self.environments = dialog.result_environments()
        self._fill_demo()
        if dialog.current_name:
            self.active = dialog.current_name
        elif envs.find(self.environments, self.active) is None:
            self.active = ""
        self.dialog = None
        self._changed()
        self.save_later()

    def save_later(self) -> None:
        """Write the environments into the open document, off the GUI thread; a document
        that cannot be written (the bundled example, a read-only import) keeps them in
        memory until a request is saved to a file."""
        doc = self._document()
        if doc is None or doc.path is None or doc.read_only or _same(doc.path, self._protected):
            self.host.messages.show(
                "Environments changed for this session; save a request to a spec file to keep them",
                10000,
            )
            return
        self._saving.start(self._save(doc, doc.path, self.for_saving()))

    async def _save(self, doc: SpecDocument, path: Path, copy: list[Environment]) -> None:
        try:
            written, notes = await asyncio.to_thread(
                save_environments, path, copy, current=doc, store=self.store
            )
        except SpecError as exc:
            self.host.messages.show(f"Environments not saved: {exc}", 15000)
            return
        self._saved(written)
        self.host.messages.show(" · ".join([f"Environments saved to {path}", *notes]), 10000)

    async def shutdown(self) -> None:
        """Let a save in progress finish."""
        await self._saving.join()

    def for_saving(self) -> list[Environment]:
        """A copy of the environments for a save in a worker thread, the ``demo``
        environment as the document had it (the demo agent's ports change every start)."""
        return envs.without_session_values(
            self.environments, DEMO_ENVIRONMENT, self.demo_values, self._saved_demo
        )

    # --- saving a request ------------------------------------------------------------

    def offer_variable(self, tab: RequestTab, proceed: Callable[[], None]) -> None:
        """Before saving ``tab``: when its endpoint's origin is a variable's value, ask
        whether to store ``{{variable}}`` instead (yes puts it in the endpoint field);
        then ``proceed()`` either way."""
        endpoint = tab.endpoint_edit.text()
        name = envs.variable_for_origin(self.environments, self.active, endpoint)
        if name is None or not self.offer_variables:
            proceed()
            return

        def answer(yes: bool) -> None:
            if yes:
                tab.endpoint_edit.setText(envs.with_variable(endpoint, name))
            proceed()

        self.ask_use_variable(name, envs.origin_of(endpoint), answer)

    def card_url_with_variable(self, saved: SavedRequest) -> SavedRequest:
        """``saved`` with its ``agentCardUrl`` origin replaced by the variable its endpoint
        starts with, when that variable's value is exactly that origin."""
        env = envs.find(self.environments, self.active)
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
        box.setObjectName("useVariableBox")
        box.setDefaultButton(QMessageBox.StandardButton.Yes)
        box.finished.connect(lambda result: answer(result == QMessageBox.StandardButton.Yes.value))
        box.finished.connect(lambda _result: box.deleteLater())
        box.open()


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False
