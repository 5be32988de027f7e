"""The request tab's *Agent Card* page (``objectName`` ``cardView``).

Discovery (``fetch_card``: no credentials, no redirects, ≤1 MiB, a deadline, optional
``A2A-Version``, conditional refetch through ``CardCache``), the card as the user reads it
(:class:`~app.ui.card.card_readout.CardReadout`), *Get extended card* with a diff, and *Verify
signature…*. What a fetch or a file means (card, redirect, 304, no card, failure) and what
the card reads as come from :mod:`app.protocol.card.read`, as for the CLI; the panel words it.

The panel never touches the tab's settings itself: it emits ``interface_chosen`` (the only
way the tab's endpoint, binding, version and tenant change from a card),
``extension_toggled`` and ``card_loaded``; the tab connects them. Network work runs as
tasks on the running (qasync) loop; ``fetchCardButton`` and ``extendedCardButton`` turn into
*Cancel* while their task runs, and :meth:`shutdown` cancels both.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from app.protocol import exchange
from app.protocol.card.card_shape import CardProblem
from app.protocol.card.fetch import (
    DEFAULT_MAX_BYTES,
    CardCache,
    CardFetchResult,
    fetch_card,
    resolve_card_url,
)
from app.protocol.card.read import CardRead, ReadOutcome, examine, read_bytes, read_card
from app.protocol.card.view import CardView
from app.protocol.events import ExchangeEnd, ExchangeError, Outcome, ResponseBody, ResponseHead
from app.protocol.net.network import NetworkOptions
from app.protocol.request import A2ARequest
from app.protocol.wire.json_duplicates import DuplicateMember
from app.spec.xa2a import strip_private_metadata
from app.ui.card.card_auth_box import HINT, card_auth_check, card_auth_of
from app.ui.card.card_readout import CardReadout, demo_jwks_for, exchange_text
from app.ui.card.extended_card import extended_card_request
from app.ui.card.signature_dialog import SignatureDialog
from app.ui.response.formatting import size_text
from app.ui.shell import spacing, theme
from app.ui.shell.flow_layout import flow_row
from app.ui.shell.plain_text import PlainLabel
from app.ui.shell.tasks import OwnedTask

FETCH_TIMEOUT_S = 10.0

# Status badge roles (colours: app/ui/shell/theme.py).
_OK, _WARN, _ERR, _IDLE = "badge-ok", "badge-warn", "badge-error", "badge-idle"


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
        self.network_provider: Callable[[], NetworkOptions] | None = None  # TLS, proxy
        self.cache = CardCache()
        self.timeout = FETCH_TIMEOUT_S
        self.max_bytes = DEFAULT_MAX_BYTES
        self._task = OwnedTask()
        self._ext_task = OwnedTask()
        self._url_edited = False
        self._file_dialog: QFileDialog | None = None
        self.verify_dialog: SignatureDialog | None = None

        self.raw: bytes = b""
        self.card: Any = None
        self.duplicates: tuple[DuplicateMember, ...] = ()
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
        self.strip_check = QCheckBox("Strip private metadata")
        self.strip_check.setObjectName("stripPrivateMetadataCheck")
        self.strip_check.setToolTip(
            "Save the fetched card's snapshot without signatures and metadata objects"
        )
        self.strip_check.setChecked(True)
        self.auth_check = card_auth_check()

        self.status_label = PlainLabel("No card loaded", multiline=False)  # a reason phrase
        self.status_label.setObjectName("cardStatusLabel")
        theme.style(self.status_label, _IDLE, theme.BADGE_SHAPE)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.detail_label = PlainLabel()
        self.detail_label.setObjectName("cardStatusDetail")
        self.detail_label.setWordWrap(True)
        self.detail_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # What is left beside the badge, whatever the text: a long word never widens the pane.
        self.detail_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.legacy_button = QPushButton("Try the legacy /.well-known/agent.json")
        self.legacy_button.setObjectName("legacyCardButton")
        self.legacy_button.hide()
        self.location_button = QPushButton("Put Location in the URL field")
        self.location_button.setObjectName("redirectLocationButton")
        self.location_button.setToolTip(
            "The redirect is not followed; fetch it yourself if you trust it"
        )
        self.location_button.hide()

        # The URL whole on its own row (40 characters and more, as Postman's URL bar); the
        # other actions wrap onto as many rows as the pane's width needs, never cut.
        url_row = QHBoxLayout()
        spacing.flush(url_row)
        url_row.addWidget(QLabel("Card URL"))
        url_row.addWidget(self.url_edit, 1)
        url_row.addWidget(self.fetch_button)
        actions = flow_row(
            self.version_combo,
            self.refetch_button,
            self.load_file_button,
            self.extended_button,
            self.verify_button,
            self.strip_check,
            self.auth_check,
        )
        status_row = QHBoxLayout()
        spacing.flush(status_row)
        status_row.addWidget(self.status_label, 0, Qt.AlignmentFlag.AlignTop)
        status_row.addWidget(self.detail_label, 1)
        status_row.addWidget(self.legacy_button, 0, Qt.AlignmentFlag.AlignTop)
        status_row.addWidget(self.location_button, 0, Qt.AlignmentFlag.AlignTop)

        self.readout = CardReadout()
        readout = self.readout
        # The pages and models the tab, the dialog and the tests reach through the panel.
        self.sections = readout.sections
        self.exchange_view, self.raw_view = readout.exchange_view, readout.raw_view
        self.extended_view = readout.extended_view
        self.interfaces_model, self.skills_model = readout.interfaces_model, readout.skills_model
        self.extensions_model = readout.extensions_model
        self.signatures_model = readout.signatures_model
        self.name_label, self.shape_label = readout.name_label, readout.shape_label
        self.capabilities_label = readout.capabilities_label

        layout = QVBoxLayout(self)
        spacing.page(layout)
        layout.addLayout(url_row)
        layout.addWidget(actions)
        layout.addLayout(status_row)
        layout.addWidget(readout, 1)

        self.url_edit.textEdited.connect(self._on_url_edited)
        self.url_edit.returnPressed.connect(self.fetch)
        self.fetch_button.clicked.connect(lambda: self.fetch())
        self.refetch_button.clicked.connect(lambda: self.fetch(conditional=True))
        self.legacy_button.clicked.connect(self._fetch_legacy)
        self.location_button.clicked.connect(self._use_location)
        self.load_file_button.clicked.connect(self._choose_card_file)
        self.extended_button.clicked.connect(self.get_extended_card)
        self.verify_button.clicked.connect(self.open_verify_dialog)
        readout.use_delegate.clicked.connect(self.use_interface)
        readout.interfaces_table.doubleClicked.connect(
            lambda index: self.use_interface(index.row())
        )
        self.extensions_model.toggled.connect(self.extension_toggled)
        self._show_view(None, [])

    # --- state ----------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """True while a card fetch runs."""
        return self._task.running

    @property
    def extended_busy(self) -> bool:
        """True while *Get extended card* runs."""
        return self._ext_task.running

    def follow_endpoint(self, endpoint: str) -> None:
        """Prefill the card URL with the endpoint's origin unless the user typed one."""
        origin = endpoint_origin(endpoint)
        if origin and not self._url_edited:
            self.url_edit.setText(origin)

    def set_card_url(self, url: str) -> None:
        """Show ``url`` (a saved ``agentCardUrl``) in the field; the endpoint no longer
        prefills it."""
        self.url_edit.setText(url)
        self._url_edited = True

    def snapshot(self) -> tuple[str, dict[str, Any]] | None:
        """The URL the shown card was fetched from and its snapshot to save, stripped
        when *Strip private metadata* is ticked; None unless a fetched card is shown."""
        if self.last_fetch is None or not isinstance(self.card, dict):
            return None
        card = self.card
        snapshot = strip_private_metadata(card) if self.strip_check.isChecked() else dict(card)
        return self.last_fetch.card_url, snapshot

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
        self._task.start(self._fetch(text, version, validators))

    def cancel(self) -> None:
        """Stop the running card fetch."""
        self._task.cancel()

    async def shutdown(self) -> None:
        """Cancel and await the panel's tasks (before the tab or the app closes)."""
        await self._task.shutdown()
        await self._ext_task.shutdown()
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
                network=self.network_provider() if self.network_provider else None,
                auth=card_auth_of(self.auth_check, self._request_provider),
            )
        except asyncio.CancelledError:
            self._set_status("Cancelled", "The card fetch was cancelled.", _IDLE)
            raise
        finally:
            self._set_busy(False)
        self.show_fetch_result(result)

    def _fetch_legacy(self) -> None:
        if self.last_fetch is not None and self.last_fetch.legacy_hint:
            self.fetch(self.last_fetch.legacy_hint)

    def _use_location(self) -> None:
        if self.last_fetch is not None and self.last_fetch.redirect_location:
            self.url_edit.setText(self.last_fetch.redirect_location)
            self._url_edited = True

    def show_fetch_result(self, result: CardFetchResult) -> None:
        """Show what one fetch saw; a 2xx JSON body (or a 304's cached copy) becomes the card.

        The cache learns the answer's validators here.
        """
        reading = read_card(result, cache=self.cache)
        self.last_fetch = result
        self.exchange_view.set_text(exchange_text(result))
        self.refetch_button.setEnabled(self.cache.get(result.card_url) is not None)
        status = f"{result.status} {result.reason}".strip() if result.status else ""
        timing = f"{result.elapsed_ms:.0f} ms"
        outcome = reading.outcome
        if outcome is ReadOutcome.FAILED:
            error = reading.error
            # Transport errors name the URL themselves (the bindings' wording).
            where = "" if result.card_url in error else f" · {result.card_url}"
            self._set_status(status or "Error", f"{error}{where}", _ERR)
            self._show_raw_only(result.raw, result.card_url)
        elif outcome is ReadOutcome.UNCHANGED:
            validators = ", ".join(
                f"{n}: {v}" for n, v in result.request_headers if n.startswith("If-")
            )
            detail = f"The card is unchanged since the copy you have ({validators}). {timing}"
            if reading.has_document and reading.raw != self.raw:
                self._show_reading(reading)
                detail += " Showing the cached copy."
            self._set_status(status, detail, _OK)
        elif outcome is ReadOutcome.REDIRECT:
            where = result.redirect_location or "(no Location header)"
            self._set_status(
                status,
                f"Redirect to {where} — NOT followed: card fetches follow no redirects.",
                _WARN,
            )
            self.location_button.setVisible(result.redirect_location is not None)
            self._show_raw_only(result.raw, result.card_url)
        elif outcome is ReadOutcome.CARD:
            self._show_reading(reading)
            size = size_text(len(result.raw))
            etag = f" · ETag {_short(result.etag)}" if result.etag else ""
            shape = self.view.shape.value if self.view is not None else "?"
            style = _ERR if result.parse_error is not None else _OK
            detail = f"{result.card_url} · {size} · {timing}{etag} · {shape}"
            if result.parse_error is not None and self.problems:  # an HTML page says so
                detail = f"{self.problems[0].message} · {detail}"
            self._set_status(status, detail, style)
        else:
            detail = f"No card at {result.card_url}"
            if result.legacy_hint:
                detail += f". Agents built before A2A 0.3 serve it at {result.legacy_hint}"
                self.legacy_button.show()
            detail += HINT if result.status in (401, 403) else ""
            self._set_status(status, detail, _ERR)
            self._show_raw_only(result.raw, result.card_url)

    # --- loading --------------------------------------------------------------------

    def _choose_card_file(self) -> None:
        # Non-modal (qasync runs the loop; exec() would nest one): open() and a signal.
        dialog = QFileDialog(self, "Load Agent Card", "", "JSON (*.json);;All files (*)")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(self.load_card_file)
        self._file_dialog = dialog
        dialog.open()

    def load_card_file(self, path: str) -> bool:
        """Show the card in ``path`` (offline debugging); False when it cannot be read."""
        reading = read_card(Path(path), max_bytes=self.max_bytes)
        if reading.too_large:
            self._set_status("Too large", f"{path} is larger than 1 MiB; nothing parsed", _ERR)
            return False
        if reading.outcome is ReadOutcome.FAILED:
            self._set_status("Error", f"Cannot read {path}: {reading.error}", _ERR)
            return False
        source = str(Path(path).resolve())
        self.last_fetch = None
        self.exchange_view.set_text(f"Loaded from file {source}")
        self.legacy_button.hide()
        self.location_button.hide()
        self._show_reading(reading, source)
        shape = self.view.shape.value if self.view is not None else "?"
        style = _OK if self.card is not None else _ERR
        self._set_status("File", f"{source} · {size_text(len(reading.raw))} · {shape}", style)
        return True

    def show_card(self, raw: bytes, source: str) -> None:
        """Parse and show ``raw`` as a card; never raises, whatever the bytes are."""
        self._show_reading(read_bytes(raw, source))

    def _show_reading(self, reading: CardRead, source: str | None = None) -> None:
        self.raw = reading.raw
        self.source = source if source is not None else reading.source
        findings = examine(reading)
        self.card = reading.card if reading.parse_error is None else None
        self.duplicates = reading.duplicate_keys  # no signature over them is valid
        self._show_view(findings.view, list(findings.problems))
        self.readout.set_raw(reading.raw)
        self.verify_button.setEnabled(self.card is not None)
        self.extended_button.setEnabled(self._request_provider is not None)
        if findings.view is not None:
            self.card_loaded.emit(findings.view)

    def _show_raw_only(self, raw: bytes, source: str) -> None:
        # A non-card answer: clear the card so nothing stale is taken for this URL's card.
        self.raw = raw
        self.source = source
        self.card = None
        self._show_view(None, [])
        self.readout.set_raw(raw)
        self.verify_button.setEnabled(False)
        if raw:
            self.sections.setCurrentIndex(self.readout.raw_index)

    def _show_view(self, view: CardView | None, problems: list[CardProblem]) -> None:
        self.view = view
        self.problems = problems
        self.readout.fill(view, problems)

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
        return demo_jwks_for(info, self.source)

    def open_verify_dialog(self) -> SignatureDialog | None:
        """Open the non-modal *Verify signature* dialog for the shown card."""
        if self.card is None:
            self._set_status("No card", "Fetch or load a card first.", _ERR)
            return None
        if self.verify_dialog is not None:
            self.verify_dialog.close()
        dialog = SignatureDialog(
            self.card,
            self.source or "(card)",
            demo_jwks_path=self.demo_jwks_path(),
            duplicates=self.duplicates,
            parent=self,
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
            self._ext_task.cancel()
            return
        if self._request_provider is None:
            return
        try:
            request = extended_card_request(self._request_provider())
        except (ValueError, KeyError) as exc:
            self.extended_view.status_label.setText(str(exc))
            return
        self.sections.setCurrentIndex(self.readout.extended_index)
        self.extended_view.start(request)
        self.extended_button.setText("Cancel")
        self._ext_task.start(self._run_extended(request))

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
        theme.style(self.status_label, style, theme.BADGE_SHAPE)
        self.detail_label.setText(detail)


def _short(etag: str) -> str:
    # Whole in the Raw page's headers; here its ends, so that the line wraps in a narrow pane.
    return etag if len(etag) <= 24 else f"{etag[:12]}…{etag[-8:]}"
