"""The Auth page's OAuth 2 settings against the real provider and the agent it guards."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QMenu, QPushButton

from app.protocol.events import Outcome
from app.ui.request.oauth_panel import DeviceCodePrompt, OAuthPanel
from app.ui.shell import theme
from app.ui.shell.main_window import MainWindow
from tests.helpers.oidc_browser import browse
from tests.helpers.screenshots import SHOTS
from tests.peers.oidc_fixtures import CC_CLIENT, DEVICE_CLIENT
from tests.ui.test_auth_headers import (
    click,
    find,
    new_tab,
    open_page,
    pick,
    send_and_wait,
    type_into,
)

pytestmark = [pytest.mark.gui, pytest.mark.peer]


def _oauth_page(qtbot: Any, window: MainWindow, url: str) -> tuple[Any, OAuthPanel]:
    tab = new_tab(window)
    type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), url)
    open_page(tab, "Auth")
    pick(find(tab, QComboBox, "authKindCombo"), "OAuth 2")
    return tab, find(tab, OAuthPanel, "oauthPanel")


def test_device_code_prompt_then_send(
    qtbot: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    qloop: asyncio.AbstractEventLoop,
    oauth_agent: dict[str, Any],
) -> None:
    oidc = oauth_agent["oidc"]
    tab, panel = _oauth_page(qtbot, window, oauth_agent["jsonrpc_url"])
    pick(find(panel, QComboBox, "oauthFlowCombo"), "Device code")
    type_into(qtbot, find(panel, QLineEdit, "oauthTokenUrlEdit"), oidc["token_url"])
    type_into(
        qtbot,
        find(panel, QLineEdit, "oauthDeviceAuthorizationUrlEdit"),
        oidc["device_authorization_url"],
    )
    type_into(qtbot, find(panel, QLineEdit, "oauthClientIdEdit"), DEVICE_CLIENT)
    type_into(qtbot, find(panel, QLineEdit, "oauthScopesEdit"), "openid a2a")
    opened: list[str] = []
    panel.open_browser = opened.append
    click(qtbot, panel, "getTokenButton")

    prompt = find(panel, DeviceCodePrompt, "deviceCodePrompt")
    wait_until(prompt.isVisible, timeout=30)
    code = find(prompt, QLabel, "deviceUserCodeLabel").text()
    assert code and oidc["issuer"] in find(prompt, QLabel, "deviceVerificationUriLabel").text()
    assert "expires in 9:5" in find(prompt, QLabel, "deviceCodeCountdown").text()
    if SHOTS.is_dir():
        window.grab().save(str(SHOTS / "oauth-device-code-window.png"))
        panel.grab().save(str(SHOTS / "oauth-device-code.png"))
    click(qtbot, prompt, "deviceOpenBrowserButton")
    assert opened == [f"{oidc['issuer']}/device?user_code={code}"]

    # The user signs in at the verification URI while the app polls.
    qloop.run_until_complete(browse(opened[0]))
    status = find(panel, QLabel, "oauthTokenStatus")
    wait_until(lambda: "Token valid until" in status.text(), timeout=15)
    assert not prompt.isVisible()
    assert find(panel, QPushButton, "getTokenButton").text() == "Get new token"

    view = send_and_wait(qtbot, tab, wait_until)
    assert view.outcome is Outcome.OK
    sent = view.request_view.toPlainText()
    assert "Authorization: Bearer ****" in sent

    # The refresh token was kept with the other secrets: a new tab refreshes, no new code.
    _, again = _oauth_page(qtbot, window, oauth_agent["jsonrpc_url"])
    again.set_oauth_config(panel.oauth_config())
    click(qtbot, again, "getTokenButton")
    status = find(again, QLabel, "oauthTokenStatus")
    wait_until(lambda: "Token valid until" in status.text(), timeout=15)
    assert not find(again, DeviceCodePrompt, "deviceCodePrompt").isVisible()
    assert again.auth_config().token != panel.auth_config().token


# The offscreen platform cannot grab the keyboard for a popup menu; not a fault of the app.
@pytest.mark.qt_log_ignore("^This plugin does not support grabbing the keyboard$")
def test_from_card_client_credentials_and_renewal_after_invalid_token(
    qtbot: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    qloop: asyncio.AbstractEventLoop,
    oauth_agent: dict[str, Any],
) -> None:
    oidc = oauth_agent["oidc"]
    tab, panel = _oauth_page(qtbot, window, oauth_agent["jsonrpc_url"])
    click(qtbot, tab.card_panel, "fetchCardButton")
    wait_until(lambda: tab.card_panel.snapshot() is not None, timeout=15)

    click(qtbot, panel, "oauthFromCardButton")
    menu = find(panel, QMenu, "oauthCardSchemeMenu")
    (action,) = [a for a in menu.actions() if a.text().startswith("oauthClientCredentials")]
    action.trigger()
    menu.close()
    assert find(panel, QLineEdit, "oauthTokenUrlEdit").text() == oidc["token_url"]
    assert find(panel, QLineEdit, "oauthScopesEdit").text() == "a2a"
    type_into(qtbot, find(panel, QLineEdit, "oauthClientIdEdit"), CC_CLIENT[0])
    type_into(qtbot, find(panel, QLineEdit, "oauthClientSecretEdit"), CC_CLIENT[1])

    # Send without a token: the tab gets one first.
    view = send_and_wait(qtbot, tab, wait_until)
    assert view.outcome is Outcome.OK
    token = panel.auth_config().token
    assert token

    # The provider revokes it: the agent answers 401 invalid_token, the tab offers renewal.
    revoked = httpx.post(oidc["revocation_url"], data={"token": token}, auth=CC_CLIENT)
    assert revoked.status_code == 200
    view = send_and_wait(qtbot, tab, wait_until)
    assert view.outcome is not Outcome.OK
    renew = find(panel, QPushButton, "oauthRenewButton")
    wait_until(renew.isVisible, timeout=30)
    click(qtbot, panel, "oauthRenewButton")
    wait_until(lambda: panel.auth_config().token not in ("", token), timeout=30)
    wait_until(lambda: view.outcome is Outcome.OK and not tab.busy, timeout=30)
    assert not renew.isVisible()


def test_wrong_secret_shows_invalid_client(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], oidc_provider: dict[str, Any]
) -> None:
    _, panel = _oauth_page(qtbot, window, "http://127.0.0.1:1/")
    type_into(qtbot, find(panel, QLineEdit, "oauthTokenUrlEdit"), oidc_provider["token_url"])
    type_into(qtbot, find(panel, QLineEdit, "oauthClientIdEdit"), CC_CLIENT[0])
    type_into(qtbot, find(panel, QLineEdit, "oauthClientSecretEdit"), "wrong")
    click(qtbot, panel, "getTokenButton")
    status = find(panel, QLabel, "oauthTokenStatus")
    wait_until(lambda: "invalid_client" in status.text(), timeout=15)
    assert status.text().startswith("invalid_client: client authentication failed")
    assert theme.colours().text_error in status.styleSheet()


def test_oauth_settings_save_and_load_without_the_token(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    tab, panel = _oauth_page(qtbot, window, "http://127.0.0.1:9/")
    pick(find(panel, QComboBox, "oauthFlowCombo"), "Authorization code + PKCE")
    type_into(qtbot, find(panel, QLineEdit, "oauthDiscoveryUrlEdit"), "http://127.0.0.1:8")
    type_into(qtbot, find(panel, QLineEdit, "oauthClientIdEdit"), "pkce-client")
    type_into(qtbot, find(panel, QLineEdit, "oauthScopesEdit"), "openid, a2a")
    saved = tab.to_saved()
    assert saved.auth.kind == "oauth2"
    assert dict(saved.auth.params) == {
        "flow": "authorizationCode",
        "discoveryUrl": "http://127.0.0.1:8",
        "clientId": "pkce-client",
        "scopes": "openid a2a",
    }
    other = new_tab(window)
    other.load_saved(saved)
    again = find(other, OAuthPanel, "oauthPanel")
    assert again.flow.value == "authorizationCode"
    assert find(again, QLineEdit, "oauthScopesEdit").text() == "openid a2a"
    assert not other.dirty
