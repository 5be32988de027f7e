"""A binding (or version) switch takes the endpoint along: the card's interface for it.

Each binding has its own URL (a gRPC ``host:port``, a REST base such as ``http://host/rest``),
so keeping the endpoint across a switch is almost never right. When the app knows the
agent's card (:class:`app.protocol.card.known_cards.KnownCards`: the demo agent's, any card
fetched this session, else one public fetch from the endpoint's origin, async), a switch
sets ``endpointEdit`` (and the tenant) to the card's interface for the new binding and
version, and the bar under the endpoint (``bindingOfferBar``, ``bindingOfferLabel``) says
where it came from, with *Undo* (``undoCardInterfaceButton``). When the card lists no such
interface the bar says so before Send, offering another version's interface if there is
one (*Use it*, ``useCardInterfaceButton``). An endpoint that starts with a ``{{variable}}``
keeps it (``{{baseUrl}}/`` becomes ``{{baseUrl}}/rest``); one its variables cannot spell is
not rewritten: the interface is offered instead.

The bar is re-evaluated whenever the endpoint changes; the news that a switch set the
endpoint goes with the next send, as a notification would (a warning stays while true).
An error that says the endpoint speaks another binding
(:mod:`app.protocol.methods.binding_errors` words it, for the CLI too) gets the card's
interface added: "… — the card lists gRPC at 127.0.0.1:50051".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QBoxLayout, QFrame, QHBoxLayout, QPushButton, QWidget

from app.protocol.bindings import traits
from app.protocol.card.known_cards import (
    DEMO_SOURCE,
    FETCHED_SOURCE,
    KnownCard,
    KnownCards,
    address,
)
from app.protocol.card.view import CardView, InterfaceView
from app.protocol.events import ExchangeError
from app.protocol.methods.binding_errors import card_hint, says_other_binding
from app.spec.variables import VARIABLE, Resolver
from app.ui.shell import theme
from app.ui.shell.plain_text import PlainLabel
from app.ui.shell.tasks import OwnedTask

if TYPE_CHECKING:
    from PySide6.QtWidgets import QComboBox, QLineEdit

    from app.protocol.net.network import NetworkOptions
    from app.protocol.types import Binding, ProtocolVersion
    from app.ui.card.card_panel import CardPanel
    from app.ui.request.request_controller import RequestController
    from app.ui.response.response_view import ResponseView


class BindingHelpTab(Protocol):
    """What the help uses of its request tab (``RequestTab``, which creates it: typed here,
    not imported)."""

    @property
    def binding_combo(self) -> QComboBox: ...
    @property
    def version_combo(self) -> QComboBox: ...
    @property
    def endpoint_edit(self) -> QLineEdit: ...
    @property
    def tenant_edit(self) -> QLineEdit: ...
    @property
    def binding(self) -> Binding: ...
    @property
    def version(self) -> ProtocolVersion: ...
    @property
    def loading(self) -> bool:
        """True while a saved request or a card interface is shown: its endpoint is set."""
        ...

    @property
    def known_cards(self) -> KnownCards: ...
    @property
    def variables(self) -> Resolver | None:
        """What fills the endpoint's ``{{variables}}``."""
        ...

    @property
    def card_panel(self) -> CardPanel: ...
    @property
    def controller(self) -> RequestController: ...
    @property
    def response_view(self) -> ResponseView: ...

    def network(self) -> NetworkOptions:
        """The tab's TLS and proxy settings (the public card fetch uses them)."""
        ...

    def use_interface(self, iface: InterfaceView) -> None:
        """Point the tab at ``iface`` (endpoint, binding, version, tenant)."""
        ...


class BindingHelp(QObject):
    """The bar of one tab, the endpoint following the binding, and the card hint added to
    binding mismatch errors.

    ``parent`` is the tab's widget: the bar goes into its layout, under the endpoint row.
    """

    def __init__(self, tab: BindingHelpTab, *, parent: QWidget) -> None:
        super().__init__(parent)
        self._tab = tab
        self._widget = parent
        self._offer: InterfaceView | None = None
        self._undo: tuple[str, str] | None = None  # endpoint and tenant before a follow
        self._setting = False  # the endpoint is being set here
        self._shown = (tab.binding, tab.version)
        self._task = OwnedTask()
        self.bar = QFrame()
        self.bar.setObjectName("bindingOfferBar")
        self.label = PlainLabel()  # names the card's URL: text only
        self.label.setObjectName("bindingOfferLabel")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)  # URLs from an agent's card
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.use_button = QPushButton("Use it")
        self.use_button.setObjectName("useCardInterfaceButton")
        self.use_button.setToolTip("Point this tab at the card's interface")
        self.undo_button = QPushButton("Undo")
        self.undo_button.setObjectName("undoCardInterfaceButton")
        self.undo_button.setToolTip("Put the endpoint back as it was before the switch")
        self.dismiss_button = QPushButton("Dismiss")
        self.dismiss_button.setObjectName("dismissBindingOfferButton")
        row = QHBoxLayout(self.bar)
        row.setContentsMargins(8, 4, 8, 4)
        row.addWidget(self.label, 1)
        for button in (self.use_button, self.undo_button, self.dismiss_button):
            row.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
        self.bar.hide()
        layout = parent.layout()
        assert isinstance(layout, QBoxLayout)
        layout.insertWidget(1, self.bar)  # right under the endpoint row

        self.use_button.clicked.connect(self.use_offer)
        self.undo_button.clicked.connect(self.undo)
        self.dismiss_button.clicked.connect(self._hide)
        tab.binding_combo.currentIndexChanged.connect(self._on_switch)
        tab.version_combo.currentIndexChanged.connect(self._on_switch)
        tab.endpoint_edit.textChanged.connect(self._on_endpoint_changed)
        tab.endpoint_edit.textEdited.connect(self._on_endpoint_typed)
        tab.card_panel.card_loaded.connect(self._on_card_loaded)
        tab.controller.events_arrived.connect(self._on_events)
        tab.controller.started.connect(self._on_sent)

    @property
    def offer(self) -> InterfaceView | None:
        """The card interface offered now (None: no offer shown)."""
        shown = self.bar.isVisibleTo(self._widget) and self.use_button.isVisibleTo(self._widget)
        return self._offer if shown else None

    @property
    def busy(self) -> bool:
        """True while the agent's card is being looked up."""
        return self._task.running

    async def shutdown(self) -> None:
        """Cancel and await a card lookup (the tab closes)."""
        await self._task.shutdown()

    def card(self) -> KnownCard | None:
        """The known card of the agent at the tab's endpoint (no I/O)."""
        return self._known().find(self.endpoint())

    def endpoint(self) -> str:
        """The tab's endpoint with its ``{{variables}}`` filled in ("" when one is unset)."""
        raw = self._tab.endpoint_edit.text().strip()
        variables = self._tab.variables
        if "{{" not in raw:
            return raw
        if variables is None:
            return ""
        try:
            return variables.substitute(raw, "endpoint")
        except Exception:  # an unset variable: no endpoint to speak of yet
            return ""

    def interfaces(self) -> list[InterfaceView]:
        """The card's speakable interfaces for the tab's binding, its version first."""
        card = self.card()
        if card is None:
            return []
        version = self._tab.version.value
        return sorted(card.interfaces(self._tab.binding), key=lambda i: i.major_minor != version)

    # --- following a switch ------------------------------------------------------------

    def follow(self) -> None:
        """Set the endpoint to the card's interface for the tab's binding and version, from a
        known card or, when none is known, one looked up (async)."""
        raw, endpoint = self._tab.endpoint_edit.text(), self.endpoint()
        card = self._known().find(endpoint)
        if card is not None:
            self._apply(card, endpoint)
        elif endpoint and self._known().to_fetch(endpoint) is not None:
            switch = (self._tab.binding, self._tab.version)
            self._task.start(self._look_up(raw, endpoint, switch))
        else:
            self.refresh()

    async def _look_up(
        self, raw: str, endpoint: str, switch: tuple[Binding, ProtocolVersion]
    ) -> None:
        tab = self._tab
        card = await self._known().lookup(endpoint, switch[1], network=tab.network())
        if tab.endpoint_edit.text() != raw or (tab.binding, tab.version) != switch:
            return  # the user went on meanwhile: what was asked for is no longer wanted
        if card is None:
            self.refresh()
        else:
            self._apply(card, endpoint)

    def _apply(self, card: KnownCard, endpoint: str) -> None:
        tab = self._tab
        iface = card.interface(tab.binding, tab.version)
        if iface is None:
            self._no_interface(card, endpoint)
            return
        if address(iface.url) == address(endpoint) and iface.tenant == tab.tenant_edit.text():
            self._hide()
            return
        what = self._what(iface)
        variables = tab.variables
        spelled = spelled_like(
            tab.endpoint_edit.text().strip(),
            iface.url,
            variables.lookup if variables is not None else lambda _name: None,
        )
        if spelled is None:  # its variables cannot say it: offer instead of rewriting
            source = f"{card.source[0].upper()}{card.source[1:]}"
            self._show(f"{source} lists {what} at {iface.url}.", card, offer=iface)
            return
        self._undo = (tab.endpoint_edit.text(), tab.tenant_edit.text())
        self._set_endpoint(spelled, iface.tenant)
        self._show(
            f"Endpoint set to {spelled}: the {what} interface on {card.source}.", card, undo=True
        )

    def _no_interface(self, card: KnownCard, endpoint: str) -> None:
        tab = self._tab
        name, version = traits(tab.binding).label, tab.version.value
        text = f"{card.source[0].upper()}{card.source[1:]} lists no {name} interface for A2A"
        text += f" {version}: Send would go to {endpoint or 'no endpoint'} as it is."
        others = card.interfaces(tab.binding)
        if others:
            text += f" It lists {self._what(others[0])} at {others[0].url}."
        self._show(text, card, offer=others[0] if others else None, warn=True)

    def undo(self) -> None:
        """*Undo*: the endpoint and tenant as they were before the switch set them."""
        if self._undo is not None:
            endpoint, tenant = self._undo
            self._set_endpoint(endpoint, tenant)
        self._hide()

    def _set_endpoint(self, endpoint: str, tenant: str) -> None:
        self._setting = True
        try:
            self._tab.endpoint_edit.setText(endpoint)
            self._tab.tenant_edit.setText(tenant)
        finally:
            self._setting = False

    # --- the offer ---------------------------------------------------------------------

    def refresh(self, *_args: object) -> None:
        """Offer the card's interface for the binding when the endpoint is not one of them."""
        endpoint = self.endpoint()
        found = self.interfaces()
        if not found or any(address(i.url) == address(endpoint) for i in found):
            self._hide()
            return
        name = traits(self._tab.binding).label
        self._show(
            f"The Agent Card lists {name} ({found[0].protocol_version}) at {found[0].url}",
            self.card(),
            offer=found[0],
            warn=True,
        )

    def use_offer(self) -> None:
        """*Use it*: endpoint, binding, version and tenant from the offered interface."""
        offer = self._offer
        self._hide()
        if offer is not None:
            self._tab.use_interface(offer)

    def _show(
        self,
        text: str,
        card: KnownCard | None,
        *,
        offer: InterfaceView | None = None,
        undo: bool = False,
        warn: bool = False,
    ) -> None:
        self._offer = offer
        if not undo:
            self._undo = None
        # A followed switch is news (info); a mismatch the user should act on, a warning.
        role = "frame-warn:bindingOfferBar" if warn else "frame-info:bindingOfferBar"
        theme.style(self.bar, role, "QFrame#bindingOfferBar { border-radius: 4px; }")
        self.label.setText(text)
        self.label.setToolTip(f"From {card.card_url}" if card is not None else "")
        self.use_button.setVisible(offer is not None)
        self.undo_button.setVisible(undo)
        self.bar.show()

    def _hide(self) -> None:
        self._offer, self._undo = None, None
        self.bar.hide()

    @staticmethod
    def _what(iface: InterfaceView) -> str:
        label = traits(iface.known_binding).label if iface.known_binding else iface.binding
        return f"{label} {iface.major_minor or iface.protocol_version}"

    # --- what changes it -----------------------------------------------------------------

    def _known(self) -> KnownCards:
        known = self._tab.known_cards
        provider = self._tab.card_panel.demo_info_provider
        info = provider() if provider is not None else None
        if info and info.get("card_url"):  # the demo agent's ready line
            names = ("base_url", "jsonrpc_url", "rest_url", "grpc_target")
            addresses = [str(info[n]) for n in names if info.get(n)]
            known.expect(str(info["card_url"]), DEMO_SOURCE, addresses)
        return known

    def _on_switch(self, *_args: object) -> None:
        switch = (self._tab.binding, self._tab.version)
        if switch == self._shown:
            return
        self._shown = switch
        self._task.cancel()  # a lookup for the switch before
        if self._tab.loading:
            self.refresh()
        else:
            self.follow()

    def _on_endpoint_changed(self, _text: str) -> None:
        if not self._setting and self.bar.isVisibleTo(self._widget):
            self._undo = None
            self.refresh()

    def _on_endpoint_typed(self, _text: str) -> None:
        self._task.cancel()  # the user's endpoint wins over a lookup still running

    def _on_card_loaded(self, view: CardView) -> None:
        panel = self._tab.card_panel
        url = panel.last_fetch.card_url if panel.last_fetch is not None else panel.source
        if url:
            self._tab.known_cards.add(KnownCard(url, view, FETCHED_SOURCE))
        self.refresh()

    def _on_sent(self, *_args: object) -> None:
        if self._undo is not None:  # "Endpoint set to …": read, and the send went there
            self._hide()

    def _on_events(self, events: list[object]) -> None:
        for event in events:
            self._on_event(event)

    def _on_event(self, event: object) -> None:
        if not isinstance(event, ExchangeError) or not says_other_binding(event.message):
            return
        tab = self._tab
        pairs = [(i.binding, i.url) for i in self.interfaces()]
        hint = card_hint(tab.binding, pairs, self.endpoint())
        if hint:
            tab.response_view.add_hint(event, hint)
            self.refresh()


def spelled_like(endpoint: str, url: str, lookup: Callable[[str], str | None]) -> str | None:
    """``url`` written the way ``endpoint`` is: with its leading ``{{variable}}`` when the
    variable's value starts ``url`` (``{{baseUrl}}/`` → ``{{baseUrl}}/rest``); ``url`` itself
    for an endpoint without variables; None when its variables cannot say ``url``."""
    if "{{" not in endpoint:
        return url
    match = VARIABLE.match(endpoint)
    value = lookup(match.group(1)) if match is not None else None
    if match is None or not value:
        return None
    base = value.rstrip("/")
    rest = url[len(base) :]
    if not url.startswith(base) or (rest and rest[0] not in "/?"):
        return None
    return match.group(0) + rest
