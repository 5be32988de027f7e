"""Binding switch help: the card's interface for the binding just picked, one click away.

Switching binding (JSON-RPC ↔ HTTP+JSON ↔ gRPC) keeps the endpoint, which is almost never
right: each binding has its own URL (a gRPC ``host:port``, a REST base such as
``http://host/rest``). When the fetched Agent Card lists the chosen binding at another URL,
a bar under the endpoint (``bindingOfferBar``) offers it — *Use it*
(``useCardInterfaceButton``) points the tab there as *Use this interface* does. An error
that says the endpoint speaks another binding (:mod:`app.protocol.methods.binding_errors` words it,
for the CLI too) gets the card's interface added: "… — the card lists gRPC at
127.0.0.1:50051".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QBoxLayout, QFrame, QHBoxLayout, QPushButton, QWidget

from app.protocol.bindings import traits
from app.protocol.card.view import InterfaceView
from app.protocol.events import ExchangeError
from app.protocol.methods.binding_errors import card_hint, same_url, says_other_binding
from app.ui.shell import theme
from app.ui.shell.plain_text import PlainLabel

if TYPE_CHECKING:
    from PySide6.QtWidgets import QComboBox, QLineEdit

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
    def binding(self) -> Binding: ...
    @property
    def version(self) -> ProtocolVersion: ...
    @property
    def card_panel(self) -> CardPanel: ...
    @property
    def controller(self) -> RequestController: ...
    @property
    def response_view(self) -> ResponseView: ...

    def use_interface(self, iface: InterfaceView) -> None:
        """Point the tab at ``iface`` (endpoint, binding, version, tenant)."""
        ...


class BindingHelp(QObject):
    """The offer bar of one tab, and the card hint added to binding mismatch errors.

    ``parent`` is the tab's widget: the bar goes into its layout, under the endpoint row.
    """

    def __init__(self, tab: BindingHelpTab, *, parent: QWidget) -> None:
        super().__init__(parent)
        self._tab = tab
        self._widget = parent
        self._offer: InterfaceView | None = None
        self.bar = QFrame()
        self.bar.setObjectName("bindingOfferBar")
        theme.style(
            self.bar, "frame-warn:bindingOfferBar", "QFrame#bindingOfferBar { border-radius: 4px; }"
        )
        self.label = PlainLabel()  # names the card's URL: text only
        self.label.setObjectName("bindingOfferLabel")
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.use_button = QPushButton("Use it")
        self.use_button.setObjectName("useCardInterfaceButton")
        self.use_button.setToolTip("Point this tab at the card's interface for this binding")
        self.dismiss_button = QPushButton("Dismiss")
        self.dismiss_button.setObjectName("dismissBindingOfferButton")
        row = QHBoxLayout(self.bar)
        row.setContentsMargins(8, 4, 8, 4)
        row.addWidget(self.label, 1)
        row.addWidget(self.use_button)
        row.addWidget(self.dismiss_button)
        self.bar.hide()
        layout = parent.layout()
        assert isinstance(layout, QBoxLayout)
        layout.insertWidget(1, self.bar)  # right under the endpoint row

        self.use_button.clicked.connect(self.use_offer)
        self.dismiss_button.clicked.connect(self.bar.hide)
        tab.binding_combo.currentIndexChanged.connect(self.refresh)
        tab.version_combo.currentIndexChanged.connect(self.refresh)
        tab.endpoint_edit.textChanged.connect(self._on_endpoint_changed)
        tab.card_panel.card_loaded.connect(self.refresh)
        tab.controller.events_arrived.connect(self._on_events)

    @property
    def offer(self) -> InterfaceView | None:
        """The card interface offered now (None: the bar is hidden)."""
        return self._offer if self.bar.isVisibleTo(self._widget) else None

    def interfaces(self) -> list[InterfaceView]:
        """The card's speakable interfaces for the tab's binding, its version first."""
        view = self._tab.card_panel.view
        if view is None:
            return []
        binding, version = self._tab.binding, self._tab.version.value
        found = [i for i in view.interfaces if i.known_binding is binding and i.speakable]
        return sorted(found, key=lambda i: i.major_minor != version)

    def refresh(self, *_args: object) -> None:
        """Offer the card's interface for the binding when the endpoint is not one of them."""
        endpoint = self._tab.endpoint_edit.text()
        found = self.interfaces()
        if not found or any(same_url(i.url, endpoint) for i in found):
            self._offer = None
            self.bar.hide()
            return
        self._offer = found[0]
        name = traits(self._tab.binding).label
        self.label.setText(
            f"The Agent Card lists {name} ({found[0].protocol_version}) at {found[0].url}"
        )
        self.bar.show()

    def use_offer(self) -> None:
        """*Use it*: endpoint, binding, version and tenant from the offered interface."""
        if self._offer is not None:
            self._tab.use_interface(self._offer)
        self.bar.hide()

    def _on_endpoint_changed(self, _text: str) -> None:
        if self.bar.isVisibleTo(self._widget):
            self.refresh()

    def _on_events(self, events: list[object]) -> None:
        for event in events:
            self._on_event(event)

    def _on_event(self, event: object) -> None:
        if not isinstance(event, ExchangeError) or not says_other_binding(event.message):
            return
        tab = self._tab
        pairs = [(i.binding, i.url) for i in self.interfaces()]
        hint = card_hint(tab.binding, pairs, tab.endpoint_edit.text())
        if hint:
            tab.response_view.add_hint(event, hint)
            self.refresh()
