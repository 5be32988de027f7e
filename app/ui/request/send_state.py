"""The Send button of a request tab: *Send* or *Cancel*, and off while there is nowhere to send.

A new tab (Ctrl+N) has no endpoint; Send then gave httpx's raw ``Invalid URL ''`` beside
"sent 1 ms". Now the button is off while the endpoint is empty (for a binding whose agent the
app starts, while the command line is empty too), its tooltip saying what to type, and a
send that comes another way (*Replace and send*) is refused with the same words.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QObject
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QComboBox, QLineEdit, QPushButton

from app.errors import UsageError
from app.protocol.bindings import traits
from app.protocol.types import Binding

NO_ENDPOINT = "No endpoint: type the agent's URL (or pick a saved request)"
NO_COMMAND = "No agent: type its URL, or the command line that starts it"
SEND_TIP = "Send the request (Ctrl+Enter)"
CANCEL_TIP = (
    "Cancel the request being sent: stop waiting and close its connection (locally). For a"
    " stream this is the Timeline's Stop: the task keeps running on the agent; Cancel task"
    " there asks the agent to cancel it."
)


class SendTab(Protocol):
    """What the button's state reads of its request tab."""

    send_button: QPushButton
    endpoint_edit: QLineEdit
    command_edit: QLineEdit
    binding_combo: QComboBox

    @property
    def binding(self) -> Binding: ...


class SendState(QObject):
    """Keeps ``tab.send_button``'s text, tooltip and enabled state."""

    def __init__(self, tab: SendTab, *, parent: QObject) -> None:
        super().__init__(parent)
        self._tab = tab
        self._busy = False
        tab.endpoint_edit.textChanged.connect(self.refresh)
        tab.command_edit.textChanged.connect(self.refresh)
        tab.binding_combo.currentIndexChanged.connect(self.refresh)
        self.refresh()

    def missing(self) -> str:
        """Why there is nowhere to send ("" when there is)."""
        tab = self._tab
        if tab.endpoint_edit.text().strip():
            return ""
        if not traits(tab.binding).launches:
            return NO_ENDPOINT
        return "" if tab.command_edit.text().strip() else NO_COMMAND

    def check(self) -> None:
        """Raises :class:`UsageError` saying :meth:`missing`, if anything is."""
        if missing := self.missing():
            raise UsageError(missing)

    def set_busy(self, busy: bool) -> None:
        """An exchange started (the button cancels it) or ended."""
        self._busy = busy
        self.refresh()

    def refresh(self, *_args: object) -> None:
        """Text, tooltip and enabled state for now."""
        button = self._tab.send_button
        missing = "" if self._busy else self.missing()
        button.setText("Cancel" if self._busy else "Send")
        button.setToolTip(CANCEL_TIP if self._busy else missing or SEND_TIP)
        button.setEnabled(not missing)
        if not self._busy:  # setText drops it
            button.setShortcut(QKeySequence("Ctrl+Return"))
