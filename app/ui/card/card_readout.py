"""The card panel's read-out: the overview of facts and the section pages of one card.

Overview: one selectable label per fact (name, description, shape, versions, provider, URLs,
capabilities, modes, security). Sections: interfaces (with *Use this interface*), skills,
security schemes, extensions, signatures, problems, the extended card and the raw exchange.
Everything is filled from a :class:`~app.protocol.card.view.CardView` and its problems;
the panel owns what happens on a click.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractScrollArea,
    QFormLayout,
    QHeaderView,
    QLabel,
    QScrollArea,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.protocol.card.card_shape import CardProblem, CardShape, Severity
from app.protocol.card.fetch import CardFetchResult
from app.protocol.card.view import CardView
from app.ui.card.card_models import (
    CardExtensionsModel,
    InterfacesModel,
    ProblemsModel,
    SchemesModel,
    SignaturesModel,
    SkillsModel,
    UseButtonDelegate,
    requirements_text,
)
from app.ui.card.extended_card import ExtendedCardView
from app.ui.shell.plain_text import PlainLabel
from app.ui.shell.table_model import TableModel
from app.ui.shell.widgets import CodeView
from app.ui.shell.wrapping_tabs import WrappingTabs

SHAPE_TEXT = {
    CardShape.V1_0: "pure 1.0 — supportedInterfaces, no 0.3 fields",
    CardShape.V0_3: "pure 0.3 — url + preferredTransport + additionalInterfaces",
    CardShape.HYBRID: (
        "hybrid — a 1.0 card with the 0.3 mirror fields merged in (as the Python SDK "
        "serves it); a 1.0 signature does not cover the 0.3 fields"
    ),
    CardShape.NOT_A_CARD: "not a card — the document is not a JSON object",
}


def _table(name: str, model: TableModel[Any]) -> QTableView:
    table = QTableView()
    table.setObjectName(name)
    table.setModel(model)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setWordWrap(False)
    table.setAlternatingRowColors(True)
    table.verticalHeader().hide()
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setStretchLastSection(True)
    return table


def _note(text: str) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    font = label.font()
    font.setItalic(True)
    label.setFont(font)
    return label


def _page(*widgets: QWidget, stretch_index: int = -1) -> QWidget:
    page = QWidget()
    layout = QVBoxLayout(page)
    layout.setContentsMargins(4, 4, 4, 4)
    for i, widget in enumerate(widgets):
        layout.addWidget(widget, 1 if i == (stretch_index % len(widgets)) else 0)
    return page


def _value_label(name: str) -> QLabel:
    # The card's own words: plain text (a name of "<img src=…>" stays text), control
    # characters escaped.
    label = PlainLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class CardReadout(QSplitter):
    """Overview above, section pages below (``objectName`` ``cardSplitter``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Vertical, parent)
        self.setObjectName("cardSplitter")
        # Overview: one selectable label per fact.
        self.name_label = _value_label("cardNameLabel")
        self.name_label.setStyleSheet("font-size: 14pt; font-weight: bold;")
        self.description_label = _value_label("cardDescriptionLabel")
        self.provider_label = _value_label("cardProviderLabel")
        self.version_label = _value_label("cardVersionLabel")
        self.icon_label = _value_label("cardIconUrlLabel")
        self.icon_label.setToolTip("Shown as text; the app never fetches images")
        self.docs_label = _value_label("cardDocumentationLabel")
        self.protocols_label = _value_label("cardProtocolVersionsLabel")
        self.shape_label = _value_label("cardShapeLabel")
        self.capabilities_label = _value_label("cardCapabilitiesLabel")
        self.modes_label = _value_label("cardModesLabel")
        self.security_label = _value_label("cardSecurityLabel")
        overview = QWidget()
        form = QFormLayout(overview)
        form.setContentsMargins(6, 6, 6, 6)
        form.setVerticalSpacing(4)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.DontWrapRows)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow(self.name_label)
        form.addRow("Description", self.description_label)
        form.addRow("Shape", self.shape_label)
        form.addRow("Protocol versions", self.protocols_label)
        form.addRow("Agent version", self.version_label)
        form.addRow("Provider", self.provider_label)
        form.addRow("Icon URL", self.icon_label)
        form.addRow("Documentation", self.docs_label)
        form.addRow("Capabilities", self.capabilities_label)
        form.addRow("Default modes", self.modes_label)
        form.addRow("Security", self.security_label)
        scroll = QScrollArea()
        scroll.setObjectName("cardOverview")
        scroll.setWidgetResizable(True)
        scroll.setWidget(overview)

        self.interfaces_model = InterfacesModel(self)
        self.interfaces_table = _table("cardInterfacesTable", self.interfaces_model)
        self.use_delegate = UseButtonDelegate(self.interfaces_table)
        self.interfaces_table.setItemDelegateForColumn(InterfacesModel.USE, self.use_delegate)
        self.interfaces_table.horizontalHeader().setStretchLastSection(False)
        self.interfaces_table.horizontalHeader().setSectionResizeMode(
            InterfacesModel.URL, QHeaderView.ResizeMode.Stretch
        )
        self.skills_model = SkillsModel(self)
        self.skills_table = _table("cardSkillsTable", self.skills_model)
        self.schemes_model = SchemesModel(self)
        self.schemes_table = _table("cardSchemesTable", self.schemes_model)
        self.extensions_model = CardExtensionsModel(self)
        self.extensions_table = _table("cardExtensionsTable", self.extensions_model)
        self.signatures_model = SignaturesModel(self)
        self.signatures_table = _table("cardSignaturesTable", self.signatures_model)
        self.problems_model = ProblemsModel(self)
        self.problems_table = _table("cardProblemsTable", self.problems_model)
        self.extended_view = ExtendedCardView()
        self.exchange_view = CodeView("cardExchangeView", read_only=True, json=False)
        self.raw_view = CodeView("cardRawView", read_only=True)
        raw_split = QSplitter(Qt.Orientation.Vertical)
        raw_split.addWidget(self.exchange_view)
        raw_split.addWidget(self.raw_view)
        raw_split.setSizes([120, 400])

        # Eight sections: their titles wrap onto a second row in a narrow pane.
        self.sections = WrappingTabs()
        self.sections.setObjectName("cardSections")
        self.sections.addTab(
            _page(
                self.interfaces_table,
                _note(
                    "“Use this interface” (or a double-click) sets this tab's endpoint, "
                    "binding, version and tenant. Grey rows use a version or binding this "
                    "app cannot speak."
                ),
                stretch_index=0,
            ),
            "Interfaces",
        )
        self.sections.addTab(self.skills_table, "Skills")
        self.sections.addTab(
            _page(
                self.schemes_table,
                _note("Requirements are listed in the overview (Security)."),
                stretch_index=0,
            ),
            "Security",
        )
        self.sections.addTab(
            _page(
                self.extensions_table,
                _note("Ticking an extension adds it to this tab's A2A-Extensions header."),
                stretch_index=0,
            ),
            "Extensions",
        )
        self.sections.addTab(
            _page(
                self.signatures_table,
                _note(
                    "Protected headers as text. jku / x5u URLs are shown, never followed. "
                    "Use “Verify signature…” with a JWKS you trust."
                ),
                stretch_index=0,
            ),
            "Signatures",
        )
        self.problems_index = self.sections.addTab(self.problems_table, "Problems")
        self.extended_index = self.sections.addTab(self.extended_view, "Extended card")
        self.raw_index = self.sections.addTab(raw_split, "Raw")

        # Every list and text may shrink to a few lines (they scroll): the card page never
        # makes the window taller than a laptop's screen.
        line = self.fontMetrics().height()
        scroll.setMinimumHeight(3 * line + 8)
        for view in self.sections.findChildren(QAbstractScrollArea):
            view.setMinimumHeight(2 * line + 10)
        self.addWidget(scroll)
        self.addWidget(self.sections.widget_with_bar())
        self.setSizes([330, 360])
        self.setChildrenCollapsible(False)

    def set_raw(self, raw: bytes) -> None:
        """Show ``raw`` as text in the *Raw* page (undecodable bytes escaped)."""
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = "(not valid UTF-8; undecodable bytes shown as \\x..)\n" + raw.decode(
                "utf-8", errors="backslashreplace"
            )
        self.raw_view.set_text(text)

    def fill(self, view: CardView | None, problems: Sequence[CardProblem]) -> None:
        """Fill every label and table from ``view`` (``None``: no card) and ``problems``."""
        v = view or CardView(CardShape.NOT_A_CARD)
        self.name_label.setText(v.name or ("(no name)" if view is not None else "No card"))
        self.description_label.setText(v.description or "—")
        self.shape_label.setText(SHAPE_TEXT[v.shape] if view is not None else "—")
        self.protocols_label.setText(", ".join(v.protocol_versions) or "—")
        self.version_label.setText(v.version or "—")
        provider = v.provider
        self.provider_label.setText(
            " · ".join(x for x in (provider.organization, provider.url) if x) or "—"
            if provider is not None
            else "—"
        )
        self.icon_label.setText(v.icon_url or "—")
        self.docs_label.setText(v.documentation_url or "—")
        self.capabilities_label.setText(_capabilities_text(v) if view is not None else "—")
        modes = f"in: {', '.join(v.default_input_modes) or '—'} · "
        modes += f"out: {', '.join(v.default_output_modes) or '—'}"
        self.modes_label.setText(modes if view is not None else "—")
        reqs = requirements_text(v.security_requirements)
        schemes = ", ".join(s.name for s in v.security_schemes)
        security = f"requires {reqs}" if reqs else "no card-level requirement"
        if schemes:
            security += f" · schemes: {schemes}"
        self.security_label.setText(security if view is not None else "—")

        self.interfaces_model.set_rows(v.interfaces)
        self.skills_model.set_rows(v.skills)
        self.schemes_model.set_rows(v.security_schemes)
        self.extensions_model.set_rows(v.capabilities.extensions)
        self.signatures_model.set_rows(v.signatures)
        self.problems_model.set_rows(problems)
        for table in (
            self.interfaces_table,
            self.skills_table,
            self.schemes_table,
            self.extensions_table,
            self.signatures_table,
            self.problems_table,
        ):
            table.resizeColumnsToContents()
        self.interfaces_table.horizontalHeader().setSectionResizeMode(
            InterfacesModel.URL, QHeaderView.ResizeMode.Stretch
        )
        errors = sum(1 for p in problems if p.severity is Severity.ERROR)
        self.sections.setTabText(
            self.problems_index,
            f"Problems ({len(problems)}{f', {errors} errors' if errors else ''})"
            if problems
            else "Problems",
        )
        labels = {
            0: f"Interfaces ({len(v.interfaces)})",
            1: f"Skills ({len(v.skills)})",
            3: f"Extensions ({len(v.capabilities.extensions)})",
            4: f"Signatures ({len(v.signatures)})",
        }
        for index, text in labels.items():
            self.sections.setTabText(index, text)


def _capabilities_text(view: CardView) -> str:
    caps = view.capabilities

    def flag(name: str, value: bool | None) -> str:
        return f"{name}: {'—' if value is None else ('yes' if value else 'no')}"

    parts = [
        flag("streaming", caps.streaming),
        flag("push notifications", caps.push_notifications),
        flag("extended card", caps.extended_agent_card),
    ]
    if caps.state_transition_history is not None:
        parts.append(flag("state history", caps.state_transition_history))
    parts.append(f"extensions: {len(caps.extensions)}")
    return " · ".join(parts)


def exchange_text(result: CardFetchResult) -> str:
    """The card fetch as it went over the wire: request and answer heads, for *Raw*."""
    lines = [f"GET {result.card_url}"]
    lines += [f"{name}: {value}" for name, value in result.request_headers]
    lines.append("(no credentials, no cookies, redirects not followed)")
    lines.append("")
    if result.status is not None:
        lines.append(f"HTTP {result.status} {result.reason}".rstrip())
        lines += [f"{name}: {value}" for name, value in result.headers]
    if result.error:
        lines.append(f"error: {result.error}")
    return "\n".join(lines)


def demo_jwks_for(info: Mapping[str, Any] | None, source: str) -> str | None:
    """The demo agent's JWKS file (its ready line ``info``) when the card at ``source`` came
    from the demo agent, else None."""
    if not info or not info.get("jwks_path"):
        return None
    demo_hosts = {
        urlsplit(str(info.get(k, ""))).netloc for k in ("card_url", "base_url", "jsonrpc_url")
    } - {""}
    return str(info["jwks_path"]) if urlsplit(source).netloc in demo_hosts else None
