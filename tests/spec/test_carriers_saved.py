"""Saved requests over the custom carriers (docs/PROTOCOL.md §12): written as valid OpenAPI
3.2 with their binding and (stdio) command line, read back the same, sent as saved, and
given the snippet their carrier has."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from openapi_spec_validator import validate

from app.protocol.bindings import traits
from app.protocol.methods.catalog import TemplateContext, find_method
from app.protocol.request import render_body
from app.protocol.types import Binding, ProtocolVersion
from app.spec.document import load
from app.spec.requests import to_a2a_request
from app.spec.save import save_request
from app.spec.snippets import snippet, snippet_kinds
from app.spec.variables import Resolver
from app.spec.xa2a import SavedRequest
from tests.spec.test_save import MemoryStore

ENDPOINTS = {
    Binding.WEBSOCKET: "ws://127.0.0.1:8765/a2a",
    Binding.UNIX: "unix:///run/agent.sock",
    Binding.STDIO: "stdio://agent",
    Binding.REDIS_STREAMS: "redis-streams://redis://127.0.0.1:6379/0/req/rep/group",
}


def _saved(binding: Binding) -> SavedRequest:
    spec = find_method(ProtocolVersion.V1_0, "SendStreamingMessage")
    assert spec is not None
    return SavedRequest(
        name=f"Stream over {binding.value}",
        version=ProtocolVersion.V1_0,
        binding=binding,
        endpoint=ENDPOINTS[binding],
        method="SendStreamingMessage",
        body=render_body(spec, binding, TemplateContext(text="hi"), "r1"),
        command="{{agentCommand}}" if traits(binding).launches else "",
    )


@pytest.mark.parametrize("binding", list(ENDPOINTS))
def test_a_carrier_request_saves_and_reads_back(binding: Binding, tmp_path: Path) -> None:
    target = tmp_path / "carriers.a2a.yaml"
    result = save_request(_saved(binding), target, current=None, store=MemoryStore())
    assert result.errors == []
    validate(yaml.safe_load(target.read_bytes()))
    (operation,) = load(target).operations()
    back = operation.request
    assert (back.binding, back.endpoint, back.command) == (
        binding,
        ENDPOINTS[binding],
        "{{agentCommand}}" if binding is Binding.STDIO else "",
    )
    resolver = Resolver({"agentCommand": "my-agent --stdio"}, environ={}, use_keyring=False)
    request = to_a2a_request(back, resolver).request
    assert request.binding is binding
    assert request.command == ("my-agent --stdio" if binding is Binding.STDIO else "")


def test_carrier_snippets() -> None:
    ws = _saved(Binding.WEBSOCKET)
    assert snippet_kinds(ws) == ["websocat"]
    text = snippet("websocat", ws)
    assert "websocat -n" in text and "-H 'A2A-Version: 1.0'" in text
    assert "ws://127.0.0.1:8765/a2a" in text and '"id":"r1"' in text
    unix = snippet("socat", _saved(Binding.UNIX))
    assert "UNIX-CONNECT:/run/agent.sock" in unix and "socat -t 60 -" in unix
    stdio = snippet("stdio", _saved(Binding.STDIO), {"agentCommand": "my-agent --stdio 'a b'"})
    assert stdio.rstrip().endswith("| my-agent --stdio 'a b'")
    assert snippet_kinds(_saved(Binding.REDIS_STREAMS)) == []
