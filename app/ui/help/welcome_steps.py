"""What the Welcome tab's five steps do with the window (``app/ui/help/welcome_page.py`` draws
them): each opens or focuses what it needs, aimed at the bundled demo agent, and does the
thing — sends, streams, fetches and verifies, saves, checks.

A step reuses a request tab that already holds exactly what it would open (so clicking twice
does not pile up tabs) and otherwise opens one. It reaches the window's other parts by their
public objectNames (``saveToSpecAction``, ``specDock``, ``checkAgentAction``:
docs/WIDGETS.md), not by their controllers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QMainWindow

from app.ui.shell.host import TabHost

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance

    from app.ui.request.request_tab import RequestTab

DEMO_TEXT = "12 30"
"""What the demo agent adds up: its answer is ``Sum: 42``."""

STREAM_TEXT = "stream 5"
"""What makes the demo agent stream a task in five steps."""


class WelcomeHost(TabHost, Protocol):
    """What the steps use of the main window besides its QMainWindow self (``MainWindow``:
    typed here, not imported)."""

    @property
    def demo_info(self) -> dict[str, Any] | None:
        """The demo agent's ready line (``jsonrpc_url``, ``card_url``, …) while it runs."""
        ...

    @property
    def demo_starting(self) -> bool:
        """True from the demo agent's start until its ready line or its failure."""
        ...

    @property
    def demo_changed(self) -> SignalInstance:
        """The demo agent is starting, became ready or stopped (no args)."""
        ...


@dataclass(frozen=True, slots=True)
class Step:
    """One core flow: what it is, what to look at afterwards, and its button."""

    key: str
    title: str
    text: str
    look: str
    button: str
    needs_demo: bool
    run: Callable[[WelcomeHost, QMainWindow], object]
    keys: str = ""
    """The button's shortcut while the Welcome tab is in front (step 1: Ctrl+Enter, the
    key that sends in a request tab, so the status bar's *press Ctrl+Enter* holds here)."""


def demo_tab(host: WelcomeHost, method: str, text: str) -> RequestTab | None:
    """A request tab of ``method`` with ``text`` aimed at the demo agent's JSON-RPC URL:
    one already open and idle if there is one, else a new one (None: no demo agent)."""
    url = str((host.demo_info or {}).get("jsonrpc_url", ""))
    if not url:
        return None
    for tab in host.request_tabs():
        same = (tab.endpoint_edit.text(), tab.method, tab.message_text_edit.text())
        if same == (url, method, text) and not tab.busy:
            host.tabs.setCurrentWidget(tab)
            return tab
    tab = host.new_a2a_tab(url, text)

    def set_up() -> None:
        tab.method_combo.setCurrentIndex(tab.method_combo.findData(method))
        tab.generate_preview()
        tab.replace_body()

    tab.as_untouched(set_up)  # the step's doing, not the user's edit: no unsaved mark
    return tab


def send_message(host: WelcomeHost, window: QMainWindow) -> RequestTab | None:
    """Step 1: ``SendMessage`` "12 30" to the demo agent, sent; the Response in front."""
    tab = demo_tab(host, "SendMessage", DEMO_TEXT)
    if tab is not None:
        tab.result_tabs.setCurrentWidget(tab.response_view)
        _send(tab)
    return tab


def watch_stream(host: WelcomeHost, window: QMainWindow) -> RequestTab | None:
    """Step 2: ``SendStreamingMessage`` "stream 5", sent; the Timeline in front."""
    tab = demo_tab(host, "SendStreamingMessage", STREAM_TEXT)
    if tab is not None:
        tab.result_tabs.setCurrentWidget(tab.timeline)
        _send(tab)
    return tab


def fetch_and_verify(host: WelcomeHost, window: QMainWindow) -> RequestTab | None:
    """Step 3: the demo agent's card fetched on the Agent Card page, then its signature
    verified against the demo agent's key in the *Verify signature* window."""
    tab = demo_tab(host, "SendMessage", DEMO_TEXT)
    if tab is None:
        return None
    panel = tab.card_panel
    tab.result_tabs.setCurrentWidget(panel)

    def verify(_view: object) -> None:
        panel.card_loaded.disconnect(verify)
        dialog = panel.open_verify_dialog()
        if dialog is not None:
            dialog.load_demo_jwks()
            dialog.verify()

    panel.card_loaded.connect(verify)
    panel.fetch()
    return tab


def save_request(host: WelcomeHost, window: QMainWindow) -> RequestTab | None:
    """Step 4: the current request tab (else the demo one) saved to a spec — *File → Save
    to spec* asks where — with the Collections dock in view, where it opens again."""
    tab = host.current_tab() or demo_tab(host, "SendMessage", DEMO_TEXT)
    if tab is None:
        host.messages.show("Open a request tab first (File → New request)", 8000)
        return None
    dock = window.findChild(QDockWidget, "specDock")
    if dock is not None:
        dock.show()
        dock.raise_()
    _trigger(window, "saveToSpecAction")
    return tab


def check_agent(host: WelcomeHost, window: QMainWindow) -> RequestTab | None:
    """Step 5: *Request → Check this agent…* on the demo agent."""
    tab = demo_tab(host, "SendMessage", DEMO_TEXT)
    if tab is not None:
        _trigger(window, "checkAgentAction")
    return tab


def _send(tab: RequestTab) -> None:
    if not tab.busy:
        tab.send_or_cancel()


def _trigger(window: QMainWindow, name: str) -> None:
    action = window.findChild(QAction, name)
    if action is not None:
        action.trigger()


STEPS = (
    Step(
        "send",
        "Send a message",
        f"SendMessage “{DEMO_TEXT}” to the demo agent, over JSON-RPC in A2A 1.0.",
        "the Response: HTTP 200 and the answer “Sum: 42”.",
        "Send it",
        True,
        send_message,
        "Ctrl+Return",
    ),
    Step(
        "stream",
        "Watch a stream",
        f"SendStreamingMessage “{STREAM_TEXT}”: a task reported step by step (SSE).",
        "the Timeline: the Task, its status updates, the final state.",
        "Stream it",
        True,
        watch_stream,
    ),
    Step(
        "card",
        "Fetch and verify the Agent Card",
        "The card at /.well-known/agent-card.json, and its JWS signature checked.",
        "the Agent Card page and the Verify signature window.",
        "Fetch and verify",
        True,
        fetch_and_verify,
    ),
    Step(
        "save",
        "Save and reopen a request",
        "Keep the request in front in a spec (OpenAPI with x-a2a) for next time.",
        "the Collections dock: double-click the request to open it again.",
        "Save to spec…",
        False,
        save_request,
    ),
    Step(
        "check",
        "Check an agent",
        "Every check the card calls for, on each interface it lists.",
        "the Check report: failures and warnings first, each backed by its exchanges.",
        "Run the check",
        True,
        check_agent,
    ),
)
"""The five core flows, in the order a newcomer meets them."""
