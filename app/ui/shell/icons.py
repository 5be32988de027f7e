"""The app's one icon set: Qt's standard icons (``QStyle.standardIcon``), named for what they
mean here, so that a menu entry, a button and a status cell use the same picture for the
same thing in every theme and on every platform (each style draws its own native set).

Menu actions get theirs by objectName (:data:`ACTION_ICONS`, applied once the menus are
complete); a widget asks :func:`icon` or :func:`status_icon`.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QColor, QIcon, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import QApplication, QStyle, QWidget

from app.ui.shell import theme
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

GLYPHS = frozenset({"close", "reopen", "send"})
"""Plain black shapes in Qt's set: drawn in the palette's text colour instead, so that they
show on a dark menu as on a light one."""

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
    """The icon meaning ``name`` (a key of :data:`ICONS`) in the application's style and
    the current theme."""
    base = QApplication.style().standardIcon(ICONS[name])
    return _in_text_colour(base) if name in GLYPHS else base


def _in_text_colour(base: QIcon) -> QIcon:
    colour = QApplication.palette().color(QPalette.ColorRole.WindowText)
    tinted = QIcon()
    for size in (16, 24, 32):
        shape = base.pixmap(size, size)
        pixmap = QPixmap(shape.size())
        pixmap.setDevicePixelRatio(shape.devicePixelRatio())
        pixmap.fill(QColor.fromRgba(0))  # transparent: the shape alone is painted
        painter = QPainter(pixmap)
        painter.drawPixmap(0, 0, shape)
        painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceIn)
        painter.fillRect(pixmap.rect(), colour)
        painter.end()
        tinted.addPixmap(pixmap)
    return tinted


def status_icon(status: Status) -> QIcon:
    """The icon shown beside ``status``'s colour."""
    return QApplication.style().standardIcon(STATUS_ICONS[status])


def decorate_actions(window: QWidget) -> None:
    """Give ``window``'s menu actions their icons (:data:`ACTION_ICONS`), again after every
    theme change (the glyphs follow the text colour)."""
    _Decorator(window).refresh()


class _Decorator(QObject):
    # A child of the window: the theme's signal lets go of it with the window.
    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self._window = window
        theme.manager().changed.connect(self.refresh)

    def refresh(self, _dark: bool = False) -> None:
        for name, meaning in ACTION_ICONS.items():
            action = self._window.findChild(QAction, name)
            if action is not None:
                action.setIcon(icon(meaning))
