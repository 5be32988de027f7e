"""The method badge of a spec-tree row: a short label in the colour of the method's kind,
the way Postman, Insomnia and Bruno show HTTP verbs (``GET`` green, ``POST`` orange,
``DELETE`` red).

A2A methods are all POSTs on the wire, so the kind is what the method does: *send* a
message, *stream* (a streaming send or a resubscription), *read* (get or list tasks, the
extended card), *cancel* (cancel a task, delete a push config) and *push* (the other
push-config methods). Colours come from the theme (``Colours.method_text``); the full
method, binding and version are in the row's tooltip.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from app.protocol.methods.catalog import MethodRole, find_method
from app.protocol.types import ProtocolVersion
from app.ui.shell import theme

BADGE_ROLE = Qt.ItemDataRole.UserRole + 3
"""A row's :class:`Badge` (None: no badge, e.g. a collection or a tag)."""

LABELS = ("SEND", "STREAM", "SUB", "GET", "LIST", "CARD", "CANCEL", "PUSH", "DEL", "RPC")
"""Every label a badge can show (its width is the widest's, so the names line up)."""

TINT_ALPHA = 0.12
"""How much of the kind's colour fills the badge behind its label."""

GAP = 5
"""Pixels between the badge and the name."""


@dataclass(frozen=True, slots=True)
class Badge:
    """What a badge shows: ``label`` in the colour of ``kind``."""

    label: str
    kind: str


_ROLES = {
    MethodRole.SEND: Badge("SEND", "send"),
    MethodRole.STREAM: Badge("STREAM", "stream"),
    MethodRole.SUBSCRIBE: Badge("SUB", "stream"),
    MethodRole.GET: Badge("GET", "read"),
    MethodRole.LIST: Badge("LIST", "read"),
    MethodRole.CANCEL: Badge("CANCEL", "cancel"),
    MethodRole.PUSH_SET: Badge("PUSH", "push"),
    MethodRole.PUSH_GET: Badge("PUSH", "push"),
    MethodRole.PUSH_LIST: Badge("PUSH", "push"),
    MethodRole.PUSH_DELETE: Badge("DEL", "cancel"),
    MethodRole.EXTENDED_CARD: Badge("CARD", "read"),
}


def badge_for(method: str, version: ProtocolVersion) -> Badge:
    """The badge of ``method`` in ``version`` (``RPC`` for a method the catalog lacks)."""
    spec = find_method(version, method)
    if spec is None or spec.role is None:
        return Badge("RPC", "other")
    return _ROLES[spec.role]


def badge_font(base: QFont) -> QFont:
    """The badge's font: ``base``, bold, a quarter smaller."""
    font = QFont(base)
    font.setBold(True)
    size = font.pointSizeF()
    if size > 0:
        font.setPointSizeF(max(6.0, size * 0.75))
    return font


def badge_width(base: QFont) -> int:
    """The width every badge takes in a row drawn in ``base``."""
    metrics = QFontMetrics(badge_font(base))
    return max(metrics.horizontalAdvance(label) for label in LABELS) + 6


def name_offset(base: QFont) -> int:
    """Where a badged row's name starts, from the left of its cell."""
    return 2 + badge_width(base) + GAP


class BadgeDelegate(QStyledItemDelegate):
    """Paints a row's badge (``BADGE_ROLE``) before its name; other rows as usual."""

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        badge = index.data(BADGE_ROLE)
        if not isinstance(badge, Badge):
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        text = opt.text
        opt.text = ""
        widget = opt.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        rect = opt.rect
        width = badge_width(opt.font)
        metrics = QFontMetrics(badge_font(opt.font))
        height = min(rect.height() - 2, metrics.height() + 2)
        box = QRect(rect.left() + 2, rect.center().y() - height // 2 + 1, width, height)
        group = (
            QPalette.ColorGroup.Active
            if opt.state & QStyle.StateFlag.State_Active
            else QPalette.ColorGroup.Inactive
        )
        ink = (
            opt.palette.color(group, QPalette.ColorRole.HighlightedText)
            if selected
            else QColor(theme.colours().method_text.get(badge.kind, theme.colours().text_muted))
        )
        fill = QColor(ink)
        fill.setAlphaF(TINT_ALPHA if not selected else 0.2)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(fill)
        painter.drawRoundedRect(box, 3, 3)
        painter.setFont(badge_font(opt.font))
        painter.setPen(ink)
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, badge.label)
        painter.setFont(opt.font)
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        painter.setPen(opt.palette.color(group, role))
        name_rect = rect.adjusted(name_offset(opt.font), 0, -2, 0)
        elided = QFontMetrics(opt.font).elidedText(
            text, Qt.TextElideMode.ElideRight, name_rect.width()
        )
        painter.drawText(
            name_rect, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), elided
        )
        painter.restore()

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        size = super().sizeHint(option, index)
        if isinstance(index.data(BADGE_ROLE), Badge):
            size.setWidth(size.width() + name_offset(option.font))
        return size
