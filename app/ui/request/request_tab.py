"""One request tab: the form's actions (generate, send, follow up, save state) and its parts."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QWidget,
)

from app.protocol.card.known_cards import KnownCards
from app.protocol.card.view import CardView, InterfaceView
from app.protocol.compose import RequestInputs, compose_body, with_template
from app.protocol.events import (
    ErrorKind,
    EventBatch,
    ExchangeEnd,
    ExchangeError,
    Outcome,
    ResponseHead,
)
from app.protocol.methods.body_shape import expected_shape
from app.protocol.methods.catalog import (
    MethodRole,
    MethodSpec,
    TemplateContext,
    find_method,
    methods_for,
)
from app.protocol.net.auth import AuthKind
from app.protocol.net.network import NetworkOptions, TlsSettings
from app.protocol.oauth.challenge import invalid_token
from app.protocol.request import A2ARequest, with_secrets
from app.protocol.stream.followups import follow_up_method, is_streaming, task_request
from app.protocol.types import ProtocolVersion
from app.protocol.wire.a2a_errors import UsageError
from app.spec.draft import RequestDraft
from app.spec.variables import Resolver
from app.spec.xa2a import SavedRequest
from app.ui.card.card_panel import CardPanel, capabilities_dict
from app.ui.request.agent_wiring import AgentControls
from app.ui.request.assertions_wiring import install_assertions
from app.ui.request.binding_help import BindingHelp
from app.ui.request.body_dirty import BodyDirty
from app.ui.request.body_flow import BodyFlow
from app.ui.request.body_follow import BodyFollow
from app.ui.request.files_wiring import install_files
from app.ui.request.gap_wiring import GapWiring
from app.ui.request.method_marks import mark_methods
from app.ui.request.push_wiring import PushWiring, push_secrets
from app.ui.request.request_controller import RequestController
from app.ui.request.request_form import RequestForm
from app.ui.request.request_snippet import copy_command
from app.ui.request.send_state import SendState
from app.ui.request.shape_gate import Action, ShapeGate
from app.ui.request.version_switch import VersionSwitch
from app.ui.response.exchange_presenter import ExchangePresenter
from app.ui.shell.proxy_settings import current_proxy
from app.ui.shell.tasks import OwnedTask
from app.ui.shell.widgets import select_data


class RequestTab(RequestForm):
    """A request being edited and sent.

    The body editor holds the draft: it follows the method's template until the user edits
    it, then only *Replace request body* overwrites it (:attr:`body_follow`). The widgets
    come from :class:`RequestForm`; :attr:`draft` keeps the saved state and the spec file,
    :attr:`controller` runs the exchanges and :attr:`presenter` shows them; ``known_cards``
    are the window's (the endpoint follows a binding switch, :mod:`.binding_help`).

    Signals:
        title_changed: the tab's title changed (arg: new title).
        exchange_finished: an exchange ended (arg: the ExchangeEnd event).
        edited: any part of the request changed (no args; the session autosave listens).
        captured: the request's captures took values (arg: ``{variable: value}``).
    """

    title_changed = Signal(str)
    exchange_finished = Signal(object)
    edited = Signal()
    captured = Signal(object)

    def __init__(
        self,
        http_client: Callable[[], httpx.AsyncClient],
        *,
        endpoint: str = "",
        message_text: str = "hello",
        known_cards: KnownCards | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(endpoint=endpoint, message_text=message_text, parent=parent)
        self.loading = False  # a saved request or a card interface is being shown
        self.known_cards = known_cards if known_cards is not None else KnownCards()
        self.draft = RequestDraft()
        self.controller = RequestController(http_client, self)
        self._closing = OwnedTask()
        self.controller.finished.connect(self._on_exchange_over)
        self._card_caps: dict[str, Any] | None = None
        self.body_flow = BodyFlow(self, parent=self)  # live preview, template ids, Ctrl+Shift+Enter
        self.body_follow = BodyFollow(self, parent=self)  # the draft follows until edited

        # The Agent Card page: discovery, Use this interface, verify.
        self.card_panel = CardPanel(self.build_request, http_client)
        self.card_panel.network_provider = self.network
        self.auth_panel.oauth.network_provider = self.network
        self.result_tabs.addTab(self.card_panel, "Agent Card")
        self.card_panel.interface_chosen.connect(self.use_interface)
        self.card_panel.extension_toggled.connect(self._on_card_extension_toggled)
        self.card_panel.card_loaded.connect(self._on_card_loaded)
        self.endpoint_edit.textChanged.connect(self._follow_endpoint)
        self.card_panel.follow_endpoint(endpoint)
        self._follow_up: tuple[str, str] | None = None
        self.presenter = ExchangePresenter(
            self.controller, self.response_view, self.timeline, self._note_task
        )
        self.controller.events_arrived.connect(self._on_exchange_events)  # after the presenter's
        self.attachments_panel, self.artifacts_view = install_files(self)
        install_assertions(self)
        self.push = PushWiring(self, parent=self)  # Use local receiver; deliveries on the timeline
        self.gaps = GapWiring(self, parent=self)  # after a resubscription: GetTask, missed updates
        self.response_view.set_curl_source(lambda: copy_command(self.to_saved(), self.variables))
        self.timeline.stop_requested.connect(self.cancel)
        self.timeline.cancel_task_requested.connect(self.cancel_task)
        self.timeline.resubscribe_requested.connect(self.resubscribe)
        self.timeline.follow_up_requested.connect(self.follow_up)
        # First on the version: the picker keeps the method's job (or the tab its version).
        self.version_switch = VersionSwitch(self, parent=self)
        self.send_button.clicked.connect(self.send_or_cancel)
        self.send_state = SendState(self, parent=self)  # off while there is nowhere to send
        self.generate_button.clicked.connect(self.regenerate)
        self.replace_button.clicked.connect(self.replace_body)
        self.method_combo.currentIndexChanged.connect(self._on_method_changed)
        self.binding_combo.currentIndexChanged.connect(self._on_binding_changed)
        self.agent_controls = AgentControls(self, self.endpoint_row)
        self.binding_combo.currentIndexChanged.connect(self.agent_controls.follow_binding)
        self.command_edit.textChanged.connect(self.agent_controls.refresh)
        self.version_combo.currentIndexChanged.connect(self._update_body_shape)
        self.shape_gate = ShapeGate(self, parent=self)  # Send and Save ask it first
        self._wire_oauth()
        self._update_body_shape()
        self.fill_methods(None)
        # The fresh tab is the clean state until it is saved or a saved request is opened.
        self.draft.mark_saved(None, self.form())
        self._body_dirty = BodyDirty(self.body_editor)
        self._body_dirty.set_clean(self.draft.clean_state.body)
        self.body_editor.textChanged.connect(self._body_dirty.changed)
        for signal in (
            self.body_editor.textChanged,
            self.endpoint_edit.textChanged,
            self.command_edit.textChanged,
            self.tenant_edit.textChanged,
            self.method_combo.currentIndexChanged,
            self.binding_combo.currentIndexChanged,
            self.version_combo.currentIndexChanged,
            self.auth_panel.changed,
            self.tls_panel.changed,
            self.headers_panel.model.dataChanged,
            self.headers_panel.model.rowsInserted,
            self.headers_panel.model.rowsRemoved,
            self.extensions_panel.model.dataChanged,
            self.extensions_panel.model.rowsInserted,
            self.extensions_panel.model.rowsRemoved,
            self.assertions_panel.changed,
        ):
            signal.connect(self._update_dirty)
        # After the presenter: a binding mismatch error is shown before the card hint joins it.
        self.binding_help = BindingHelp(self, parent=self)

    # --- state read by the window and tests -------------------------------------------

    @property
    def busy(self) -> bool:
        """True while an exchange is running."""
        return self.controller.busy

    @property
    def variables(self) -> Resolver | None:
        """Resolves the draft's ``{{variables}}`` (set by the spec controller)."""
        return self.draft.variables

    @variables.setter
    def variables(self, resolver: Resolver | None) -> None:
        self.draft.variables = resolver

    @property
    def spec_path(self) -> Path | None:
        """The spec file this tab's request belongs to (:attr:`RequestDraft.spec_path`)."""
        return self.draft.spec_path

    def title(self) -> str:
        """A short tab title: the saved name (else the method), ``*`` when unsaved."""
        return self.draft.title(self.method)

    @property
    def dirty(self) -> bool:
        """True when the draft changed since it was last saved, opened or created."""
        return self.draft.dirty

    def build_request(self) -> A2ARequest:
        """The request the widgets describe (:meth:`RequestDraft.build_request`).

        Raises:
            UsageError: the credential cannot be encoded (API key without a name, …).
        """
        request = self.draft.build_request(self.form())
        request = with_secrets(request, push_secrets())  # the receiver's tokens: masked
        request = dataclasses.replace(request, network=self.network(request.network.tls))
        request = dataclasses.replace(request, timeout=self.timeout_spin.value())
        deadline = self.deadline_spin.value()
        return dataclasses.replace(request, deadline=deadline) if deadline > 0 else request

    def network(self, tls: TlsSettings | None = None) -> NetworkOptions:
        """The TLS page's settings (or ``tls``) and the proxy: the saved request's when it
        names one, else the app's setting (:func:`app.ui.shell.proxy_settings.current_proxy`)."""
        base = self.draft.saved_base
        proxy = base.network.proxy if base is not None else None
        tls = tls if tls is not None else self.tls_panel.settings()
        return NetworkOptions(tls, proxy or current_proxy())

    # --- saving to and opening from a spec ----------------------------------------------

    def to_saved(self) -> SavedRequest:
        """The tab as a Qt-free :class:`SavedRequest` (:meth:`RequestDraft.to_saved`), with
        the card page's fetched card as ``agentCardUrl`` and snapshot when there is one."""
        saved = self.draft.to_saved(self.form())
        saved = dataclasses.replace(saved, timeout=self.saved_timeout(saved.timeout))
        fetched = self.card_panel.snapshot()
        if fetched is None:
            return saved
        url, card = fetched
        return dataclasses.replace(saved, agent_card_url=url, agent_card=card)

    def _follow_endpoint(self, endpoint: str) -> None:
        # A saved endpoint may be `{{baseUrl}}/`: prefill the card URL from its value.
        variables = self.draft.variables
        if "{{" in endpoint and variables is not None:
            try:
                endpoint = variables.substitute(endpoint, "endpoint")
            except Exception:  # an unset variable: nothing to prefill yet
                return
        self.card_panel.follow_endpoint(endpoint)

    def refresh_card_url(self) -> None:
        """Prefill the card URL again (after ``variables`` changed)."""
        self._follow_endpoint(self.endpoint_edit.text())

    def load_saved(self, saved: SavedRequest) -> None:
        """Show ``saved`` exactly as it was saved (``{{variables}}`` stay as written)."""
        self.show_saved(saved)
        if saved.agent_card_url:
            self.card_panel.set_card_url(saved.agent_card_url)
        self.mark_saved(saved)

    def show_saved(self, saved: SavedRequest) -> None:
        """Fill the widgets from ``saved`` (:meth:`RequestForm.show_saved`); its body is the
        user's draft until a template equals it."""
        self.loading = True
        try:
            super().show_saved(saved)
        finally:
            self.loading = False
        self.body_follow.take_over()
        self.generate_preview()

    def mark_saved(self, saved: SavedRequest, spec_path: Path | None = None) -> None:
        """Record ``saved`` (with its operation id) as the clean state; clears the marker.

        ``spec_path``, when given, is the spec file it was saved to.
        """
        if spec_path is not None:
            self.draft.spec_path = spec_path
        self.draft.mark_saved(saved, self.form())
        self._body_dirty.set_clean(self.draft.clean_state.body)
        self.title_changed.emit(self.title())

    def as_untouched(self, change: Callable[[], object]) -> None:
        """``change()`` as the app's own step, not the user's edit (fresh ids for a send, a
        Welcome step's setup): a tab without unsaved changes stays without."""
        clean = not self.dirty
        change()
        if clean:
            self.draft.keep_clean(self.form())
            self._body_dirty.set_clean(self.draft.clean_state.body)
            self._update_dirty()
            self.title_changed.emit(self.title())  # a "*" shown meanwhile goes

    def _update_dirty(self, *_args: object) -> None:
        # The body as the tracker knows it: no 5 MB read and compare per keystroke.
        if self.draft.update(self.form(self._body_dirty.body_for_key())):
            self.title_changed.emit(self.title())
        self.edited.emit()

    @property
    def saved_base(self) -> SavedRequest | None:
        """The request last saved or opened in this tab (its clean state), if any."""
        return self.draft.saved_base

    def restore_draft(self, draft: SavedRequest, base: SavedRequest | None = None) -> None:
        """Show a kept draft (session restore, reopened tab) with its unsaved marker.

        ``base`` (the request it was last saved as or opened from) becomes the clean state,
        else the fresh tab's state does; then the draft is shown on top without marking
        it saved, so :attr:`dirty` says whether it differs from that clean state.
        """
        if base is not None:
            self.load_saved(base)
        clean = self.draft.clean_state
        self.load_saved(draft)
        self.draft.set_clean_state(clean, self.form())
        self._body_dirty.set_clean(clean.body)
        self.title_changed.emit(self.title())

    def set_card_capabilities(self, caps: dict[str, Any] | None) -> None:
        """Mark methods the card's ``capabilities`` say are unsupported (None: no card).

        Marked methods stay selectable: sending them shows what the agent really does.
        """
        self._card_caps = None if caps is None else dict(caps)
        mark_methods(self.method_combo, _specs(self.version), self._card_caps)

    def set_available_extensions(self, uris: list[str]) -> None:
        """Offer extension URIs (e.g. the card's ``capabilities.extensions``) on the page."""
        self.extensions_panel.set_available_extensions(uris)

    def use_interface(self, iface: InterfaceView) -> None:
        """Point the tab at a card interface: endpoint, binding, version and tenant.

        The only card action that changes these four; an untouched draft follows.
        """
        self.loading = True
        try:
            select_data(self.version_combo, iface.major_minor)
            select_data(self.binding_combo, iface.known_binding)
            self.endpoint_edit.setText(iface.url)
            self.tenant_edit.setText(iface.tenant)
        finally:
            self.loading = False
        self.generate_preview()

    def _on_card_loaded(self, view: CardView) -> None:
        self.set_card_capabilities(capabilities_dict(view))
        self.set_available_extensions([e.uri for e in view.capabilities.extensions if e.uri])

    def _on_card_extension_toggled(self, uri: str, ticked: bool) -> None:
        model = self.extensions_panel.model
        row = model.add_uri(uri, checked=ticked)
        if row >= 0 and not ticked:
            model.setData(model.index(row), Qt.CheckState.Unchecked, Qt.ItemDataRole.CheckStateRole)

    # --- actions --------------------------------------------------------------------

    def fill_methods(self, select: str | None) -> None:
        """List the version's methods in the picker and select ``select`` (None: the one
        selected before if listed, else the first); the template follows."""
        previous = select or self.method
        self.method_combo.blockSignals(True)
        self.method_combo.clear()
        for spec in methods_for(self.version):
            label = f"{spec.name} (legacy)" if spec.legacy else spec.name
            self.method_combo.addItem(label, spec.name)
            self.method_combo.setItemData(
                self.method_combo.count() - 1, spec.summary, Qt.ItemDataRole.ToolTipRole
            )
        mark_methods(self.method_combo, _specs(self.version), self._card_caps)
        index = self.method_combo.findData(previous)
        self.method_combo.setCurrentIndex(max(index, 0))
        self.method_combo.blockSignals(False)
        self._on_method_changed()

    def _on_method_changed(self) -> None:
        # The template follows the method, and an untouched draft the template.
        self.generate_preview()
        self.title_changed.emit(self.title())

    def generate_preview(self) -> None:
        """Render the selected method's template beside the draft; an untouched draft
        becomes it (:class:`~app.ui.request.body_follow.BodyFollow`)."""
        if self.loading:
            return  # the saved request's own body is on its way
        spec = find_method(self.version, self.method)
        if spec is None:  # a method the catalog lacks has no template: nothing to follow
            self.generate_button.setEnabled(False)
            self.generate_button.setToolTip(f"There is no template for {self.method}")
            self.body_follow.show_template(
                None,
                f"No template: {self.method} is not an A2A {self.version.value} method of"
                " the catalog. The draft is sent as typed.",
            )
            return
        self.generate_button.setEnabled(True)
        # The composer's template, as `send --text` and a check render it.
        message_id, request_id = self.body_follow.template_ids()
        inputs = RequestInputs(
            self.method, version=self.version, binding=self.binding, request_id=request_id
        )
        ctx = dataclasses.replace(self._template_context(spec), message_id=message_id)
        self.body_follow.show_template(compose_body(with_template(inputs, ctx)))

    def regenerate(self) -> None:
        """*Generate request body*: the template again with fresh ids."""
        self.body_follow.new_ids()
        self.generate_preview()

    def replace_body(self) -> None:
        """Overwrite the draft with the template (one undoable step); it follows again."""
        self.body_follow.replace()

    def _on_binding_changed(self) -> None:
        # The template follows the binding (an untouched draft too); the title says what fits.
        self.generate_preview()
        self._update_body_shape()

    def _update_body_shape(self) -> None:
        shape = expected_shape(self.version, self.binding)
        self.body_editor.setPlaceholderText(shape)
        self.body_editor.setToolTip(
            "While the draft follows the template, each send gets a fresh messageId and JSON-RPC"
            f" id; once you edit it, it is sent as typed, ids too. This tab expects a {shape}"
        )
        if self._draft_title is not None:
            self._draft_title.setText(f"<b>Request body (draft)</b> — {shape}")

    def send_or_cancel(self) -> None:
        """Send the request, or cancel the running one.

        A draft the user edited into a shape that does not fit the tab is not sent: the
        shape banner lists the reasons and offers a fix or *Send anyway* (:meth:`send_anyway`,
        :mod:`app.ui.request.shape_gate`); a generated draft always goes. Malformed JSON is
        left to the exchange, which reports it as a usage error.
        """
        if self.busy:
            self.cancel()
            return
        self.shape_gate.ask(Action.SEND, self.send_anyway)

    def before_save(self, then: Callable[[], None]) -> bool:
        """Save asks first: ``then`` is called at once (True) when the draft's shape fits the
        tab's version and binding; else the banner says why and offers a fix (False)."""
        return self.shape_gate.ask(Action.SAVE, then)

    def send_anyway(self) -> None:
        """Send the draft as it is, skipping the shape check."""
        if self.busy:
            return
        self.shape_banner.dismiss()
        oauth = self.auth_panel.oauth
        if self.auth_panel.kind is AuthKind.OAUTH2 and not oauth.has_token():
            # No token yet (or it expired): get one, then send; the Auth page shows progress.
            self.editor_tabs.setCurrentWidget(self.auth_panel)
            oauth.get_token(then=self.send_anyway)
            return
        self.response_view.clear()
        self._heads.clear()
        self.as_untouched(self.body_follow.fresh_ids)  # a following draft: new ids per send
        try:
            self.send_state.check()  # "No endpoint: …", not httpx's "Invalid URL ''"
            request = self.build_request()
        except UsageError as exc:
            self.response_view.show_error(ExchangeError(0.0, ErrorKind.USAGE, str(exc)))
            self.response_view.show_end(ExchangeEnd(0.0, Outcome.USAGE_ERROR))
            return
        self._set_busy(True)
        # The answer comes into view whatever page was in front (the Agent Card, …).
        if is_streaming(request.version, request.method):
            self.timeline.clear(request.version)
            self.timeline.begin_connection(request.method)
            self.result_tabs.setCurrentWidget(self.timeline)
        else:
            self.result_tabs.setCurrentWidget(self.response_view)
        self._follow_up = None
        self.body_follow.sent()
        self.controller.send(request)

    def cancel(self) -> None:
        """Stop the running exchange (locally: the connection is closed)."""
        self.controller.cancel()

    async def shutdown(self) -> None:
        """Cancel and await the running exchanges (before the tab or the app closes)."""
        await self.controller.shutdown()
        await self.binding_help.shutdown()
        await self.card_panel.shutdown()
        await self.auth_panel.oauth.shutdown()
        await self.artifacts_view.shutdown()
        await self.response_view.tree_page.shutdown()
        await self.agent_controls.shutdown()

    def close_later(self) -> None:
        """Delete the tab once its exchanges have stopped (it was closed)."""
        if self.busy or self.binding_help.busy:
            self._closing.start(self.shutdown(), then=self.deleteLater)
        else:
            self.deleteLater()

    # --- streams and task controls ---------------------------------------------------

    @property
    def last_task_id(self) -> str:
        """The task id the templates use: the last seen in this tab, as edited."""
        return self.body_flow.task_id_edit.text().strip()

    @property
    def last_context_id(self) -> str:
        """The context id the templates use: the last seen in this tab, as edited."""
        return self.body_flow.context_id_edit.text().strip()

    def _note_task(self, task_id: str, context_id: str) -> None:
        self.body_flow.note_ids(task_id, context_id, self.timeline.state)

    def _template_context(self, spec: MethodSpec) -> TemplateContext:
        ctx = self.body_flow.context(spec, self._follow_up)
        return dataclasses.replace(ctx, attachments=self.attachments_panel.attachments())

    def side_request(self, role: MethodRole, task_id: str) -> A2ARequest | None:
        """The ``role`` request for ``task_id`` over this tab's binding, headers and auth."""
        try:
            base = self.build_request()
        except UsageError as exc:
            self.response_view.show_error(ExchangeError(0.0, ErrorKind.USAGE, str(exc)))
            return None
        return task_request(base, role, task_id, self.last_context_id)

    def cancel_task(self, task_id: str) -> None:
        """*Cancel task*: CancelTask / tasks/cancel for ``task_id``; the result joins the
        timeline (the stream, if still open, goes on and shows the cancellation)."""
        if not task_id or self.controller.side_busy:
            return
        request = self.side_request(MethodRole.CANCEL, task_id)
        if request is None:
            return
        self.timeline.add_marker(f"{request.method} sent for task {task_id}")
        self.presenter.side_label = f"{request.method} result"
        self.controller.send_side(request)

    def resubscribe(self, task_id: str) -> None:
        """*Resubscribe*: SubscribeToTask / tasks/resubscribe, appended to this timeline as a
        new connection."""
        if not task_id or self.busy:
            return
        request = self.side_request(MethodRole.SUBSCRIBE, task_id)
        if request is None:
            return
        self.response_view.clear()
        self._set_busy(True)
        self.timeline.begin_connection(f"new connection: {request.method} for task {task_id}")
        self.result_tabs.setCurrentWidget(self.timeline)
        self.controller.send(request)

    def follow_up(self, context_id: str, task_id: str) -> None:
        """*Follow up*: the next turn's body, in the preview (the draft is only overwritten
        by *Replace request body*): same contextId, and taskId when the task waits for input.

        The send method is kept when one is selected, else the streaming send method.
        """
        self._follow_up = (context_id, task_id)
        name = follow_up_method(self.version, self.method)
        if name != self.method:
            self.method_combo.setCurrentIndex(self.method_combo.findData(name))
        self.generate_preview()
        self.editor_tabs.setCurrentIndex(0)
        self.message_text_edit.setFocus()
        self.message_text_edit.selectAll()

    def _on_exchange_events(self, events: EventBatch) -> None:
        for event in events:
            if isinstance(event, ResponseHead):
                self._heads.append(event)
        last = events[-1]  # the end is the last event of an exchange
        if isinstance(last, ExchangeEnd):
            refusal = invalid_token(self._heads)
            if refusal and self.auth_panel.kind is AuthKind.OAUTH2:
                # RFC 6750 §3.1: a new token may succeed where this one cannot.
                self.auth_panel.oauth.offer_renewal(refusal)
                self.editor_tabs.setCurrentWidget(self.auth_panel)
            self.exchange_finished.emit(last)

    def _wire_oauth(self) -> None:
        self._heads: list[ResponseHead] = []
        oauth = self.auth_panel.oauth
        oauth.card_source = lambda: (self.card_panel.snapshot() or ("", None))[1]
        oauth.renew_requested.connect(lambda: oauth.get_token(force=True, then=self.send_anyway))

    def _on_exchange_over(self) -> None:
        self._set_busy(False)

    def _set_busy(self, busy: bool) -> None:
        self.send_state.set_busy(busy)


def _specs(version: ProtocolVersion) -> dict[str, MethodSpec]:
    return {spec.name: spec for spec in methods_for(version)}
