"""The generated server's own modules, imported from a freshly written project: which
tokens start a server, which settings are refused, and the card it signs (every supported
key type), checked with our verifier against the JWKS it publishes."""

from __future__ import annotations

import importlib
import json
import secrets
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from google.protobuf import json_format
from jwcrypto import jwk

from app.generate.plan import plan_from_card
from app.generate.project_model import Language
from app.generate.python_project import write_project
from app.protocol.card.jwks import parse_jwks
from app.protocol.card.jws_verify import CardStatus, verify_card
from tests.generate.cards import card_03


def _forget_package() -> None:
    for name in [n for n in sys.modules if n.partition(".")[0] == "agent_server"]:
        del sys.modules[name]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A written project whose package ``agent_server`` imports (forgotten again after)."""
    root = tmp_path / "project"
    write_project(plan_from_card(card_03(), language=Language.PYTHON, port=8123).plan, root)
    monkeypatch.syspath_prepend(str(root))
    try:
        yield root
    finally:
        _forget_package()


@pytest.fixture
def config(project: Path) -> ModuleType:
    return importlib.import_module("agent_server.config")


@pytest.fixture
def cards(project: Path) -> ModuleType:
    return importlib.import_module("agent_server.card")


@pytest.mark.parametrize(
    ("token", "reason"),
    [
        ("", "is required"),
        ("s3cr3t", "is 6 characters long"),
        ("a" * 64, "fewer than 8 distinct"),
        ("abcdefgh" * 4, "a short pattern repeated"),
        ("abcdefghijklmnopqrstuvwxyz012345", "mostly a simple sequence"),
        ("9876543210zyxwvutsrqponmlkjihgfe", "mostly a simple sequence"),
        ("with space 5d7fdbe5d847fca73c09fbcf70036d90", "whitespace"),
    ],
)
def test_weak_tokens_are_refused(config: ModuleType, token: str, reason: str) -> None:
    with pytest.raises(config.ConfigError, match=reason):
        config.from_env({"A2A_TOKEN": token})


def test_random_tokens_are_accepted(config: ModuleType) -> None:
    for _ in range(2000):
        config.check_token(secrets.token_hex(16))
        config.check_token(secrets.token_urlsafe(24))


def test_settings_and_their_refusals(config: ModuleType) -> None:
    token = secrets.token_urlsafe(32)
    settings = config.from_env({"A2A_TOKEN": token})
    assert (settings.host, settings.port, settings.grpc_port) == ("127.0.0.1", 8123, 50051)
    assert settings.cors_origins == () and settings.handler_timeout_s == 60
    custom = config.from_env(
        {"A2A_TOKEN": token, "CORS_ORIGINS": "https://a.example, https://b.example/", "PORT": "0"}
    )
    assert custom.cors_origins == ("https://a.example", "https://b.example") and custom.port == 0
    for env, message in [
        ({"CORS_ORIGINS": "*"}, "no wildcard"),
        ({"PORT": "70000"}, "port number"),
        ({"MAX_PARTS": "many"}, "whole number"),
        ({"HANDLER_TIMEOUT_S": "0"}, "above 0"),
        ({"HANDLER_URL": "ftp://x"}, "http"),
        ({"JWKS_PATH": "jwks.json"}, "start with '/'"),
    ]:
        with pytest.raises(config.ConfigError, match=message):
            config.from_env({"A2A_TOKEN": token, **env})


@pytest.mark.parametrize(
    ("kind", "alg"),
    [({"kty": "EC", "crv": "P-256"}, "ES256"), ({"kty": "RSA", "size": 2048}, "RS256"),
     ({"kty": "OKP", "crv": "Ed25519"}, "EdDSA")],
)  # fmt: skip
def test_the_card_is_signed_and_verifies(
    cards: ModuleType, tmp_path: Path, kind: dict[str, object], alg: str
) -> None:
    key = tmp_path / "key.jwk"
    key.write_text(jwk.JWK.generate(**kind).export_private(), encoding="utf-8")
    card = cards.with_address(cards.load_card(), "127.0.0.1", 9999, 9998)
    assert card["supportedInterfaces"][0]["url"] == "http://127.0.0.1:9999/"
    assert card["supportedInterfaces"][2]["url"] == "http://127.0.0.1:9998"
    signer, jwks = cards.make_signer(str(key), "http://127.0.0.1:9999/.well-known/jwks.json")
    proto = cards.to_proto(card)
    signer(proto)
    (public,) = jwks["keys"]
    assert public["alg"] == alg and "d" not in public and public["kid"]
    served = json_format.MessageToDict(proto)
    verification = verify_card(served, parse_jwks(json.dumps(jwks)))
    assert verification.status is CardStatus.VALID


def test_unusable_signing_keys_are_refused(cards: ModuleType, tmp_path: Path) -> None:
    config = importlib.import_module("agent_server.config")
    ec = jwk.JWK.generate(kty="EC", crv="P-384")
    for name, text, message in [
        ("p384", ec.export_private(), "use an EC P-256"),
        ("public", jwk.JWK.generate(kty="EC", crv="P-256").export_public(), "a public key"),
        ("garbage", "not json", "cannot read a JWK"),
        ("nokty", "{}", "not a JWK"),
    ]:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        with pytest.raises(config.ConfigError, match=message):
            cards.make_signer(str(path), "http://x/jwks")
