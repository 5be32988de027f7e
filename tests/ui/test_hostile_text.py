"""Agent text in the window (issue 29, kind 1): shown as written, never read as HTML, its
control characters visible; and kinds 4, 6 and 7 as the window says them.

Each test drives one surface with hostile text (a real SDK agent echoing it where one can,
hand-made hostile servers where none will), reads what the widgets show, then sweeps the
whole window and its dialogs: every label, tooltip, item-view cell, read-only text view and
message box that shows the text must show it plainly (``sweep``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QAction
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QWidget,
)

from app.check.check_model import (
    CheckArea,
    CheckEnded,
    CheckResult,
    CheckStarted,
    CheckStatus,
    EndReason,
)
from app.protocol.events import Outcome
from app.protocol.oauth.device import DeviceAuthorization
from app.ui.card.card_panel import CardPanel
from app.ui.card.signature_dialog import SignatureDialog
from app.ui.check.check_report import CheckReportView
from app.ui.request.oauth_panel import DeviceCodePrompt
from app.ui.request.request_tab import RequestTab
from app.ui.response.response_view import ResponseView
from app.ui.shell.main_window import MainWindow
from tests.helpers.bad_server import Canned, bad_server
from tests.helpers.raw_server import hang_up, raw_server, ssh
from tests.ui.test_check_report import recorded
from tests.ui.test_timeline import new_tab, panel_of

pytestmark = pytest.mark.gui

CONTROLS = "\x1b]2;pwned\x07\x1b[2J\r\u202e"
HTML = '<img src="file:///etc/passwd"><a href="https://evil.example/">click</a><b>bold</b>'
HOSTILE = f"{HTML}{CONTROLS}"
CARD_PATH = "GET /.well-known/agent-card.json"


def raw_controls(text: str) -> list[str]:
    return [
        c
        for c in text
        if (ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F or c in "\u202e\u2066"
    ]


def _reads_html(text: str, rich: bool) -> bool:
    """Whether a widget would render markup of ``text``: tags read as tags."""
    return rich and "<img" in text


def _cells(view: QAbstractItemView) -> list[tuple[str, str]]:
    """Display and tooltip texts of the first rows of every level of ``view``'s model."""
    model = view.model()
    out: list[tuple[str, str]] = []
    if model is None:
        return out
    todo = [QModelIndex()]
    while todo and len(out) < 2000:
        parent = todo.pop()
        try:
            columns = model.columnCount(parent)
        except TypeError:  # a list model keeps columnCount private: one column
            columns = 1
        for row in range(min(model.rowCount(parent), 50)):
            for column in range(columns):
                index = model.index(row, column, parent)
                if model.flags(index) & Qt.ItemFlag.ItemIsEditable:
                    continue  # an editor's cell holds the data being edited, exactly
                display = model.data(index, Qt.ItemDataRole.DisplayRole)
                tip = model.data(index, Qt.ItemDataRole.ToolTipRole)
                out.append((str(display or ""), str(tip or "")))
            todo.append(model.index(row, 0, parent))
    return out


def sweep(mark: str = "pwned") -> int:
    """Check every widget of the application that shows ``mark``; returns how many do."""
    found = 0
    for top in QApplication.topLevelWidgets():
        widgets = [top, *top.findChildren(QWidget)]
        for widget in widgets:
            if isinstance(widget, QLabel) and mark in widget.text():
                found += 1
                text = widget.text()
                rich = widget.textFormat() is Qt.TextFormat.RichText or (
                    widget.textFormat() is Qt.TextFormat.AutoText and GuiQt.mightBeRichText(text)
                )
                assert not _reads_html(text, rich), (widget.objectName(), text)
                assert raw_controls(text) == [], (widget.objectName(), text)
            tip = widget.toolTip()
            if mark in tip:
                found += 1
                assert not _reads_html(tip, GuiQt.mightBeRichText(tip)), (widget, tip)
                assert raw_controls(tip) == [], (widget.objectName(), tip)
            if isinstance(widget, QPlainTextEdit) and widget.isReadOnly():
                text = widget.toPlainText()
                if mark in text:
                    found += 1
                    assert raw_controls(text.replace("\r\n", "\n")) == [], widget.objectName()
            if isinstance(widget, QMessageBox) and mark in widget.text():
                found += 1
                assert widget.textFormat() is Qt.TextFormat.PlainText, widget.text()
            if isinstance(widget, QAbstractItemView):
                for display, tip in _cells(widget):
                    if mark in display or mark in tip:
                        found += 1
                        assert raw_controls(display) == [], (widget.objectName(), display)
                        assert raw_controls(tip) == [], (widget.objectName(), tip)
                        assert not _reads_html(tip, GuiQt.mightBeRichText(tip)), tip
    return found


def send(qtbot: Any, tab: RequestTab, wait_until: Callable[..., None]) -> ResponseView:
    view = tab.response_view
    button = tab.findChild(QPushButton, "sendButton")
    assert button is not None
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    wait_until(lambda: view.outcome is not None and not tab.busy, timeout=20)
    return view


def shows_plainly(label: QLabel, *parts: str) -> None:
    """``label`` is plain text and shows each of ``parts`` as written."""
    assert label.textFormat() is Qt.TextFormat.PlainText, label.objectName()
    for part in parts:
        assert part in label.text(), (label.objectName(), label.text())


# --- kind 1: the response view, the timeline, the card page, dialogs -----------------------


def test_an_agents_error_and_status_line_show_as_text(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    error = {"jsonrpc": "2.0", "id": None, "error": {"code": -32603, "message": HOSTILE}}
    canned = Canned(status=500, reason="<b>Broken</b>", body=json.dumps(error).encode())
    with bad_server(canned) as url:
        tab = new_tab(window, url, "SendMessage", "hi")
        view = send(qtbot, tab, wait_until)
    assert view.outcome is Outcome.RPC_ERROR
    shows_plainly(view.error_label, HTML, "\\x1b]2;pwned\\x07\\x1b[2J\\r\\u202e")
    shows_plainly(view.status_label, "<b>Broken</b>")
    assert "\\u001b]2;pwned" in view.pretty_view.toPlainText()  # JSON's own escape
    assert sweep() >= 3


@pytest.mark.peer
def test_a_real_agents_streamed_echo_shows_escaped_in_the_timeline(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    tab = new_tab(window, sdk_peer["jsonrpc_url"], "SendStreamingMessage", HOSTILE)
    send(qtbot, tab, wait_until)
    panel = panel_of(tab)
    wait_until(lambda: panel.model.rowCount() >= 1)
    summary = panel.model.index(0, 5).data()
    assert "pwned" in summary and raw_controls(summary) == [] and "<img" in summary
    assert sweep() >= 2


def _hostile_card(url: str) -> dict[str, Any]:
    return {
        "name": HOSTILE,
        "description": HOSTILE,
        "version": "1",
        "provider": {"organization": HOSTILE, "url": "https://example.org"},
        "iconUrl": "https://example.org/icon.png",
        "supportedInterfaces": [
            {"url": f"{url}{CONTROLS}", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "capabilities": {"extensions": [{"uri": f"urn:{HOSTILE}", "description": HOSTILE}]},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": [HOSTILE],
        "skills": [{"id": "s", "name": HOSTILE, "description": HOSTILE, "tags": [HOSTILE]}],
        "securitySchemes": {HOSTILE: {"httpAuthSecurityScheme": {"scheme": "bearer"}}},
    }


def _fetch(qtbot: Any, window: MainWindow, url: str, wait_until: Callable[..., None]) -> CardPanel:
    tab = new_tab(window, url, "SendMessage", "hi")
    panel = tab.findChild(CardPanel, "cardView")
    assert panel is not None
    tab.result_tabs.setCurrentWidget(panel)
    panel.url_edit.setText(url)
    qtbot.mouseClick(panel.fetch_button, Qt.MouseButton.LeftButton)
    wait_until(lambda: not panel.busy, timeout=15)
    return panel


def test_a_hostile_card_shows_as_text_on_the_card_page(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    canned = Canned()
    with bad_server(canned) as url:
        canned.paths[CARD_PATH] = Canned(body=json.dumps(_hostile_card(url)).encode())
        panel = _fetch(qtbot, window, url, wait_until)
    shows_plainly(panel.name_label, HTML, "\\x1b]2;pwned")
    assert panel.interfaces_model.rowCount() == 1
    for page in range(panel.sections.count()):  # every section page is looked at
        panel.sections.setCurrentIndex(page)
    assert sweep() >= 5


def test_an_agents_artifacts_show_as_text(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    part = {"text": HOSTILE, "filename": HOSTILE, "mediaType": "text/plain"}
    artifact = {"artifactId": HOSTILE, "name": HOSTILE, "parts": [part]}
    task = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"},
            "artifacts": [artifact]}  # fmt: skip
    body = {"jsonrpc": "2.0", "id": None, "result": {"task": task}}
    with bad_server(Canned(body=json.dumps(body).encode())) as url:
        tab = new_tab(window, url, "SendMessage", "hi")
        send(qtbot, tab, wait_until)
    view = tab.artifacts_view
    tab.result_tabs.setCurrentWidget(view)
    wait_until(lambda: view.model.rowCount() == 1)
    first = view.model.index(0, 0)
    view.tree.setCurrentIndex(view.model.index(0, 0, first))
    assert "pwned" in view.text_view.toPlainText()
    assert raw_controls(view.text_view.toPlainText()) == []
    assert sweep() >= 3


def test_the_generate_server_dialog_shows_a_cards_words_as_text(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], tmp_path: Path
) -> None:
    card_file = tmp_path / "card.json"
    card_file.write_text(json.dumps(_hostile_card("http://127.0.0.1:8000/")))
    action = window.findChild(QAction, "generateServerAction")
    assert action is not None
    action.trigger()
    dialog = window.generate_server_dialog
    assert dialog is not None
    dialog.source_edit.setText(str(card_file))
    dialog.load_source()
    wait_until(lambda: not dialog.loading)
    assert dialog.interfaces_list.count() >= 1
    assert sweep() >= 1
    dialog.close()


def test_the_message_bar_and_the_device_code_prompt_show_text(
    qtbot: Any, window: MainWindow
) -> None:
    window.messages.show(f"Opened {HOSTILE}")
    message = window.statusBar().currentMessage()
    assert "pwned" in message and raw_controls(message) == []
    prompt = DeviceCodePrompt()
    qtbot.addWidget(prompt)
    prompt.show_authorization(
        DeviceAuthorization("d", HOSTILE, f"https://as.example/{HOSTILE}", "", 600, 5, 0.0)
    )
    shows_plainly(prompt.code_label, HTML)
    shows_plainly(prompt.uri_label, HTML)
    prompt.close_prompt()
    assert sweep() >= 2


def test_the_check_report_shows_an_agents_words_as_text(
    qtbot: Any, qloop: Any, wait_until: Callable[..., None]
) -> None:
    view = CheckReportView()
    view.show()
    result = CheckResult("core.send", CheckArea.CORE, "send", CheckStatus.FAIL, "A2A 1.0 §3.1.1",
                         f"got -32603 {HOSTILE}\nmore", f"JSONRPC 1.0 {HOSTILE}", (1,))  # fmt: skip
    events = [
        CheckStarted(f"http://127.0.0.1:1/{HOSTILE}", HOSTILE, (HOSTILE,), 1),
        result,
        CheckEnded(EndReason.COMPLETED, {CheckStatus.FAIL: 1}, 10.0),
    ]
    view.run(recorded(events), agent=HOSTILE)
    wait_until(lambda: view.ended is not None)
    assert view.agent_label.textFormat() is Qt.TextFormat.PlainText  # the card's name: text
    assert "<img" in view.agent_label.text() and "\x1b" not in view.agent_label.text()
    assert sweep() >= 3
    qloop.run_until_complete(view.shutdown())
    view.deleteLater()


def test_a_message_box_quoting_a_file_is_plain_text(window: MainWindow, tmp_path: Path) -> None:
    bad = tmp_path / f"{HTML.replace('/', '_')}\x1b[2Jpwned.yaml"
    bad.write_text("openapi: 3.2.0\npaths: [\n")
    window.spec.warn("Cannot open", f"{bad}: invalid YAML")
    boxes = [b for b in window.findChildren(QMessageBox) if "pwned" in b.text()]
    assert boxes and all(b.textFormat() is Qt.TextFormat.PlainText for b in boxes)
    assert sweep() >= 1
    for box in boxes:
        box.close()


# --- kind 4: duplicate member names -----------------------------------------------------


def test_a_duplicate_member_of_an_answer_is_a_finding_in_the_response_view(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    message = {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "x"}]}
    body = b'{"jsonrpc": "2.0",\n"result": ' + json.dumps({"message": message}).encode()
    body += b',\n"jsonrpc": "2.0", "id": null}'
    with bad_server(Canned(body=body)) as url:
        view = send(qtbot, new_tab(window, url, "SendMessage", "hi"), wait_until)
    text = view.findings_label.text()
    assert view.findings_label.isVisible() and "duplicate-member" in text
    assert "$.jsonrpc" in text and "lines 1 and 3" in text


@pytest.mark.peer
def test_a_signed_card_with_a_duplicate_member_is_an_error_and_not_validly_signed(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    # The demo agent's real signed card, a second "name" slipped in before the signed one:
    # this client reads the signed name, a first-wins parser the other.
    served = httpx.get(sdk_peer["card_url"], headers={"A2A-Version": "1.0"}).text
    signed = json.loads(served)
    text = served.replace('"name":', '"name": "Evil twin",\n"name":', 1)
    canned = Canned(body=text.encode())
    with bad_server(Canned(paths={CARD_PATH: canned})) as url:
        panel = _fetch(qtbot, window, url, wait_until)
    assert panel.card is not None and panel.card["name"] == signed["name"]
    problems = [p for p in panel.problems if p.path == "name"]
    assert problems and problems[0].severity.value == "error" and "lines" in problems[0].message
    dialog = panel.open_verify_dialog()
    assert isinstance(dialog, SignatureDialog)
    dialog.jwks_edit.setPlainText(Path(sdk_peer["jwks_path"]).read_text())
    dialog.verify()
    wait_until(lambda: dialog.verification is not None, timeout=15)
    assert dialog.verification is not None
    assert dialog.verification.status.value == "invalid"
    (sig,) = dialog.verification.signatures
    assert sig.reason is not None and "twice" in sig.reason.value
    assert "writes name twice" in dialog.summary_label.text()
    assert dialog.status_label.text() == "invalid"
    dialog.close()


# --- kind 7: an HTML page where a card or an answer was due -------------------------------

SPA = b"<!doctype html><html><head><title>Shop</title></head><body><div id=app></div></html>"
HTML_TYPE = {"Content-Type": "text/html; charset=utf-8"}


def test_the_card_page_says_the_card_url_returned_html(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    with bad_server(Canned(headers=HTML_TYPE, body=SPA)) as url:
        panel = _fetch(qtbot, window, url, wait_until)
    detail = panel.detail_label.text()
    assert "returned HTML (status 200), not an Agent Card" in detail
    assert "Expecting value" not in detail and "“Shop”" in detail


def test_the_response_view_says_the_answer_is_an_html_page(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    with bad_server(Canned(headers=HTML_TYPE, body=SPA)) as url:
        view = send(qtbot, new_tab(window, url, "SendMessage", "hi"), wait_until)
    assert view.outcome is Outcome.PROTOCOL_ERROR
    assert "HTTP 200 OK, text/html: the server returned an HTML page (“Shop”)" in (
        view.error_label.text()
    )


# --- kind 6: network failures worded exactly ----------------------------------------------


@pytest.mark.parametrize(
    ("handler", "scheme", "words"),
    [
        (hang_up, "https", "the server closed the connection during the TLS handshake"),
        (ssh, "http", 'the server\'s answer is not HTTP (it begins "SSH-2.0-OpenSSH_9.6")'),
    ],
    ids=["tls-closed", "not-http"],
)
def test_the_response_view_words_network_failures_exactly(
    qtbot: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    handler: Any,
    scheme: str,
    words: str,
) -> None:
    with raw_server(handler) as port:
        url = f"{scheme}://127.0.0.1:{port}/"
        view = send(qtbot, new_tab(window, url, "SendMessage", "hi"), wait_until)
    assert view.outcome is Outcome.TRANSPORT_ERROR
    assert words in view.error_label.text()


def test_the_card_page_words_network_failures_exactly(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None]
) -> None:
    with raw_server(hang_up) as port:
        panel = _fetch(qtbot, window, f"https://127.0.0.1:{port}/", wait_until)
    text = panel.detail_label.text()
    assert "the server closed the connection during the TLS handshake" in text
