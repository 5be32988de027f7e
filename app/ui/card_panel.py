"""The request tab's *Agent Card* page (``objectName`` ``cardView``).

Discovery (``fetch_card``: no credentials, no redirects, ≤1 MiB, a deadline, optional
``A2A-Version``, conditional refetch through ``CardCache``), the card as the user reads it
(identity, shape, interfaces with *Use this interface*, capabilities, skills, security,
extensions, signatures, validation problems, the raw bytes), *Get extended card* with a
diff, and *Verify signature…*.

The panel never touches the tab's settings itself: it emits ``interface_chosen`` (the only
way the tab's endpoint, binding, version and tenant change from a card),
``extension_toggled`` and ``card_loaded``; the tab connects them. Network work runs as
tasks on the running (qasync) loop; ``fetchCardButton`` and ``extendedCardButton`` turn into
*Cancel* while their task runs, and :meth:`shutdown` cancels both.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.protocol import exchange
from app.protocol.card_fetch import (
    DEFAULT_MAX_BYTES,
    CardCache,
    CardFetchResult,
    fetch_card,
    parse_card_json,
    resolve_card_url,
)
from app.protocol.card_model import (
    CardProblem,
    CardShape,
    CardView,
    Severity,
    detect_shape,
    normalize_card,
    validate_card,
)
from app.protocol.events import ExchangeEnd, ExchangeError, Outcome, ResponseBody, ResponseHead
from app.protocol.request import A2ARequest
from app.ui.card_models import (
    CardExtensionsModel,
    InterfacesModel,
    ProblemsModel,
    RowsModel,
    SchemesModel,
    SignaturesModel,
    SkillsModel,
    UseButtonDelegate,
    requirements_text,
)
from app.ui.extended_card import ExtendedCardView, extended_card_request
from app.ui.signature_dialog import SignatureDialog
from app.ui.widgets import CodeView

log = logging.getLogger(__name__)

FETCH_TIMEOUT_S = 10.0

SHAPE_TEXT = {
    CardShape.V1_0: "pure 1.0 — supportedInterfaces, no 0.3 fields",
    CardShape.V0_3: "pure 0.3 — url + preferredTransport + additionalInterfaces",
    CardShape.HYBRID: (
        "hybrid — a 1.0 card with the 0.3 mirror fields merged in (as the Python SDK "
        "serves it); a 1.0 signature does not cover the 0.3 fields"
    ),
    CardShape.NOT_A_CARD: "not a card — the document is not a JSON object",
}

_OK = "color: white; background: #2e7d32; border-radius: 4px; padding: 2px 8px;"
_WARN = "color: white; background: #b26a00; border-radius: 4px; padding: 2px 8px;"
_ERR = "color: white; background: #c62828; border-radius: 4px; padding: 2px 8px;"
_IDLE = (
    "color: palette(text); border: 1px solid palette(mid); border-radius: 4px; padding: 2px 8px;"
)


def endpoint_origin(endpoint: str) -> str:
    """``scheme://host:port`` of an http(s) endpoint, or "" (gRPC targets, junk)."""
    parts = urlsplit(endpoint.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return ""
    return f"{parts.scheme}://{parts.netloc}"


def capabilities_dict(view: CardView) -> dict[str, bool]:
    """The card's capability flags in the card's own JSON names (absent = not stated)."""
    caps = view.capabilities
    pairs = {
        "streaming": caps.streaming,
        "pushNotifications": caps.push_notifications,
        "extendedAgentCard": caps.extended_agent_card,
        "stateTransitionHistory": caps.state_transition_history,
    }
    return {k: v for k, v in pairs.items() if v is not None}


def _table(name: str, model: RowsModel[Any]) -> QTableView:
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
    label = QLabel("")
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


class CardPanel(QWidget):
    """Fetch, read, use and verify an Agent Card.

    Args:
        request_provider: the tab's current request (for *Get extended card*).
        http_client: the window's shared client (for *Get extended card*, which uses the
            tab's Auth); the public fetch always uses a fresh client without credentials.

    Signals:
        interface_chosen: *Use this interface* was pressed (arg: ``InterfaceView``).
        extension_toggled: an extension was ticked or unticked (args: uri, ticked).
        card_loaded: a card was shown (arg: ``CardView``).
    """

    interface_chosen = Signal(object)
    extension_toggled = Signal(str, bool)
    card_loaded = Signal(object)

    def __init__(
        self,
        request_provider: Callable[[], A2ARequest] | None = None,
        http_client: Callable[[], httpx.AsyncClient] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("cardView")
        self._request_provider = request_provider
        self._http_client = http_client
        self.demo_info_provider: Callable[[], Mapping[str, Any] | None] | None = None
        self.cache = CardCache()
        self.timeout = FETCH_TIMEOUT_S
        self.max_bytes = DEFAULT_MAX_BYTES
        self._task: asyncio.Task[None] | None = None
        self._ext_task: asyncio.Task[None] | None = None
        self._url_edited = False
        self._file_dialog: QFileDialog | None = None
        self.verify_dialog: SignatureDialog | None = None

        self.raw: bytes = b""
        self.card: Any = None
        self.view: CardView | None = None
        self.problems: list[CardProblem] = []
        self.source = ""
        self.last_fetch: CardFetchResult | None = None

        self._build()

    # --- construction ---------------------------------------------------------------

    def _build(self) -> None:
        self.url_edit = QLineEdit()
        self.url_edit.setObjectName("cardUrlEdit")
        self.url_edit.setPlaceholderText(
            "Base URL (…/.well-known/agent-card.json is added) or full card URL"
        )
        self.url_edit.setToolTip(
            "Fetched without credentials, without following redirects, at most 1 MiB"
        )
        self.version_combo = QComboBox()
        self.version_combo.setObjectName("cardVersionCombo")
        self.version_combo.addItem("No A2A-Version", None)
        self.version_combo.addItem("A2A-Version: 1.0", "1.0")
        self.version_combo.addItem("A2A-Version: 0.3", "0.3")
        self.version_combo.setToolTip(
            "Servers may shape the card by this header; none is sent unless you pick one"
        )
        self.fetch_button = QPushButton("Fetch card")
        self.fetch_button.setObjectName("fetchCardButton")
        self.fetch_button.setToolTip("GET the public Agent Card (no credentials)")
        self.refetch_button = QPushButton("Refetch if changed")
        self.refetch_button.setObjectName("refetchCardButton")
        self.refetch_button.setToolTip(
            "Conditional GET with If-None-Match / If-Modified-Since from the last answer"
        )
        self.refetch_button.setEnabled(False)
        self.load_file_button = QPushButton("Load card from file…")
        self.load_file_button.setObjectName("loadCardFileButton")
        self.extended_button = QPushButton("Get extended card")
        self.extended_button.setObjectName("extendedCardButton")
        self.extended_button.setToolTip(
            "Call the extended-card method of this tab's version and binding with its Auth, "
            "and diff the answer against the public card"
        )
        self.extended_button.setEnabled(False)
        self.verify_button = QPushButton("Verify signature…")
        self.verify_button.setObjectName("verifySignatureButton")
        self.verify_button.setToolTip("Check the card's JWS signatures against a JWKS you trust")
        self.verify_button.setEnabled(False)

        self.status_label = QLabel("No card loaded")
        self.status_label.setObjectName("cardStatusLabel")
        self.status_label.setStyleSheet(_IDLE)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.detail_label = QLabel("")
        self.detail_label.setObjectName("cardStatusDetail")
        self.detail_label.setWordWrap(True)
        self.detail_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.detail_label.setTextFormat(Qt.TextFormat.PlainText)
        self.legacy_button = QPushButton("Try the legacy /.well-known/agent.json")
        self.legacy_button.setObjectName("legacyCardButton")
        self.legacy_button.hide()
        self.location_button = QPushButton("Put Location in the URL field")
        self.location_button.setObjectName("redirectLocationButton")
        self.location_button.setToolTip(
            "The redirect is not followed; fetch it yourself if you trust it"
        )
        self.location_button.hide()

        row1 = QHBoxLayout()
        row1.addWidget(QLabel("Card URL"))
        row1.addWidget(self.url_edit, 1)
        row1.addWidget(self.version_combo)
        row1.addWidget(self.fetch_button)
        row1.addWidget(self.refetch_button)
        row2 = QHBoxLayout()
        row2.addWidget(self.load_file_button)
        row2.addWidget(self.extended_button)
        row2.addWidget(self.verify_button)
        row2.addStretch(1)
        status_row = QHBoxLayout()
        status_row.addWidget(self.status_label, 0, Qt.AlignmentFlag.AlignTop)
        status_row.addWidget(self.detail_label, 1)
        status_row.addWidget(self.legacy_button, 0, Qt.AlignmentFlag.AlignTop)
        status_row.addWidget(self.location_button, 0, Qt.AlignmentFlag.AlignTop)

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

        self.sections = QTabWidget()
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

        split = QSplitter(Qt.Orientation.Vertical)
        split.setObjectName("cardSplitter")
        split.addWidget(scroll)
        split.addWidget(self.sections)
        split.setSizes([330, 360])
        split.setChildrenCollapsible(False)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(row1)
        layout.addLayout(row2)
        layout.addLayout(status_row)
        layout.addWidget(split, 1)

        self.url_edit.textEdited.connect(self._on_url_edited)
        self.url_edit.returnPressed.connect(self.fetch)
        self.fetch_button.clicked.connect(lambda: self.fetch())
        self.refetch_button.clicked.connect(lambda: self.fetch(conditional=True))
        self.legacy_button.clicked.connect(self._fetch_legacy)
        self.location_button.clicked.connect(self._use_location)
        self.load_file_button.clicked.connect(self._choose_card_file)
        self.extended_button.clicked.connect(self.get_extended_card)
        self.verify_button.clicked.connect(self.open_verify_dialog)
        self.use_delegate.clicked.connect(self.use_interface)
        self.interfaces_table.doubleClicked.connect(lambda index: self.use_interface(index.row()))
        self.extensions_model.toggled.connect(self.extension_toggled)
        self._show_view(None, [])

    # --- state ----------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """True while a card fetch runs."""
        return self._task is not None and not self._task.done()

    @property
    def extended_busy(self) -> bool:
        """True while *Get extended card* runs."""
        return self._ext_task is not None and not self._ext_task.done()

    def follow_endpoint(self, endpoint: str) -> None:
        """Prefill the card URL with the endpoint's origin unless the user typed one."""
        origin = endpoint_origin(endpoint)
        if origin and not self._url_edited:
            self.url_edit.setText(origin)

    def _on_url_edited(self, text: str) -> None:
        self._url_edited = bool(text.strip())

    # --- fetching -------------------------------------------------------------------

    def fetch(self, url: str | None = None, *, conditional: bool = False) -> None:
        """Fetch the card at ``url`` (default: the URL field); cancels a running fetch."""
        if self.busy:
            self.cancel()
            return
        text = (url if url is not None else self.url_edit.text()).strip()
        if not text:
            self._set_status("No URL", "Type a base URL or a card URL first.", _ERR)
            return
        try:
            card_url, _ = resolve_card_url(text)
        except ValueError as exc:
            self._set_status("Bad URL", str(exc), _ERR)
            return
        validators = self.cache.conditional_kwargs(card_url) if conditional else {}
        version = self.version_combo.currentData()
        self.legacy_button.hide()
        self.location_button.hide()
        self._set_status("Fetching…", f"GET {card_url}", _IDLE)
        self._set_busy(True)
        self._task = asyncio.get_event_loop().create_task(self._fetch(text, version, validators))

    def cancel(self) -> None:
        """Stop the running card fetch."""
        if self.busy:
            assert self._task is not None
            self._task.cancel()

    async def shutdown(self) -> None:
        """Cancel and await the panel's tasks (before the tab or the app closes)."""
        for task in (self._task, self._ext_task):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if self.verify_dialog is not None:
            self.verify_dialog.close()

    async def _fetch(self, url: str, version: str | None, validators: dict[str, str]) -> None:
        try:
            result = await fetch_card(
                url,
                a2a_version=version,
                timeout=self.timeout,
                max_bytes=self.max_bytes,
                if_none_match=validators.get("if_none_match"),
                if_modified_since=validators.get("if_modified_since"),
            )
        except asyncio.CancelledError:
            self._set_status("Cancelled", "The card fetch was cancelled.", _IDLE)
            raise
        finally:
            self._set_busy(False)
        self.cache.update(result)
        self.show_fetch_result(result)

    def _fetch_legacy(self) -> None:
        if self.last_fetch is not None and self.last_fetch.legacy_hint:
            self.fetch(self.last_fetch.legacy_hint)

    def _use_location(self) -> None:
        if self.last_fetch is not None and self.last_fetch.redirect_location:
            self.url_edit.setText(self.last_fetch.redirect_location)
            self._url_edited = True

    def show_fetch_result(self, result: CardFetchResult) -> None:
        """Show what one fetch saw; a 2xx JSON body (or a 304's cached copy) becomes the card."""
        self.last_fetch = result
        self.exchange_view.set_text(_exchange_text(result))
        self.refetch_button.setEnabled(self.cache.get(result.card_url) is not None)
        status = f"{result.status} {result.reason}".strip() if result.status else ""
        timing = f"{result.elapsed_ms:.0f} ms"
        if result.error is not None:
            self._set_status(status or "Error", f"{result.error} · {result.card_url}", _ERR)
            self._show_raw_only(result.raw, result.card_url)
            return
        if result.not_modified:
            entry = self.cache.get(result.card_url)
            validators = ", ".join(
                f"{n}: {v}" for n, v in result.request_headers if n.startswith("If-")
            )
            detail = f"The card is unchanged since the copy you have ({validators}). {timing}"
            if entry is not None and entry.raw and entry.raw != self.raw:
                self.show_card(entry.raw, result.card_url)
                detail += " Showing the cached copy."
            self._set_status(status, detail, _OK)
            return
        if result.redirect_location is not None or (
            result.status is not None and 300 <= result.status < 400
        ):
            where = result.redirect_location or "(no Location header)"
            self._set_status(
                status,
                f"Redirect to {where} — NOT followed: card fetches follow no redirects.",
                _WARN,
            )
            self.location_button.setVisible(result.redirect_location is not None)
            self._show_raw_only(result.raw, result.card_url)
            return
        if result.status is not None and 200 <= result.status < 300:
            self.show_card(result.raw, result.card_url)
            size = _size(len(result.raw))
            etag = f" · ETag {result.etag}" if result.etag else ""
            shape = self.view.shape.value if self.view is not None else "?"
            style = _ERR if result.parse_error is not None else _OK
            detail = f"{result.card_url} · {size} · {timing}{etag} · {shape}"
            if result.parse_error is not None:
                detail = f"Not JSON: {result.parse_error.message} · " + detail
            self._set_status(status, detail, style)
            return
        detail = f"No card at {result.card_url}"
        if result.legacy_hint:
            detail += f". Agents built before A2A 0.3 serve it at {result.legacy_hint}"
            self.legacy_button.show()
        self._set_status(status, detail, _ERR)
        self._show_raw_only(result.raw, result.card_url)

    # --- loading --------------------------------------------------------------------

    def _choose_card_file(self) -> None:
        # Non-modal (STYLE.md §5): open() and a signal, never exec().
        dialog = QFileDialog(self, "Load Agent Card", "", "JSON (*.json);;All files (*)")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(self.load_card_file)
        self._file_dialog = dialog
        dialog.open()

    def load_card_file(self, path: str) -> bool:
        """Show the card in ``path`` (offline debugging); False when it cannot be read."""
        try:
            with open(path, "rb") as handle:
                data = handle.read(self.max_bytes + 1)
        except OSError as exc:
            self._set_status("Error", f"Cannot read {path}: {exc.strerror or exc}", _ERR)
            return False
        if len(data) > self.max_bytes:
            self._set_status("Too large", f"{path} is larger than 1 MiB; nothing parsed", _ERR)
            return False
        source = str(Path(path).resolve())
        self.last_fetch = None
        self.exchange_view.set_text(f"Loaded from file {source}")
        self.legacy_button.hide()
        self.location_button.hide()
        self.show_card(data, source)
        shape = self.view.shape.value if self.view is not None else "?"
        style = _OK if self.card is not None else _ERR
        self._set_status("File", f"{source} · {_size(len(data))} · {shape}", style)
        return True

    def show_card(self, raw: bytes, source: str) -> None:
        """Parse and show ``raw`` as a card; never raises, whatever the bytes are."""
        self.raw = raw
        self.source = source
        value, error, duplicates = parse_card_json(raw)
        problems: list[CardProblem] = []
        if error is not None:
            where = f" (line {error.line}, column {error.column})" if error.line else ""
            problems.append(CardProblem("", f"not JSON{where}: {error.message}"))
            self.card = None
            view: CardView | None = None
        else:
            self.card = value
            try:
                view = normalize_card(value)
                problems.extend(validate_card(value, view.shape))
            except Exception as exc:  # the core promises not to raise; never lose the panel
                log.exception("card view failed")
                view = CardView(detect_shape(value))
                problems.append(CardProblem("", f"internal error while reading the card: {exc}"))
            problems.extend(
                CardProblem(
                    key,
                    "key occurs more than once in one object; the last value is shown (other "
                    "parsers may keep the first, and a signature may cover either)",
                    Severity.WARNING,
                )
                for key in duplicates
            )
        self._show_view(view, problems)
        self._set_raw(raw)
        self.verify_button.setEnabled(self.card is not None)
        self.extended_button.setEnabled(self._request_provider is not None)
        if view is not None:
            self.card_loaded.emit(view)

    def _show_raw_only(self, raw: bytes, source: str) -> None:
        # A non-card answer: clear the card so nothing stale is taken for this URL's card.
        self.raw = raw
        self.source = source
        self.card = None
        self._show_view(None, [])
        self._set_raw(raw)
        self.verify_button.setEnabled(False)
        if raw:
            self.sections.setCurrentIndex(self.raw_index)

    def _set_raw(self, raw: bytes) -> None:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = "(not valid UTF-8; undecodable bytes shown as \\x..)\n" + raw.decode(
                "utf-8", errors="backslashreplace"
            )
        self.raw_view.set_text(text)

    def _show_view(self, view: CardView | None, problems: list[CardProblem]) -> None:
        self.view = view
        self.problems = problems
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

    # --- actions on the card -----------------------------------------------------------

    def use_interface(self, row: int) -> None:
        """*Use this interface* for interface row ``row``: emits ``interface_chosen``."""
        iface = self.interfaces_model.row_at(row)
        if iface is None:
            return
        if not iface.speakable:
            self._set_status(
                "Cannot use",
                f"This app cannot speak {iface.binding or '?'} at protocol version "
                f"{iface.protocol_version or '?'}; the tab is unchanged.",
                _WARN,
            )
            return
        self.interface_chosen.emit(iface)
        tenant = f", tenant {iface.tenant}" if iface.tenant else ""
        self._set_status(
            "Interface set",
            f"The tab now talks {iface.binding} {iface.major_minor} to {iface.url}{tenant}.",
            _OK,
        )

    def interface_row(self, binding: str, version: str) -> int:
        """First interface row with ``binding`` and a protocol version starting ``version``."""
        for row, iface in enumerate(self.interfaces_model.rows()):
            if iface.binding == binding and (iface.major_minor or "") == version:
                return row
        return -1

    def demo_jwks_path(self) -> str | None:
        """The demo agent's JWKS file when the shown card came from the demo agent."""
        info = self.demo_info_provider() if self.demo_info_provider is not None else None
        if not info or not info.get("jwks_path"):
            return None
        demo_hosts = {
            urlsplit(str(info.get(k, ""))).netloc for k in ("card_url", "base_url", "jsonrpc_url")
        } - {""}
        if urlsplit(self.source).netloc in demo_hosts:
            return str(info["jwks_path"])
        return None

    def open_verify_dialog(self) -> SignatureDialog | None:
        """Open the non-modal *Verify signature* dialog for the shown card."""
        if self.card is None:
            self._set_status("No card", "Fetch or load a card first.", _ERR)
            return None
        if self.verify_dialog is not None:
            self.verify_dialog.close()
        dialog = SignatureDialog(
            self.card, self.source or "(card)", demo_jwks_path=self.demo_jwks_path(), parent=self
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.destroyed.connect(lambda *_: self._forget_dialog(dialog))
        self.verify_dialog = dialog
        dialog.show()
        dialog.raise_()
        return dialog

    def _forget_dialog(self, dialog: SignatureDialog) -> None:
        if self.verify_dialog is dialog:
            self.verify_dialog = None

    def get_extended_card(self) -> None:
        """Call the tab's extended-card method and diff the answer; cancels a running call."""
        if self.extended_busy:
            assert self._ext_task is not None
            self._ext_task.cancel()
            return
        if self._request_provider is None:
            return
        try:
            request = extended_card_request(self._request_provider())
        except (ValueError, KeyError) as exc:
            self.extended_view.status_label.setText(str(exc))
            return
        self.sections.setCurrentIndex(self.extended_index)
        self.extended_view.start(request)
        self.extended_button.setText("Cancel")
        self._ext_task = asyncio.get_event_loop().create_task(self._run_extended(request))

    async def _run_extended(self, request: A2ARequest) -> None:
        view = self.extended_view
        cancelled = False
        http = self._http_client() if self._http_client is not None else None
        try:
            async for event in exchange.run(request, http=http):
                if isinstance(event, ResponseHead):
                    view.on_head(event)
                elif isinstance(event, ResponseBody):
                    view.on_body(event, request.binding, self.card)
                elif isinstance(event, ExchangeError):
                    view.on_error(event)
                elif isinstance(event, ExchangeEnd):
                    cancelled = event.outcome is Outcome.CANCELLED
        except asyncio.CancelledError:
            view.finish(cancelled=True)
            raise
        finally:
            self.extended_button.setText("Get extended card")
        view.finish(cancelled)

    # --- helpers --------------------------------------------------------------------

    def _set_busy(self, busy: bool) -> None:
        self.fetch_button.setText("Cancel" if busy else "Fetch card")
        self.fetch_button.setToolTip(
            "Stop the fetch" if busy else "GET the public Agent Card (no credentials)"
        )

    def _set_status(self, head: str, detail: str, style: str) -> None:
        self.status_label.setText(head)
        self.status_label.setStyleSheet(style)
        self.detail_label.setText(detail)


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


def _size(n: int) -> str:
    return f"{n} bytes" if n < 1024 else f"{n / 1024:.1f} KiB"


def _exchange_text(result: CardFetchResult) -> str:
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
