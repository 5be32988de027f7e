"""The iac-code peer's Agent Cards with ``card`` and ``verify``, as they behave today.

With a token configured iac-code guards every route, the well-known card included
(docs/PEERS.md Q24): ``card URL`` and ``verify URL`` get 401 and stop. What a user can do
today is fetch the card with the token by other means and give the file to ``card`` and
``verify``. The opt-in ``--card-auth`` of issue 31 is a later part: the ``xfail`` tests below
are its acceptance and flip when it lands. The card is signed HS256 with a shared secret; the
octet JWKS built from that secret verifies the public card, while the extended card carries
the same signature over different content (Q28).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.protocol.card.card_auth import CARD_AUTH_HINT
from tests.iac.iac_cli import cli, fetch_card_with_token
from tests.peers.iac_servers import dump_json

pytestmark = [pytest.mark.peer, pytest.mark.timeout(600)]  # a first run builds .venv-iac


def test_the_card_url_gets_401(iac_http: dict[str, Any]) -> None:
    run = cli("card", iac_http["base_url"])
    assert run.code == 2, run.output
    (end,) = run.events("end")
    assert end["outcome"] == "not_fetched" and end["status"] == 401
    assert end["url"] == iac_http["card_url"]
    assert end["message"] == f"HTTP 401: no card; {CARD_AUTH_HINT}"


def test_the_card_read_with_the_token_is_hybrid_without_provider_url(
    iac_http: dict[str, Any], tmp_path: Path
) -> None:
    run = cli("card", str(fetch_card_with_token(iac_http, tmp_path / "card.json")))
    assert run.code == 1, run.output  # problems found
    (card,) = run.events("card")
    assert card["shape"] == "hybrid" and card["picked"] == {"1.0": 0, "0.3": None}
    assert [(i["binding"], i["url"]) for i in card["interfaces"]] == [
        ("JSONRPC", iac_http["jsonrpc_url"]),
        ("HTTP+JSON", iac_http["rest_url"]),
    ]
    errors = [(p["path"], p["message"]) for p in run.events("problem") if p["severity"] == "error"]
    assert errors == [("provider.url", "missing required field")]


def test_the_card_file_verifies_with_the_octet_jwks(
    iac_http: dict[str, Any], tmp_path: Path
) -> None:
    card = fetch_card_with_token(iac_http, tmp_path / "card.json")
    run = cli("verify", str(card), "--jwks", iac_http["jwks_path"])
    assert run.code == 0, run.output
    (signature,) = run.events("signature")
    assert signature["verdict"] == "valid" and signature["profile"] == "sdk"
    assert (signature["alg"], signature["kid"]) == ("HS256", "default")
    assert run.events("end")[0]["status"] == "valid"


def test_verify_of_the_card_url_stops_at_401(iac_http: dict[str, Any]) -> None:
    run = cli("verify", iac_http["base_url"], "--jwks", iac_http["jwks_path"])
    assert run.code == 2, run.output  # no card where it should be: the agent's side
    assert f"card not fetched from {iac_http['card_url']}: HTTP 401; {CARD_AUTH_HINT}" in run.output


def test_the_extended_card_carries_a_stale_signature(
    iac_http: dict[str, Any], tmp_path: Path
) -> None:
    got = cli("send", iac_http["jsonrpc_url"], "--method", "GetExtendedAgentCard",
              "--bearer", iac_http["token"], "--no-history")  # fmt: skip
    assert got.code == 0, got.output
    extended = dump_json(tmp_path / "extended.json", got.body()["result"])
    run = cli("verify", str(extended), "--jwks", iac_http["jwks_path"])
    assert run.code == 1, run.output
    (signature,) = run.events("signature")
    assert signature["verdict"] == "invalid"
    assert signature["reason"] == "signature mismatch under every profile"


def test_card_with_card_auth_reads_the_guarded_card(iac_http: dict[str, Any]) -> None:
    run = cli("card", iac_http["base_url"], "--card-auth", "--bearer", iac_http["token"])
    assert run.events("card"), run.output
    assert run.code == 1  # read, with the provider.url problem


def test_verify_with_card_auth_verifies_the_guarded_card(iac_http: dict[str, Any]) -> None:
    run = cli("verify", iac_http["base_url"], "--jwks", iac_http["jwks_path"],
              "--card-auth", "--bearer", iac_http["token"])  # fmt: skip
    assert run.code == 0, run.output


def test_the_401_names_the_card_auth_option(iac_http: dict[str, Any]) -> None:
    run = cli("card", iac_http["base_url"])
    assert "--card-auth" in run.output
