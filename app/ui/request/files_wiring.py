"""Puts the attachments panel and the Artifacts tab into a request tab and feeds them.

The panel sits on the Body page above the template preview; a change re-renders the
preview (the parts go into the message template, :mod:`app.protocol.methods.parts`). The card's
input modes reach the panel when a card loads. Every response body and stream item of the
tab's main exchange is searched for artifacts (:mod:`app.protocol.stream.artifacts`); the tab's
title counts them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtWidgets import QSplitter

from app.protocol.card.view import CardView
from app.protocol.events import NOT_JSON, ResponseBody, StreamItem
from app.protocol.stream.artifacts import may_carry_artifacts
from app.ui.request.attachments_panel import AttachmentsPanel
from app.ui.response.artifacts_view import ArtifactsView

if TYPE_CHECKING:
    from PySide6.QtWidgets import QTabWidget

    from app.ui.card.card_panel import CardPanel
    from app.ui.request.request_controller import RequestController
    from app.ui.timeline.timeline_panel import TimelinePanel


class FilesTab(Protocol):
    """What the wiring uses of its request tab (``RequestTab``, which installs it: typed
    here, not imported)."""

    @property
    def editor_tabs(self) -> QTabWidget:
        """The editor pages; the first, the Body page, gets the attachments panel."""
        ...

    @property
    def result_tabs(self) -> QTabWidget:
        """The result pages; the Artifacts tab goes after the timeline."""
        ...

    @property
    def timeline(self) -> TimelinePanel:
        """The Timeline page."""
        ...

    @property
    def controller(self) -> RequestController:
        """Runs the tab's exchanges."""
        ...

    @property
    def card_panel(self) -> CardPanel:
        """The Agent Card page (its input modes reach the attachments panel)."""
        ...

    def generate_preview(self) -> None:
        """Render the body template again (the attachments are parts of it)."""
        ...


def input_modes(view: CardView) -> tuple[str, ...]:
    """Every media type the card accepts: ``defaultInputModes`` and the skills'
    ``inputModes`` (a skill's own list replaces the default for that skill)."""
    modes = list(view.default_input_modes)
    for skill in view.skills:
        modes += [mode for mode in skill.input_modes if mode not in modes]
    return tuple(modes)


def install_files(tab: FilesTab) -> tuple[AttachmentsPanel, ArtifactsView]:
    """Add both widgets to ``tab`` and connect them; returns them."""
    panel = AttachmentsPanel()
    body_page = tab.editor_tabs.widget(0)
    assert isinstance(body_page, QSplitter)
    body_page.insertWidget(1, panel)
    body_page.setStretchFactor(1, 0)
    view = ArtifactsView()
    tabs = tab.result_tabs
    index = tabs.insertTab(tabs.indexOf(tab.timeline) + 1, view, "Artifacts")

    def retitle() -> None:
        count = len(view.artifacts)
        tabs.setTabText(index, f"Artifacts ({count})" if count else "Artifacts")

    def on_event(event: object) -> None:
        if isinstance(event, ResponseBody) and event.json is not NOT_JSON:
            found = view.add_value(event.json, "result")
        elif (
            isinstance(event, StreamItem)
            and event.json is not NOT_JSON
            and may_carry_artifacts(event.json)
        ):
            found = view.add_value(event.json, f"stream item {event.seq}")
        else:
            return
        if found:
            retitle()

    def on_started(_request: object, _streaming: bool) -> None:
        view.clear()
        retitle()

    def on_card(card: object) -> None:
        if isinstance(card, CardView):
            panel.set_input_modes(input_modes(card))

    tab.controller.started.connect(on_started)

    def on_events(events: list[object]) -> None:
        for event in events:
            on_event(event)

    tab.controller.events_arrived.connect(on_events)
    tab.card_panel.card_loaded.connect(on_card)
    panel.changed.connect(tab.generate_preview)
    return panel, view
