"""``verify``: an unknown kid is "no trusted key", empty known members are not "unknown
fields" under any profile, and duplicate member names are reported as the card panel does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from a2a.types import a2a_pb2
from a2a.utils.signing import create_agent_card_signer
from google.protobuf import json_format
from jwcrypto import jwk

from app.commands.verify import main
from app.protocol.card.jwks import parse_jwks
from app.protocol.card.jws_verify import InvalidReason, ProfileMode, Verdict, verify_card
from tests.protocol.test_verify_cli import CARD


def _sign(card: dict[str, Any], kid: str = "k1") -> tuple[dict[str, Any], jwk.JWK]:
    key = jwk.JWK.generate(kty="EC", crv="P-256", kid=kid)
    signer = create_agent_card_signer(
        key.export_to_pem(private_key=True, password=None),
        {"alg": "ES256", "kid": kid, "typ": "JOSE", "jku": None},
    )
    return agent_card_to_dict(signer(json_format.ParseDict(card, a2a_pb2.AgentCard()))), key


def _jwks(key: jwk.JWK) -> str:
    return json.dumps({"keys": [json.loads(key.export_public())]})


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _lines(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines()]


def test_an_unknown_kid_is_no_trusted_key_not_invalid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    card, _ = _sign(CARD, kid="signer-key")
    other = jwk.JWK.generate(kty="EC", crv="P-256", kid="mine")
    (sig,) = verify_card(card, parse_jwks(_jwks(other))).signatures
    assert sig.verdict is Verdict.UNTRUSTED and sig.reason is InvalidReason.NO_KEY_FOR_KID
    assert sig.message.startswith("no trusted key for kid 'signer-key'")
    code = main([_write(tmp_path, "c.json", json.dumps(card)), "--jwks",
                 _write(tmp_path, "k.json", _jwks(other))])  # fmt: skip
    lines = _lines(capsys.readouterr().out)
    assert code == 4  # not 1: nothing says the card was tampered with
    assert lines[0]["verdict"] == "no trusted key" and lines[0]["label"] == "no trusted key"
    assert lines[-1]["no trusted key"] == 1 and lines[-1]["invalid"] == 0
    assert lines[-1]["status"] == "no trusted key" and lines[-1]["exit_status"] == 4
    main([str(tmp_path / "c.json"), "--jwks", str(tmp_path / "k.json"), "--output", "pretty"])
    out = capsys.readouterr().out
    assert "NO TRUSTED KEY" in out and "result: no trusted key (exit 4)" in out


@pytest.mark.parametrize("mode", list(ProfileMode))
def test_empty_known_members_are_not_unknown_fields(mode: ProfileMode) -> None:
    card = {**CARD, "documentationUrl": "", "skills": [{**CARD["skills"][0], "examples": []}],
            "capabilities": {"extensions": []}}  # fmt: skip
    signed, key = _sign(card)
    served = {**signed, "documentationUrl": "", "capabilities": {"extensions": []}}
    served["skills"] = [{**served["skills"][0], "examples": []}]
    result = verify_card(served, parse_jwks(_jwks(key)), mode=mode)
    reasons = {u.path: u.reason for u in result.uncovered}
    assert "skills[0].examples" in reasons, reasons
    assert any(path.startswith("capabilities") for path in reasons), reasons
    for reason in reasons.values():
        assert "unknown" not in reason and "empty" in reason, reasons


def test_duplicate_member_names_are_reported_and_no_signature_over_them_is_valid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    card, key = _sign(CARD)
    text = json.dumps(card, indent=2)
    # The signed name last: this client reads the card the key signed, a first-wins parser
    # (and the user reading the text) the evil twin.
    text = text.replace('"name": "CLI demo"', '"name": "Evil twin",\n  "name": "CLI demo"', 1)
    code = main(
        [_write(tmp_path, "c.json", text), "--jwks", _write(tmp_path, "k.json", _jwks(key))]
    )
    lines = _lines(capsys.readouterr().out)
    dupes = [line for line in lines if line["event"] == "duplicate_key"]
    assert [(d["path"], d["lines"]) for d in dupes] == [("name", [2, 3])]
    assert "twice" in dupes[0]["message"] and "lines 2 and 3" in dupes[0]["message"]
    (sig,) = [line for line in lines if line["event"] == "signature"]
    assert sig["verdict"] == "invalid" and sig["reason"] == "the card writes a member name twice"
    assert lines[-1]["event"] == "end" and lines[-1]["status"] == "invalid" and code == 1
    main([str(tmp_path / "c.json"), "--jwks", str(tmp_path / "k.json"), "--output", "pretty"])
    out = capsys.readouterr().out
    assert "duplicate member: name" in out and "VALID" not in out.replace("INVALID", "")


def test_a_card_without_duplicates_prints_no_duplicate_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    card, key = _sign(CARD)
    main(
        [
            _write(tmp_path, "c.json", json.dumps(card)),
            "--jwks",
            _write(tmp_path, "k.json", _jwks(key)),
        ]
    )
    assert [line["event"] for line in _lines(capsys.readouterr().out)] == ["signature", "end"]
