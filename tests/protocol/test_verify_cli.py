"""``a2a-workbench verify``: exit statuses and JSON-lines output."""

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

CARD: dict[str, Any] = {
    "name": "CLI demo",
    "description": "d",
    "version": "1",
    "supportedInterfaces": [
        {"url": "http://127.0.0.1:8000/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
    ],
    "capabilities": {},
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "s", "name": "S", "description": "d", "tags": ["t"]}],
}


@pytest.fixture
def signed(tmp_path: Path) -> tuple[Path, Path, dict[str, Any]]:
    key = jwk.JWK.generate(kty="EC", crv="P-256", kid="k1")
    signer = create_agent_card_signer(
        key.export_to_pem(private_key=True, password=None),
        {"alg": "ES256", "kid": "k1", "typ": "JOSE", "jku": None},
    )
    card = agent_card_to_dict(signer(json_format.ParseDict(CARD, a2a_pb2.AgentCard())))
    card_path = tmp_path / "card.json"
    card_path.write_text(json.dumps(card))
    jwks_path = tmp_path / "jwks.json"
    jwks_path.write_text(json.dumps({"keys": [json.loads(key.export_public())]}))
    return card_path, jwks_path, card


def _lines(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines()]


def test_valid_exit_0(signed: tuple[Path, Path, Any], capsys: pytest.CaptureFixture[str]) -> None:
    card, jwks, _ = signed
    assert main([str(card), "--jwks", str(jwks)]) == 0
    lines = _lines(capsys.readouterr().out)
    assert [line["event"] for line in lines] == ["signature", "end"]
    assert lines[0]["verdict"] == "valid" and lines[0]["profile"] == "sdk"
    assert lines[0]["kid"] == "k1" and lines[0]["alg"] == "ES256"
    assert lines[1]["status"] == "valid" and lines[1]["exit_status"] == 0


def test_tampered_exit_1(
    signed: tuple[Path, Path, dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    card_path, jwks, card = signed
    card["name"] = "Evil"
    card_path.write_text(json.dumps(card))
    assert main([str(card_path), "--jwks", str(jwks), "--output", "pretty"]) == 1
    assert "INVALID" in capsys.readouterr().out


def test_malformed_signature_blocks_exit_0(
    signed: tuple[Path, Path, dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    card_path, jwks, card = signed
    card["signatures"].append({"protected": "!!", "signature": "AA"})
    card_path.write_text(json.dumps(card))
    assert main([str(card_path), "--jwks", str(jwks)]) == 1
    end = _lines(capsys.readouterr().out)[-1]
    assert end["valid"] == 1 and end["malformed"] == 1


def test_unsigned_exit_2(tmp_path: Path, signed: tuple[Path, Path, Any]) -> None:
    _, jwks, _ = signed
    card = tmp_path / "unsigned.json"
    card.write_text(json.dumps(CARD))
    assert main([str(card), "--jwks", str(jwks)]) == 2


def test_strict_profile(
    tmp_path: Path, signed: tuple[Path, Path, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    _, jwks_path, _ = signed
    # An empty REQUIRED description: the SDK signer drops it, A2A 1.0 spec §8.4.1 keeps it.
    key = jwk.JWK.generate(kty="EC", crv="P-256", kid="k1")
    signer = create_agent_card_signer(
        key.export_to_pem(private_key=True, password=None),
        {"alg": "ES256", "kid": "k1", "typ": "JOSE", "jku": None},
    )
    proto = json_format.ParseDict({**CARD, "description": ""}, a2a_pb2.AgentCard())
    card = tmp_path / "card.json"
    card.write_text(json.dumps(agent_card_to_dict(signer(proto))))
    jwks_path.write_text(json.dumps({"keys": [json.loads(key.export_public())]}))
    assert main([str(card), "--jwks", str(jwks_path)]) == 0
    assert _lines(capsys.readouterr().out)[0]["label"] == "valid (SDK canonicalisation)"
    assert main([str(card), "--jwks", str(jwks_path), "--profile", "spec"]) == 1


def test_show_payloads(signed: tuple[Path, Path, Any], capsys: pytest.CaptureFixture[str]) -> None:
    card, jwks, _ = signed
    assert main([str(card), "--jwks", str(jwks), "--show-payloads"]) == 0
    payloads = [line for line in _lines(capsys.readouterr().out) if line["event"] == "payload"]
    assert [p["profile"] for p in payloads] == ["sdk", "legacy-sdk", "sdk-0.3", "spec"]
    assert payloads[0]["payload"].startswith('{"defaultInputModes"')


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["card.json"],
        ["card.json", "--jwks", "missing.json"],
        ["card.json", "--jwks", "jwks.json", "--profile", "bogus"],
        ["missing-card.json", "--jwks", "jwks.json"],
        ["not-json.json", "--jwks", "jwks.json"],
        ["card.json", "--jwks", "not-json.json"],
        ["array.json", "--jwks", "jwks.json"],
        ["not a url", "--jwks", "jwks.json"],
        ["ftp://127.0.0.1/card.json", "--jwks", "jwks.json"],
    ],
)
def test_usage_errors_exit_3(
    argv: list[str],
    tmp_path: Path,
    signed: tuple[Path, Path, Any],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    card, jwks, _ = signed
    monkeypatch.chdir(tmp_path)
    (tmp_path / "not-json.json").write_text("{nope")
    (tmp_path / "array.json").write_text("[]")
    assert card.parent == tmp_path and jwks.parent == tmp_path
    assert main(argv) == 3
    assert "error" in capsys.readouterr().err


def test_a_card_url_that_gives_no_card_exits_2(
    tmp_path: Path, signed: tuple[Path, Path, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    # The agent's side (nothing listens there), not a usage error: 2, as everywhere.
    _, jwks, _ = signed
    assert main(["http://127.0.0.1:9/", "--jwks", str(jwks), "--timeout", "2"]) == 2
    assert "card not fetched" in capsys.readouterr().err


@pytest.mark.peer
def test_live_demo_agent_card_verifies(
    sdk_peer: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([sdk_peer["card_url"], "--jwks", sdk_peer["jwks_path"]]) == 0
    lines = _lines(capsys.readouterr().out)
    # a2a-sdk 1.3.0 signs the proto round-trip with empties dropped (docs/PEERS.md Q12).
    assert lines[0]["verdict"] == "valid" and lines[0]["profile"] == "sdk"
    assert lines[0]["alg"] == "ES256"
    # The hybrid card's 0.3 mirror fields are reported as not covered.
    uncovered = {u["path"] for u in lines[-1]["uncovered"]}
    assert {"url", "preferredTransport"} <= uncovered


@pytest.mark.peer
def test_live_js_peer_card_verifies(
    js_peer_signed: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    # Fetched with A2A-Version: 1.0 (the default): the JS peer serves and signs its 1.0 card
    # (docs/PEERS.md Q10, Q12), which the proto round-trip (sdk profile) reproduces.
    assert main([js_peer_signed["card_url"], "--jwks", js_peer_signed["jwks_path"]]) == 0
    lines = _lines(capsys.readouterr().out)
    assert lines[0]["verdict"] == "valid" and lines[0]["profile"] == "sdk"
    assert lines[0]["alg"] == "RS256"
