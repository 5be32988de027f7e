"""Card sources: a file, a URL (a real demo agent on loopback), a spec's saved request."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.generate.source import CardUnreachable, SourceError, load_source
from app.protocol.types import Binding, ProtocolVersion
from app.spec.document import SpecDocument
from app.spec.xa2a import SavedRequest
from tests.generate.cards import card_03


def _spec(tmp_path: Path, *requests: SavedRequest) -> Path:
    doc = SpecDocument.new()
    for request in requests:
        doc.upsert(request)
    return doc.save(tmp_path / "spec.yaml")


def _request(name: str, **kwargs: Any) -> SavedRequest:
    return SavedRequest(
        name=name,
        version=ProtocolVersion.V1_0,
        binding=Binding.JSONRPC,
        endpoint="http://127.0.0.1:1/",
        method="SendMessage",
        body='{"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}',
        **kwargs,
    )


async def test_card_file(tmp_path: Path) -> None:
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card_03()), encoding="utf-8")
    loaded = await load_source(path)
    assert loaded.card["name"] == "Weather" and loaded.origin == str(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [("{not json", "is not JSON"), ("[1, 2]", "not an Agent Card")],
)
async def test_bad_card_file(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "card.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SourceError, match=message):
        await load_source(path)


async def test_missing_file_and_operation_on_a_card(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="cannot read"):
        await load_source(tmp_path / "nope.json")
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card_03()), encoding="utf-8")
    with pytest.raises(SourceError, match="not an OpenAPI document"):
        await load_source(path, operation="x")


@pytest.mark.peer
async def test_card_url(sdk_peer: dict[str, Any]) -> None:
    loaded = await load_source(sdk_peer["base_url"])
    assert loaded.card["name"] == "A2A Workbench demo agent"
    assert loaded.origin == sdk_peer["card_url"]


async def test_unreachable_url() -> None:
    with pytest.raises(CardUnreachable, match="card not fetched"):
        await load_source("http://127.0.0.1:1/")


async def test_spec_operation_with_a_card_snapshot(tmp_path: Path) -> None:
    spec = _spec(tmp_path, _request("plain"), _request("with card", agent_card=card_03()))
    loaded = await load_source(spec)
    assert loaded.card["name"] == "Weather"
    assert "operation with-card" in loaded.origin
    chosen = await load_source(spec, operation="with-card")
    assert chosen.card == card_03()


async def test_spec_refusals(tmp_path: Path) -> None:
    spec = _spec(
        tmp_path, _request("plain", agent_card_url="{{baseUrl}}/.well-known/agent-card.json")
    )
    with pytest.raises(SourceError, match="saves no agentCard"):
        await load_source(spec)
    with pytest.raises(SourceError, match=r"\{\{baseUrl\}\}.*has no value"):
        await load_source(spec, operation="plain")
    with pytest.raises(SourceError, match="unknown environment 'prod'"):
        await load_source(spec, operation="plain", environment="prod")
    with pytest.raises(SourceError, match=r"no saved request 'nope' \(saved: plain\)"):
        await load_source(spec, operation="nope")


@pytest.mark.peer
async def test_spec_operation_fetches_its_card_url(
    tmp_path: Path, sdk_peer: dict[str, Any]
) -> None:
    spec = _spec(tmp_path, _request("plain", agent_card_url=sdk_peer["card_url"]))
    loaded = await load_source(spec, operation="plain")
    assert loaded.card["name"] == "A2A Workbench demo agent"
    # The shipped example names its card by {{baseUrl}}, which --var (or --env) supplies.
    example = Path(__file__).resolve().parents[2] / "resources/examples/demo-agent.a2a.yaml"
    values = {"baseUrl": sdk_peer["base_url"]}
    loaded = await load_source(example, operation="sum-numbers-1-0-json-rpc", values=values)
    assert loaded.origin.endswith(f"({sdk_peer['card_url']})")
