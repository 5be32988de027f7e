"""``verify``'s summary tells "no trusted key" from "invalid" (issue 29, kind 8), on the
demo agent's real signed card: a JWKS without the signer's key is ``no trusted key``
(exit 4), the same card with its name changed is ``invalid`` (exit 1), and a card whose
signatures are one of each is invalid."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from jwcrypto import jwk

from app.commands.verify import main
from app.protocol.card.jwks import parse_jwks
from app.protocol.card.jws_verify import CardStatus, verify_card

pytestmark = pytest.mark.peer


def _other_jwks(tmp_path: Path) -> str:
    other = jwk.JWK.generate(kty="EC", crv="P-256", kid="not-the-signer")
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"keys": [json.loads(other.export_public())]}))
    return str(path)


def _last(out: str) -> dict[str, Any]:
    return dict(json.loads(out.splitlines()[-1]))


def test_an_unknown_key_and_a_tampered_card_are_told_apart(
    sdk_peer: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([sdk_peer["card_url"], "--jwks", _other_jwks(tmp_path)]) == 4
    end = _last(capsys.readouterr().out)
    assert end["status"] == "no trusted key" and end["exit_status"] == 4

    card = httpx.get(sdk_peer["card_url"], headers={"A2A-Version": "1.0"}).json()
    card["name"] = "Tampered"
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(card))
    assert main([str(tampered), "--jwks", sdk_peer["jwks_path"]]) == 1
    end = _last(capsys.readouterr().out)
    assert end["status"] == "invalid" and end["exit_status"] == 1

    main([str(tampered), "--jwks", _other_jwks(tmp_path), "--output", "pretty"])
    assert "result: no trusted key (exit 4)" in capsys.readouterr().out


def test_one_tampered_signature_beside_an_unknown_one_is_invalid(
    sdk_peer: dict[str, Any],
) -> None:
    card = httpx.get(sdk_peer["card_url"], headers={"A2A-Version": "1.0"}).json()
    (signature,) = card["signatures"]
    forged = dict(signature, signature=signature["signature"][:-4] + "AAAA")
    stranger = json.loads(json.dumps(signature))
    stranger["protected"] = _protected_with_kid(signature["protected"], "stranger")
    card["signatures"] = [forged, stranger]
    jwks = parse_jwks(Path(sdk_peer["jwks_path"]).read_text())
    assert verify_card(card, jwks).status is CardStatus.INVALID
    card["signatures"] = [stranger]
    assert verify_card(card, jwks).status is CardStatus.NO_TRUSTED_KEY


def _protected_with_kid(protected: str, kid: str) -> str:
    header = json.loads(base64.urlsafe_b64decode(protected + "=" * (-len(protected) % 4)))
    header["kid"] = kid
    raw = json.dumps(header, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
