"""Redaction by value: the registry (app/protocol/secrets.py) applied to every event kind."""

from __future__ import annotations

import base64

from app.protocol.events import (
    ErrorKind,
    ExchangeError,
    RequestSent,
    ResponseBody,
    ResponseHead,
    StreamItem,
)
from app.protocol.masking import mask_event
from app.protocol.net.auth import AuthConfig, apply_auth
from app.protocol.request import A2ARequest
from app.protocol.secrets import MASK, request_secrets
from app.protocol.types import Binding, ProtocolVersion
from app.spec.requests import to_a2a_request
from app.spec.variables import Resolver
from app.spec.xa2a import SavedAuth, SavedRequest

SECRET = 'se"cr\\et-42'


def test_every_credential_of_a_request_is_registered() -> None:
    request = apply_auth(
        A2ARequest(
            "http://bob:p%40ss-word@h/?access_token=qtok-1234",
            "SendMessage",
            "{}",
            headers=(("Cookie", "a=1; sid=cookie-999"),),
        ),
        AuthConfig.api_key("X-Odd", "odd-key-77"),
    )
    values = request_secrets(
        request.headers, request.query, request.endpoint, registered=request.secret_values
    )
    basic = base64.b64encode(b"bob:p@ss-word").decode()
    for value in ("p%40ss-word", "p@ss-word", basic, "qtok-1234", "cookie-999", "odd-key-77"):
        assert value in values


def test_every_event_kind_is_masked_including_escaped_forms() -> None:
    secrets = (SECRET,)
    escaped = '"se\\"cr\\\\et-42"'
    events = [
        ResponseHead(0, 401, f"no {SECRET}", "1.1", (("X-Echo", SECRET),)),
        ResponseBody(
            0, b'{"echo": ' + escaped.encode() + b"}", "application/json", json={"echo": SECRET}
        ),
        StreamItem(0, 1, b"data: " + escaped.encode(), json=SECRET),
        ExchangeError(
            0,
            ErrorKind.RPC,
            f"bad {SECRET}",
            code="INTERNAL",
            data={SECRET: [SECRET]},
            details=(f"ErrorInfo reason={SECRET}",),
            trailers=(("x", SECRET),),
        ),
    ]
    for event in events:
        masked = mask_event(event, secrets)
        assert "et-42" not in repr(masked), masked
        assert MASK in repr(masked)


def test_request_sent_keeps_the_bytes_and_masks_its_view() -> None:
    sent = RequestSent(
        0,
        "POST",
        f"http://h/?x={SECRET}",
        (("X-Whatever", SECRET),),
        SECRET.encode(),
        "SendMessage",
    )
    carried = mask_event(sent, (SECRET,))
    assert isinstance(carried, RequestSent)
    assert carried.headers == sent.headers  # --reveal-secrets still has the original
    assert "et-42" not in repr(carried.masked())


def test_secret_variables_are_registered_but_plain_ones_are_not() -> None:
    saved = SavedRequest(
        name="op",
        operation_id="op",
        endpoint="{{baseUrl}}/",
        method="SendMessage",
        version=ProtocolVersion.V1_0,
        binding=Binding.JSONRPC,
        body='{"q": "{{note}}"}',
        auth=SavedAuth("bearer", (("token", "{{t}}"),)),
        headers=(("X-Session-Id", "{{s}}"), ("X-Plain", "{{plain}}"), ("X-T", "{{myToken}}")),
    )
    values = {
        "baseUrl": "http://h",
        "note": "just-a-note",
        "t": "tok-abc",
        "s": "sess-abc",
        "plain": "plain-value",
        "myToken": "named-abc",
    }
    registered = to_a2a_request(saved, Resolver(values, environ={}, use_keyring=False))
    assert set(registered.request.secret_values) >= {"tok-abc", "sess-abc", "named-abc"}
    assert not {"http://h", "just-a-note", "plain-value"} & set(registered.request.secret_values)


def test_a_saved_spec_holds_no_credential_repeated_under_an_innocent_name() -> None:
    from app.spec.xa2a import extract_secrets

    saved = SavedRequest(
        name="op",
        operation_id="op",
        endpoint="http://h:1/",
        method="SendMessage",
        version=ProtocolVersion.V1_0,
        binding=Binding.JSONRPC,
        body="{}",
        auth=SavedAuth("bearer", (("token", "tok-abcdef"),)),
        headers=(("X-Forward", "tok-abcdef"), ("Cookie", "a=1; s=sess-9999")),
        query=(("q", "pre-tok-abcdef"),),
    )
    cleaned, secrets = extract_secrets(saved)
    text = repr(cleaned)
    assert "tok-abcdef" not in text and "sess-9999" not in text
    assert set(secrets.values()) >= {"tok-abcdef"}
