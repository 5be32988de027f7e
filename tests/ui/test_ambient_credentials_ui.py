"""Ambient credentials in the window (issue 29, kind 2): the system proxy never carries a
loopback agent, the window's shared client sends back no cookie an agent set, and a proxy's
credentials never show in the response view, even when a hostile proxy echoes them."""

from __future__ import annotations

import base64
import time
from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtWidgets import QLineEdit

from app.protocol.events import Outcome
from app.protocol.net.network import ProxyMode, ProxySettings
from app.ui.request import request_tab
from app.ui.shell.main_window import MainWindow
from tests.helpers.bad_server import Canned, bad_server
from tests.helpers.echo_server import echo_server
from tests.peers.tls_fixtures import PROXY_PASSWORD, PROXY_USER, ProxyServer
from tests.ui.test_auth_headers import find, new_tab, send_and_wait, type_into

pytestmark = pytest.mark.gui

OK_BODY = b'{"jsonrpc": "2.0", "id": 1, "result": {"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}}}'  # noqa: E501


def test_a_loopback_agent_is_reached_directly_under_the_system_proxy(
    qtbot: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    sdk_peer: dict[str, Any],
    proxy_server: ProxyServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(request_tab, "current_proxy", lambda: ProxySettings(ProxyMode.SYSTEM))
    monkeypatch.setenv("HTTP_PROXY", proxy_server.credentialed())
    monkeypatch.setenv("HTTPS_PROXY", proxy_server.credentialed())
    port = sdk_peer["base_url"].rsplit(":", 1)[1]
    before = proxy_server.log.read_text("utf-8") if proxy_server.log.exists() else ""
    tab = new_tab(window)
    type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), sdk_peer["jsonrpc_url"])
    view = send_and_wait(qtbot, tab, wait_until)
    assert view.outcome is Outcome.OK, view.error_label.text()
    assert "via proxy" not in view.request_view.toPlainText()
    time.sleep(0.3)  # proxy.py logs a request when its connection closes
    seen = proxy_server.log.read_text("utf-8")[len(before) :] if proxy_server.log.exists() else ""
    assert f":{port}" not in seen, seen


def test_the_window_sends_back_no_cookie_an_agent_set(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    headers = {"Content-Type": "application/json", "Set-Cookie": "sid=set-by-agent; Path=/"}
    canned = Canned(headers=headers, body=OK_BODY)
    with bad_server(canned) as url:
        first, second = new_tab(window), new_tab(window)
        for tab in (first, second, first):
            type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), url)
            view = send_and_wait(qtbot, tab, wait_until)
            assert view.outcome is not Outcome.TRANSPORT_ERROR, view.error_label.text()
            assert "Cookie" not in view.request_view.toPlainText()
    assert len(canned.received) == 3
    assert all("Cookie" not in received for _, _, received, _ in canned.received)


def test_proxy_credentials_a_proxy_echoes_are_masked_in_the_view(
    qtbot: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    token = base64.b64encode(f"{PROXY_USER}:{PROXY_PASSWORD}".encode()).decode()
    with echo_server("error") as url:
        proxy = ProxySettings(ProxyMode.CUSTOM, url.rstrip("/"), PROXY_USER, PROXY_PASSWORD)
        monkeypatch.setattr(request_tab, "current_proxy", lambda: proxy)
        tab = new_tab(window)
        type_into(qtbot, find(tab, QLineEdit, "endpointEdit"), "http://agent.test:8000/")
        view = send_and_wait(qtbot, tab, wait_until)
    shown = "\n".join(
        [
            view.error_label.text(),
            view.pretty_view.toPlainText(),
            view.raw_view.toPlainText(),
            view.request_view.toPlainText(),
            view.headers_view.toPlainText(),
        ]
    )
    assert "Proxy-Authorization" in shown  # the echo is there
    assert token not in shown and PROXY_PASSWORD not in shown
    assert f"# via proxy http://{PROXY_USER}:***@" in view.request_view.toPlainText()
