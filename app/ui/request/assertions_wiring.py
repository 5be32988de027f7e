"""Evaluates a request tab's assertions and captures after each send of its main exchange.

The response is gathered as it arrives (:class:`app.spec.assertions.Observed`); at the
exchange's end each assertion's result shows beside its row on the *Assertions* page (the
page's tab title counts the failures) and the captured values go out through
:attr:`AssertionsTab.captured` to the environment controller, which offers them as
``{{variables}}`` to every request sent after this one in the session.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol

from app import heap
from app.protocol.events import EventBatch, ExchangeEnd
from app.spec.assertions import Observed, capture, evaluate

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance
    from PySide6.QtWidgets import QTabWidget

    from app.spec.variables import Resolver
    from app.ui.request.assertions_panel import AssertionsPanel
    from app.ui.request.request_controller import RequestController

PAGE_TITLE = "Assertions"


class AssertionsTab(Protocol):
    """What the wiring uses of its request tab (``RequestTab``, which installs it: typed
    here, not imported)."""

    @property
    def assertions_panel(self) -> AssertionsPanel:
        """The Assertions page: the rows, their results."""
        ...

    @property
    def editor_tabs(self) -> QTabWidget:
        """The pages the Assertions page is one of (its title counts the failures)."""
        ...

    @property
    def controller(self) -> RequestController:
        """Runs the tab's exchanges."""
        ...

    @property
    def captured(self) -> SignalInstance:
        """Emitted with ``{variable: value}`` when captures took values."""
        ...

    @property
    def variables(self) -> Resolver | None:
        """Resolves ``{{variables}}`` in expected values."""
        ...

    def title(self) -> str:
        """The tab's title, to say where a variable could not be resolved."""
        ...


def install_assertions(tab: AssertionsTab) -> None:
    """Connect ``tab``'s exchanges to its Assertions page."""
    panel = tab.assertions_panel
    tabs = tab.editor_tabs
    observed: list[Observed | None] = [None]

    def retitle(failed: int) -> None:
        index = tabs.indexOf(panel)
        tabs.setTabText(index, f"{PAGE_TITLE} ({failed} ✗)" if failed else PAGE_TITLE)

    def on_started(_request: object, _streaming: bool) -> None:
        # Gathered only for a tab that has something to evaluate: a stream's every item is
        # kept for it (a stream left open for a day would keep them all).
        wanted = bool(panel.assertions() or panel.captures())
        observed[0] = Observed() if wanted else None
        if wanted:
            panel.clear_results()
        retitle(0)

    def on_events(events: EventBatch) -> None:
        current = observed[0]
        if current is None:
            return
        for event in events:
            current.feed(event)
        if isinstance(events[-1], ExchangeEnd):
            if current.big_body is not None and (panel.assertions() or panel.captures()):
                # A big body's value is not kept (BigResponseBody): parsed again here, in a
                # worker (25 MiB held the GUI thread ~100-200 ms); the exchange's end
                # waits for it (RequestController.hold).
                tab.controller.hold(finish_big(current))
            else:
                finish(current)

    async def finish_big(current: Observed) -> None:
        with heap.building():
            resolved = await asyncio.to_thread(current.resolved)
        finish(resolved)

    def finish(current: Observed) -> None:
        variables = tab.variables
        where = f"{tab.title()}: assertions"
        substitute = (lambda text: variables.substitute(text, where)) if variables else None
        assertions = panel.assertions()
        if assertions:
            results = evaluate(assertions, current, substitute)
            panel.show_results(results)
            retitle(sum(not r.passed for r in results))
        captures = panel.captures()
        if captures:
            values, problems = capture(captures, current)
            panel.show_captured(values, problems)
            if values:
                tab.captured.emit(values)

    tab.controller.started.connect(on_started)
    tab.controller.events_arrived.connect(on_events)
