"""The app's one icon set: Qt's standard icons (``QStyle.standardIcon``), named for what they
mean here, so that a menu entry, a button and a status cell use the same picture for the
same thing in every theme and on every platform (each style draws its own native set).

Menu actions get theirs by objectName (:data:`ACTION_ICONS`, applied once the menus are
complete); a widget asks :func:`icon` or :func:`status_icon`.
"""

from __future__ import annotations

from PySide6.QtGui import QAction, QIcon
from PySide6.QtWidgets import QApplication, QStyle, QWidget

from app.ui.shell.theme import Status

_SP = QStyle.StandardPixmap

ICONS = {
    "new": _SP.SP_FileIcon,
    "open": _SP.SP_DialogOpenButton,
    "save": _SP.SP_DialogSaveButton,
    "import": _SP.SP_FileDialogNewFolder,
    "close": _SP.SP_DialogCloseButton,
    "reopen": _SP.SP_ArrowBack,
    "quit": _SP.SP_DialogCancelButton,
    "send": _SP.SP_MediaPlay,
    "cancel": _SP.SP_BrowserStop,
    "fetch": _SP.SP_BrowserReload,
    "verify": _SP.SP_DialogApplyButton,
    "settings": _SP.SP_FileDialogDetailedView,
    "help": _SP.SP_DialogHelpButton,
    "about": _SP.SP_MessageBoxInformation,
    "delete": _SP.SP_TrashIcon,
    "export": _SP.SP_DialogSaveButton,
}
"""Meaning → Qt standard pixmap."""

STATUS_ICONS = {
    Status.OK: _SP.SP_DialogApplyButton,
    Status.ERROR: _SP.SP_MessageBoxCritical,
    Status.WARNING: _SP.SP_MessageBoxWarning,
    Status.STREAMING: _SP.SP_MediaPlay,
    Status.CANCELLED: _SP.SP_DialogCancelButton,
    Status.NEUTRAL: _SP.SP_MessageBoxQuestion,
}
"""Each :class:`~app.ui.shell.theme.Status`, as a picture beside its colour."""

ACTION_ICONS = {
    "newA2ARequestAction": "new",
    "openSpecAction": "open",
    "saveToSpecAction": "save",
    "importAction": "import",
    "closeTabAction": "close",
    "reopenClosedTabAction": "reopen",
    "quitAction": "quit",
    "settingsAction": "settings",
    "sendRequestAction": "send",
    "cancelRequestAction": "cancel",
    "fetchCardAction": "fetch",
    "verifyCardAction": "verify",
    "keyboardShortcutsAction": "help",
    "aboutAction": "about",
}
"""Menu actions (objectName) and their meaning. Checkable ones (the panels in View) have
none: a menu shows an icon in place of the check mark."""


def icon(name: str) -> QIcon:
    """The icon meaning ``name`` (a key of :data:`ICONS`) in the application's style."""
    return QApplication.style().standardIcon(ICONS[name])


def status_icon(status: Status) -> QIcon:
    """The icon shown beside ``status``'s colour."""
    return QApplication.style().standardIcon(STATUS_ICONS[status])


def decorate_actions(window: QWidget) -> None:
    """Give ``window``'s menu actions their icons (:data:`ACTION_ICONS`)."""
    for name, meaning in ACTION_ICONS.items():
        action = window.findChild(QAction, name)
        if action is not None:
            action.setIcon(icon(meaning))
