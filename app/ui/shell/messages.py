"""The message bridge: how controllers tell the user something without a dialog.

Controllers say :meth:`MessageBridge.show`; the bridge puts the text in the window's
status bar and re-emits it as :attr:`MessageBridge.shown`, so other views (a notification
area, tests) can follow the same messages. :meth:`MessageBridge.show_details` adds a *Copy
details* button beside the message (an internal error's traceback, app/ui/shell/unexpected.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:  # the bridge is made before the first paint: these load on first use
    from PySide6.QtWidgets import QPushButton, QStatusBar


class MessageBridge(QObject):
    """Status messages of one main window.

    Signals:
        shown: a message was shown (args: text, timeout in ms; 0 = until replaced).
    """

    shown = Signal(str, int)

    def __init__(self, status_bar: QStatusBar, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._status_bar = status_bar
        self._details = ""
        self._details_of = ""  # the message the details belong to
        self._copy_button: QPushButton | None = None  # made on the first show_details

    def show(self, text: str, timeout_ms: int = 0) -> None:
        """Show ``text`` for ``timeout_ms`` (0: until the next message); messages quote
        agents and files, so their control characters are shown as escapes, on one line."""
        # Imported here: plain_text builds Qt's enums (~25 ms), not needed for the first paint.
        from app.ui.shell.plain_text import shown

        text = shown(text, multiline=False)
        self._status_bar.showMessage(text, timeout_ms)
        self.shown.emit(text, timeout_ms)

    def show_details(self, text: str, details: str) -> None:
        """Show ``text`` until the next message, with *Copy details* copying ``details``."""
        self._details_of, self._details = text, details
        self.show(text)
        button = self._button()
        button.setToolTip("Copy the error's traceback and the versions, for a bug report")
        button.show()

    def copy_details(self) -> None:
        """Put the details of the message shown now on the clipboard."""
        from PySide6.QtGui import QGuiApplication

        QGuiApplication.clipboard().setText(self._details)

    def clear(self) -> None:
        """Remove the message shown now."""
        self._status_bar.clearMessage()

    def withdraw(self, text: str) -> None:
        """Remove ``text`` if it is still the message shown: a hint whose moment has passed
        (*press Send* once something was sent) must not go on saying so."""
        from app.ui.shell.plain_text import shown

        if self._status_bar.currentMessage() == shown(text, multiline=False):
            self._status_bar.clearMessage()

    def _button(self) -> QPushButton:
        if self._copy_button is None:
            from PySide6.QtWidgets import QPushButton

            self._copy_button = QPushButton("Copy details")
            self._copy_button.setObjectName("copyDetailsButton")
            self._copy_button.setFlat(True)
            self._copy_button.clicked.connect(self.copy_details)
            # Permanent (a normal widget would hide behind the message), left of the others.
            self._status_bar.insertPermanentWidget(0, self._copy_button)
            self._status_bar.messageChanged.connect(self._message_changed)
        return self._copy_button

    def _message_changed(self, text: str) -> None:
        # Another message, or none: the details belong to the message they came with.
        if self._copy_button is not None and text != self._details_of:
            self._copy_button.hide()
