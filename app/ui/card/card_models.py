"""Read-only Qt table models for the card panel and the signature dialog.

Each model adapts a tuple of plain, frozen view objects from ``app.protocol`` (``CardView``
parts, ``CardProblem``, ``SignatureResult``, ``CardDiffEntry``) with a column table
(:class:`app.ui.shell.table_model.Column`): model/view, never a widget per row. Cells are one
line; the tooltip has the rest. ``UseButtonDelegate`` draws the *Use this interface* button
in a column and reports clicks by row.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QMouseEvent, QPainter
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
from app.ui.shell.table_model import Column, TableModel

_Index = QModelIndex | QPersistentModelIndex


def _join(items: Sequence[str], sep: str = ", ") -> str:
    return sep.join(items)


class InterfacesModel(TableModel[InterfaceView]):
    """``supportedInterfaces`` (or the 0.3 ``url`` + ``additionalInterfaces``)."""

    URL, BINDING, VERSION, TENANT, USE = range(5)
    ONE_LINE = True
    COLUMNS = (
        Column("URL", lambda i: i.url or "(no url)"),
        Column("Binding", lambda i: i.binding or "?"),
        Column("Version", lambda i: i.protocol_version or "?"),  # its protocolVersion
        Column("Tenant", lambda i: i.tenant),
        Column(
            "",
            lambda i: "Use this interface",
            tooltip=lambda i: "Set this tab's endpoint, binding, version and tenant from this row",
        ),
    )

    def foreground(self, row: InterfaceView, column: int) -> QBrush | None:
        return None if row.speakable else theme.brushes().muted_text

    def tooltip(self, row: InterfaceView, column: int) -> str | None:
        text = super().tooltip(row, column) or ""
        if column == self.USE:
            return text
        if not row.speakable:
            text += (
                f"\nThis app cannot speak {row.binding or '?'} at protocol version "
                f"{row.protocol_version or '?'}"
            )
        if row.source != "supportedInterfaces":
            text += f"\nFrom the 0.3 field '{row.source}'"
        return text


class SkillsModel(TableModel[SkillView]):
    """``skills``: examples and input/output modes included."""

    ONE_LINE = True
    COLUMNS = (
        Column("ID", lambda s: s.id),
        Column("Name", lambda s: s.name),
        Column("Description", lambda s: s.description),
        Column("Examples", lambda s: _join(s.examples, " · ")),
        Column("Input modes", lambda s: _join(s.input_modes) or "(default)"),
        Column("Output modes", lambda s: _join(s.output_modes) or "(default)"),
        Column("Tags", lambda s: _join(s.tags)),
        Column("Security", lambda s: requirements_text(s.security_requirements)),
    )


def _scheme_json(scheme: SecuritySchemeView) -> str:
    return scheme.raw_json


class SchemesModel(TableModel[SecuritySchemeView]):
    """``securitySchemes``; every cell's tooltip is the scheme's JSON."""

    ONE_LINE = True
    COLUMNS = (
        Column("Name", lambda s: s.name, tooltip=_scheme_json),
        Column("Kind", lambda s: s.kind, tooltip=_scheme_json),
        Column("Summary", lambda s: s.summary, tooltip=_scheme_json),
        Column("Description", lambda s: s.description, tooltip=_scheme_json),
    )


class CardExtensionsModel(TableModel[ExtensionView]):
    """``capabilities.extensions``; the URI column has a checkbox: ticked = activate it.

    Signals:
        toggled: (uri, ticked) when the user ticks or unticks an extension.
    """

    toggled = Signal(str, bool)

    ONE_LINE = True
    COLUMNS = (
        Column("URI", lambda e: e.uri or "(no uri)"),
        Column("Required", lambda e: "required" if e.required else ""),
        Column("Description", lambda e: e.description),
        Column("Params", lambda e: e.params_json),
    )

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._ticked: set[str] = set()

    def set_rows(self, rows: Iterable[ExtensionView]) -> None:
        rows = list(rows)
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


class SignaturesModel(TableModel[SignatureView]):
    """``signatures`` protected headers as text (nothing fetched, nothing verified)."""

    ONE_LINE = True
    COLUMNS = (
        Column("kid", lambda s: s.kid),
        Column("alg", lambda s: s.alg),
        Column("typ", lambda s: s.typ),
        Column("jku (not followed)", lambda s: s.jku),
        Column("Problem", lambda s: s.error),
    )

    def foreground(self, row: SignatureView, column: int) -> QBrush | None:
        return theme.brushes().error_text if row.error else None

    def tooltip(self, row: SignatureView, column: int) -> str | None:
        return row.header_json or row.error


def _severity_brush(problem: CardProblem) -> QBrush:
    b = theme.brushes()
    return {Severity.ERROR: b.error_text, Severity.WARNING: b.warn_text}.get(
        problem.severity, b.muted_text
    )


class ProblemsModel(TableModel[CardProblem]):
    """Validation problems: severity, JSON path, message."""

    ONE_LINE = True
    COLUMNS = (
        Column("Severity", lambda p: p.severity.value, foreground=_severity_brush),
        Column("Path", lambda p: p.path or "(card)"),
        Column("Problem", lambda p: p.message),
    )


def _change_brush(entry: CardDiffEntry) -> QBrush:
    b = theme.brushes()
    return {DiffKind.ADDED: b.ok_text, DiffKind.REMOVED: b.error_text}.get(entry.kind, b.warn_text)


class DiffModel(TableModel[CardDiffEntry]):
    """Public vs. extended card differences."""

    ONE_LINE = True
    COLUMNS = (
        Column("Change", lambda d: d.kind.value, foreground=_change_brush),
        Column("Path", lambda d: d.path or "(card)"),
        Column("Public card", lambda d: d.before),
        Column("Extended card", lambda d: d.after),
    )


def _verdict_brush(result: SignatureResult) -> QBrush:
    b = theme.brushes()
    if result.verdict is Verdict.VALID:
        return b.warn_text if result.sdk_canonicalisation_only else b.ok_text
    return b.error_text if result.verdict is Verdict.INVALID else b.warn_text


class VerdictModel(TableModel[SignatureResult]):
    """One row per ``signatures[]`` entry with its verdict."""

    VERDICT = 1
    ONE_LINE = True
    COLUMNS = (
        Column("#", lambda r: str(r.index)),
        Column("Verdict", lambda r: r.label, foreground=_verdict_brush),
        Column("kid", lambda r: r.kid or ""),
        Column("alg", lambda r: r.alg or ""),
        Column("Profile / reason", lambda r: verdict_detail(r)),
        Column("Details", lambda r: r.message),
    )

    def tooltip(self, row: SignatureResult, column: int) -> str | None:
        return "\n".join([row.message, *row.notes])


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
