"""The message bridge: how controllers tell the user something without a dialog.

Controllers say :meth:`MessageBridge.show`; the bridge puts the text in the window's
status bar and re-emits it as :attr:`MessageBridge.shown`, so other views (a notification
area, tests) can follow the same messages.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QStatusBar

from app.ui.shell.plain_text import shown


class MessageBridge(QObject):
    """Status messages of one main window.

    Signals:
        shown: a message was shown (args: text, timeout in ms; 0 = until replaced).
    """

    shown = Signal(str, int)

    def __init__(self, status_bar: QStatusBar, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._status_bar = status_bar

    def show(self, text: str, timeout_ms: int = 0) -> None:
        """Show ``text`` for ``timeout_ms`` (0: until the next message); messages quote
        agents and files, so their control characters are shown as escapes, on one line."""
        text = shown(text, multiline=False)
        self._status_bar.showMessage(text, timeout_ms)
        self.shown.emit(text, timeout_ms)

    def clear(self) -> None:
        """Remove the message shown now."""
        self._status_bar.clearMessage()
