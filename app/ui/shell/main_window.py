"""The main window: request tabs, the menus (app/ui/shell/menus.py), and an orderly async
shutdown."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QMainWindow

from app.ui.shell.document_tabs import DocumentTabs
from app.ui.shell.messages import MessageBridge

# Only Qt is imported up front: the window frame paints first and the protocol, spec and
# request-tab modules (httpx, grpc, cryptography, a2a descriptors: ~1 s of imports) load
# right after, in complete_setup() or on first use (bench/startup.py). Not even the ``Qt``
# namespace: PySide6 builds every one of its enums on first access (~30 ms), so it is
# imported where used, after the first paint; classes seen only in annotations (their
# enums too: QEvent's ~170 types for QCloseEvent) are not imported at run time.
if TYPE_CHECKING:
    import ssl

    import httpx
    from PySide6.QtGui import QCloseEvent
    from PySide6.QtWidgets import QDialog, QMenu, QWidget

    from app.protocol.card.known_cards import KnownCards
    from app.spec.variables import Resolver
    from app.ui.collections.generate_server_dialog import GenerateServerDialog
    from app.ui.collections.spec_dock import SpecController
    from app.ui.request.request_tab import RequestTab
    from app.ui.shell.tab_session import SessionController

DEMO_MESSAGE = "12 30"
DEMO_READY = "Demo agent ready: press Send (Ctrl+Enter)"
"""The status bar's hint once the demo agent runs, withdrawn by the first send."""
DEMO_READY_WELCOME = "Demo agent ready: press Send it (Ctrl+Enter) on the Welcome tab"
"""The same while the Welcome tab is in front, where Ctrl+Enter is its *Send it*."""

MENU_TITLES = (
    ("&File", "menuFile"),
    ("&Edit", "menuEdit"),
    ("&View", "menuView"),
    ("&Request", "menuRequest"),
    ("&Help", "menuHelp"),
)
"""The menu bar's menus (title, objectName): added empty before the first paint, what the
first frame shows of them; their actions follow (app/ui/shell/menus.py)."""


class MainWindow(QMainWindow):
    """Holds request tabs.

    Closing the window does not close it at once: ``close_requested`` is emitted so that the
    application can cancel running requests and stop the demo agent first, then calls
    :meth:`close_now` (an orderly qasync shutdown: no task outlives the loop).

    It is the :class:`~app.ui.shell.host.TabHost` of the session and spec controllers, and
    what its parts type it as (``DesktopHost``, ``MenuHost``, ``CheckHost``,
    ``GenerateServerHost``): they are given the window twice, as the QMainWindow and as
    that host, so that none of them imports this module.

    Signals:
        close_requested: the user asked to close the window (no args).
        demo_changed: the demo agent became ready or stopped (no args; ``demo_info``).
    """

    close_requested = Signal()
    demo_changed = Signal()

    def __init__(self, *, deferred: bool = False) -> None:
        """Build the window; with ``deferred``, the docks wait for :meth:`complete_setup`."""
        super().__init__()
        self.setWindowTitle("A2A Workbench")
        self.resize(1280, 800)
        self._closing_allowed = False
        self._http: httpx.AsyncClient | None = None
        self._tls: ssl.SSLContext | None = None
        # The demo agent's ready line (card_url, jwks_path, …) once it runs.
        self.demo_info: dict[str, Any] | None = None
        self.demo_starting = False  # started, its ready line not read yet
        # The Agent Cards this window knows, shared by its tabs (a binding switch follows).
        self._known_cards: KnownCards | None = None
        # Request → Generate server… (app/ui/collections/generate_server_dialog.py), while it is
        # open.
        self.generate_server_dialog: GenerateServerDialog | None = None

        self.tabs = DocumentTabs()  # closable, movable, a plain cross to close
        self.tabs.setObjectName("requestTabs")
        self.tabs.tabCloseRequested.connect(self.close_tab)
        self.setCentralWidget(self.tabs)

        self.messages = MessageBridge(self.statusBar(), self)
        self.demo_label = QLabel("Demo agent: off")
        self.demo_label.setObjectName("demoAgentLabel")
        self.statusBar().addPermanentWidget(self.demo_label)
        from app.ui.shell.desktop import Desktop

        # Before the first paint: the settings that change it (theme, geometry) and the
        # menu bar's titles. The menus' actions (QAction, QKeySequence, some fifty of them)
        # come first thing in complete_setup(): no menu opens before the event loop runs.
        self.desktop = Desktop(self, self)
        bar = self.menuBar()
        self._titled_menus = [bar.addMenu(title) for title, _ in MENU_TITLES]
        for menu, (_, name) in zip(self._titled_menus, MENU_TITLES, strict=True):
            menu.setObjectName(name)
        if not deferred:
            self.complete_setup()

    def complete_setup(self) -> None:
        """Add the heavier parts: the menus' actions, the spec docks and their File menu
        entries, the history, the check dock, the last session's tabs."""
        if hasattr(self, "spec"):
            return
        self._build_menus()
        from app.ui.collections.spec_dock import SpecController

        # Specs: docks, Save to spec (Ctrl+S), Open spec…, Recent specs.
        self.spec: SpecController = SpecController(self, self, self._file_menu)
        from app.ui.request.tab_actions import TabActions

        # The tab bar's context menu; Ctrl+Tab / Ctrl+PgDn and back cycle the tabs.
        self.tab_actions = TabActions(self, self.spec, self)
        self.menus.view.addSeparator()
        self.menus.view.addAction(self.tab_actions.next_action)
        self.menus.view.addAction(self.tab_actions.previous_action)
        self._setup_history()
        from app.ui.check.check_action import CheckController

        self.check = CheckController(self, self)  # Request → Check this agent…, its report dock
        self.menus.complete()  # shortcuts, every dock in View, Quit last
        self.desktop.complete_setup()
        self.desktop.restore_layout()
        # The last session's tabs (drafts included) come back; edits are autosaved.
        from app.ui.shell.tab_session import SessionController

        self.session: SessionController = SessionController(
            self, parent=self, collections=self.spec
        )
        for tab in self.request_tabs():
            self.session.watch(tab)
        self.session.restore()
        self.spec.collections_changed.connect(self.session.schedule)

    def _setup_history(self) -> None:
        """The History dock (View → History) and the recording of every exchange."""
        from PySide6.QtCore import Qt

        from app.ui.history.history_dock import HistoryDock
        from app.ui.history.history_recording import HistoryRecording

        self.history_dock = HistoryDock(self, self)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.history_dock)
        self.history_dock.hide()
        self.menus.add_shortcut(self.history_dock.toggleViewAction(), "Ctrl+H")
        self.history = HistoryRecording(self.messages, parent=self)
        panel = self.history_dock.panel
        self.history.opened.connect(panel.set_store)
        self.history.recorded.connect(panel.refresh)
        self.history.start()

    def _build_menus(self) -> None:
        # File / Edit / View / Request / Help, the settings, theme and layout
        # (app/ui/shell/menus.py).
        from app.ui.shell.menus import WindowMenus

        self.menus: WindowMenus = WindowMenus(self, self, self.desktop, self._titled_menus)
        self.new_a2a_action = self.menus.new_a2a
        self.reopen_closed_action = self.menus.reopen_closed
        self._file_menu: QMenu = self.menus.file
        self._view_menu = self.menus.view
        self._quit_action = self.menus.quit
        # (action, keys) pairs appended here before complete_setup() get their shortcut then.
        self._shortcuts = self.menus.pending_shortcuts
        # The proxy: a page of Settings, and its own dialog under View.
        self.network_settings_action = self.menus.action(
            self.menus.view,
            "&Network settings…",
            self.open_network_settings,
            name="networkSettingsAction",
        )
        self.desktop.add_settings_page("Proxy", _proxy_page)

    def open_network_settings(self) -> QDialog:
        """Show the proxy settings (non-modal; OK saves them)."""
        from PySide6.QtCore import Qt

        from app.ui.shell.proxy_settings import NetworkSettingsDialog

        dialog = NetworkSettingsDialog(self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    # --- tabs ----------------------------------------------------------------------

    def http_client(self) -> httpx.AsyncClient:
        """The window's shared AsyncClient, created inside the running loop on first use."""
        if self._http is None:
            from app.protocol.net.http import new_client

            self._http = new_client(30.0, self._tls or True)
        return self._http

    async def warm_up(self) -> None:
        """Build the TLS context and load httpx's transport off the GUI thread so the first
        Send does not stall, and collect what building the window left (tens of thousands
        of young objects: the first collection, ~35 ms, fell into the first exchange)."""
        if self._tls is None:
            import asyncio

            self._tls = await asyncio.to_thread(_prepare_http)
            from app.ui.shell.gui_gc import collect_due

            collect_due()

    def resolver(self) -> Resolver | None:
        """The spec controller's variable resolver (None before :meth:`complete_setup`)."""
        return self.spec.resolver() if hasattr(self, "spec") else None

    def new_a2a_tab(self, endpoint: str = "", message_text: str = "hello") -> RequestTab:
        """Open a request tab (version 1.0, binding JSONRPC) and focus it."""
        from app.protocol.card.known_cards import KnownCards
        from app.ui.request.request_tab import RequestTab

        if self._known_cards is None:
            self._known_cards = KnownCards()
        tab = RequestTab(
            self.http_client,
            endpoint=endpoint,
            message_text=message_text,
            known_cards=self._known_cards,
        )
        tab.card_panel.demo_info_provider = lambda: self.demo_info
        self.desktop.prepare_tab(tab)
        index = self.tabs.addTab(tab, tab.title())
        tab.title_changed.connect(lambda title, t=tab: self._retitle(t, title))
        tab.controller.started.connect(lambda *_: self._withdraw_demo_hint())
        if hasattr(self, "session"):
            self.session.watch(tab)
        if hasattr(self, "spec"):  # the selected environment, {{variable}} marks
            self.spec.environments.watch(tab)
        if hasattr(self, "history"):
            self.history.watch(tab)
        self.tabs.setCurrentIndex(index)
        (tab.endpoint_edit if not endpoint else tab.body_editor).setFocus()
        return tab

    def current_tab(self) -> RequestTab | None:
        """The focused request tab, if any."""
        from app.ui.request.request_tab import RequestTab

        widget = self.tabs.currentWidget()
        return widget if isinstance(widget, RequestTab) else None

    def request_tabs(self) -> list[RequestTab]:
        """All request tabs, in tab order."""
        from app.ui.request.request_tab import RequestTab

        return [
            t for i in range(self.tabs.count()) if isinstance(t := self.tabs.widget(i), RequestTab)
        ]

    def _retitle(self, tab: RequestTab, title: str) -> None:
        index = self.tabs.indexOf(tab)
        if index >= 0:
            self.tabs.setTabText(index, title)

    def close_tab(self, index: int) -> None:
        """Close the tab at ``index``; the session keeps a request tab for *Reopen closed
        tab*. Any other page is taken out and closed: the check report stops its run (its
        owner keeps it), the Welcome page deletes itself on close."""
        from app.ui.request.request_tab import RequestTab

        widget = self.tabs.widget(index)
        if widget is None:
            return
        if not isinstance(widget, RequestTab):
            self.tabs.removeTab(index)
            widget.close()
            return
        if hasattr(self, "session"):  # kept for Reopen closed tab, drafts included
            self.session.remember_closed(widget)
        self.tabs.removeTab(index)
        widget.close_later()

    def reopen_closed_tab(self) -> RequestTab | None:
        """File → Reopen closed tab (Ctrl+Shift+T): the tab closed last, as it was."""
        return self.session.reopen() if hasattr(self, "session") else None

    def show_welcome(self) -> QWidget:
        """Help → Getting started, and the first start: the Welcome tab in front."""
        from app.ui.help.welcome_page import show_welcome

        return show_welcome(self, self)

    # --- demo agent ----------------------------------------------------------------

    def on_demo_ready(self, info: dict[str, Any]) -> None:
        """Show where the demo agent listens and open the first tab pointed at it."""
        self.demo_info, self.demo_starting = dict(info), False
        self.demo_label.setText(f"Demo agent: {info.get('base_url', '?')}")
        self.demo_label.setToolTip(
            "Agent Card: {card_url}\nJSON-RPC: {jsonrpc_url}\nREST: {rest_url}\n"
            "gRPC: {grpc_target}\nJWKS file: {jwks_path}".format_map(_Defaulting(info))
        )
        if hasattr(self, "session"):  # restored tabs aimed at the last run's demo agent
            self.session.remap_demo(info)
        url = str(info.get("jsonrpc_url", ""))
        front = self.tabs.currentWidget()
        self._open_demo_tab(url)
        if front is not None and front.objectName() == "welcomeTab":
            self.tabs.setCurrentWidget(front)  # the first start's Welcome stays in front
            self.messages.show(DEMO_READY_WELCOME, 10000)
        self.demo_changed.emit()

    def on_demo_starting(self) -> None:
        """The demo agent was started: "starting…" until its ready line or failure."""
        self.demo_starting = True
        self.demo_label.setText("Demo agent: starting…")
        self.demo_changed.emit()

    def _withdraw_demo_hint(self) -> None:
        for hint in (DEMO_READY, DEMO_READY_WELCOME):
            self.messages.withdraw(hint)

    def _open_demo_tab(self, url: str) -> None:
        # A restored tab already aimed at the demo agent is its tab: one per launch would
        # pile up.
        restored = [t for t in self.request_tabs() if url and t.endpoint_edit.text() == url]
        if restored:
            self.tabs.setCurrentWidget(restored[0])
            restored[0].send_button.setFocus()
            self.messages.show(DEMO_READY, 10000)
            return
        tab = self.current_tab()
        if tab is None or tab.endpoint_edit.text() or tab.dirty:  # never overwrite a draft
            tab = self.new_a2a_tab(url, DEMO_MESSAGE)
        else:
            tab.endpoint_edit.setText(url)
            tab.message_text_edit.setText(DEMO_MESSAGE)
            tab.generate_preview()
            tab.replace_body()
        if hasattr(self, "session"):  # not kept in the session while unchanged
            self.session.mark_disposable(tab)
        tab.send_button.setFocus()
        self.messages.show(DEMO_READY, 10000)

    def on_demo_failed(self, reason: str) -> None:
        """Say in the status bar why the demo agent is not available."""
        self.demo_info, self.demo_starting = None, False
        self.demo_label.setText("Demo agent: not running")
        self.demo_label.setToolTip(reason)
        self.messages.show(reason, 15000)
        self.demo_changed.emit()

    # --- shutdown ------------------------------------------------------------------

    async def shutdown(self) -> None:
        """Save the session, cancel every running exchange, close the shared HTTP client."""
        import asyncio

        self.desktop.save_layout()
        if hasattr(self, "session"):
            await self.session.flush()
        if hasattr(self, "spec"):
            await self.spec.shutdown()
        await asyncio.gather(*(tab.shutdown() for tab in self.request_tabs()))
        from app.ui.request.push_wiring import shutdown_shared

        await shutdown_shared()  # the local push receiver, if a tab started it
        from app.protocol import exchange

        await exchange.stop_agents()  # the stdio agents the tabs started
        if hasattr(self, "check"):
            await self.check.shutdown()
        if self.generate_server_dialog is not None:
            await self.generate_server_dialog.shutdown()
        if hasattr(self, "history"):
            await self.history_dock.panel.shutdown()
            await self.history.close()
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    def close_now(self) -> None:
        """Close for real (after :meth:`shutdown`)."""
        self._closing_allowed = True
        self.close()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._closing_allowed:
            event.accept()
            return
        event.ignore()
        if hasattr(self, "spec"):  # unsaved collections: Save all / Discard / Cancel first
            self.spec.actions.confirm_quit(self.close_requested.emit)
            return
        self.close_requested.emit()


def _prepare_http() -> ssl.SSLContext:
    """The TLS context, and the modules httpx loads on its first request (its transport,
    httpcore, on anyio's asyncio backend: ~50 modules, ~30 ms the first Send waited for)."""
    import anyio._backends._asyncio  # noqa: F401  # anyio picks its backend at the first call
    import httpcore  # noqa: F401
    import httpx

    return httpx.create_ssl_context()


class _Defaulting(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "?"


def _proxy_page() -> QWidget:
    from app.ui.shell.proxy_settings import ProxySettingsPage

    return ProxySettingsPage()
