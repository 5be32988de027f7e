"""Credentials and extensions folded into requests (pure), then against real token peers."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.protocol import exchange
from app.protocol.events import ExchangeEnd, ExchangeError, Outcome, RequestSent
from app.protocol.methods.catalog import TemplateContext, default_method
from app.protocol.net.auth import (
    ApiKeyLocation,
    AuthConfig,
    apply_auth,
    basic_credentials,
    secret_header_names,
    secret_query_names,
)
from app.protocol.request import A2ARequest, render_body
from app.protocol.secrets import mask_url_query
from app.protocol.types import Binding, ProtocolVersion
from app.protocol.wire.a2a_errors import UsageError

REPO = Path(__file__).resolve().parents[2]
V1, V03 = ProtocolVersion.V1_0, ProtocolVersion.V0_3


def _request(version: ProtocolVersion = V1, **kw: Any) -> A2ARequest:
    return A2ARequest(endpoint="http://127.0.0.1:1/", method="SendMessage", body="{}",
                      version=version, **kw)  # fmt: skip


# --- pure folding --------------------------------------------------------------------


def test_no_auth_changes_nothing() -> None:
    request = _request(headers=(("X-Trace", "1"),))
    assert apply_auth(request, AuthConfig.none()) == request


def test_bearer_goes_into_authorization() -> None:
    folded = apply_auth(_request(), AuthConfig.bearer("tok-123"))
    assert folded.headers == (("Authorization", "Bearer tok-123"),)
    assert folded.query == ()


@pytest.mark.parametrize(
    ("user", "password", "token68"),
    [
        # RFC 7617 §2 example.
        ("Aladdin", "open sesame", "QWxhZGRpbjpvcGVuIHNlc2FtZQ=="),
        # RFC 7617 §2.1: UTF-8 ("test" / "123£" → dGVzdDoxMjPCow==).
        ("test", "123\u00a3", "dGVzdDoxMjPCow=="),
        # Colons are allowed in the password, empty password is allowed.
        ("u", "a:b", base64.b64encode(b"u:a:b").decode()),
        ("u", "", "dTo="),
    ],
)
def test_basic_encoding_follows_rfc_7617(user: str, password: str, token68: str) -> None:
    assert basic_credentials(user, password) == token68
    folded = apply_auth(_request(), AuthConfig.basic(user, password))
    assert folded.headers == (("Authorization", f"Basic {token68}"),)


def test_basic_user_with_colon_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="must not contain ':'"):
        apply_auth(_request(), AuthConfig.basic("a:b", "c"))


def test_api_key_in_header_query_and_cookie() -> None:
    header = apply_auth(_request(), AuthConfig.api_key("X-API-Key", "k1"))
    assert header.headers == (("X-API-Key", "k1"),) and header.query == ()

    query = apply_auth(
        _request(query=(("a", "1"),)), AuthConfig.api_key("api_key", "k2", ApiKeyLocation.QUERY)
    )
    assert query.headers == ()
    assert query.query == (("a", "1"), ("api_key", "k2"))

    cookie = apply_auth(_request(), AuthConfig.api_key("sid", "k3", ApiKeyLocation.COOKIE))
    assert cookie.headers == (("Cookie", "sid=k3"),)

    joined = apply_auth(
        _request(headers=(("cookie", "theme=dark"),)),
        AuthConfig.api_key("sid", "k3", ApiKeyLocation.COOKIE),
    )
    assert joined.headers == (("cookie", "theme=dark; sid=k3"),)


def test_api_key_without_a_name_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="needs a name"):
        apply_auth(_request(), AuthConfig.api_key(" ", "k"))


def test_a_header_row_the_user_wrote_wins_over_the_generated_one() -> None:
    request = _request(headers=(("authorization", "Bearer by-hand"),))
    folded = apply_auth(request, AuthConfig.bearer("from-auth-tab"))
    assert folded.headers == (("authorization", "Bearer by-hand"),)


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        (V1, (("A2A-Extensions", "urn:a, https://x.example/ext/v1"),)),
        (
            V03,
            (
                ("A2A-Extensions", "urn:a, https://x.example/ext/v1"),
                ("X-A2A-Extensions", "urn:a, https://x.example/ext/v1"),
            ),
        ),
    ],
)
def test_extensions_header_per_version(version: ProtocolVersion, expected: Any) -> None:
    uris = ["urn:a", " https://x.example/ext/v1 ", "urn:a", ""]
    folded = apply_auth(_request(version), AuthConfig.none(), uris)
    assert folded.headers == expected


def test_auth_and_extensions_come_after_user_headers() -> None:
    request = _request(headers=(("X-Trace", "1"),))
    folded = apply_auth(request, AuthConfig.bearer("t"), ["urn:e"])
    assert folded.headers == (
        ("X-Trace", "1"),
        ("Authorization", "Bearer t"),
        ("A2A-Extensions", "urn:e"),
    )


def test_secrets_never_appear_in_repr() -> None:
    for auth in (
        AuthConfig.bearer("s3cr3t"),
        AuthConfig.basic("user", "s3cr3t"),
        AuthConfig.api_key("k", "s3cr3t", ApiKeyLocation.QUERY),
    ):
        assert "s3cr3t" not in repr(auth)


def test_secret_names_for_masking() -> None:
    assert secret_header_names(AuthConfig.none()) == ()
    assert secret_header_names(AuthConfig.bearer("t")) == ("Authorization",)
    assert secret_header_names(AuthConfig.basic("u", "p")) == ("Authorization",)
    assert secret_header_names(AuthConfig.api_key("My-Key", "v")) == ("My-Key",)
    cookie = AuthConfig.api_key("sid", "v", ApiKeyLocation.COOKIE)
    assert secret_header_names(cookie) == ("Cookie",)
    query = AuthConfig.api_key("key", "v", ApiKeyLocation.QUERY)
    assert secret_header_names(query) == () and secret_query_names(query) == ("key",)


def test_masking_a_sent_request() -> None:
    event = RequestSent(
        0.0,
        "POST",
        "http://h/p?a=1&key=s3cr3t",
        (("Authorization", "Bearer s3cr3t"), ("My-Key", "s3cr3t"), ("X-Other", "shown")),
        b"{}",
        "SendMessage",
    )
    masked = event.masked(["my-key"], ["key"])
    assert masked.url == "http://h/p?a=1&key=****"
    assert masked.headers == (
        ("Authorization", "Bearer ****"),
        ("My-Key", "****"),
        ("X-Other", "shown"),
    )
    assert mask_url_query("http://h/p", ["key"]) == "http://h/p"


# --- real peers that demand a bearer token ---------------------------------------------

BINDINGS = [
    pytest.param(Binding.JSONRPC, id="jsonrpc"),
    pytest.param(Binding.HTTP_JSON, id="rest"),
    pytest.param(Binding.GRPC, id="grpc"),
]
TOKEN_PEERS = ["sdk_peer_token", "js_peer_token"]
_UNAUTHENTICATED = {401, 16, "UNAUTHENTICATED", "16"}


def _endpoint(info: dict[str, Any], binding: Binding) -> str:
    return {
        Binding.JSONRPC: info["jsonrpc_url"],
        Binding.HTTP_JSON: info["rest_url"],
        Binding.GRPC: info["grpc_target"],
    }[binding]


async def _send(info: dict[str, Any], binding: Binding, auth: AuthConfig) -> list[Any]:
    spec = default_method(V1)
    request = A2ARequest(
        endpoint=_endpoint(info, binding),
        method=spec.name,
        body=render_body(spec, binding, TemplateContext(text="12 30")),
        version=V1,
        binding=binding,
    )
    return [event async for event in exchange.run(apply_auth(request, auth))]


@pytest.mark.peer
@pytest.mark.parametrize("peer", TOKEN_PEERS)
@pytest.mark.parametrize("binding", BINDINGS)
async def test_token_peer_rejects_without_and_accepts_with_bearer(
    peer: str, binding: Binding, request: pytest.FixtureRequest
) -> None:
    info = request.getfixturevalue(peer)

    events = await _send(info, binding, AuthConfig.none())
    end = events[-1]
    assert isinstance(end, ExchangeEnd) and end.outcome is Outcome.RPC_ERROR, events
    errors = [e for e in events if isinstance(e, ExchangeError)]
    assert any(e.code in _UNAUTHENTICATED or e.name == "UNAUTHENTICATED" for e in errors), errors

    wrong = await _send(info, binding, AuthConfig.bearer("not-the-token"))
    assert wrong[-1].outcome is Outcome.RPC_ERROR

    events = await _send(info, binding, AuthConfig.bearer(info["token"]))
    assert events[-1].outcome is Outcome.OK, events
    (sent,) = [e for e in events if isinstance(e, RequestSent)]
    # gRPC metadata names are lower-case.
    assert ("authorization", f"Bearer {info['token']}") in {(n.lower(), v) for n, v in sent.headers}
    assert "Sum: 42" in json.dumps([getattr(e, "json", None) for e in events], default=str)


def _cli(*args: str) -> tuple[int, list[dict[str, Any]], str]:
    proc = subprocess.run(
        [sys.executable, "-m", "app", "send", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    return proc.returncode, lines, proc.stderr


@pytest.mark.peer
@pytest.mark.parametrize("peer", TOKEN_PEERS)
def test_cli_bearer_against_token_peer(peer: str, request: pytest.FixtureRequest) -> None:
    info = request.getfixturevalue(peer)
    url = info["jsonrpc_url"]
    code, lines, _ = _cli(url, "--method", "SendMessage", "--text", "12 30")
    assert code == 1, lines
    assert lines[-1]["outcome"] == "rpc_error"

    code, lines, _ = _cli(
        url, "--method", "SendMessage", "--text", "12 30", "--bearer", info["token"]
    )
    assert code == 0, lines
    assert lines[0]["headers"]["Authorization"] == "Bearer ****"
    assert info["token"] not in json.dumps(lines)
    assert lines[1]["body"]["result"]["message"]["parts"][0]["text"] == "Sum: 42"

    code, lines, _ = _cli(
        url, "--method", "SendMessage", "--text", "1 2", "--bearer", info["token"],
        "--reveal-secrets",
    )  # fmt: skip
    assert code == 0, lines
    assert lines[0]["headers"]["Authorization"] == f"Bearer {info['token']}"


@pytest.mark.parametrize(
    ("flag", "where", "check"),
    [
        ("k=s3cr3t", "header", lambda path, headers: headers.get("k") == "s3cr3t"),
        ("k=s3cr3t@header", "header", lambda path, headers: headers.get("k") == "s3cr3t"),
        ("k=s3cr3t@query", "query", lambda path, headers: path.endswith("?k=s3cr3t")),
        ("k=s3cr3t@cookie", "cookie", lambda path, headers: headers.get("Cookie") == "k=s3cr3t"),
    ],
)
def test_cli_api_key_goes_where_asked_and_is_masked(flag: str, where: str, check: Any) -> None:
    from tests.helpers.bad_server import Canned, bad_server

    canned = Canned(body=b'{"jsonrpc": "2.0", "id": null, "result": {}}')
    with bad_server(canned) as url:
        code, lines, _ = _cli(url, "--method", "GetTask", "--text", "x", "--api-key", flag)
    assert code != 3, lines  # sent (the canned result itself need not be a valid Task)
    ((_, path, headers, _),) = canned.received
    assert check(path, headers), (path, headers)
    assert "s3cr3t" not in json.dumps(lines[0]), lines[0]


def test_cli_basic_and_extensions() -> None:
    from tests.helpers.bad_server import Canned, bad_server

    canned = Canned(body=b'{"jsonrpc": "2.0", "id": null, "result": {}}')
    with bad_server(canned) as url:
        code, lines, _ = _cli(
            url, "--method", "tasks/get", "--version", "0.3", "--text", "x",
            "--basic", "Aladdin:open sesame", "--extension", "urn:a", "--extension", "urn:b",
        )  # fmt: skip
    assert code != 3, lines
    ((_, _, headers, _),) = canned.received
    assert headers["Authorization"] == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="
    assert headers["A2A-Extensions"] == "urn:a, urn:b"
    assert headers["X-A2A-Extensions"] == "urn:a, urn:b"
    assert lines[0]["headers"]["Authorization"] == "Basic ****"


@pytest.mark.parametrize(
    "args",
    [
        ["--basic", "no-colon"],
        ["--api-key", "no-equals"],
        ["--api-key", "=v"],
        ["--bearer", "a", "--basic", "u:p"],
    ],
)
def test_cli_bad_auth_flags_exit_3(args: list[str]) -> None:
    code, lines, stderr = _cli("http://127.0.0.1:9/", "--method", "GetTask", *args)
    assert code == 3, lines
    assert lines[0]["kind"] == "usage" and stderr
