"""Servers and security schemes other OpenAPI tools read, generated on every save."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path
from typing import Any

import yaml
from openapi_spec_validator import validate

from app.shipped import example_spec
from app.spec import openapi_meta
from app.spec.document import SpecDocument, load
from app.spec.save import save_request
from app.spec.variables import SecretStore
from app.spec.xa2a import SavedAuth
from tests.helpers.bindings import STANDARD_BINDINGS
from tests.helpers.oas_documents import (
    CLIENT_ID,
    ENVIRONMENTS,
    SECRETS,
    every_auth_document,
    request,
)

GEN = {"x-a2a-generated": True}


def _yaml(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(path.read_text())
    return data


def _security(data: dict[str, Any]) -> dict[str, Any]:
    """operationId → its ``security``."""
    return {
        op["operationId"]: op.get("security", "absent")
        for item in data["paths"].values()
        for op in item.values()
    }


def test_servers_are_one_per_environment_with_the_origin_as_a_server_variable(
    tmp_path: Path,
) -> None:
    data = _yaml(every_auth_document(tmp_path / "doc.yaml").path)  # type: ignore[arg-type]
    variable = "`{{baseUrl}}` in the saved requests"
    assert data["servers"] == [
        {
            "url": "{baseUrl}",
            "description": env,
            "variables": {"baseUrl": {"default": values["baseUrl"], "description": variable}},
            **GEN,
        }
        for env, values in ENVIRONMENTS.items()
    ]
    assert list(data)[:3] == ["openapi", "info", "servers"]  # where readers look for it
    validate(data)


def test_without_environments_servers_come_from_the_endpoint_and_card_origins() -> None:
    def block(endpoint: str, binding: str = "JSONRPC", card: str = "") -> dict[str, Any]:
        return {"x-a2a": {"binding": binding, "endpoint": endpoint, "agentCardUrl": card}}

    data: dict[str, Any] = {
        "openapi": "3.2.0",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/a": {"post": block("http://alice:{{urlPassword.h}}@127.0.0.1:9/a2a?x=1")},
            "/b": {"post": block("{{agent}}/rest", "HTTP+JSON")},
            "/c": {"post": block("https://{{host}}:{{port}}/")},
            "/d": {"post": block("{{grpcTarget}}", "GRPC", "http://127.0.0.1:7/card.json")},
            "/e": {"post": block("127.0.0.1:9", "GRPC")},  # a gRPC target is no HTTP server
        },
    }
    openapi_meta.refresh(data)

    def var(name: str) -> dict[str, str]:
        return {"default": "", "description": f"`{{{{{name}}}}}` in the saved requests"}

    assert data["servers"] == [
        {"url": "http://127.0.0.1:9", **GEN},  # the user info (a credential) is dropped
        {"url": "{agent}", "variables": {"agent": var("agent")}, **GEN},
        {"url": "https://{host}:{port}", "variables": {"host": var("host"), "port": var("port")}}
        | GEN,
        {"url": "http://127.0.0.1:7", **GEN},
    ]
    assert all(op["post"]["security"] == [] for op in data["paths"].values())


def test_each_auth_type_becomes_a_security_scheme_and_the_operations_security(
    tmp_path: Path,
) -> None:
    data = _yaml(every_auth_document(tmp_path / "doc.yaml").path)  # type: ignore[arg-type]
    token_url = "https://id.agents.test/oauth/token"
    assert data["components"]["securitySchemes"] == {
        "bearerAuth": {"type": "http", "scheme": "bearer", **GEN},
        "basicAuth": {"type": "http", "scheme": "basic", **GEN},
        "apiKey.header.X-API-Key": {"type": "apiKey", "in": "header", "name": "X-API-Key"} | GEN,
        "apiKey.query.api_key": {"type": "apiKey", "in": "query", "name": "api_key", **GEN},
        "oauth2.clientCredentials": {
            "type": "oauth2",
            "flows": {
                "clientCredentials": {
                    "tokenUrl": token_url,
                    "scopes": {"agent.read": "", "agent.write": ""},
                }
            },
            **GEN,
        },
        "oauth2.deviceAuthorization": {
            "type": "oauth2",
            "flows": {
                "deviceAuthorization": {
                    "deviceAuthorizationUrl": "https://id.agents.test/oauth/device",
                    "tokenUrl": token_url,
                    "scopes": {"agent.read": ""},
                }
            },
            **GEN,
        },
    }
    expected = [
        [],
        [{"bearerAuth": []}],
        [{"basicAuth": []}],
        [{"apiKey.header.X-API-Key": []}],
        [{"apiKey.query.api_key": []}],
        [{"oauth2.clientCredentials": ["agent.read", "agent.write"]}],
        [{"oauth2.deviceAuthorization": ["agent.read"]}],
    ]
    per_binding = [security for security in expected for _ in STANDARD_BINDINGS]
    assert list(_security(data).values()) == per_binding
    validate(data)


def test_no_credential_value_nor_the_client_id_is_in_what_tools_read(tmp_path: Path) -> None:
    path = every_auth_document(tmp_path / "doc.yaml").path
    assert path is not None
    raw = path.read_bytes()
    for secret in SECRETS:
        assert secret.encode() not in raw
    data = _yaml(path)
    generated = yaml.safe_dump(
        [data["servers"], data["components"]["securitySchemes"], _security(data)]
    )
    assert CLIENT_ID not in generated and "{{" not in generated.replace("`{{", "")


def test_load_and_save_again_changes_no_byte(tmp_path: Path) -> None:
    path = every_auth_document(tmp_path / "doc.yaml").path
    assert path is not None
    first = path.read_bytes()
    doc = load(path)
    assert not doc.problems or all("oauth2" in str(p) for p in doc.problems)
    doc.save()
    assert path.read_bytes() == first
    for op in doc.operations():  # re-saving every request moves nothing either
        doc.upsert(op.request)
    doc.save()
    assert path.read_bytes() == first
    copy_path = tmp_path / "copy.yaml"
    load(example_spec()).save(copy_path)
    assert copy_path.read_bytes() == example_spec().read_bytes()


def test_what_no_request_uses_any_more_is_dropped(tmp_path: Path) -> None:
    doc = every_auth_document(tmp_path / "doc.yaml")
    doc.data["x-a2a-environments"] = {"prod": {"baseUrl": "https://agents.test"}}
    paths = doc.data["paths"]
    for path in [p for p, item in paths.items() if "bearerAuth" not in str(item["post"])]:
        del paths[path]
    doc.save()
    data = _yaml(tmp_path / "doc.yaml")
    assert [(s["description"], s["variables"]["baseUrl"]["default"]) for s in data["servers"]] == [
        ("prod", "https://agents.test")
    ]
    assert list(data["components"]["securitySchemes"]) == ["bearerAuth"]
    doc.data["x-a2a-environments"]["prod"]["baseUrl"] = "https://bot:pa55w0rd@agents.test/a2a"
    doc.save()
    data = _yaml(tmp_path / "doc.yaml")
    assert data["servers"][0]["variables"]["baseUrl"]["default"] == "https://agents.test/a2a"
    assert "pa55w0rd" not in yaml.safe_dump(data["servers"])
    assert len(doc.operations()) == len(STANDARD_BINDINGS)
    for op in doc.operations():  # the same requests, now without auth
        doc.upsert(dataclasses.replace(op.request, auth=SavedAuth()))
    doc.save()
    data = _yaml(tmp_path / "doc.yaml")
    assert "securitySchemes" not in data["components"]
    assert list(_security(data).values()) == [[]] * len(STANDARD_BINDINGS)


def test_hand_written_servers_and_schemes_stay_and_an_equal_scheme_is_reused(
    tmp_path: Path,
) -> None:
    doc = SpecDocument.new(path=tmp_path / "team.yaml")
    doc.data["servers"] = [{"url": "https://api.team.test", "description": "our API"}]
    doc.data["components"] = {
        "securitySchemes": {
            "teamToken": {"type": "http", "scheme": "bearer"},
            "basicAuth": {"type": "http", "scheme": "basic", "description": "team SSO"},
        }
    }
    for auth in (
        SavedAuth("bearer", (("token", "{{t}}"),)),
        SavedAuth("basic", (("username", "a"), ("password", "{{p}}"))),
    ):
        doc.upsert(request(auth))
    before = copy.deepcopy(doc.data["components"]["securitySchemes"])
    doc.save()
    doc.save()  # twice: generated parts replace themselves, nothing piles up
    data = _yaml(tmp_path / "team.yaml")
    assert data["servers"][0] == {"url": "https://api.team.test", "description": "our API"}
    assert [s["url"] for s in data["servers"]] == ["https://api.team.test", "{baseUrl}"]
    schemes = data["components"]["securitySchemes"]
    assert {k: schemes[k] for k in before} == before
    assert schemes["basicAuth-2"] == {"type": "http", "scheme": "basic", **GEN}
    assert list(_security(data).values()) == [[{"teamToken": []}], [{"basicAuth-2": []}]]


def test_auth_openapi_cannot_describe_gets_no_security() -> None:
    def op(auth: dict[str, Any]) -> dict[str, Any]:
        return {"post": {"security": [{"old": []}], "x-a2a": {"binding": "GRPC", "auth": auth}}}

    data: dict[str, Any] = {
        "openapi": "3.2.0",
        "paths": {
            "/key": op({"type": "api_key", "in": "header", "name": " "}),
            "/new": op({"type": "mutualTls"}),
            "/code": op(
                {
                    "type": "oauth2",
                    "flow": "authorization_code",
                    "authorizationUrl": "https://id.test/authorize",
                    "tokenUrl": "https://id.test/token",
                    "deviceAuthorizationUrl": "https://id.test/device",  # not this flow's
                    "refreshUrl": "https://id.test/refresh",
                    "clientSecret": "{{clientSecret}}",
                }
            ),
            "/odd": op({"type": "oauth2", "flow": "saml-bearer"}),
            "/oidc": op(
                {
                    "type": "oauth2",
                    "flow": "deviceCode",  # endpoints left to discovery
                    "discoveryUrl": "https://id.test/.well-known/openid-configuration",
                    "scopes": "openid",
                }
            ),
        },
    }
    openapi_meta.refresh(data)
    assert [item["post"].get("security") for item in data["paths"].values()] == [
        None,
        None,
        [{"oauth2.authorizationCode": []}],
        [{"oauth2.custom": []}],
        [{"oauth2.deviceAuthorization": ["openid"]}],
    ]
    assert data["components"]["securitySchemes"] == {
        "oauth2.authorizationCode": {
            "type": "oauth2",
            "flows": {
                "authorizationCode": {
                    "authorizationUrl": "https://id.test/authorize",
                    "tokenUrl": "https://id.test/token",
                    "refreshUrl": "https://id.test/refresh",
                    "scopes": {},
                }
            },
            **GEN,
        },
        "oauth2.custom": {"type": "oauth2", "flows": {}, **GEN},
        "oauth2.deviceAuthorization": {
            "type": "oauth2",
            "oauth2MetadataUrl": "https://id.test/.well-known/openid-configuration",
            "flows": {},
            **GEN,
        },
    }
    assert list(data)[:2] == ["openapi", "paths"]  # no HTTP origin: no servers key at all


class _NoStore(SecretStore):
    def put(self, name: str, value: str) -> str:
        return name


def test_save_to_spec_writes_servers_and_security(tmp_path: Path) -> None:
    target = tmp_path / "mine.yaml"
    saved = request(SavedAuth("bearer", (("token", SECRETS[0]),)))
    result = save_request(saved, target, current=None, store=_NoStore())
    assert result.errors == []
    data = _yaml(target)
    assert data["servers"][0]["url"] == "{baseUrl}"
    assert _security(data) == {result.saved.operation_id: [{"bearerAuth": []}]}
    assert SECRETS[0].encode() not in target.read_bytes()
