"""TLS on every binding against the demo agent served over mutual TLS (trustme certificates).

Successes: JSON-RPC, HTTP+JSON, SSE streaming, gRPC and the card fetch with the test CA and
a client certificate (PEM and PKCS#12). Failures, each produced for real and reported in
words: unknown CA, name mismatch, expired certificate, no client certificate, a client
certificate of another CA, a plain-HTTP port, and a TLS port spoken to in plaintext.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from app.errors import UsageError
from app.protocol.card.fetch import fetch_card
from app.protocol.events import (
    ExchangeEnd,
    ExchangeError,
    ExchangeEvent,
    Outcome,
    RequestSent,
    StreamItem,
)
from app.protocol.exchange import run
from app.protocol.net.network import NetworkOptions, ProxyMode, ProxySettings, TlsSettings
from app.protocol.net.tls_context import ssl_context
from app.protocol.request import A2ARequest
from app.protocol.types import Binding
from tests.helpers.echo_server import echo_server
from tests.peers.tls_fixtures import PKCS12_PASSWORD, TlsFiles, TlsStub

pytestmark = pytest.mark.peer

DIRECT = ProxySettings(ProxyMode.NONE)


def _message() -> dict[str, Any]:
    return {"messageId": uuid.uuid4().hex, "role": "ROLE_USER", "parts": [{"text": "hi"}]}


def request_for(
    binding: Binding, endpoint: str, tls: TlsSettings, method: str = "SendMessage"
) -> A2ARequest:
    params = {"message": _message()}
    if binding is Binding.JSONRPC:
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    else:
        body = json.dumps(params)
    network = NetworkOptions(tls, DIRECT)
    return A2ARequest(endpoint, method, body, binding=binding, network=network, timeout=10)


async def exchange(request: A2ARequest) -> list[ExchangeEvent]:
    return [event async for event in run(request)]


def error_of(events: list[ExchangeEvent]) -> str:
    errors = [e.message for e in events if isinstance(e, ExchangeError)]
    assert errors, events
    return errors[0]


def outcome(events: list[ExchangeEvent]) -> Outcome:
    end = events[-1]
    assert isinstance(end, ExchangeEnd)
    return end.outcome


def mutual(files: TlsFiles, **extra: Any) -> TlsSettings:
    return TlsSettings(
        ca_cert=files.ca, client_cert=files.client_cert, client_key=files.client_key, **extra
    )


def endpoint(peer: dict[str, Any], binding: Binding) -> str:
    return {
        Binding.JSONRPC: peer["jsonrpc_url"],
        Binding.HTTP_JSON: peer["rest_url"],
        Binding.GRPC: peer["grpc_target"],  # bare host:port: TLS because TLS settings are set
    }[binding]


BINDINGS = [Binding.JSONRPC, Binding.HTTP_JSON, Binding.GRPC]


# --- successes ----------------------------------------------------------------------------


@pytest.mark.parametrize("peer", ["tls_peer", "tls_js_peer"])
@pytest.mark.parametrize("binding", BINDINGS)
async def test_every_binding_succeeds_with_the_ca_and_a_client_certificate(
    binding: Binding, peer: str, tls_files: TlsFiles, request: pytest.FixtureRequest
) -> None:
    info = request.getfixturevalue(peer)
    events = await exchange(request_for(binding, endpoint(info, binding), mutual(tls_files)))
    assert outcome(events) is Outcome.OK, events
    sent = next(e for e in events if isinstance(e, RequestSent))
    assert not sent.tls_unverified and not sent.proxy


async def test_sse_streaming_over_mutual_tls(tls_peer: dict[str, Any], tls_files: TlsFiles) -> None:
    request = request_for(
        Binding.JSONRPC, tls_peer["jsonrpc_url"], mutual(tls_files), "SendStreamingMessage"
    )
    events = await exchange(request)
    assert outcome(events) is Outcome.OK, events
    assert any(isinstance(e, StreamItem) for e in events)


async def test_grpc_https_target_and_streaming(
    tls_peer: dict[str, Any], tls_files: TlsFiles
) -> None:
    target = "https://" + tls_peer["grpc_target"]
    request = request_for(Binding.GRPC, target, mutual(tls_files), "SendStreamingMessage")
    events = await exchange(request)
    assert outcome(events) is Outcome.OK, events
    assert any(isinstance(e, StreamItem) for e in events)


@pytest.mark.parametrize("peer", ["tls_peer", "tls_js_peer"])
async def test_card_fetch_over_mutual_tls(
    peer: str, tls_files: TlsFiles, request: pytest.FixtureRequest
) -> None:
    info = request.getfixturevalue(peer)
    result = await fetch_card(info["card_url"], network=NetworkOptions(mutual(tls_files)))
    assert result.error is None and result.status == 200
    assert isinstance(result.json, dict) and result.json["name"]


async def test_pkcs12_client_certificate_with_its_password(
    tls_peer: dict[str, Any], tls_files: TlsFiles
) -> None:
    tls = TlsSettings(
        ca_cert=tls_files.ca, client_cert=tls_files.client_p12, key_password=PKCS12_PASSWORD
    )
    for binding in (Binding.JSONRPC, Binding.GRPC):
        events = await exchange(request_for(binding, endpoint(tls_peer, binding), tls))
        assert outcome(events) is Outcome.OK, events
    with pytest.raises(UsageError, match="wrong password"):
        ssl_context(TlsSettings(client_cert=tls_files.client_p12, key_password="nope"))


async def test_insecure_skips_verification_and_says_so(
    tls_peer: dict[str, Any], tls_files: TlsFiles
) -> None:
    tls = TlsSettings(
        client_cert=tls_files.client_cert, client_key=tls_files.client_key, insecure=True
    )
    events = await exchange(request_for(Binding.JSONRPC, tls_peer["jsonrpc_url"], tls))
    assert outcome(events) is Outcome.OK, events
    sent = next(e for e in events if isinstance(e, RequestSent))
    assert sent.tls_unverified
    grpc_events = await exchange(request_for(Binding.GRPC, tls_peer["grpc_target"], tls))
    assert outcome(grpc_events) is Outcome.USAGE_ERROR
    assert "cannot skip certificate verification" in error_of(grpc_events)


async def test_ca_only_replaces_the_default_store(
    tls_peer: dict[str, Any], tls_files: TlsFiles
) -> None:
    events = await exchange(
        request_for(Binding.JSONRPC, tls_peer["jsonrpc_url"], mutual(tls_files, ca_only=True))
    )
    assert outcome(events) is Outcome.OK, events


# --- failures -------------------------------------------------------------------------------


@pytest.mark.parametrize("binding", BINDINGS)
async def test_unknown_ca_names_the_issuer(
    binding: Binding, tls_peer: dict[str, Any], tls_files: TlsFiles
) -> None:
    tls = TlsSettings(client_cert=tls_files.client_cert, client_key=tls_files.client_key)
    target = endpoint(tls_peer, binding)
    events = await exchange(request_for(binding, target, tls))
    assert outcome(events) is Outcome.TRANSPORT_ERROR
    message = error_of(events)
    assert "a CA this client does not trust" in message, message
    assert f"O={tls_files.ca_name}" in message


async def test_unknown_ca_on_the_card_fetch(tls_peer: dict[str, Any]) -> None:
    result = await fetch_card(tls_peer["card_url"])
    assert result.error is not None and "a CA this client does not trust" in result.error


async def test_name_mismatch_gives_both_names(
    tls_files: TlsFiles, tls_stub: Callable[[str], TlsStub]
) -> None:
    stub = tls_stub(tls_files.other_name_server)
    url = f"https://127.0.0.1:{stub.port}/"
    tls = TlsSettings(ca_cert=tls_files.ca)
    message = error_of(await exchange(request_for(Binding.JSONRPC, url, tls)))
    assert "the certificate is for agent.example.test, not for 127.0.0.1" in message, message
    grpc_message = error_of(
        await exchange(request_for(Binding.GRPC, f"127.0.0.1:{stub.port}", tls))
    )
    assert "the certificate is for agent.example.test" in grpc_message, grpc_message


async def test_grpc_server_name_override(tls_peer: dict[str, Any], tls_files: TlsFiles) -> None:
    target = tls_peer["grpc_target"]
    ok = await exchange(
        request_for(Binding.GRPC, target, mutual(tls_files, server_name="localhost"))
    )
    assert outcome(ok) is Outcome.OK, ok
    wrong = await exchange(
        request_for(Binding.GRPC, target, mutual(tls_files, server_name="agent.example.test"))
    )
    message = error_of(wrong)
    assert "not for agent.example.test" in message and "127.0.0.1" in message, message


@pytest.mark.parametrize("binding", [Binding.HTTP_JSON, Binding.GRPC])
async def test_expired_certificate_gives_its_dates(
    binding: Binding, tls_files: TlsFiles, tls_stub: Callable[[str], TlsStub]
) -> None:
    stub = tls_stub(tls_files.expired_server)
    target = f"https://127.0.0.1:{stub.port}" + ("/rest" if binding is Binding.HTTP_JSON else "")
    message = error_of(
        await exchange(request_for(binding, target, TlsSettings(ca_cert=tls_files.ca)))
    )
    assert "expired on 2020-01-01 00:00 UTC" in message, message
    assert "valid from 2019-12-02" in message


@pytest.mark.parametrize("peer", ["tls_peer", "tls_js_peer"])
@pytest.mark.parametrize("binding", BINDINGS)
async def test_server_wants_a_client_certificate(
    binding: Binding, peer: str, tls_files: TlsFiles, request: pytest.FixtureRequest
) -> None:
    info = request.getfixturevalue(peer)
    tls = TlsSettings(ca_cert=tls_files.ca)
    message = error_of(await exchange(request_for(binding, endpoint(info, binding), tls)))
    assert "requires a client certificate and none was sent" in message, message


@pytest.mark.parametrize("peer", ["tls_peer", "tls_js_peer"])
async def test_client_certificate_of_another_ca_is_refused(
    peer: str, tls_files: TlsFiles, request: pytest.FixtureRequest
) -> None:
    tls_peer = request.getfixturevalue(peer)
    tls = TlsSettings(
        ca_cert=tls_files.ca,
        client_cert=tls_files.rogue_client_cert,
        client_key=tls_files.rogue_client_key,
    )
    for binding in (Binding.JSONRPC, Binding.GRPC):
        message = error_of(await exchange(request_for(binding, endpoint(tls_peer, binding), tls)))
        assert "does not accept the client certificate" in message, message


async def test_https_to_a_plain_http_port(tls_files: TlsFiles) -> None:
    with echo_server() as url:
        port = url.rsplit(":", 1)[1].strip("/")
        https = f"https://127.0.0.1:{port}/"
        message = error_of(await exchange(request_for(Binding.JSONRPC, https, TlsSettings())))
        assert "the port speaks plain HTTP, not TLS" in message, message
        result = await fetch_card(https)
        assert result.error is not None and "speaks plain HTTP" in result.error


async def test_plaintext_to_a_tls_port(tls_peer: dict[str, Any]) -> None:
    http = tls_peer["jsonrpc_url"].replace("https://", "http://")
    message = error_of(await exchange(request_for(Binding.JSONRPC, http, TlsSettings())))
    assert "the port speaks TLS, not plain HTTP (use https://" in message, message
    grpc_message = error_of(
        await exchange(request_for(Binding.GRPC, tls_peer["grpc_target"], TlsSettings()))
    )
    assert "the port speaks TLS" in grpc_message, grpc_message


def test_unusable_files_are_usage_errors(tmp_path: Path, tls_files: TlsFiles) -> None:
    with pytest.raises(UsageError, match="Cannot read the CA certificates"):
        ssl_context(TlsSettings(ca_cert=str(tmp_path / "missing.pem")))
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError, match="No PEM certificate"):
        ssl_context(TlsSettings(ca_cert=str(tmp_path / "empty")))
    with pytest.raises(UsageError, match="No private key found"):
        ssl_context(TlsSettings(client_cert=tls_files.client_cert))
    folder = tmp_path / "cas"
    folder.mkdir()
    (folder / "a.pem").write_text(Path(tls_files.ca).read_text())
    assert ssl_context(TlsSettings(ca_cert=str(folder), ca_only=True)).get_ca_certs()
