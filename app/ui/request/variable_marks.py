"""``{{variable}}`` marks in a one-line field (the request tab's endpoint).

Before anything is sent the field shows which references resolve: an unresolved one is
underlined with a red wave, a resolved one is drawn in the link colour. Hovering a
reference shows its value (masked when secret) and where it comes from (the environment,
``--var``, the demo agent, ``A2A_WB_<NAME>``, the keyring), or how to give it a value.

QLineEdit has no public API for styling part of its text; the formats travel in a
``QInputMethodEvent`` with an empty pre-edit string, which QLineEdit keeps as extra
formats of its text layout (the way input methods underline what is being composed).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QEvent, QObject
from PySide6.QtGui import QColor, QHelpEvent, QInputMethodEvent, QPalette, QTextCharFormat
from PySide6.QtWidgets import QApplication, QLineEdit, QToolTip

from app.spec.variables import VARIABLE, Resolver
from app.ui.shell import theme

MASK = "••••••••"
UNRESOLVED_PROPERTY = "unresolvedVariables"
"""Dynamic property of the field: the unresolved names, comma-separated ("" when none)."""


def describe(resolver: Resolver | None, name: str) -> str:
    """The hover text of ``{{name}}``."""
    if resolver is None:
        return f"{{{{{name}}}}}: this request is sent as typed (no variables are resolved)"
    origin = resolver.origin(name)
    if origin.value is None:
        return resolver.missing_message(name, "endpoint")
    value = MASK if origin.secret else origin.value
    kind = "secret, " if origin.secret else ""
    return f"{{{{{name}}}}} = {value}\n({kind}from {origin.source})"


class VariableMarks(QObject):
    """Marks the references of ``edit``'s text, resolved by ``resolver()``; call
    :meth:`refresh` when the resolver changes (the field's edits refresh by themselves)."""

    def __init__(self, edit: QLineEdit, resolver: Callable[[], Resolver | None]) -> None:
        super().__init__(edit)
        self.edit = edit
        self._resolver = resolver
        self.unresolved: list[str] = []
        self._formatted = False
        edit.installEventFilter(self)
        edit.textChanged.connect(self.refresh)
        # The marks carry colours of the theme they were drawn in: redrawn in the new one
        # (a light theme's link blue is unreadable on the dark field).
        theme.manager().changed.connect(self.refresh)
        self.refresh()

    def refresh(self, *_args: object) -> None:
        """Recompute the marks and the field's tooltip."""
        text = self.edit.text()
        resolver = self._resolver()
        spans = [(m.start(), m.end() - m.start(), m.group(1)) for m in VARIABLE.finditer(text)]
        missing = (
            [n for _, _, n in spans if resolver.lookup(n) is None] if resolver is not None else []
        )
        self.unresolved = list(dict.fromkeys(missing))
        self.edit.setProperty(UNRESOLVED_PROPERTY, ",".join(self.unresolved))
        if self.unresolved and resolver is not None:
            self.edit.setToolTip(
                "\n".join(resolver.missing_message(n, "endpoint") for n in self.unresolved)
            )
        else:
            self.edit.setToolTip("")
        self._apply_formats(spans, set(missing))

    def _apply_formats(self, spans: list[tuple[int, int, str]], missing: set[str]) -> None:
        if not spans and not self._formatted:
            return  # plain text: no event that could disturb an input method's composing
        self._formatted = bool(spans)
        bad = QTextCharFormat()
        bad.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
        error = QColor(theme.colours().text_error)
        bad.setUnderlineColor(error)
        bad.setForeground(error)
        good = QTextCharFormat()
        # The application's palette: the field's own follows a theme change only later.
        good.setForeground(QApplication.palette().color(QPalette.ColorRole.Link))
        cursor = self.edit.cursorPosition()
        kind = QInputMethodEvent.AttributeType.TextFormat
        attributes = [
            QInputMethodEvent.Attribute(
                kind, start - cursor, length, bad if name in missing else good
            )
            for start, length, name in spans
        ]
        QCoreApplication.sendEvent(self.edit, QInputMethodEvent("", attributes))

    def name_at(self, x: int, y: int) -> str | None:
        """The reference under the point ``(x, y)`` of the field, if any."""
        from PySide6.QtCore import QPoint

        position = self.edit.cursorPositionAt(QPoint(x, y))
        for match in VARIABLE.finditer(self.edit.text()):
            if match.start() <= position < match.end():
                return match.group(1)
        return None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.edit and event.type() == QEvent.Type.ToolTip:
            assert isinstance(event, QHelpEvent)
            name = self.name_at(event.pos().x(), event.pos().y())
            if name is not None:
                QToolTip.showText(event.globalPos(), describe(self._resolver(), name), self.edit)
                return True
        return super().eventFilter(watched, event)
