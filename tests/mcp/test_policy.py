"""The server's guards on their own: the allow-list, the secret ledger, credentials by
reference, and the HTTP transport's listening rules and bearer gate."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from app.commands.cli import CliUsageError
from app.commands.mcp.allow_list import HostPolicy, HostRefused
from app.commands.mcp.credential_refs import CredentialRef, check_headers, resolve
from app.commands.mcp.http_transport import BearerGate, HttpOptions, check_options, parse_listen
from app.commands.mcp.local_files import local_file
from app.commands.mcp.mcp_state import SecretLedger, ServerState
from app.errors import UsageError
from app.paths import secrets_path
from tests.mcp.saved_specs import saved_collection


def test_the_default_allow_list_is_loopback_and_the_users_collections(tmp_path: Path) -> None:
    policy = HostPolicy()
    for url in ("http://127.0.0.1:8000/", "http://localhost/a2a", "[::1]:50051", "127.0.0.9:1"):
        policy.check(url)
    with pytest.raises(HostRefused, match=r"refused to call agent\.example .*--allow-host"):
        policy.check("https://agent.example/a2a")
    spec = saved_collection(tmp_path)  # one of the user's collections from now on
    text = spec.read_text().replace("'{{baseUrl}}/'", "https://agent.example/a2a", 1)
    spec.write_text(text)
    policy.check("https://agent.example/other")  # a host the collection names
    with pytest.raises(HostRefused, match="names no host"):
        policy.check("/a2a")


def test_allow_host_patterns_replace_the_default() -> None:
    policy = HostPolicy(("*.example.com",))
    policy.check("https://a.example.com/x")
    policy.check("b.example.com:443")
    with pytest.raises(HostRefused, match=r"matches none of --allow-host \*\.example\.com"):
        policy.check("http://127.0.0.1:8000/")  # loopback too only when listed
    assert HostPolicy(("*",)).allows("anything.anywhere")


def test_the_ledger_masks_what_it_was_given_in_every_string() -> None:
    ledger = SecretLedger()
    ledger.add(["s3cret-value", "abc", "s3cret"])  # "abc": too short to mask
    masked = ledger.mask({"a": "x s3cret-value y", "s3cret": ["s3cret", 1, None], "b": "abc"})
    assert masked == {"a": "x **** y", "****": ["****", 1, None], "b": "abc"}


def test_no_tool_reads_the_secrets_file(tmp_path: Path) -> None:
    store = secrets_path()
    store.parent.mkdir(parents=True, exist_ok=True)
    store.write_text('{"token": "kept-secret"}')
    with pytest.raises(UsageError, match="stored secrets") as caught:
        local_file(str(store))
    assert "kept-secret" not in str(caught.value)
    assert local_file(str(tmp_path / "card.json")) == tmp_path / "card.json"


def test_credentials_come_by_reference_only(monkeypatch: pytest.MonkeyPatch) -> None:
    state = ServerState()
    monkeypatch.setenv("MY_TOKEN", "tok-12345")
    found = resolve(CredentialRef(env="MY_TOKEN"), state)
    assert found.label == "bearer from $MY_TOKEN" and "tok-12345" not in found.label
    assert state.ledger.mask("tok-12345") == "****"
    monkeypatch.setenv("MY_BASIC", "no-colon")
    with pytest.raises(UsageError, match="user:password") as caught:
        resolve(CredentialRef(env="MY_BASIC", scheme="basic"), state)
    assert "no-colon" not in str(caught.value)
    with pytest.raises(UsageError, match="exactly one reference"):
        resolve(CredentialRef(), state)
    with pytest.raises(UsageError, match="api_key_name"):
        resolve(CredentialRef(env="MY_TOKEN", scheme="api_key"), state)
    for name in ("Authorization", "X-API-Key", "x-auth-token", "Cookie"):
        with pytest.raises(UsageError, match="by reference"):
            check_headers({name: "v"})
    check_headers({"X-Trace": "1", "A2A-Extensions": "urn:x"})


@pytest.mark.parametrize(
    ("text", "host", "port"),
    [("127.0.0.1:8765", "127.0.0.1", 8765), ("[::1]:0", "::1", 0), ("localhost:1", "localhost", 1)],
)
def test_listen_addresses(text: str, host: str, port: int) -> None:
    assert parse_listen(text) == (host, port)


def test_beyond_loopback_needs_allow_remote_and_tls() -> None:
    check_options(HttpOptions("127.0.0.1", 0))
    check_options(HttpOptions("10.0.0.5", 0, allow_remote=True, tls_cert="c", tls_key="k"))
    for options, words in [
        (HttpOptions("10.0.0.5", 0), "--allow-remote"),
        (HttpOptions("0.0.0.0", 0, allow_remote=True), "--tls-cert"),
        (HttpOptions("127.0.0.1", 0, tls_cert="c"), "go together"),
    ]:
        with pytest.raises(CliUsageError, match=words):
            check_options(options)


def test_the_bearer_gate() -> None:
    app = Starlette(routes=[Route("/mcp", lambda r: PlainTextResponse("in"), methods=["POST"])])
    with TestClient(BearerGate(app, "t0ken")) as http:
        assert http.post("/mcp", headers={"Authorization": "Bearer t0ken"}).text == "in"
        for headers in ({}, {"Authorization": "Bearer other"}, {"Authorization": "t0ken"}):
            refused = http.post("/mcp", headers=headers)
            assert refused.status_code == 401 and "t0ken" not in refused.text
