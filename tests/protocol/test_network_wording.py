"""Network failures worded exactly (issue 29, kind 6): a TLS handshake the server ends,
and an answer that is not HTTP at all, for every binding and the card fetch."""

from __future__ import annotations

from typing import Any

import pytest

from app.protocol import exchange
from app.protocol.card.fetch import fetch_card
from app.protocol.events import ExchangeError, Outcome
from app.protocol.request import A2ARequest
from app.protocol.types import Binding, ProtocolVersion
from tests.helpers.raw_server import garbage, hang_up, raw_server, reset, ssh, ssh_reset
from tests.protocol.test_matrix import body_for

CLOSED = "the server closed the connection during the TLS handshake"
NOT_HTTP = "the server's answer is not HTTP"
BANNER = f'{NOT_HTTP} (it begins "SSH-2.0-OpenSSH_9.6")'


async def _error(url: str, binding: Binding = Binding.JSONRPC) -> str:
    body = body_for(ProtocolVersion.V1_0, binding, "SendMessage", text="hi")
    request = A2ARequest(url, "SendMessage", body, binding=binding, timeout=10)
    events: list[Any] = [event async for event in exchange.run(request)]
    assert events[-1].outcome is Outcome.TRANSPORT_ERROR, events
    (error,) = [e for e in events if isinstance(e, ExchangeError)]
    return error.message


@pytest.mark.parametrize("handler", [hang_up, reset], ids=["closed", "reset"])
@pytest.mark.parametrize("binding", [Binding.JSONRPC, Binding.HTTP_JSON, Binding.GRPC])
async def test_a_port_that_ends_the_tls_handshake_says_so(handler: Any, binding: Binding) -> None:
    with raw_server(handler) as port:
        scheme = "grpcs" if binding is Binding.GRPC else "https"
        message = await _error(f"{scheme}://127.0.0.1:{port}/", binding)
    assert CLOSED in message and "connection failed" not in message


@pytest.mark.parametrize("handler", [hang_up, reset], ids=["closed", "reset"])
async def test_the_card_fetch_says_so_too(handler: Any) -> None:
    with raw_server(handler) as port:
        result = await fetch_card(f"https://127.0.0.1:{port}/")
    assert result.error is not None and CLOSED in result.error


@pytest.mark.parametrize("handler", [ssh, ssh_reset], ids=["banner", "banner-reset"])
@pytest.mark.parametrize("binding", [Binding.JSONRPC, Binding.HTTP_JSON, Binding.GRPC])
async def test_an_answer_that_is_not_http_says_so(handler: Any, binding: Binding) -> None:
    with raw_server(handler) as port:
        message = await _error(f"http://127.0.0.1:{port}/", binding)
    assert BANNER in message
    assert "broke" not in message and "HTTP/1.1" not in message


async def test_a_line_that_is_no_status_line_is_not_http() -> None:
    with raw_server(garbage) as port:
        message = await _error(f"http://127.0.0.1:{port}/")
    assert f'{NOT_HTTP} (it begins "HELLO THERE")' in message


@pytest.mark.parametrize("binding", [Binding.JSONRPC, Binding.GRPC])
async def test_tls_to_a_port_that_speaks_neither_tls_nor_http(binding: Binding) -> None:
    with raw_server(ssh) as port:
        scheme = "grpcs" if binding is Binding.GRPC else "https"
        message = await _error(f"{scheme}://127.0.0.1:{port}/", binding)
    assert f"the port does not speak TLS, and {BANNER}" in message
    assert "plain HTTP" not in message


async def test_the_card_fetch_of_a_port_that_is_not_http() -> None:
    with raw_server(ssh) as port:
        result = await fetch_card(f"http://127.0.0.1:{port}/")
    assert result.error is not None and BANNER in result.error


@pytest.mark.peer
async def test_tls_to_a_real_plain_http_server_still_says_plain_http(
    sdk_peer: dict[str, Any],
) -> None:
    message = await _error(sdk_peer["jsonrpc_url"].replace("http://", "https://"))
    assert "the port speaks plain HTTP, not TLS" in message
