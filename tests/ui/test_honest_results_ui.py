"""Results that misled, in the window (issue 29, kind 8), against the demo agent and the
real OpenID provider:

- *Use local receiver* on a body without a push config names the member of the tab's
  version (1.0 ``configuration.taskPushNotificationConfig``), and following it delivers;
- a member the method's schema lacks (a 1.0 send's ``configuration.pushNotificationConfig``)
  holds the send back behind the shape banner, naming the right one;
- the 0.3 push-config *get* template names the config of the task given;
- authorization code + PKCE from the card's OpenID Connect scheme asks for ``openid`` and
  the card's scopes, and gets a token.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtWidgets import QLabel, QLineEdit, QMenu

from app.protocol.events import Outcome
from app.protocol.stream.stream_items import ItemKind
from app.protocol.types import Binding, ProtocolVersion
from app.ui.request.oauth_panel import OAuthPanel
from app.ui.shell.main_window import MainWindow
from tests.helpers.oidc_browser import browse
from tests.peers.oidc_fixtures import PKCE_CLIENT
from tests.ui.test_auth_headers import click, find, send_and_wait
from tests.ui.test_oauth_panel import _oauth_page
from tests.ui.test_timeline import new_tab, panel_of, rows

pytestmark = [pytest.mark.gui, pytest.mark.peer]


def _tab_of(window: MainWindow, url: str, version: ProtocolVersion, binding: Binding) -> Any:
    tab = new_tab(window, url, "GetTask", "hi")
    tab.version_combo.setCurrentIndex(tab.version_combo.findData(version))
    tab.binding_combo.setCurrentIndex(tab.binding_combo.findData(binding))
    return tab


@pytest.mark.parametrize(
    ("version", "binding", "method", "member"),
    [
        (ProtocolVersion.V1_0, Binding.JSONRPC, "CreateTaskPushNotificationConfig",
         "configuration.taskPushNotificationConfig"),
        (ProtocolVersion.V0_3, Binding.JSONRPC, "tasks/pushNotificationConfig/set",
         "configuration.pushNotificationConfig"),
        (ProtocolVersion.V0_3, Binding.HTTP_JSON, "CreateTaskPushNotificationConfig",
         "configuration.pushNotification"),
    ],
)  # fmt: skip
def test_the_receiver_hint_names_the_member_of_the_tab_s_version(
    qtbot: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    version: ProtocolVersion,
    binding: Binding,
    method: str,
    member: str,
) -> None:
    tab = _tab_of(window, "http://127.0.0.1:9/", version, binding)  # GetTask: no push config
    tab.body_editor.setPlainText('{"no": "push config"}')
    click(qtbot, tab, "pushReceiverButton")
    status = find(tab, QLabel, "pushReceiverStatus")
    wait_until(lambda: "no push config" in status.text())
    assert f"choose {method}, or add {member}" in status.text()


def test_following_the_1_0_hint_gets_a_delivery(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = new_tab(window, sdk_peer["jsonrpc_url"], "SendMessage", "ask")
    body = json.loads(tab.body_editor.toPlainText())
    body["params"]["configuration"] = {
        "taskPushNotificationConfig": {"url": "https://x.invalid/", "token": "t"}
    }
    tab.body_editor.setPlainText(json.dumps(body))
    click(qtbot, tab, "pushReceiverButton")
    wait_until(lambda: "127.0.0.1" in tab.body_editor.toPlainText())
    view = send_and_wait(qtbot, tab, wait_until)
    assert view.outcome is Outcome.OK, view.error_label.text()
    panel = panel_of(tab)
    wait_until(lambda: any(r.kind is ItemKind.PUSH_DELIVERY for r in rows(panel)), timeout=15)


def test_an_unknown_member_holds_the_send_back_naming_the_right_one(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = new_tab(window, sdk_peer["jsonrpc_url"], "SendMessage", "ask")
    body = json.loads(tab.body_editor.toPlainText())
    body["params"]["configuration"] = {"pushNotificationConfig": {"url": "http://127.0.0.1:9/"}}
    tab.body_editor.setPlainText(json.dumps(body))
    click(qtbot, tab, "sendButton")
    banner = find(tab, QLabel, "shapeBannerText")
    assert banner.isVisible()
    text = banner.text()
    assert "$.params.configuration.pushNotificationConfig" in text
    assert "did you mean &#x27;taskPushNotificationConfig&#x27;?" in text or (
        "did you mean 'taskPushNotificationConfig'?" in text
    )
    assert not tab.busy


def test_the_0_3_get_template_names_the_config_of_the_task_given(
    qtbot: Any, window: MainWindow
) -> None:
    tab = _tab_of(window, "http://127.0.0.1:9/", ProtocolVersion.V0_3, Binding.JSONRPC)
    tab.method_combo.setCurrentIndex(tab.method_combo.findData("tasks/pushNotificationConfig/get"))
    edit = find(tab, QLineEdit, "templateTaskIdEdit")
    edit.setText("task-42")
    edit.textEdited.emit("task-42")
    params = json.loads(tab.preview.toPlainText())["params"]
    assert params == {"id": "task-42", "pushNotificationConfigId": "task-42"}


# The offscreen platform cannot grab the keyboard for a popup menu; not a fault of the app.
@pytest.mark.qt_log_ignore("^This plugin does not support grabbing the keyboard$")
def test_pkce_from_the_card_s_openid_scheme_asks_for_openid_and_gets_a_token(
    qtbot: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    qloop: asyncio.AbstractEventLoop,
    oauth_agent: dict[str, Any],
) -> None:
    tab, panel = _oauth_page(qtbot, window, oauth_agent["jsonrpc_url"])
    assert isinstance(panel, OAuthPanel)
    click(qtbot, tab.card_panel, "fetchCardButton")
    wait_until(lambda: tab.card_panel.snapshot() is not None, timeout=15)
    click(qtbot, panel, "oauthFromCardButton")
    menu = find(panel, QMenu, "oauthCardSchemeMenu")
    (action,) = [
        a for a in menu.actions() if a.text() == "oidc · openIdConnect · authorizationCode"
    ]
    action.trigger()
    menu.close()
    assert find(panel, QLineEdit, "oauthScopesEdit").text() == "openid a2a"
    find(panel, QLineEdit, "oauthClientIdEdit").setText(PKCE_CLIENT)
    opened: list[str] = []

    async def browser(url: str) -> None:
        opened.append(url)
        await browse(url)

    panel.open_browser = browser
    click(qtbot, panel, "getTokenButton")
    status = find(panel, QLabel, "oauthTokenStatus")
    wait_until(lambda: "Token" in status.text() or "access_denied" in status.text(), timeout=30)
    assert "scope=openid+a2a" in opened[0]
    assert "access_denied" not in status.text(), status.text()
    view = send_and_wait(qtbot, tab, wait_until)
    assert view.outcome is Outcome.OK, view.error_label.text()
