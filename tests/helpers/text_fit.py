"""Which texts of a window are cut: every visible label, button and tab, measured.

A text is cut when the font's advance of it is wider than the room its widget paints it
in (a label's contents rect, a button's contents sub-element, a tab's rect), or when a tab
bar hides tabs behind its scroll arrows. Labels that elide on purpose and keep the whole
text in their tooltip (``app/ui/shell/elided.py``) are not cut; neither are word-wrapped
labels that are tall enough for their lines.
"""

from __future__ import annotations

from PySide6.QtGui import Qt, QTextDocument  # QtGui's Qt adds mightBeRichText
from PySide6.QtWidgets import (
    QAbstractButton,
    QCheckBox,
    QLabel,
    QPushButton,
    QRadioButton,
    QStyle,
    QStyleOptionButton,
    QTabBar,
    QToolButton,
    QWidget,
)

from app.ui.shell.elided import ElidedLabel


def _visible(widget: QWidget) -> bool:
    return widget.isVisible() and widget.width() > 0 and widget.height() > 0


def _plain(label: QLabel) -> str:
    text = label.text()
    rich = label.textFormat() == Qt.TextFormat.RichText or (
        label.textFormat() == Qt.TextFormat.AutoText and Qt.mightBeRichText(text)
    )
    if not rich:
        return text
    doc = QTextDocument()
    doc.setHtml(text)
    return doc.toPlainText()


def _label_width(label: QLabel) -> int:
    """The width ``label``'s text needs on one line (rich text laid out as Qt does)."""
    text = label.text()
    if _plain(label) != text:  # rich text: bold runs are wider than the plain advance
        doc = QTextDocument()
        doc.setDefaultFont(label.font())
        doc.setDocumentMargin(0)
        doc.setHtml(text)
        return int(doc.idealWidth() + 0.999)
    return max(label.fontMetrics().horizontalAdvance(line) for line in text.split("\n"))


def cut_label(label: QLabel) -> str | None:
    """Why ``label``'s text does not show whole, or None."""
    text = _plain(label)
    if not text.strip() or not label.pixmap().isNull():
        return None
    if isinstance(label, ElidedLabel) and label.toolTip() == label.text():
        return None  # elided on purpose: the tooltip has it whole
    room = label.contentsRect()
    room_width = room.width() - 2 * max(label.margin(), 0) - max(label.indent(), 0)
    if label.wordWrap():
        need = label.heightForWidth(label.width())
        if need > label.height() + 1:
            return f"{need} px of wrapped text in {label.height()} px"
        return None
    need = _label_width(label)
    if need > room_width:
        return f"{need} px of text in {room_width} px"
    return None


def cut_button(button: QAbstractButton) -> str | None:
    """Why ``button``'s text does not show whole, or None."""
    text = button.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
    if not text.strip():
        return None
    metrics = button.fontMetrics()
    need = metrics.horizontalAdvance(text)
    if not button.icon().isNull():
        need += button.iconSize().width() + 4
    if isinstance(button, QPushButton):
        option = QStyleOptionButton()
        option.initFrom(button)
        option.text = text
        room = (
            button.style()
            .subElementRect(QStyle.SubElement.SE_PushButtonContents, option, button)
            .width()
        )
    elif isinstance(button, QCheckBox | QRadioButton):
        option = QStyleOptionButton()
        option.initFrom(button)
        element = (
            QStyle.SubElement.SE_CheckBoxContents
            if isinstance(button, QCheckBox)
            else QStyle.SubElement.SE_RadioButtonContents
        )
        room = button.style().subElementRect(element, option, button).width()
    elif isinstance(button, QToolButton):
        if button.toolButtonStyle() == Qt.ToolButtonStyle.ToolButtonIconOnly:
            return None
        return None if button.sizeHint().width() <= button.width() else "narrower than its hint"
    else:
        room = button.contentsRect().width()
    if need > room:
        return f"{need} px of text in {room} px"
    return None


def cut_tabs(bar: QTabBar) -> list[str]:
    """Tabs of ``bar`` shown shorter than their text, or hidden behind its scroll arrows."""
    found: list[str] = []
    sides = (QTabBar.ButtonPosition.LeftSide, QTabBar.ButtonPosition.RightSide)
    on_tabs = {bar.tabButton(i, side) for i in range(bar.count()) for side in sides}
    arrows = [b for b in bar.findChildren(QToolButton) if b.isVisible() and b not in on_tabs]
    if arrows:
        found.append("tabs behind the scroll arrows")
    for i in range(bar.count()):
        if not bar.isTabVisible(i):
            continue
        rect, hint = bar.tabRect(i), bar.tabSizeHint(i)
        if rect.width() < hint.width():
            found.append(f"tab {bar.tabText(i)!r}: {rect.width()} px of {hint.width()}")
    return found


def cut_texts(root: QWidget) -> list[str]:
    """Every visible label, button and tab under ``root`` whose text is cut, described."""
    found: list[str] = []

    def name(widget: QWidget) -> str:
        chain = []
        w: QWidget | None = widget
        while w is not None and w is not root and len(chain) < 4:
            if w.objectName():
                chain.append(w.objectName())
            w = w.parentWidget()
        return f"{type(widget).__name__}[{'/'.join(reversed(chain))}]"

    for label in root.findChildren(QLabel):
        if _visible(label) and (why := cut_label(label)):
            found.append(f"{name(label)} {_plain(label)!r}: {why}")
    for button in root.findChildren(QAbstractButton):
        if _visible(button) and (why := cut_button(button)):
            found.append(f"{name(button)} {button.text()!r}: {why}")
    for bar in root.findChildren(QTabBar):
        if _visible(bar):
            found += [f"{name(bar)}: {why}" for why in cut_tabs(bar)]
    return found
