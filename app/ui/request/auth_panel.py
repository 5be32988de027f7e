"""The request tab's *Auth* page: none, bearer token, HTTP Basic, an API key or OAuth 2.

Secret fields are password-style line edits with a *Show* toggle. Values stay in these
widgets and in the :class:`AuthConfig` built from them: never saved, never logged.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.protocol.net.auth import ApiKeyLocation, AuthConfig, AuthKind
from app.spec.oauth_saved import saved_to_oauth
from app.spec.xa2a import SavedAuth
from app.ui.request.oauth_panel import OAuthPanel
from app.ui.request.secret_edit import SecretEdit

_NOTE = (
    "Sent only to this tab's endpoint (gRPC: as metadata), never to Agent Card "
    "fetches; masked in “Request sent” and in History, never logged. Save to spec "
    "writes only a reference such as {{token.host-port}} into the file: the value "
    "goes to the OS keyring (without one, to secrets.json in the settings folder, "
    "readable only by you) and is used only for requests to that host. The session "
    "autosave keeps no credential values."
)
_OAUTH_NOTE = (
    "The access token is sent only to this tab's endpoint (gRPC: as metadata), never to "
    "Agent Card fetches, and masked in “Request sent”. Tokens stay in memory; a refresh "
    "token and, when the request is saved, the client secret go to the OS keyring."
)


class AuthPanel(QWidget):
    """Credentials for this tab's endpoint (``objectName`` ``authPanel``).

    Inside: ``authKindCombo``; ``bearerTokenEdit``; ``basicUserEdit``, ``basicPasswordEdit``;
    ``apiKeyNameEdit``, ``apiKeyValueEdit``, ``apiKeyLocationCombo``; the OAuth 2 page
    (:class:`OAuthPanel`, ``oauthPanel``); each secret edit has a ``…Reveal`` toggle.

    Signals:
        changed: the configuration changed (no args).
    """

    changed = Signal()

    _KINDS = (
        (AuthKind.NONE, "No auth"),
        (AuthKind.BEARER, "Bearer token"),
        (AuthKind.BASIC, "HTTP Basic"),
        (AuthKind.API_KEY, "API key"),
        (AuthKind.OAUTH2, "OAuth 2"),
    )

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("authPanel")
        self.kind_combo = QComboBox()
        self.kind_combo.setObjectName("authKindCombo")
        for kind, label in self._KINDS:
            self.kind_combo.addItem(label, kind)

        self.bearer_token = SecretEdit("bearerTokenEdit", "Token (sent as Authorization: Bearer …)")
        self.basic_user = QLineEdit()
        self.basic_user.setObjectName("basicUserEdit")
        self.basic_user.setPlaceholderText("User name (no ':')")
        self.basic_password = SecretEdit("basicPasswordEdit", "Password")
        self.key_name = QLineEdit()
        self.key_name.setObjectName("apiKeyNameEdit")
        self.key_name.setPlaceholderText("Name, e.g. X-API-Key")
        self.key_value = SecretEdit("apiKeyValueEdit", "Key")
        self.key_location = QComboBox()
        self.key_location.setObjectName("apiKeyLocationCombo")
        for location in ApiKeyLocation:
            self.key_location.addItem(location.value, location)

        self.pages = QStackedWidget()
        self.pages.addWidget(_page(QLabel("No credentials are sent.")))
        self.pages.addWidget(_form(("Token", self.bearer_token)))
        self.pages.addWidget(_form(("User", self.basic_user), ("Password", self.basic_password)))
        self.pages.addWidget(
            _form(("In", self.key_location), ("Name", self.key_name), ("Key", self.key_value))
        )
        self.oauth = OAuthPanel()
        self.pages.addWidget(_page(self.oauth))
        self.oauth.installEventFilter(self)

        self.note = QLabel(_NOTE)
        self.note.setObjectName("authNote")
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: palette(placeholder-text);")

        head = QFormLayout()
        head.addRow("Type", self.kind_combo)
        layout = QVBoxLayout(self)
        layout.addLayout(head)
        layout.addWidget(self.pages)
        layout.addWidget(self.note)
        layout.addStretch(1)
        self._fit_pages()

        self.kind_combo.currentIndexChanged.connect(self._on_kind_changed)
        for edit in (
            self.bearer_token.edit,
            self.basic_user,
            self.basic_password.edit,
            self.key_name,
            self.key_value.edit,
        ):
            edit.textChanged.connect(self.changed)
        self.key_location.currentIndexChanged.connect(self.changed)
        self.oauth.changed.connect(self.changed)

    @property
    def kind(self) -> AuthKind:
        """The selected scheme."""
        return AuthKind(self.kind_combo.currentData())

    def set_kind(self, kind: AuthKind) -> None:
        """Select ``kind`` (as picking it in the combo box does)."""
        self.kind_combo.setCurrentIndex(self.kind_combo.findData(kind))

    def config(self) -> AuthConfig:
        """What the widgets describe."""
        kind = self.kind
        if kind is AuthKind.BEARER:
            return AuthConfig.bearer(self.bearer_token.text().strip())
        if kind is AuthKind.BASIC:
            return AuthConfig.basic(self.basic_user.text(), self.basic_password.text())
        if kind is AuthKind.OAUTH2:
            return self.oauth.auth_config()
        if kind is AuthKind.API_KEY:
            return AuthConfig.api_key(
                self.key_name.text().strip(),
                self.key_value.text(),
                ApiKeyLocation(self.key_location.currentData()),
            )
        return AuthConfig.none()

    def show_saved(self, auth: SavedAuth) -> None:
        """Fill the page from a saved request's auth (``{{variables}}`` stay as written)."""
        self.set_kind(AuthKind(auth.kind))
        self.bearer_token.edit.setText(auth.get("token"))
        self.basic_user.setText(auth.get("username"))
        self.basic_password.edit.setText(auth.get("password"))
        self.key_name.setText(auth.get("name"))
        self.key_value.edit.setText(auth.get("value"))
        location = self.key_location.findData(ApiKeyLocation(auth.get("in", "header")))
        self.key_location.setCurrentIndex(max(location, 0))
        oauth = saved_to_oauth(auth)
        if oauth is not None:
            self.oauth.set_oauth_config(oauth)

    def _on_kind_changed(self) -> None:
        self.pages.setCurrentIndex(self.kind_combo.currentIndex())
        self.note.setText(_OAUTH_NOTE if self.kind is AuthKind.OAUTH2 else _NOTE)
        self._fit_pages()
        self.changed.emit()

    def _fit_pages(self) -> None:
        # A stack is as tall as its tallest page; size it to the visible one so the note
        # sits right under the fields.
        current = self.pages.currentWidget()
        if current is not None:
            self.pages.setFixedHeight(current.sizeHint().height())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Re-fit the stack when the OAuth page grows or shrinks (device prompt, banner)."""
        if event.type() is QEvent.Type.LayoutRequest and self.kind is AuthKind.OAUTH2:
            self._fit_pages()
        return super().eventFilter(watched, event)


def _page(widget: QWidget) -> QWidget:
    page = QWidget()
    layout = QVBoxLayout(page)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(widget)
    return page


def _form(*rows: tuple[str, QWidget]) -> QWidget:
    page = QWidget()
    form = QFormLayout(page)
    form.setContentsMargins(0, 0, 0, 0)
    for label, widget in rows:
        form.addRow(label, widget)
    return page
