"""The request tab's *Agent Card* page, driven as a person would: fetch, read, use, diff."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QComboBox, QLineEdit, QPushButton, QTableView

from app.protocol.card.card_shape import CardShape
from app.protocol.types import Binding, ProtocolVersion
from app.ui.card.card_models import InterfacesModel
from app.ui.card.card_panel import CardPanel
from app.ui.request.request_tab import RequestTab
from app.ui.shell.main_window import MainWindow
from tests.helpers.bad_server import Canned, bad_server

pytestmark = pytest.mark.gui


def new_tab(window: MainWindow, endpoint: str = "") -> RequestTab:
    action = window.findChild(QAction, "newA2ARequestAction")
    assert action is not None
    action.trigger()
    tab = window.current_tab()
    assert tab is not None
    if endpoint:
        tab.endpoint_edit.setText(endpoint)
    return tab


def find(parent: Any, kind: type, name: str) -> Any:
    widget = parent.findChild(kind, name)
    assert widget is not None, name
    return widget


def panel_of(tab: RequestTab) -> CardPanel:
    panel = find(tab, CardPanel, "cardView")
    tabs = tab.result_tabs
    assert tabs.tabText(tabs.indexOf(panel)) == "Agent Card"
    tabs.setCurrentWidget(panel)  # as a user opens the page before using it
    return panel


def click(qtbot: Any, button: QPushButton) -> None:
    assert button.isEnabled(), button.objectName()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def fetch(qtbot: Any, panel: CardPanel, wait_until: Callable[..., None]) -> None:
    click(qtbot, find(panel, QPushButton, "fetchCardButton"))
    wait_until(lambda: not panel.busy, timeout=15)


def fetch_demo_card(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], peer: dict[str, Any]
) -> tuple[RequestTab, CardPanel]:
    tab = new_tab(window, peer["jsonrpc_url"])
    panel = panel_of(tab)
    assert find(panel, QLineEdit, "cardUrlEdit").text() == peer["base_url"]
    fetch(qtbot, panel, wait_until)
    return tab, panel


def test_the_demo_card_is_shown_with_its_interfaces_and_hybrid_shape(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    _tab, panel = fetch_demo_card(qtbot, window, wait_until, sdk_peer)

    assert panel.status_label.text() == "200 OK"
    assert sdk_peer["card_url"] in panel.detail_label.text()
    assert panel.name_label.text() == "A2A Workbench demo agent"
    assert panel.view is not None and panel.view.shape is CardShape.HYBRID
    assert panel.shape_label.text().startswith("hybrid")
    table = find(panel, QTableView, "cardInterfacesTable")
    assert table.model().rowCount() == 6
    assert panel.sections.tabText(0) == "Interfaces (6)"
    assert panel.skills_model.rowCount() == 5
    assert "12 30" in [s.examples[0] for s in panel.skills_model.rows()]
    assert panel.signatures_model.rows()[0].alg == "ES256"
    assert panel.signatures_model.rows()[0].jku.endswith("/.well-known/jwks.json")
    assert "streaming: yes" in panel.capabilities_label.text()
    # Raw bytes, as served, and what was sent: no credentials.
    assert panel.raw_view.toPlainText() == panel.raw.decode()
    assert '"supportedInterfaces"' in panel.raw_view.toPlainText()
    exchange = panel.exchange_view.toPlainText()
    assert "Authorization" not in exchange and "A2A-Version" not in exchange
    assert find(panel, QPushButton, "verifySignatureButton").isEnabled()
    # The 0.3 mirror fields are reported, not treated as errors.
    assert any(p.path == "preferredTransport" for p in panel.problems)


def test_use_this_interface_sets_endpoint_binding_version_and_tenant(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab, panel = fetch_demo_card(qtbot, window, wait_until, sdk_peer)
    tab.tenant_edit.setText("stale")
    draft = tab.body_editor.toPlainText()

    row = panel.interface_row("HTTP+JSON", "1.0")
    table = find(panel, QTableView, "cardInterfacesTable")
    panel.sections.setCurrentIndex(0)
    table.scrollTo(table.model().index(row, InterfacesModel.USE))
    rect = table.visualRect(table.model().index(row, InterfacesModel.USE))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())

    assert find(tab, QLineEdit, "endpointEdit").text() == sdk_peer["rest_url"]
    assert find(tab, QComboBox, "bindingCombo").currentText() == "HTTP+JSON"
    assert tab.binding is Binding.HTTP_JSON and tab.version is ProtocolVersion.V1_0
    assert find(tab, QLineEdit, "tenantEdit").text() == ""
    assert tab.body_editor.toPlainText() != draft  # untouched: it follows the binding
    assert tab.body_editor.toPlainText() == tab.preview.toPlainText()
    assert tab.build_request().tenant == ""

    panel.use_interface(panel.interface_row("JSONRPC", "0.3"))
    assert tab.version is ProtocolVersion.V0_3 and tab.binding is Binding.JSONRPC
    assert tab.endpoint_edit.text() == sdk_peer["jsonrpc_url"]


def test_a_redirect_is_reported_with_its_location_and_not_followed(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    canned = Canned(
        status=302,
        headers={"Location": "http://127.0.0.1:9/elsewhere.json", "Content-Type": "text/plain"},
        body=b"moved",
    )
    with bad_server(canned) as url:
        tab = new_tab(window)
        tab.headers_panel.model.add_row("Authorization", "Bearer tab-secret")
        panel = panel_of(tab)
        find(panel, QLineEdit, "cardUrlEdit").setText(url)
        fetch(qtbot, panel, wait_until)

    assert panel.status_label.text() == "302 Found"
    detail = panel.detail_label.text()
    assert "http://127.0.0.1:9/elsewhere.json" in detail and "NOT followed" in detail
    assert len(canned.received) == 1
    method, path, headers, _ = canned.received[0]
    assert (method, path) == ("GET", "/.well-known/agent-card.json")
    assert not {"authorization", "cookie"} & {k.lower() for k in headers}
    assert panel.card is None and panel.raw_view.toPlainText() == "moved"
    assert not find(panel, QPushButton, "verifySignatureButton").isEnabled()
    click(qtbot, find(panel, QPushButton, "redirectLocationButton"))
    assert panel.url_edit.text() == "http://127.0.0.1:9/elsewhere.json"


def test_a_404_offers_the_legacy_card_path(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    canned = Canned(status=404, body=b'{"detail": "Not Found"}')
    with bad_server(canned) as url:
        panel = panel_of(new_tab(window))
        panel.url_edit.setText(url)
        fetch(qtbot, panel, wait_until)
        legacy = find(panel, QPushButton, "legacyCardButton")
        assert legacy.isVisible()
        assert "/.well-known/agent.json" in panel.detail_label.text()
        click(qtbot, legacy)
        wait_until(lambda: not panel.busy)
    assert [r[1] for r in canned.received] == [
        "/.well-known/agent-card.json",
        "/.well-known/agent.json",
    ]


@contextmanager
def etag_server(card: bytes) -> Iterator[tuple[str, list[dict[str, str]]]]:
    """Serves ``card`` with ETag "v1"; answers 304 to ``If-None-Match: "v1"``."""
    seen: list[dict[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(dict(self.headers))
            if self.headers.get("If-None-Match") == '"v1"':
                self.send_response(304)
                self.send_header("ETag", '"v1"')
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("ETag", '"v1"')
            self.send_header("Content-Length", str(len(card)))
            self.end_headers()
            self.wfile.write(card)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/card.json", seen
    finally:
        server.shutdown()
        server.server_close()


def test_refetch_sends_if_none_match_and_shows_a_304_for_what_it_is(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    card = json.dumps({"name": "Cached agent", "supportedInterfaces": []}).encode()
    with etag_server(card) as (url, seen):
        panel = panel_of(new_tab(window))
        panel.url_edit.setText(url)
        find(panel, QComboBox, "cardVersionCombo").setCurrentIndex(1)
        refetch = find(panel, QPushButton, "refetchCardButton")
        assert not refetch.isEnabled()
        fetch(qtbot, panel, wait_until)
        assert panel.name_label.text() == "Cached agent"
        click(qtbot, refetch)
        wait_until(lambda: not panel.busy)
    assert "If-None-Match" not in seen[0] and seen[0]["A2A-Version"] == "1.0"
    assert seen[1]["If-None-Match"] == '"v1"'
    assert panel.status_label.text() == "304 Not Modified"
    assert "unchanged" in panel.detail_label.text()
    assert panel.name_label.text() == "Cached agent"


def test_a_card_bigger_than_1_mib_is_refused_and_nothing_parsed(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    big = b'{"name": "' + b"x" * (1024 * 1024) + b'"}'
    with bad_server(Canned(body=big)) as url:
        panel = panel_of(new_tab(window))
        panel.url_edit.setText(url)
        fetch(qtbot, panel, wait_until)
    assert "too large" in panel.detail_label.text()
    assert panel.card is None and panel.view is None


def test_get_extended_card_shows_the_extra_skill_in_a_diff(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    _tab, panel = fetch_demo_card(qtbot, window, wait_until, sdk_peer)
    click(qtbot, find(panel, QPushButton, "extendedCardButton"))
    wait_until(lambda: not panel.extended_busy, timeout=15)
    view = panel.extended_view
    assert panel.sections.currentWidget() is view
    rows = view.model.rows()
    assert [(r.path, r.kind.value) for r in rows] == [("skills[id=extended]", "added")]
    assert "Extended-card marker" in rows[0].after
    assert "HTTP 200" in view.status_label.text()
    assert "1 added, 0 removed, 0 changed" in view.status_label.text()


def test_ticking_a_card_extension_activates_it_on_the_tab(qtbot: Any, window: MainWindow) -> None:
    tab = new_tab(window)
    panel = panel_of(tab)
    uri = "https://example.com/ext/v1"
    card = {
        "name": "x",
        "capabilities": {"extensions": [{"uri": uri, "description": "d", "required": True}]},
    }
    panel.show_card(json.dumps(card).encode(), "test")
    assert tab.extensions_panel.model.uris() == [uri]  # offered, not ticked
    assert tab.extensions_panel.selected() == []
    panel.extensions_model.set_ticked(0, True)
    assert tab.extensions_panel.selected() == [uri]
    assert uri in dict(tab.build_request().headers).get("A2A-Extensions", "")
    panel.extensions_model.set_ticked(0, False)
    assert tab.extensions_panel.selected() == []


FUZZ = [
    b"",
    b"null",
    b"[]",
    b'"card"',
    b"{}",
    b"\xff\xfe{}",
    b'{"name": ',
    b'{"a": 1, "a": 2}',
    b"[" * 5000 + b"]" * 5000,
    b'{"name": 5, "supportedInterfaces": "x", "capabilities": [], "skills": {}}',
    json.dumps(
        {
            "name": "fuzz",
            "supportedInterfaces": [1, {"url": 3}, {"url": "relative/path", "protocolBinding": []}],
            "skills": [1, {"id": [], "examples": [1, None], "inputModes": "text"}],
            "capabilities": {"extensions": [None, {"uri": 7}, {"params": {"a": [1]}}]},
            "signatures": [{"protected": "!!"}, 5, {"protected": "bnVsbA"}],
            "securitySchemes": {"a": 3, "b": {"type": []}, "c": {"oauth2SecurityScheme": {}}},
            "securityRequirements": [{"schemes": {"a": 3}}, 2],
            "provider": "nobody",
            "iconUrl": ["x"],
        }
    ).encode(),
    json.dumps(
        {"url": "http://h/", "preferredTransport": "GRPC", "additionalInterfaces": [{}]}
    ).encode(),
    json.dumps({"name": "n" * 100_000, "description": "é ✓ 😀"}).encode(),
    b'{"version": 1e999999, "n": 123456789012345678901234567890}',
]


@pytest.mark.parametrize("raw", FUZZ, ids=range(len(FUZZ)))
def test_any_card_bytes_are_shown_without_crashing(
    qtbot: Any, window: MainWindow, raw: bytes
) -> None:
    panel = panel_of(new_tab(window))
    panel.show_card(raw, "fuzz")
    assert panel.raw == raw
    assert panel.raw_view.toPlainText() or not raw
    if panel.card is None or not isinstance(panel.card, dict):
        assert panel.problems, "a non-card must list at least one problem"
    # Every table paints its rows without raising.
    for table in panel.findChildren(QTableView):
        table.viewport().grab()
    dialog = panel.open_verify_dialog()
    if dialog is not None:
        dialog.verify()
        dialog.close()


def test_load_card_from_file_shows_it_and_the_request_builder_for_extended_card(
    qtbot: Any, window: MainWindow, tmp_path: Path
) -> None:
    card = {
        "name": "From a file",
        "supportedInterfaces": [
            {
                "url": "http://x/",
                "protocolBinding": "JSONRPC",
                "protocolVersion": "1.0",
                "tenant": "acme",
            },
            {"url": "http://y/", "protocolBinding": "JSONRPC", "protocolVersion": "2.0"},
        ],
    }
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card))
    tab = new_tab(window)
    panel = panel_of(tab)
    assert panel.load_card_file(str(path))
    assert panel.name_label.text() == "From a file"
    assert panel.status_label.text() == "File"
    assert not panel.load_card_file(str(tmp_path / "missing.json"))

    panel.use_interface(0)
    assert tab.endpoint_edit.text() == "http://x/" and tab.tenant_edit.text() == "acme"
    request = tab.build_request()
    assert request.tenant == "acme"
    # A version the app cannot speak leaves the tab alone.
    panel.use_interface(1)
    assert tab.endpoint_edit.text() == "http://x/"
    assert panel.status_label.text() == "Cannot use"

    from app.ui.card.extended_card import extended_card_request

    ext = extended_card_request(request)
    assert ext.method == "GetExtendedAgentCard"
    assert json.loads(ext.body)["params"] == {"tenant": "acme"}
    assert ext.endpoint == "http://x/"


def test_interface_model_rows_are_grey_when_the_app_cannot_speak_them(
    qtbot: Any, window: MainWindow
) -> None:
    panel = panel_of(new_tab(window))
    card = {
        "supportedInterfaces": [
            {"url": "http://y/", "protocolBinding": "JSONRPC", "protocolVersion": "2.0"},
        ]
    }
    panel.show_card(json.dumps(card).encode(), "x")
    model = panel.interfaces_model
    assert model.data(model.index(0, 0), Qt.ItemDataRole.ForegroundRole) is not None
    assert "cannot speak" in model.data(model.index(0, 0), Qt.ItemDataRole.ToolTipRole)
    assert model.headerData(3, Qt.Orientation.Horizontal) == "Tenant"
    assert isinstance(QPoint(), QPoint)


@pytest.mark.parametrize(
    ("binding", "version"), [("HTTP+JSON", "1.0"), ("GRPC", "1.0"), ("JSONRPC", "0.3")]
)
def test_get_extended_card_works_on_the_interface_in_use(
    qtbot: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    sdk_peer: dict[str, Any],
    binding: str,
    version: str,
) -> None:
    _tab, panel = fetch_demo_card(qtbot, window, wait_until, sdk_peer)
    panel.use_interface(panel.interface_row(binding, version))
    click(qtbot, find(panel, QPushButton, "extendedCardButton"))
    wait_until(lambda: not panel.extended_busy, timeout=15)
    rows = [(r.path, r.kind.value) for r in panel.extended_view.model.rows()]
    assert rows == [("skills[id=extended]", "added")]
    assert "left out of the comparison" in panel.extended_view.status_label.text()


def test_a_hanging_fetch_can_be_cancelled(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], qloop: Any
) -> None:
    import socket

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        panel = panel_of(new_tab(window))
        panel.url_edit.setText(f"http://127.0.0.1:{server.getsockname()[1]}/")
        button = find(panel, QPushButton, "fetchCardButton")
        click(qtbot, button)
        wait_until(lambda: button.text() == "Cancel")
        click(qtbot, button)
        wait_until(lambda: not panel.busy)
    assert button.text() == "Fetch card"
    assert panel.status_label.text() == "Cancelled"
