"""The Auth page's *OAuth 2* settings: flow, endpoints, client, scopes, *Get token*.

The grant runs on the qasync loop (:class:`OwnedTask`), never blocking the window. The
device code flow shows :class:`DeviceCodePrompt` (user code, verification URI, *Open
browser*, *Cancel*, a countdown to the code's expiry); the authorization code flow opens
the system browser and waits for the loopback redirect. Tokens stay in memory (a
:class:`TokenCache` per tab); the client secret is saved only as a keyring reference.
"""

from __future__ import annotations

import asyncio
import time
import webbrowser
from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.paths import secrets_path
from app.protocol.net.auth import AuthConfig
from app.protocol.net.network import NetworkOptions
from app.protocol.oauth import (
    CardOAuthOption,
    DeviceAuthorization,
    OAuthConfig,
    OAuthError,
    OAuthFlow,
    Token,
    TokenCache,
    UserAgent,
    card_oauth_options,
    obtain_token,
    split_scopes,
)
from app.spec.oauth_saved import load_refresh_token, save_refresh_token, seed_refresh_token
from app.spec.variables import SecretStore
from app.ui.request.secret_edit import SecretEdit
from app.ui.shell import theme
from app.ui.shell.plain_text import PlainLabel
from app.ui.shell.tasks import OwnedTask


class DeviceCodePrompt(QFrame):
    """RFC 8628 §3.3: what the user must do, while the app polls (``deviceCodePrompt``).

    Inside: ``deviceUserCodeLabel``, ``deviceVerificationUriLabel``, ``deviceOpenBrowserButton``,
    ``deviceCodeCancelButton``, ``deviceCodeCountdown``.

    Signals:
        open_requested: *Open browser* (arg: the URI to open).
        cancel_requested: *Cancel* (no args).
    """

    open_requested = Signal(str)
    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("deviceCodePrompt")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        # The authorization server's code and URI: shown as text, never as a link.
        self.code_label = PlainLabel(multiline=False)
        self.code_label.setObjectName("deviceUserCodeLabel")
        font = QFont("monospace")
        font.setPointSize(font.pointSize() + 8)
        font.setBold(True)
        self.code_label.setFont(font)
        self.code_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.uri_label = PlainLabel(multiline=False)
        self.uri_label.setObjectName("deviceVerificationUriLabel")
        self.uri_label.setWordWrap(True)
        self.countdown = QLabel()
        self.countdown.setObjectName("deviceCodeCountdown")
        self.open_button = QPushButton("Open browser")
        self.open_button.setObjectName("deviceOpenBrowserButton")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("deviceCodeCancelButton")
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.cancel_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Sign in on another device or in the browser and enter:"))
        layout.addWidget(self.code_label)
        layout.addWidget(self.uri_label)
        layout.addWidget(self.countdown)
        layout.addLayout(buttons)
        self._timer = QTimer(self)
        self._timer.setInterval(1000)
        self._timer.timeout.connect(self._tick)
        self._authorization: DeviceAuthorization | None = None
        self.open_button.clicked.connect(self._on_open)
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.hide()

    def show_authorization(self, authorization: DeviceAuthorization) -> None:
        """Show the code and URI; the countdown runs until :meth:`close_prompt`."""
        self._authorization = authorization
        self.code_label.setText(authorization.user_code)
        self.uri_label.setText(f"at {authorization.verification_uri}")
        self._tick()
        self._timer.start()
        self.show()

    def close_prompt(self) -> None:
        """Hide the prompt and stop its countdown."""
        self._timer.stop()
        self._authorization = None
        self.hide()

    def _tick(self) -> None:
        if self._authorization is None:
            return
        left = int(self._authorization.remaining())
        self.countdown.setText(
            f"Waiting for approval… the code expires in {left // 60}:{left % 60:02d}"
        )

    def _on_open(self) -> None:
        if self._authorization is not None:
            self.open_requested.emit(self._authorization.browser_uri)


class OAuthPanel(QWidget):
    """OAuth 2 settings of one tab (``oauthPanel``).

    Inside: ``oauthFlowCombo``, ``oauthTokenUrlEdit``, ``oauthDeviceAuthorizationUrlEdit``,
    ``oauthAuthorizationUrlEdit``, ``oauthClientIdEdit``, ``oauthClientSecretEdit``,
    ``oauthScopesEdit``, ``getTokenButton``, ``oauthFromCardButton``, ``oauthTokenStatus``,
    the :class:`DeviceCodePrompt`, and ``oauthRenewBanner`` with ``oauthRenewButton`` (after
    the agent refused the token with ``invalid_token``).

    Attributes:
        open_browser: opens a URL for the user (``webbrowser.open``; tests put a driver here).
        card_source: returns the tab's fetched Agent Card JSON, or None.
        secret_store: where refresh tokens are kept between sessions (None: memory only).

    Signals:
        changed: a setting changed (no args).
        token_ready: a token was obtained (no args).
        renew_requested: *Get new token and resend* (no args).
    """

    changed = Signal()
    token_ready = Signal()
    renew_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("oauthPanel")
        self.open_browser: Callable[[str], object] = webbrowser.open
        self.card_source: Callable[[], object | None] = lambda: None
        # The tab's CA bundle and proxy; calls to the authorization server use them too.
        self.network_provider: Callable[[], NetworkOptions] | None = None
        self.secret_store: SecretStore | None = SecretStore(secrets_path())
        self.cache = TokenCache()
        self._token: Token | None = None
        self._token_for: OAuthConfig | None = None
        self._task = OwnedTask()

        self.flow_combo = QComboBox()
        self.flow_combo.setObjectName("oauthFlowCombo")
        for flow in OAuthFlow:
            self.flow_combo.addItem(flow.label, flow)
        self.token_url = _line("oauthTokenUrlEdit", "https://idp.example/oauth/token")
        self.device_url = _line("oauthDeviceAuthorizationUrlEdit", "device authorization URL")
        self.authorization_url = _line("oauthAuthorizationUrlEdit", "authorization URL")
        self.discovery_url = _line(
            "oauthDiscoveryUrlEdit", "OpenID Connect issuer or discovery URL (optional)"
        )
        self.client_id = _line("oauthClientIdEdit", "client id")
        self.client_secret = SecretEdit(
            "oauthClientSecretEdit", "client secret (empty for a public client)"
        )
        self.scopes = _line("oauthScopesEdit", "scopes, space-separated")
        self.get_button = QPushButton("Get token")
        self.get_button.setObjectName("getTokenButton")
        self.from_card_button = QPushButton("From card…")
        self.from_card_button.setObjectName("oauthFromCardButton")
        self.from_card_button.setToolTip("Fill the URLs and scopes from a security scheme")
        self.status = PlainLabel("No token yet.")  # quotes the authorization server
        self.status.setObjectName("oauthTokenStatus")
        self.status.setWordWrap(True)
        self.prompt = DeviceCodePrompt()
        self.renew_banner = QFrame()
        self.renew_banner.setObjectName("oauthRenewBanner")
        self.renew_banner.setFrameShape(QFrame.Shape.StyledPanel)
        self.renew_label = PlainLabel()  # quotes the agent's refusal
        self.renew_label.setWordWrap(True)
        self.renew_button = QPushButton("Get new token and resend")
        self.renew_button.setObjectName("oauthRenewButton")
        banner = QHBoxLayout(self.renew_banner)
        banner.addWidget(self.renew_label, 1)
        banner.addWidget(self.renew_button)
        self.renew_banner.hide()

        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Flow", self.flow_combo)
        form.addRow("Token URL", self.token_url)
        form.addRow("Device URL", self.device_url)
        form.addRow("Authorize URL", self.authorization_url)
        form.addRow("OpenID issuer", self.discovery_url)
        form.addRow("Client id", self.client_id)
        form.addRow("Client secret", self.client_secret)
        form.addRow("Scopes", self.scopes)
        buttons = QHBoxLayout()
        buttons.addWidget(self.get_button)
        buttons.addWidget(self.from_card_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        layout.addWidget(self.prompt)
        layout.addWidget(self.renew_banner)

        for edit in (
            self.token_url,
            self.device_url,
            self.authorization_url,
            self.discovery_url,
            self.client_id,
            self.client_secret.edit,
            self.scopes,
        ):
            edit.textChanged.connect(self.changed)
        self.flow_combo.currentIndexChanged.connect(self._on_flow_changed)
        self.get_button.clicked.connect(lambda: self.get_token(force=self.has_token()))
        self.from_card_button.clicked.connect(self._on_from_card)
        self.prompt.open_requested.connect(self._open)
        self.prompt.cancel_requested.connect(self.cancel)
        self.renew_button.clicked.connect(self._on_renew)
        self._on_flow_changed()

    # --- settings ---------------------------------------------------------------------

    @property
    def flow(self) -> OAuthFlow:
        """The selected flow."""
        return OAuthFlow(self.flow_combo.currentData())

    def oauth_config(self) -> OAuthConfig:
        """What the fields describe."""
        return OAuthConfig(
            self.flow,
            token_url=self.token_url.text().strip(),
            client_id=self.client_id.text().strip(),
            client_secret=self.client_secret.text(),
            scopes=split_scopes(self.scopes.text()),
            device_authorization_url=self.device_url.text().strip(),
            authorization_url=self.authorization_url.text().strip(),
            discovery_url=self.discovery_url.text().strip(),
        )

    def set_oauth_config(self, config: OAuthConfig) -> None:
        """Fill the fields from ``config`` (a saved request or a card's scheme)."""
        self.flow_combo.setCurrentIndex(self.flow_combo.findData(config.flow))
        self.token_url.setText(config.token_url)
        self.device_url.setText(config.device_authorization_url)
        self.authorization_url.setText(config.authorization_url)
        self.discovery_url.setText(config.discovery_url)
        self.client_id.setText(config.client_id)
        self.client_secret.edit.setText(config.client_secret)
        self.scopes.setText(" ".join(config.scopes))

    def has_token(self) -> bool:
        """Whether an unexpired token for the current settings is at hand."""
        return (
            self._token is not None
            and self._token_for == self.oauth_config()
            and not self._token.expired()
        )

    def auth_config(self) -> AuthConfig:
        """The tab's credential: the grant, with its access token once there is one."""
        token = self._token.access_token if self._token and self.has_token() else ""
        return AuthConfig.oauth2(self.oauth_config(), token)

    # --- getting a token ----------------------------------------------------------------

    def get_token(self, *, force: bool = False, then: Callable[[], None] | None = None) -> None:
        """Run the grant in the background; ``then`` runs after a token arrived."""
        self.renew_banner.hide()
        self._task.start(self._fetch(force, then))

    def cancel(self) -> None:
        """Stop a running grant (device polling, waiting for the browser)."""
        self._task.cancel()

    async def shutdown(self) -> None:
        """Cancel and await the running grant (the tab closes)."""
        await self._task.shutdown()
        self.prompt.close_prompt()

    def offer_renewal(self, refusal: str) -> None:
        """The agent refused the token: offer *Get new token and resend*."""
        self.renew_label.setText(f"The agent refused the token ({refusal}).")
        theme.style(self.renew_label, "text-error")
        self.renew_banner.show()

    async def _fetch(self, force: bool, then: Callable[[], None] | None) -> None:
        config = self.oauth_config()
        self.get_button.setEnabled(False)
        self._set_status(f"Getting a token ({config.flow.label.lower()})…")
        agent = UserAgent(open_browser=self._open, show_device_code=self.prompt.show_authorization)
        store = self.secret_store
        try:
            if store is not None and self.cache.get(config) is None:
                stored = await asyncio.to_thread(load_refresh_token, config, store)
                seed_refresh_token(config, self.cache, stored)
            network = self.network_provider() if self.network_provider else None
            token, _ = await obtain_token(config, self.cache, agent, force=force, network=network)
            if store is not None:
                await asyncio.to_thread(save_refresh_token, config, token, store)
        except OAuthError as exc:
            self._set_status(str(exc), error=True)
            return
        except asyncio.CancelledError:
            self._set_status("Cancelled.")
            raise
        finally:
            self.prompt.close_prompt()
            self.get_button.setEnabled(True)
        self._token, self._token_for = token, config
        self._set_status(_describe(token))
        self.get_button.setText("Get new token")
        self.token_ready.emit()
        if then is not None:
            then()

    def _open(self, url: str) -> object:
        return self.open_browser(url)

    def _set_status(self, text: str, *, error: bool = False) -> None:
        self.status.setText(text)
        theme.style(self.status, "text-error" if error else "plain")

    def _on_renew(self) -> None:
        self.renew_banner.hide()
        self.renew_requested.emit()

    # --- from the card ------------------------------------------------------------------

    def card_options(self) -> tuple[CardOAuthOption, ...]:
        """The OAuth options of the tab's card (none before it was fetched)."""
        return card_oauth_options(self.card_source())

    def apply_card_option(self, option: CardOAuthOption) -> None:
        """Take the option's flow, URLs and scopes; the client id and secret stay."""
        current = self.oauth_config()
        self.set_oauth_config(
            OAuthConfig(
                option.config.flow,
                token_url=option.config.token_url,
                client_id=current.client_id,
                client_secret=current.client_secret,
                scopes=option.config.scopes or current.scopes,
                device_authorization_url=option.config.device_authorization_url,
                authorization_url=option.config.authorization_url,
                discovery_url=option.config.discovery_url,
            )
        )
        self._set_status(f"Filled from the card's {option.scheme} scheme.")

    def _on_from_card(self) -> None:
        options = self.card_options()
        if not options:
            self._set_status(
                "The Agent Card (fetch it on the Agent Card page) declares no oauth2 or "
                "openIdConnect scheme.",
                error=True,
            )
            return
        menu = QMenu(self)
        menu.setObjectName("oauthCardSchemeMenu")
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        for option in options:
            action = menu.addAction(option.label)
            action.triggered.connect(lambda _=False, o=option: self.apply_card_option(o))
        menu.popup(self.from_card_button.mapToGlobal(self.from_card_button.rect().bottomLeft()))

    def _on_flow_changed(self) -> None:
        flow = self.flow
        self.device_url.setEnabled(flow is OAuthFlow.DEVICE_CODE)
        self.authorization_url.setEnabled(flow is OAuthFlow.AUTHORIZATION_CODE)
        self.changed.emit()


def _line(object_name: str, placeholder: str) -> QLineEdit:
    edit = QLineEdit()
    edit.setObjectName(object_name)
    edit.setPlaceholderText(placeholder)
    return edit


def _describe(token: Token) -> str:
    if token.expires_at is None:
        text = "Token obtained (the server gave no expiry)."
    else:
        left = max(0, int(token.expires_at - time.time()))
        clock = time.strftime("%H:%M:%S", time.localtime(token.expires_at))
        text = f"Token valid until {clock} (in {left // 60} min {left % 60} s)."
    if token.refresh_token:
        text += " A refresh token was issued; Get new token uses it."
    return text
