"""*Verify signature…* tells "no trusted key" from "invalid" (issue 29, kind 8): the demo
agent's card checked against a JWKS without its signer's key says *no trusted key*, not
*invalid*; with the signer's key it is valid."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jwcrypto import jwk

from app.ui.shell.main_window import MainWindow
from tests.ui.test_card_panel import fetch_demo_card

pytestmark = pytest.mark.gui


def test_the_dialog_says_no_trusted_key_for_a_jwks_without_the_signer(
    qtbot: Any, window: MainWindow, wait_until: Callable[..., None], sdk_peer: dict[str, Any]
) -> None:
    _tab, panel = fetch_demo_card(qtbot, window, wait_until, sdk_peer)
    dialog = panel.open_verify_dialog()
    assert dialog is not None
    other = jwk.JWK.generate(kty="EC", crv="P-256", kid="not-the-signer")
    dialog.jwks_edit.setPlainText(json.dumps({"keys": [json.loads(other.export_public())]}))
    dialog.verify()
    wait_until(lambda: not dialog.verifying and dialog.verification is not None, timeout=15)
    assert dialog.status_label.text() == "no trusted key"
    assert "none could be checked" in dialog.summary_label.text()
    assert "invalid" not in dialog.status_label.text()

    dialog.jwks_edit.setPlainText(Path(sdk_peer["jwks_path"]).read_text())
    dialog.verify()
    wait_until(lambda: not dialog.verifying and dialog.status_label.text() == "valid", timeout=15)
    dialog.close()
