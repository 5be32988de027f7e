"""*Request → Check this agent…* (``checkAgentAction``): runs :func:`app.check.runner.run_check`
on the current tab's agent and shows the report as a tab of the main area (``checkReportView``;
*View → Check report*, ``checkReportAction``, brings it back once closed).

The agent is the tab's Agent Card URL (its card page's field, prefilled from the endpoint;
``{{variables}}`` resolved), checked with the tab's credentials, headers, TLS and proxy.
Every exchange of the run is recorded in History: each finding's exchanges open in the
report, read-only, and from there in the History dock.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMainWindow

from app.check.check_model import CheckEvent
from app.check.runner import CheckOptions, run_check
from app.errors import WorkbenchError
from app.ui.check.check_report import CheckReportView
from app.ui.shell.host import TabHost

if TYPE_CHECKING:
    from app.ui.history.history_dock import HistoryDock
    from app.ui.history.history_recording import HistoryRecording
    from app.ui.request.request_tab import RequestTab
    from app.ui.shell.menus import WindowMenus


REPORT_TITLE = "Check report"


class CheckHost(TabHost, Protocol):
    """What the check uses of the main window besides its QMainWindow self (``MainWindow``,
    which creates it: typed here, not imported)."""

    @property
    def history(self) -> HistoryRecording:
        """The recording of every exchange (its store, when open)."""
        ...

    @property
    def history_dock(self) -> HistoryDock:
        """The History dock, where a finding's exchange opens on request."""
        ...

    @property
    def menus(self) -> WindowMenus:
        """The menu bar; the action goes into Request."""
        ...


class CheckController(QObject):
    """The action, the report's tab, and the link from a finding's exchange to History.

    ``window`` is the main window; ``host`` is the same window, seen as the holder of tabs,
    history and menus. The report is one view, kept while its tab is closed and shown
    again by the next run or *View → Check report*.

    Attributes:
        runner: starts a run from its options (``run_check``; tests may replace it).
    """

    def __init__(self, window: QMainWindow, host: CheckHost) -> None:
        super().__init__(window)
        self.host = host
        self.runner: Callable[[CheckOptions], AsyncIterator[CheckEvent]] = run_check
        self.view = CheckReportView(window, store=lambda: host.history.store)
        self.view.hide()  # until its tab opens
        self.action = host.menus.action(
            host.menus.request, "Chec&k this agent…", self.check_current_tab,
            name="checkAgentAction",
        )  # fmt: skip
        self.action.setToolTip(
            "Check the agent the current tab talks to against its card, on every interface"
            " it lists (pass / fail / warn / skip / n/a, each backed by its exchanges)"
        )
        self.report_action = host.menus.action(
            host.menus.view, "Check re&port", self.show_report, name="checkReportAction"
        )
        self.report_action.setToolTip("Show the check report's tab (the last run's results)")
        self.view.exchange_requested.connect(self.open_exchange)
        self.view.finished.connect(lambda _ended: host.history_dock.panel.refresh())

    def show_report(self) -> None:
        """Bring the report's tab to the front (added again if it was closed)."""
        tabs = self.host.tabs
        if tabs.indexOf(self.view) < 0:
            tabs.addTab(self.view, REPORT_TITLE)
        tabs.setCurrentWidget(self.view)

    def options_for(self, tab: RequestTab) -> CheckOptions:
        """The run's options from ``tab``: its card URL (else endpoint) and credentials.

        Raises:
            WorkbenchError: no URL, or a ``{{variable}}`` in it that nothing resolves.
        """
        url = tab.card_panel.url_edit.text().strip() or tab.endpoint_edit.text().strip()
        if not url:
            raise WorkbenchError("Type the agent's endpoint or card URL in the tab first")
        if "{{" in url and tab.variables is not None:
            url = tab.variables.substitute(url, "the card URL")
        if "://" not in url and not Path(url).is_file():  # a gRPC host:port names no card
            raise WorkbenchError(
                f"{url} is not a card URL: type the agent's card URL on the Agent Card page"
            )
        request = tab.build_request()  # the credentials resolved as a send resolves them
        form = tab.form()
        return CheckOptions(
            card_url=url,
            auth=form.auth,
            headers=form.headers,
            network=request.network,
            call_timeout_s=request.timeout,
            history=self.host.history.store,
            extensions=form.extensions,
        )

    def check_current_tab(self) -> None:
        """Start a run on the current tab's agent; the report's tab shows it. With the report
        in front, the agent it shows is checked again."""
        tab = self.host.current_tab()
        if tab is None and self.host.tabs.currentWidget() is self.view and self.view.source:
            if not self.view.running:
                self.view.run(self.view.source)
            return
        if tab is None:
            self.host.messages.show("Open a request tab aimed at the agent to check", 8000)
            return
        try:
            options = self.options_for(tab)
        except WorkbenchError as exc:
            self.host.messages.show(f"Check this agent: {exc}", 10000)
            return
        if options.history is None:
            self.host.messages.show(
                "History is not open: this check's exchanges are not recorded", 10000
            )
        self.show_report()
        self.view.run(lambda: self.runner(options), agent=options.card_url)

    def open_exchange(self, entry_id: int) -> None:
        """Show history entry ``entry_id`` in the History dock."""
        dock = self.host.history_dock
        dock.show()
        dock.raise_()
        dock.panel.open_entry(entry_id)

    async def shutdown(self) -> None:
        await self.view.shutdown()
