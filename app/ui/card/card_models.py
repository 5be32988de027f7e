"""Read-only Qt table models for the card panel and the signature dialog.

Each model adapts a tuple of plain, frozen view objects from ``app.protocol`` (``CardView``
parts, ``CardProblem``, ``SignatureResult``, ``CardDiffEntry``) with a column table of
``(title, getter)``: model/view, never a widget per row. ``UseButtonDelegate`` draws the
*Use this interface* button in a column and reports clicks by row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from PySide6.QtCore import (
    QAbstractItemModel,
    QAbstractTableModel,
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QMouseEvent, QPainter
from PySide6.QtWidgets import (
    QApplication,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionButton,
    QStyleOptionViewItem,
    QWidget,
)

from app.protocol.card.card_shape import CardProblem, Severity
from app.protocol.card.diff import CardDiffEntry, DiffKind
from app.protocol.card.jws_verify import SignatureResult, Verdict
from app.protocol.card.view import (
    ExtensionView,
    InterfaceView,
    SecuritySchemeView,
    SignatureView,
    SkillView,
)
from app.ui.shell import theme

_Index = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()
T = TypeVar("T")


def _join(items: Sequence[str], sep: str = ", ") -> str:
    return sep.join(items)


class RowsModel(QAbstractTableModel, Generic[T]):
    """A read-only table of ``rows`` with columns ``(title, text getter)``.

    Subclasses may override :meth:`foreground` and :meth:`tooltip`.
    """

    COLUMNS: Sequence[tuple[str, Callable[[Any], str]]] = ()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._rows: list[T] = []

    def set_rows(self, rows: Sequence[T]) -> None:
        """Replace every row."""
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def rows(self) -> list[T]:
        """The rows, in table order."""
        return list(self._rows)

    def row_at(self, row: int) -> T | None:
        """Row ``row``'s object, or ``None`` when out of range."""
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def rowCount(self, parent: _Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation is Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(self.COLUMNS)
        ):
            return self.COLUMNS[section][0]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        item = self.row_at(index.row()) if index.isValid() else None
        if item is None or not 0 <= index.column() < len(self.COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            text = self.COLUMNS[index.column()][1](item)
            # One line per cell; the tooltip has the rest.
            return text.replace("\n", " ⏎ ")
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tooltip(item, index.column())
        if role == Qt.ItemDataRole.ForegroundRole:
            color = self.foreground(item, index.column())
            return QBrush(color) if color is not None else None
        return None

    def foreground(self, item: T, column: int) -> QColor | None:
        """Text colour of a cell (``None``: the palette's)."""
        return None

    def tooltip(self, item: T, column: int) -> str:
        """Tooltip of a cell: its full text by default."""
        return self.COLUMNS[column][1](item)


class InterfacesModel(RowsModel[InterfaceView]):
    """``supportedInterfaces`` (or the 0.3 ``url`` + ``additionalInterfaces``)."""

    URL, BINDING, VERSION, TENANT, USE = range(5)
    COLUMNS = (
        ("URL", lambda i: i.url or "(no url)"),
        ("Binding", lambda i: i.binding or "?"),
        ("Protocol version", lambda i: i.protocol_version or "?"),
        ("Tenant", lambda i: i.tenant),
        ("", lambda i: "Use this interface"),
    )

    def foreground(self, item: InterfaceView, column: int) -> QColor | None:
        return None if item.speakable else theme.brushes().muted_text.color()

    def tooltip(self, item: InterfaceView, column: int) -> str:
        if column == self.USE:
            return "Set this tab's endpoint, binding, version and tenant from this row"
        text = super().tooltip(item, column)
        if not item.speakable:
            text += (
                f"\nThis app cannot speak {item.binding or '?'} at protocol version "
                f"{item.protocol_version or '?'}"
            )
        if item.source != "supportedInterfaces":
            text += f"\nFrom the 0.3 field '{item.source}'"
        return text


class SkillsModel(RowsModel[SkillView]):
    """``skills``: examples and input/output modes included."""

    COLUMNS = (
        ("ID", lambda s: s.id),
        ("Name", lambda s: s.name),
        ("Description", lambda s: s.description),
        ("Examples", lambda s: _join(s.examples, " · ")),
        ("Input modes", lambda s: _join(s.input_modes) or "(default)"),
        ("Output modes", lambda s: _join(s.output_modes) or "(default)"),
        ("Tags", lambda s: _join(s.tags)),
        ("Security", lambda s: requirements_text(s.security_requirements)),
    )


class SchemesModel(RowsModel[SecuritySchemeView]):
    """``securitySchemes``."""

    COLUMNS = (
        ("Name", lambda s: s.name),
        ("Kind", lambda s: s.kind),
        ("Summary", lambda s: s.summary),
        ("Description", lambda s: s.description),
    )

    def tooltip(self, item: SecuritySchemeView, column: int) -> str:
        return item.raw_json


class CardExtensionsModel(RowsModel[ExtensionView]):
    """``capabilities.extensions``; the URI column has a checkbox: ticked = activate it.

    Signals:
        toggled: (uri, ticked) when the user ticks or unticks an extension.
    """

    toggled = Signal(str, bool)

    COLUMNS = (
        ("URI", lambda e: e.uri or "(no uri)"),
        ("Required", lambda e: "required" if e.required else ""),
        ("Description", lambda e: e.description),
        ("Params", lambda e: e.params_json),
    )

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._ticked: set[str] = set()

    def set_rows(self, rows: Sequence[ExtensionView]) -> None:
        self._ticked &= {r.uri for r in rows}
        super().set_rows(rows)

    def ticked(self) -> list[str]:
        """Ticked URIs, in table order."""
        return [r.uri for r in self._rows if r.uri in self._ticked]

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.CheckStateRole and index.isValid() and index.column() == 0:
            item = self.row_at(index.row())
            if item is None:
                return None
            ticked = item.uri in self._ticked
            return Qt.CheckState.Checked if ticked else Qt.CheckState.Unchecked
        return super().data(index, role)

    def flags(self, index: _Index) -> Qt.ItemFlag:
        flags = super().flags(index)
        item = self.row_at(index.row()) if index.isValid() else None
        if index.column() == 0 and item is not None and item.uri:
            flags |= Qt.ItemFlag.ItemIsUserCheckable
        return flags

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        item = self.row_at(index.row()) if index.isValid() else None
        if item is None or role != Qt.ItemDataRole.CheckStateRole or not item.uri:
            return False
        on = value in (Qt.CheckState.Checked, Qt.CheckState.Checked.value, True)
        if on == (item.uri in self._ticked):
            return True
        if on:
            self._ticked.add(item.uri)
        else:
            self._ticked.discard(item.uri)
        self.dataChanged.emit(index, index, [role])
        self.toggled.emit(item.uri, on)
        return True

    def set_ticked(self, row: int, on: bool) -> None:
        """Tick or untick row ``row`` as the user would."""
        self.setData(
            self.index(row, 0),
            Qt.CheckState.Checked if on else Qt.CheckState.Unchecked,
            Qt.ItemDataRole.CheckStateRole,
        )


class SignaturesModel(RowsModel[SignatureView]):
    """``signatures`` protected headers as text (nothing fetched, nothing verified)."""

    COLUMNS = (
        ("kid", lambda s: s.kid),
        ("alg", lambda s: s.alg),
        ("typ", lambda s: s.typ),
        ("jku (not followed)", lambda s: s.jku),
        ("Problem", lambda s: s.error),
    )

    def foreground(self, item: SignatureView, column: int) -> QColor | None:
        return theme.brushes().error_text.color() if item.error else None

    def tooltip(self, item: SignatureView, column: int) -> str:
        return item.header_json or item.error


class ProblemsModel(RowsModel[CardProblem]):
    """Validation problems: severity, JSON path, message."""

    COLUMNS = (
        ("Severity", lambda p: p.severity.value),
        ("Path", lambda p: p.path or "(card)"),
        ("Problem", lambda p: p.message),
    )

    def foreground(self, item: CardProblem, column: int) -> QColor | None:
        if column != 0:
            return None
        b = theme.brushes()
        brush = {Severity.ERROR: b.error_text, Severity.WARNING: b.warn_text}.get(item.severity)
        return (brush or b.muted_text).color()


class DiffModel(RowsModel[CardDiffEntry]):
    """Public vs. extended card differences."""

    COLUMNS = (
        ("Change", lambda d: d.kind.value),
        ("Path", lambda d: d.path or "(card)"),
        ("Public card", lambda d: d.before),
        ("Extended card", lambda d: d.after),
    )

    def foreground(self, item: CardDiffEntry, column: int) -> QColor | None:
        if column != 0:
            return None
        b = theme.brushes()
        brush = {DiffKind.ADDED: b.ok_text, DiffKind.REMOVED: b.error_text}.get(item.kind)
        return (brush or b.warn_text).color()


class VerdictModel(RowsModel[SignatureResult]):
    """One row per ``signatures[]`` entry with its verdict."""

    VERDICT = 1
    COLUMNS = (
        ("#", lambda r: str(r.index)),
        ("Verdict", lambda r: r.label),
        ("kid", lambda r: r.kid or ""),
        ("alg", lambda r: r.alg or ""),
        ("Profile / reason", lambda r: verdict_detail(r)),
        ("Details", lambda r: r.message),
    )

    def foreground(self, item: SignatureResult, column: int) -> QColor | None:
        if column != self.VERDICT:
            return None
        b = theme.brushes()
        if item.verdict is Verdict.VALID:
            return (b.warn_text if item.sdk_canonicalisation_only else b.ok_text).color()
        return (b.error_text if item.verdict is Verdict.INVALID else b.warn_text).color()

    def tooltip(self, item: SignatureResult, column: int) -> str:
        return "\n".join([item.message, *item.notes])


def verdict_detail(result: SignatureResult) -> str:
    """The matched profile for a valid signature, the reason otherwise."""
    if result.profile is not None and result.verdict is Verdict.VALID:
        return result.profile.value
    if result.reason is not None:
        return result.reason.value
    return ""


def requirements_text(reqs: Sequence[Any]) -> str:
    """``bearerAuth OR (apiKey AND oauth[read])`` style text of security requirements."""
    alternatives = []
    for req in reqs:
        parts = [f"{name}[{' '.join(scopes)}]" if scopes else name for name, scopes in req.schemes]
        text = " AND ".join(parts) or "(none)"
        alternatives.append(f"({text})" if len(parts) > 1 else text)
    return " OR ".join(alternatives)


class UseButtonDelegate(QStyledItemDelegate):
    """Draws a push button in a column and emits ``clicked(row)`` when it is pressed.

    Signals:
        clicked: the row whose button was clicked.
    """

    clicked = Signal(int)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        button = QStyleOptionButton()
        button.rect = option.rect.adjusted(2, 2, -2, -2)
        button.text = str(index.data(Qt.ItemDataRole.DisplayRole) or "")
        button.state = QStyle.StateFlag.State_Enabled | QStyle.StateFlag.State_Raised
        widget = option.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_PushButton, button, painter, widget)

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> Any:
        hint = super().sizeHint(option, index)
        hint.setWidth(hint.width() + 24)
        return hint

    def editorEvent(
        self,
        event: QEvent,
        model: QAbstractItemModel,
        option: QStyleOptionViewItem,
        index: _Index,
    ) -> bool:
        if (
            event.type() == QEvent.Type.MouseButtonRelease
            and isinstance(event, QMouseEvent)
            and event.button() == Qt.MouseButton.LeftButton
            and option.rect.contains(event.position().toPoint())
        ):
            self.clicked.emit(index.row())
            return True
        return super().editorEvent(event, model, option, index)
