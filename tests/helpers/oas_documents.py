"""A document as the app saves it with every auth type and two environments (for the
OpenAPI-tool checks: tests/spec/test_openapi_meta.py, tests/lint/test_redocly.py)."""

from __future__ import annotations

from pathlib import Path

from app.protocol.bindings import traits
from app.protocol.methods.catalog import TemplateContext, find_method
from app.protocol.request import render_body
from app.protocol.types import Binding, ProtocolVersion
from app.spec.document import SpecDocument
from app.spec.xa2a import SavedAuth, SavedRequest, extract_secrets

SECRETS = ("bearer-s3cr3t-value", "hunter2-basic-pass", "api-key-val-0042", "oauth-client-s3cr3t")
"""Credential values typed into the requests: none may reach the saved bytes."""
CLIENT_ID = "wb-client-id-0007"

ENVIRONMENTS = {
    "local": {"baseUrl": "http://127.0.0.1:8000", "grpcTarget": "127.0.0.1:50051"},
    "staging": {"baseUrl": "https://staging.agents.test", "issuer": "https://id.agents.test"},
}

AUTHS = (
    SavedAuth(),
    SavedAuth("bearer", (("token", SECRETS[0]),)),
    SavedAuth("basic", (("username", "alice"), ("password", SECRETS[1]))),
    SavedAuth("api_key", (("in", "header"), ("name", "X-API-Key"), ("value", SECRETS[2]))),
    SavedAuth("api_key", (("in", "query"), ("name", "api_key"), ("value", SECRETS[2]))),
    SavedAuth(
        "oauth2",
        (
            ("flow", "client_credentials"),
            ("tokenUrl", "https://id.agents.test/oauth/token"),
            ("scopes", "agent.read agent.write"),
            ("clientId", CLIENT_ID),
        ),
    ),
    SavedAuth(
        "oauth2",
        (
            ("flow", "device_code"),
            ("deviceAuthorizationUrl", "https://id.agents.test/oauth/device"),
            ("tokenUrl", "https://id.agents.test/oauth/token"),
            ("scopes", "agent.read"),
            ("clientId", CLIENT_ID),
        ),
    ),
)


def request(auth: SavedAuth, binding: Binding = Binding.JSONRPC, n: int = 0) -> SavedRequest:
    """A 1.0 SendMessage request with ``auth`` against ``{{baseUrl}}`` (gRPC: the target)."""
    spec = find_method(ProtocolVersion.V1_0, "SendMessage")
    assert spec is not None
    endpoint = {
        Binding.JSONRPC: "{{baseUrl}}/",
        Binding.HTTP_JSON: "{{baseUrl}}/rest",
        Binding.GRPC: "{{grpcTarget}}",
    }[binding]
    return SavedRequest(
        name=f"Send {n} {auth.kind} {binding.value}",
        version=ProtocolVersion.V1_0,
        binding=binding,
        endpoint=endpoint,
        agent_card_url="{{baseUrl}}/.well-known/agent-card.json",
        method="SendMessage",
        body=render_body(spec, binding, TemplateContext(text="12 30")),
        auth=auth,
    )


def every_auth_document(path: Path) -> SpecDocument:
    """Saved (secrets extracted, as *Save to spec* does) with each of :data:`AUTHS` over
    each binding, and :data:`ENVIRONMENTS`."""
    doc = SpecDocument.new(path=path)
    doc.data["x-a2a-environments"] = ENVIRONMENTS
    n = 0
    for auth in AUTHS:
        # The standard bindings (the custom carriers' saving: tests/spec/test_carriers_saved.py).
        for binding in (b for b in Binding if traits(b).standard):
            n += 1
            cleaned, _ = extract_secrets(request(auth, binding, n))
            doc.upsert(cleaned)
    doc.save()
    return doc
