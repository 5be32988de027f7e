"""The proxy setting of the app: a settings page, its dialog, and where it is kept.

:class:`ProxySettingsPage` (``proxySettingsPage``: ``proxyModeCombo``, ``proxyUrlEdit``,
``proxyUserEdit``, ``proxyPasswordEdit``) is a plain QWidget, ready for a Settings dialog;
:class:`NetworkSettingsDialog` shows it on its own (*View → Network settings…*).

The setting lives in ``network.json`` in the config folder; the proxy password is stored like
other secrets (OS keyring, else the private fallback file) as ``{{proxyPassword}}`` and the
file holds only that reference. :func:`current_proxy` is what requests and card fetches use.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from app.paths import network_settings_path, secrets_path
from app.protocol.net.network import ProxyMode, ProxySettings
from app.spec.variables import SecretStore
from app.ui.request.secret_edit import SecretEdit

PASSWORD_VARIABLE = "proxyPassword"
_MODE_LABELS = {
    ProxyMode.SYSTEM: "System proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY; loopback direct)",
    ProxyMode.NONE: "No proxy",
    ProxyMode.CUSTOM: "Custom proxy",
}
# The setting as last read or saved, with the file it belongs to (tests, say, switch the
# config folder: another file is read afresh).
_current: tuple[Path, ProxySettings] | None = None


def _store() -> SecretStore:
    return SecretStore(secrets_path())


def load_proxy(path: Path | None = None) -> ProxySettings:
    """The saved proxy setting (the system proxy when none is saved or the file is bad)."""
    try:
        data: Any = json.loads((path or network_settings_path()).read_text(encoding="utf-8"))
        raw = data["proxy"]
        mode = ProxyMode(raw.get("mode", "system"))
        url, user = str(raw.get("url", "")), str(raw.get("username", ""))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return ProxySettings()
    password = ""
    if raw.get("password"):
        password = _store().get(PASSWORD_VARIABLE) or ""
    return ProxySettings(mode, url, user, password)


def save_proxy(proxy: ProxySettings, path: Path | None = None) -> str:
    """Keep ``proxy``; returns a note on where the password went ("" when there is none)."""
    global _current
    note = _store().put(PASSWORD_VARIABLE, proxy.password) if proxy.password else ""
    raw: dict[str, str] = {"mode": proxy.mode.value, "url": proxy.url, "username": proxy.username}
    if proxy.password:
        raw["password"] = "{{" + PASSWORD_VARIABLE + "}}"
    target = path or network_settings_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps({"proxy": raw}, indent=2) + "\n", encoding="utf-8")
    _current = (target, proxy)
    return note


def current_proxy() -> ProxySettings:
    """The app's proxy setting (read once, then as last saved)."""
    global _current
    path = network_settings_path()
    if _current is None or _current[0] != path:
        _current = (path, load_proxy(path))
    return _current[1]


class ProxySettingsPage(QWidget):
    """Proxy mode, URL and credentials (``objectName`` ``proxySettingsPage``).

    Signals:
        changed: any field changed (no args).
    """

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("proxySettingsPage")
        self.mode_combo = QComboBox()
        self.mode_combo.setObjectName("proxyModeCombo")
        for mode, label in _MODE_LABELS.items():
            self.mode_combo.addItem(label, mode)
        self.url_edit = QLineEdit()
        self.url_edit.setObjectName("proxyUrlEdit")
        self.url_edit.setPlaceholderText("http://proxy.example:3128")
        self.user_edit = QLineEdit()
        self.user_edit.setObjectName("proxyUserEdit")
        self.user_edit.setPlaceholderText("optional")
        self.password = SecretEdit("proxyPasswordEdit", "optional (kept in the OS keyring)")
        self.note_label = QLabel(
            "Applies to JSON-RPC, HTTP+JSON, SSE, card fetches and gRPC (HTTP CONNECT)."
        )
        self.note_label.setObjectName("proxyNoteLabel")
        self.note_label.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Proxy", self.mode_combo)
        form.addRow("URL", self.url_edit)
        form.addRow("Username", self.user_edit)
        form.addRow("Password", self.password)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.note_label)
        layout.addStretch(1)
        self.mode_combo.currentIndexChanged.connect(self._sync)
        for edit in (self.url_edit, self.user_edit, self.password.edit):
            edit.textChanged.connect(self.changed)
        self.set_settings(current_proxy())

    def settings(self) -> ProxySettings:
        """The page as :class:`ProxySettings`."""
        mode = ProxyMode(self.mode_combo.currentData())
        if mode is not ProxyMode.CUSTOM:
            return ProxySettings(mode)
        return ProxySettings(
            mode, self.url_edit.text().strip(), self.user_edit.text(), self.password.text()
        )

    def set_settings(self, proxy: ProxySettings) -> None:
        """Show ``proxy``."""
        self.mode_combo.setCurrentIndex(self.mode_combo.findData(proxy.mode))
        self.url_edit.setText(proxy.url)
        self.user_edit.setText(proxy.username)
        self.password.edit.setText(proxy.password)
        self._sync()

    def apply(self) -> str:
        """Save what the page shows (:func:`save_proxy`); returns the password note."""
        return save_proxy(self.settings())

    def _sync(self, *_args: object) -> None:
        custom = self.mode_combo.currentData() is ProxyMode.CUSTOM
        for widget in (self.url_edit, self.user_edit, self.password):
            widget.setEnabled(custom)
        self.changed.emit()


class NetworkSettingsDialog(QDialog):
    """The proxy page in a dialog (``networkSettingsDialog``); OK saves it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("networkSettingsDialog")
        self.setWindowTitle("Network settings")
        self.page = ProxySettingsPage()
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.page)
        layout.addWidget(buttons)
        self.resize(520, 240)

    def accept(self) -> None:
        """Save, then close."""
        self.page.apply()
        super().accept()
