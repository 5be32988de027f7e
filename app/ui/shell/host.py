"""What the session and spec controllers need from the window that holds request tabs.

Typing against :class:`TabHost` instead of the main window keeps those controllers free of
an import of ``app.ui.shell.main_window`` (which creates them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QTabWidget

if TYPE_CHECKING:
    from app.spec.variables import Resolver
    from app.ui.request.request_tab import RequestTab
    from app.ui.shell.messages import MessageBridge


class TabHost(Protocol):
    """A window of request tabs with a message bridge."""

    @property
    def tabs(self) -> QTabWidget:
        """The tab widget holding the request tabs."""
        ...

    @property
    def messages(self) -> MessageBridge:
        """Where status messages go."""
        ...

    @property
    def reopen_closed_action(self) -> QAction:
        """File → Reopen closed tab (enabled while closed tabs are kept)."""
        ...

    def new_a2a_tab(self, endpoint: str = "", message_text: str = "hello") -> RequestTab:
        """Open a request tab and focus it."""
        ...

    def current_tab(self) -> RequestTab | None:
        """The focused request tab, if any."""
        ...

    def request_tabs(self) -> list[RequestTab]:
        """All request tabs, in tab order."""
        ...

    def resolver(self) -> Resolver | None:
        """Resolves ``{{variables}}`` of spec requests (None before the specs are set up)."""
        ...
