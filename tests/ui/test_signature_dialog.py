"""*Verify signature*: the non-modal dialog against real signed cards (demo agent, JS peer)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QLabel, QPushButton, QTableView, QTabWidget

from app.protocol.card.canonical import Profile
from app.protocol.card.jws_verify import CardStatus, Verdict
from app.ui.card.card_panel import CardPanel
from app.ui.card.signature_dialog import SignatureDialog
from app.ui.shell.main_window import MainWindow
from tests.ui.test_card_panel import fetch, find, new_tab, panel_of

pytestmark = pytest.mark.gui


def open_dialog(qtbot: Any, panel: CardPanel) -> SignatureDialog:
    qtbot.mouseClick(find(panel, QPushButton, "verifySignatureButton"), Qt.MouseButton.LeftButton)
    dialog = panel.verify_dialog
    assert dialog is not None and dialog.isVisible() and not dialog.isModal()
    return dialog


def press_verify(qtbot: Any, dialog: SignatureDialog) -> str:
    """Click Verify and wait for the worker thread's verdict (the loop keeps running)."""
    qtbot.mouseClick(find(dialog, QPushButton, "verifyButton"), Qt.MouseButton.LeftButton)
    wait_verified(dialog)
    return str(find(dialog, QLabel, "verifyStatusLabel").text())


def wait_verified(dialog: SignatureDialog, timeout: float = 30.0) -> None:
    async def poll() -> None:
        while dialog.verifying:
            await asyncio.sleep(0.02)

    asyncio.get_event_loop().run_until_complete(asyncio.wait_for(poll(), timeout))


def demo_panel(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], peer: dict[str, Any]
) -> CardPanel:
    """As at start-up: the demo agent is ready, its tab fetches the card."""
    window.on_demo_ready(peer)
    tab = window.current_tab()
    assert tab is not None
    panel = panel_of(tab)
    fetch(qtbot, panel, wait_until)
    assert panel.card is not None
    return panel


def test_the_demo_card_verifies_with_the_demo_agents_jwks_in_one_click(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    panel = demo_panel(qtbot, window, wait_until, sdk_peer)
    dialog = open_dialog(qtbot, panel)
    demo = find(dialog, QPushButton, "loadDemoJwksButton")
    assert demo.isVisible() and sdk_peer["jwks_path"] in demo.toolTip()
    assert find(dialog, QLabel, "verifyStatusLabel").text() == "not verified"

    qtbot.mouseClick(demo, Qt.MouseButton.LeftButton)
    assert '"keys"' in dialog.jwks_edit.toPlainText()
    assert press_verify(qtbot, dialog) == "valid"

    result = dialog.verification
    assert result is not None and result.status is CardStatus.VALID
    model = find(dialog, QTableView, "signatureResultsTable").model()
    assert model.rowCount() == 1
    assert model.index(0, 1).data() == "valid"
    assert result.signatures[0].profile is Profile.SDK
    # Diagnostics: closed until asked for, then payload bytes, coverage, headers, notes.
    diagnostics = find(dialog, QTabWidget, "diagnosticsTabs")
    assert not diagnostics.isVisible()
    qtbot.mouseClick(find(dialog, type(dialog.diagnostics_button), "diagnosticsButton"),
                     Qt.MouseButton.LeftButton)  # fmt: skip
    assert diagnostics.isVisible()
    payload = dialog.verification.payload(Profile.SDK) if dialog.verification else None
    assert payload is not None and payload.payload is not None
    assert dialog.payload_view.toPlainText() == payload.payload.decode()
    assert f"{len(payload.payload)} bytes" in dialog.payload_info.text()
    assert "signatures" not in json.loads(dialog.payload_view.toPlainText())
    assert "preferredTransport" in dialog.uncovered_view.toPlainText()
    headers = dialog.headers_view.toPlainText()
    assert "jku: http" in headers and "never followed" in headers
    assert "does not tell you who owns that key" in dialog.notes_view.toPlainText()


def test_a_tampered_card_from_a_file_is_invalid(
    qtbot: Any,
    window: MainWindow,
    wait_until: Callable[..., None],
    sdk_peer: dict[str, Any],
    tmp_path: Path,
) -> None:
    panel = demo_panel(qtbot, window, wait_until, sdk_peer)
    card = json.loads(panel.raw)
    card["name"] = "A2A Workbench demo agent (tampered)"
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(card))
    assert panel.load_card_file(str(path))
    assert panel.name_label.text().endswith("(tampered)")

    dialog = open_dialog(qtbot, panel)
    assert not find(dialog, QPushButton, "loadDemoJwksButton").isVisible()  # not the demo's
    assert dialog.load_jwks_file(sdk_peer["jwks_path"])
    assert press_verify(qtbot, dialog) == "invalid"
    row = dialog.verification.signatures[0] if dialog.verification else None
    assert row is not None and row.verdict is Verdict.INVALID
    assert row.reason is not None and row.reason.value.startswith("signature mismatch")
    assert dialog.model.index(0, 4).data() == row.reason.value


def test_an_unsigned_card_says_unsigned_without_a_jwks(qtbot: Any, window: MainWindow) -> None:
    panel = panel_of(new_tab(window))
    panel.show_card(json.dumps({"name": "plain", "supportedInterfaces": []}).encode(), "x")
    dialog = open_dialog(qtbot, panel)
    assert find(dialog, QLabel, "verifyStatusLabel").text() == "unsigned"
    assert "not invalid" in find(dialog, QLabel, "verifySummaryLabel").text()
    assert press_verify(qtbot, dialog) == "unsigned"


def test_a_bad_jwks_is_reported_and_nothing_is_verified(qtbot: Any, window: MainWindow) -> None:
    panel = panel_of(new_tab(window))
    card = {"name": "x", "signatures": [{"protected": "eyJhbGciOiJFUzI1NiJ9", "signature": "AA"}]}
    panel.show_card(json.dumps(card).encode(), "x")
    dialog = open_dialog(qtbot, panel)
    assert press_verify(qtbot, dialog) == "not verified"
    assert "Paste a JWKS" in dialog.summary_label.text()
    dialog.jwks_edit.setPlainText("{not json")
    assert press_verify(qtbot, dialog) == "not verified"
    assert "Not a JWKS" in dialog.summary_label.text()
    assert dialog.verification is None


def test_strict_mode_and_the_js_peer_card(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], js_peer_signed: dict[str, Any]
) -> None:
    tab = new_tab(window, js_peer_signed["jsonrpc_url"])
    panel = panel_of(tab)
    panel.url_edit.setText(js_peer_signed["card_url"])
    panel.version_combo.setCurrentIndex(panel.version_combo.findData("1.0"))
    fetch(qtbot, panel, wait_until)
    assert panel.card is not None, panel.detail_label.text()
    dialog = open_dialog(qtbot, panel)
    assert dialog.load_jwks_file(js_peer_signed["jwks_path"])
    assert press_verify(qtbot, dialog) == "valid"
    assert dialog.verification is not None
    assert dialog.verification.signatures[0].alg == "RS256"
    # Strict accepts only the spec-literal form; the verdict follows what matched.
    find(dialog, QCheckBox, "strictCheck").setChecked(True)
    strict = press_verify(qtbot, dialog)
    spec_matched = Profile.SPEC in dialog.verification.signatures[0].matched_profiles
    assert strict == ("valid" if spec_matched else "invalid")


def test_one_valid_and_one_tampered_signature_are_two_rows(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    panel = demo_panel(qtbot, window, wait_until, sdk_peer)
    card = json.loads(panel.raw)
    good = card["signatures"][0]
    bad_sig = ("A" if good["signature"][0] != "A" else "B") + good["signature"][1:]
    card["signatures"].append({"protected": good["protected"], "signature": bad_sig})
    dialog = SignatureDialog(card, "two signatures", parent=window)
    dialog.show()
    assert dialog.load_jwks_file(sdk_peer["jwks_path"])
    assert press_verify(qtbot, dialog) == "valid"
    labels = [dialog.model.index(r, 1).data() for r in range(dialog.model.rowCount())]
    assert labels == ["valid", "invalid"]
    assert "1 of 2 signatures valid" in dialog.summary_label.text()
    dialog.close()
