"""The binding table: every binding has every trait and a transport, and nothing else in
`app/` decides by naming a binding (docs/ARCHITECTURE.md §6.1)."""

from __future__ import annotations

import dataclasses
import inspect
import re
from pathlib import Path

import pytest

from app.protocol.bindings import (
    TRAITS,
    BindingTraits,
    ErrorForm,
    Framing,
    Payload,
    UrlShape,
    binding_named,
    from_value,
    is_canonical,
    traits,
)
from app.protocol.transports.transport_table import TRANSPORTS, Transport, transport_for
from app.protocol.types import Binding

APP = Path(__file__).resolve().parents[2] / "app"
SNIPPET_KINDS = frozenset(
    {"curl", "httpx", "grpcurl", "websocat", "socat", "stdio"}
)  # what app.spec.snippets.snippet renders


@pytest.mark.parametrize("binding", list(Binding))
def test_every_binding_has_a_complete_row(binding: Binding) -> None:
    assert binding in TRAITS, f"{binding!r} has no row in app/protocol/bindings.py TRAITS"
    found = traits(binding)
    assert isinstance(found, BindingTraits)
    for field in dataclasses.fields(BindingTraits):
        value = getattr(found, field.name)
        # No snippet kind is an answer (a stdio carrier has no command line); "" is not.
        if field.name != "snippets":
            assert value not in ("", (), None), f"{binding!r} lacks the trait {field.name}"
    assert isinstance(found.payload, Payload)
    assert isinstance(found.errors, ErrorForm)
    assert isinstance(found.framing, Framing)
    assert isinstance(found.url, UrlShape) and found.url.words
    assert found.a_label.endswith(" " + found.label)
    assert found.a_label.split(" ")[0] in ("a", "an")
    # The app writes a binding into cards (generate-server) by its value.
    assert found.card_names[0] == binding.value
    assert set(found.snippets) <= SNIPPET_KINDS
    # curl and httpx replay an HTTP call: only a binding that rides HTTP has one.
    assert found.rides_http or not {"curl", "httpx"} & set(found.snippets)


@pytest.mark.parametrize("binding", list(Binding))
def test_every_binding_has_a_transport(binding: Binding) -> None:
    assert binding in TRANSPORTS, f"{binding!r} has no entry in transport_table.TRANSPORTS"
    transport: Transport = transport_for(binding)
    for name in ("exchange", "http_call"):
        member = getattr(transport, name, None)
        assert callable(member), f"the {binding.value} transport has no {name}()"
        expected = inspect.signature(getattr(Transport, name))
        params = list(inspect.signature(member).parameters)
        assert params == [p for p in expected.parameters if p != "self"]


def test_the_table_holds_no_binding_the_enum_lacks() -> None:
    assert set(TRAITS) == set(Binding) == set(TRANSPORTS)


def test_card_spellings_name_one_binding_each() -> None:
    spellings = [name.lower() for b in Binding for name in traits(b).card_names]
    assert len(spellings) == len(set(spellings))
    for binding in Binding:
        for name in traits(binding).card_names:
            assert binding_named(name) is binding
            assert is_canonical(name)
    assert binding_named("urn:example:carrier") is None
    assert binding_named(None) is None


def test_spellings_match_case_insensitively_and_by_uri() -> None:
    # iac-code writes "grpc" (docs/PEERS.md Q25); custom bindings SHOULD be URIs (1.0 §5.8).
    assert binding_named("grpc") is Binding.GRPC and not is_canonical("grpc")
    assert binding_named("jsonrpc") is Binding.JSONRPC
    assert binding_named(" WebSocket ") is Binding.WEBSOCKET
    assert binding_named("urn:example:a2a:websocket") is Binding.WEBSOCKET
    assert binding_named("https://example.org/a2a/bindings/redis-streams/") is Binding.REDIS_STREAMS
    assert binding_named("https://example.org/a2a/bindings#unix") is Binding.UNIX
    assert binding_named("urn:example:a2a:carrier-pigeon") is None


def test_custom_carriers_are_json_rpc_without_http() -> None:
    for binding in Binding:
        found = traits(binding)
        if found.standard:
            assert binding in (Binding.JSONRPC, Binding.HTTP_JSON, Binding.GRPC)
            continue
        assert found.payload is Payload.JSONRPC and found.errors is ErrorForm.JSONRPC
        assert not found.rides_http and found.framing is Framing.MESSAGES
    assert traits(Binding.WEBSOCKET).carries_headers
    assert not any(traits(b).carries_headers for b in (Binding.UNIX, Binding.STDIO))
    assert not traits(Binding.UNIX).url.host and traits(Binding.WEBSOCKET).url.host


def test_saved_values_read_back() -> None:
    for binding in Binding:
        assert from_value(binding.value) is binding
    assert from_value("SOAP") is None
    assert from_value(3) is None


def test_the_standard_bindings_traits() -> None:
    """The three bindings of A2A 1.0 §5.5, as the branches they replaced decided."""
    jsonrpc, rest, grpc = traits(Binding.JSONRPC), traits(Binding.HTTP_JSON), traits(Binding.GRPC)
    assert (jsonrpc.label, rest.label, grpc.label) == ("JSON-RPC", "HTTP+JSON", "gRPC")
    assert (jsonrpc.payload, rest.payload, grpc.payload) == (
        Payload.JSONRPC,
        Payload.REST,
        Payload.PROTO,
    )
    assert [p.envelope for p in Payload] == [True, False, False]
    assert (jsonrpc.errors, rest.errors, grpc.errors) == (
        ErrorForm.JSONRPC,
        ErrorForm.HTTP,
        ErrorForm.GRPC,
    )
    assert jsonrpc.rides_http and rest.rides_http and not grpc.rides_http
    assert not jsonrpc.url.target and not rest.url.target and grpc.url.target
    assert jsonrpc.framing is rest.framing is Framing.SSE
    assert grpc.framing is Framing.MESSAGES
    assert grpc.snippets == ("grpcurl",) and jsonrpc.snippets == rest.snippets == ("curl", "httpx")


# A comparison with, or membership test of, one named binding: the branches the table replaced.
_BRANCH = re.compile(
    r"(\bis\b|\bis not\b|==|!=)\s*Binding\.[A-Z_]+"
    r"|Binding\.[A-Z_]+(\.value)?\s*(==|!=|\bis\b|\bin\b|\bnot in\b)"
    r'|(==|!=)\s*"(JSONRPC|HTTP\+JSON|GRPC)"'
)
# The table itself and the transports may name bindings; the replay mock agent serves its
# fixture format's own bindings with a server per wire (as the demo agent and generated
# servers do), not through the client's transports.
_MAY_NAME = ("protocol/bindings.py", "protocol/transports/", "replay/")


def test_no_module_branches_on_a_named_binding() -> None:
    found = []
    for path in sorted(APP.rglob("*.py")):
        rel = path.relative_to(APP).as_posix()
        if rel.startswith(_MAY_NAME):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _BRANCH.search(line.split("#", 1)[0]):
                found.append(f"app/{rel}:{number}: {line.strip()}")
    assert not found, "ask a trait (app/protocol/bindings.py) instead:\n" + "\n".join(found)


def test_the_branch_finder_sees_a_branch() -> None:
    for line in (
        "if binding is Binding.GRPC:",
        "x = a if binding is not Binding.JSONRPC else b",
        "if Binding.HTTP_JSON in bindings:",
        'if iface.binding == "GRPC":',
        "if binding == Binding.GRPC.value or url:",
    ):
        assert _BRANCH.search(line), line
    for line in ("binding: Binding = Binding.JSONRPC", "spec.template(Binding.JSONRPC, ctx)"):
        assert not _BRANCH.search(line), line
