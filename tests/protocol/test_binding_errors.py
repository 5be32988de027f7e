"""An endpoint that speaks another binding is said in words (the demo agent's real ports)."""

from __future__ import annotations

from typing import Any

import pytest

from app.protocol import exchange
from app.protocol.events import ExchangeError
from app.protocol.methods.binding_errors import card_hint, says_other_binding
from app.protocol.methods.catalog import TemplateContext, find_method
from app.protocol.request import A2ARequest, render_body
from app.protocol.types import Binding, ProtocolVersion

pytestmark = pytest.mark.peer


async def error_of(endpoint: str, binding: Binding) -> ExchangeError:
    spec = find_method(ProtocolVersion.V1_0, "SendMessage")
    assert spec is not None
    body = render_body(spec, binding, TemplateContext(text="hi"))
    request = A2ARequest(endpoint=endpoint, method=spec.name, body=body, binding=binding)
    errors = [e async for e in exchange.run(request) if isinstance(e, ExchangeError)]
    assert len(errors) == 1, errors
    return errors[0]


async def test_grpc_to_the_http_port_says_http2_is_needed(sdk_peer: dict[str, Any]) -> None:
    error = await error_of(sdk_peer["base_url"], Binding.GRPC)
    assert error.message.endswith(": this port answers HTTP/1.1; gRPC needs HTTP/2")
    assert "SETTINGS frame" not in error.message  # gRPC core's line is not dumped
    assert says_other_binding(error.message)


async def test_jsonrpc_to_the_grpc_port_says_it_speaks_http2_only(
    sdk_peer: dict[str, Any],
) -> None:
    error = await error_of(f"http://{sdk_peer['grpc_target']}/", Binding.JSONRPC)
    assert "this port answers HTTP/2 only (a gRPC server?)" in error.message
    assert says_other_binding(error.message)


async def test_a_redirected_jsonrpc_post_names_the_location(sdk_peer: dict[str, Any]) -> None:
    error = await error_of(sdk_peer["rest_url"], Binding.JSONRPC)
    assert error.code == 307
    assert error.message == (
        f"The server answered with a redirect to {sdk_peer['rest_url']}/; the JSON-RPC"
        " binding does not follow redirects: post to the card's JSON-RPC URL itself"
    )
    assert says_other_binding(error.message)


def test_the_card_hint_names_another_url_for_the_binding() -> None:
    interfaces = [("JSONRPC", "http://h:1/"), ("GRPC", "h:2"), ("HTTP+JSON", "http://h:1/rest")]
    assert card_hint(Binding.GRPC, interfaces, "http://h:1/") == "the card lists gRPC at h:2"
    assert card_hint(Binding.JSONRPC, interfaces, "http://h:1") == ""  # already there
    assert card_hint(Binding.JSONRPC, interfaces, "http://h:1/rest") == (
        "the card lists JSON-RPC at http://h:1/"
    )
    assert card_hint(Binding.GRPC, [], "x") == ""
