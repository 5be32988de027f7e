"""Secrets in saved requests: scoped variables go only to their host, nothing secret is
written in clear, and the fallback secrets file is never readable by others."""

from __future__ import annotations

import json
import os
import stat
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from app import fileio
from app.protocol.types import Binding, ProtocolVersion
from app.protocol.wire.a2a_errors import UsageError
from app.spec import variables
from app.spec.document import SpecDocument, load
from app.spec.requests import to_a2a_request
from app.spec.variables import NoKeyring, Resolver, ScopeError, SecretStore
from app.spec.xa2a import SavedAuth, SavedRequest, extract_secrets, secret_scope

VICTIM = "token.127.0.0.1-42415"
SECRET = "VICTIMSECRET"


class _Recording(Resolver):
    """A resolver that remembers every name it was asked for."""

    def __init__(self, values: dict[str, str]) -> None:
        super().__init__(values, environ={}, use_keyring=False)
        self.asked: list[str] = []

    def lookup(self, name: str) -> str | None:
        self.asked.append(name)
        return super().lookup(name)


def request(endpoint: str = "http://127.0.0.1:18777/", **changes: Any) -> SavedRequest:
    saved = SavedRequest(
        name="r",
        version=ProtocolVersion.V1_0,
        binding=Binding.JSONRPC,
        endpoint=endpoint,
        method="SendMessage",
        body='{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {}}',
        operation_id="op",
    )
    return replace(saved, **changes)


def body_with(text: str) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"t": text}})


# --- H1: a scoped variable resolves only for its own host ------------------------------


@pytest.mark.parametrize(
    ("changes", "where"),
    [
        ({"auth": SavedAuth("bearer", (("token", "{{" + VICTIM + "}}"),))}, "x-a2a.auth.token"),
        ({"headers": (("X-Leak", "{{" + VICTIM + "}}"),)}, "x-a2a.headers.X-Leak"),
        ({"query": (("q", "pre-{{" + VICTIM + "}}"),)}, "x-a2a.query.q"),
        ({"body": body_with("stolen: {{" + VICTIM + "}}")}, "x-a2a.example"),
        ({"tenant": "{{" + VICTIM + "}}"}, "x-a2a.tenant"),
        (
            {
                "auth": SavedAuth(
                    "api_key", (("in", "query"), ("name", "k"), ("value", "{{" + VICTIM + "}}"))
                )
            },
            "x-a2a.auth.value",
        ),
    ],
)
def test_a_scoped_variable_is_refused_for_another_host(changes: dict[str, Any], where: str) -> None:
    resolver = _Recording({VICTIM: SECRET})
    with pytest.raises(ScopeError) as info:
        to_a2a_request(request(**changes), resolver)
    message = str(info.value)
    assert "{{" + VICTIM + "}}" in message and where in message
    assert "127.0.0.1-42415" in message  # the variable's host…
    assert "127.0.0.1:18777" in message  # …and where the request goes
    assert "Nothing was sent" in message
    assert VICTIM not in resolver.asked  # refused before the secret is even looked up
    assert isinstance(info.value, UsageError)  # GUI and CLI callers catch UsageError


def test_the_error_names_both_hosts() -> None:
    saved = request(auth=SavedAuth("bearer", (("token", "{{" + VICTIM + "}}"),)))
    with pytest.raises(ScopeError, match=r"credential of 127\.0\.0\.1-42415.*127\.0\.0\.1:18777"):
        to_a2a_request(saved, _Recording({VICTIM: SECRET}))


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://{{" + VICTIM + "}}.evil.example/",  # in the host: would leak through DNS
        "http://evil.example/{{" + VICTIM + "}}/",  # in the path
        "http://127.0.0.1:42415.evil.example/",  # look-alike host
        "http://127.0.0.1:18777/?k={{" + VICTIM + "}}",  # in the query, other host
    ],
)
def test_scoped_variables_in_the_endpoint_are_checked(endpoint: str) -> None:
    saved = request(endpoint, auth=SavedAuth("bearer", (("token", "{{" + VICTIM + "}}"),)))
    with pytest.raises(ScopeError):
        to_a2a_request(saved, _Recording({VICTIM: SECRET}))


def test_a_host_that_needs_rewriting_gets_no_scoped_secret() -> None:
    # 'my_host' and 'my-host' share the scope my-host: neither may use it.
    name = "token." + secret_scope("http://my_host/")
    assert name == "token.my-host"
    saved = request("http://my_host/", auth=SavedAuth("bearer", (("token", "{{" + name + "}}"),)))
    with pytest.raises(ScopeError, match="no scope for secrets"):
        to_a2a_request(saved, _Recording({name: SECRET}))


def test_scoped_variables_resolve_for_their_own_host_in_auth_headers_and_query() -> None:
    scope = "127.0.0.1-42415"
    saved = request(
        "{{baseUrl}}/a2a?api_key={{apiKey." + scope + "}}",
        auth=SavedAuth("bearer", (("token", "{{token." + scope + "}}"),)),
        headers=(("X-Auth-Token", "{{xAuthToken." + scope + "}}"), ("X-Trace", "{{trace}}")),
        query=(("session", "{{session." + scope + "}}"),),
    )
    values = {
        "baseUrl": "http://127.0.0.1:42415",
        "token." + scope: "TOK",
        "xAuthToken." + scope: "HDR",
        "session." + scope: "SES",
        "apiKey." + scope: "QK",
        "trace": "on",  # unscoped variables keep working
    }
    sendable = to_a2a_request(saved, Resolver(values, environ={}, use_keyring=False))
    sent = sendable.request
    assert sent.endpoint == "http://127.0.0.1:42415/a2a?api_key=QK"
    headers = dict(sent.headers)
    assert headers["Authorization"] == "Bearer TOK"
    assert headers["X-Auth-Token"] == "HDR" and headers["X-Trace"] == "on"
    assert dict(sent.query)["session"] == "SES"
    # What carried a scoped secret is masked in printed output.
    assert "X-Auth-Token" in sendable.secret_headers and "session" in sendable.secret_query


def test_unscoped_variables_work_anywhere() -> None:
    saved = request(
        "{{baseUrl}}/",
        body=body_with("{{greeting}}"),
        auth=SavedAuth("bearer", (("token", "{{token}}"),)),
        tenant="{{tenant}}",
    )
    values = {"baseUrl": "http://agent.example", "greeting": "hi", "token": "T", "tenant": "acme"}
    sent = to_a2a_request(saved, Resolver(values, environ={}, use_keyring=False)).request
    assert json.loads(sent.body)["params"]["t"] == "hi" and sent.tenant == "acme"
    assert dict(sent.headers)["Authorization"] == "Bearer T"


def test_a_url_password_resolves_only_while_the_host_stays_the_same() -> None:
    scope = "agent.example-8443"
    saved = request("https://alice:{{urlPassword." + scope + "}}@agent.example:8443/")
    ok = Resolver({"urlPassword." + scope: "pw"}, environ={}, use_keyring=False)
    assert to_a2a_request(saved, ok).request.endpoint == "https://alice:pw@agent.example:8443/"
    # A value that would move the request elsewhere once filled in is refused.
    moved = Resolver({"urlPassword." + scope: "x@evil.example:8443/"}, environ={})
    with pytest.raises(ScopeError, match=r"evil\.example"):
        to_a2a_request(saved, moved)


def test_the_environment_is_a_source_the_check_also_guards() -> None:
    saved = request(headers=(("X-Leak", "{{" + VICTIM + "}}"),))
    resolver = Resolver({}, environ={"A2A_WB_TOKEN_127_0_0_1_42415": SECRET}, use_keyring=False)
    with pytest.raises(ScopeError):
        to_a2a_request(saved, resolver)


# --- M4: nothing secret is written in clear -------------------------------------------------


def test_url_passwords_sensitive_query_parameters_and_headers_are_not_saved(
    tmp_path: Path,
) -> None:
    clear = {
        "URLPASS": "url password",
        "QUERYKEY": "endpoint api_key",
        "ACCESSTOK": "endpoint access_token",
        "HDRTOKEN": "X-Auth-Token",
        "SESSIONID": "X-Session-Id",
        "SECRETHDR": "X-Client-Secret",
        "COOKIEVAL": "Cookie",
        "QSECRET": "x-a2a.query passwd",
        "AUTHKEY": "the auth api key",
    }
    endpoint = (
        "http://alice:URLPASS@agent.example:8443/a2a"
        "?api_key=QUERYKEY&mode=fast&access_token=ACCESSTOK#frag"
    )
    saved = request(
        endpoint,
        headers=(
            ("X-Auth-Token", "HDRTOKEN"),
            ("x-session-id", "SESSIONID"),
            ("X-Client-Secret", "SECRETHDR"),
            ("Cookie", "COOKIEVAL"),
            ("X-Trace", "on"),
        ),
        query=(("passwd", "QSECRET"), ("page", "2")),
        auth=SavedAuth("api_key", (("in", "query"), ("name", "key"), ("value", "AUTHKEY"))),
    )
    cleaned, secrets = extract_secrets(saved)
    doc = SpecDocument.new(path=tmp_path / "s.yaml")
    doc.upsert(cleaned)
    raw = doc.save().read_bytes()
    for value in clear:
        assert value.encode() not in raw, clear[value]
    assert set(secrets.values()) == set(clear)
    assert all(name.endswith(".agent.example-8443") for name in secrets)
    assert secrets["urlPassword.agent.example-8443"] == "URLPASS"
    assert secrets["xAuthToken.agent.example-8443"] == "HDRTOKEN"
    assert secrets["apiKey.agent.example-8443"] == "AUTHKEY"  # the auth keeps its name
    assert secrets["apiKey2.agent.example-8443"] == "QUERYKEY"  # …so the URL's is apiKey2
    # Non-secret parts stay readable.
    assert b"X-Trace: 'on'" in raw or b"X-Trace: on" in raw
    assert b"mode=fast" in raw and b"#frag" in raw and b"alice:" in raw
    # Sending the saved request with the stored secrets gives back exactly what was typed.
    (op,) = load(tmp_path / "s.yaml").operations()
    sent = to_a2a_request(op.request, Resolver(secrets, environ={}, use_keyring=False)).request
    assert sent.endpoint == endpoint
    assert dict(sent.headers)["X-Auth-Token"] == "HDRTOKEN"
    assert dict(sent.query)["passwd"] == "QSECRET"
    # Saving again extracts nothing more and changes nothing.
    again, more = extract_secrets(op.request)
    assert more == {} and again.endpoint == op.request.endpoint


def test_a_url_username_alone_and_plain_headers_stay() -> None:
    cleaned, secrets = extract_secrets(
        request("http://alice@agent.example/?page=2", headers=(("Accept-Language", "en"),))
    )
    assert secrets == {} and cleaned.endpoint == "http://alice@agent.example/?page=2"


def test_secret_scope_ignores_variables_outside_the_host() -> None:
    assert secret_scope("http://u:{{p}}@agent.example:8443/x?k={{k}}") == "agent.example-8443"
    assert secret_scope("{{baseUrl}}/") == ""
    assert secret_scope("http://{{host}}:80/") == ""
    assert secret_scope("http://agent.example:notaport/") == ""
    assert secret_scope("127.0.0.1:50051") == "127.0.0.1-50051"


# --- the fallback secrets file ----------------------------------------------------------


def test_the_fallback_secrets_file_is_never_readable_by_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_keyring(name: str, value: str) -> None:
        raise NoKeyring("none")

    monkeypatch.setattr(variables, "keyring_set", no_keyring)
    path = tmp_path / "cfg" / "secrets.json"
    modes: list[int] = []
    real_replace = os.replace

    def spy_replace(src: str, dst: str) -> None:
        modes.append(stat.S_IMODE(os.stat(src).st_mode))
        real_replace(src, dst)

    monkeypatch.setattr(fileio.os, "replace", spy_replace)
    old_umask = os.umask(0o022)
    try:
        store = SecretStore(path)
        store.put("token.h", "one")
        path.chmod(0o644)  # e.g. left so by an older version
        store.put("password.h", "two")
    finally:
        os.umask(old_umask)
    assert modes == [0o600, 0o600]  # the temp file, before it becomes secrets.json
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == {"token.h": "one", "password.h": "two"}
    assert [p.name for p in path.parent.iterdir()] == ["secrets.json"]


def test_an_environment_variable_another_hosts_scope_also_maps_to_is_not_read() -> None:
    # token.agent.example.com-8443 and token.agent-example.com-8443 (a different, possibly
    # hostile host) both fold to A2A_WB_TOKEN_AGENT_EXAMPLE_COM_8443.
    environ = {"A2A_WB_TOKEN_AGENT_EXAMPLE_COM_8443": SECRET}
    hostile = request(
        "https://agent-example.com:8443/",
        auth=SavedAuth("bearer", (("token", "{{token.agent-example.com-8443}}"),)),
    )
    resolver = Resolver({}, environ=environ, use_keyring=False)
    with pytest.raises(UsageError, match=r"--var token\.agent-example\.com-8443=VALUE") as info:
        to_a2a_request(hostile, resolver)
    assert "is not read for it" in str(info.value)
    own = replace(
        hostile,
        endpoint="https://agent.example.com:8443/",
        auth=SavedAuth("bearer", (("token", "{{token.agent.example.com-8443}}"),)),
    )
    sent = to_a2a_request(own, resolver).request
    assert dict(sent.headers)["Authorization"] == f"Bearer {SECRET}"
    # Given explicitly, the hyphenated host's own token works.
    explicit = Resolver({"token.agent-example.com-8443": "T2"}, environ={}, use_keyring=False)
    assert dict(to_a2a_request(hostile, explicit).request.headers)["Authorization"] == "Bearer T2"


@pytest.mark.parametrize(
    ("name", "allowed"),
    [
        ("baseUrl", True),
        ("token.127.0.0.1-42415", True),
        ("token.agent.example.com", True),
        ("token.127.0.0.1.42415", False),  # would share A2A_WB_TOKEN_127_0_0_1_42415
        ("token.agent-example.com-8443", False),
        ("token_agent.example.com", False),
    ],
)
def test_which_scoped_names_the_environment_may_provide(name: str, allowed: bool) -> None:
    assert variables.env_allowed(name) is allowed
