"""The TLS page and the proxy settings, used as a person would, against the mutual-TLS agent."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QTabWidget

from app.protocol.events import Outcome
from app.protocol.net.network import ProxyMode
from app.spec import variables
from app.ui.shell.main_window import MainWindow
from app.ui.shell.proxy_settings import NetworkSettingsDialog, current_proxy, load_proxy
from tests.peers.tls_fixtures import ProxyServer, TlsFiles
from tests.ui.test_auth_headers import find, new_tab, open_page, send_and_wait, type_into

pytestmark = pytest.mark.gui

SHOTS = os.environ.get("A2A_SHOTS_DIR", "")


def shot(widget: Any, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        widget.grab().save(str(Path(SHOTS) / name))


def test_tls_page_sends_with_a_client_certificate_and_explains_failures(
    qtbot: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    tls_peer: dict[str, Any],
    tls_files: TlsFiles,
) -> None:
    tab = new_tab(window)
    type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), tls_peer["jsonrpc_url"])
    view = send_and_wait(qtbot, tab, wait_until)
    assert view.outcome is Outcome.TRANSPORT_ERROR
    assert "a CA this client does not trust" in view.error_label.text()
    shot(tab, "tls-error.png")

    open_page(tab, "TLS")
    panel = find(tab, type(tab.tls_panel), "tlsPanel")
    type_into(qtbot, find(panel, QLineEdit, "caCertEdit"), tls_files.ca)
    view = send_and_wait(qtbot, tab, wait_until)
    assert "requires a client certificate" in view.error_label.text()

    type_into(qtbot, find(panel, QLineEdit, "clientCertEdit"), tls_files.client_cert)
    type_into(qtbot, find(panel, QLineEdit, "clientKeyEdit"), tls_files.client_key)
    view = send_and_wait(qtbot, tab, wait_until)
    assert view.outcome is Outcome.OK, view.error_label.text()
    assert tab.dirty

    saved = tab.to_saved()
    assert saved.network.tls.client_cert == tls_files.client_cert

    tabs = find(tab, QTabWidget, "requestEditorTabs")
    index = tabs.indexOf(panel)
    find(panel, QCheckBox, "insecureCheck").setChecked(True)
    assert tabs.tabText(index) == "TLS ⚠"
    assert find(panel, type(panel.warning_label), "tlsWarningLabel").isVisible()
    find(panel, QLineEdit, "caCertEdit").clear()
    view = send_and_wait(qtbot, tab, wait_until)
    assert view.outcome is Outcome.OK
    assert "# TLS verification OFF" in view.request_view.toPlainText()
    shot(tab, "tls-panel.png")
    find(panel, QCheckBox, "insecureCheck").setChecked(False)
    assert tabs.tabText(index) == "TLS"


def test_network_settings_dialog_saves_the_proxy(
    qtbot: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    tls_peer: dict[str, Any],
    tls_files: TlsFiles,
    proxy_server: ProxyServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_keyring(name: str, value: str) -> None:
        raise variables.NoKeyring("the test keeps the developer's keyring untouched")

    monkeypatch.setattr(variables, "keyring_set", no_keyring)
    action = window.findChild(QAction, "networkSettingsAction")
    assert action is not None
    action.trigger()
    dialog = window.findChild(NetworkSettingsDialog, "networkSettingsDialog")
    assert dialog is not None
    combo = find(dialog, QComboBox, "proxyModeCombo")
    url = find(dialog, QLineEdit, "proxyUrlEdit")
    assert not url.isEnabled()  # system proxy by default
    combo.setCurrentIndex(combo.findData(ProxyMode.CUSTOM))
    type_into(qtbot, url, proxy_server.url)
    type_into(qtbot, find(dialog, QLineEdit, "proxyUserEdit"), "alice")
    type_into(qtbot, find(dialog, QLineEdit, "proxyPasswordEdit"), "proxy-secret")
    shot(dialog, "tls-proxy-settings.png")
    dialog.accept()
    assert current_proxy().url == proxy_server.url
    assert load_proxy().mode is ProxyMode.CUSTOM

    tab = new_tab(window)
    type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), tls_peer["jsonrpc_url"])
    open_page(tab, "TLS")
    type_into(qtbot, find(tab, QLineEdit, "caCertEdit"), tls_files.ca)
    type_into(qtbot, find(tab, QLineEdit, "clientCertEdit"), tls_files.client_cert)
    type_into(qtbot, find(tab, QLineEdit, "clientKeyEdit"), tls_files.client_key)
    target = tls_peer["base_url"].removeprefix("https://")
    before = proxy_server.tunnels_to(target)
    view = send_and_wait(qtbot, tab, wait_until)
    assert view.outcome is Outcome.OK, view.error_label.text()
    assert "# via proxy http://alice:***@" in view.request_view.toPlainText()
    assert proxy_server.tunnels_to(target, more_than=before) == before + 1
