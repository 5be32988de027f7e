"""TLS and proxy settings in the session file and in drafts (never the key password)."""

from __future__ import annotations

import dataclasses

from app.history import codec
from app.protocol.events import RequestSent
from app.protocol.net.network import ProxyMode, ProxySettings, TlsSettings
from app.protocol.request import A2ARequest
from app.protocol.types import Binding, ProtocolVersion
from app.session import request_from_dict, request_to_dict
from app.spec.draft import Form, RequestDraft
from app.spec.xa2a import SavedRequest
from app.spec.xa2a_network import SavedNetwork


def test_session_keeps_tls_and_proxy_and_old_files_read() -> None:
    network = SavedNetwork(
        TlsSettings(ca_cert="/ca.pem", client_cert="{{cert}}", insecure=True),
        ProxySettings(ProxyMode.NONE),
    )
    saved = SavedRequest("t", ProtocolVersion.V1_0, Binding.GRPC, "h:1", "SendMessage", "{}")
    with_network = dataclasses.replace(saved, network=network)
    assert "network" not in request_to_dict(saved)  # unchanged files for unchanged tabs
    assert request_from_dict(request_to_dict(with_network)).network == network


def test_draft_sends_the_key_password_but_never_saves_it() -> None:
    tls = TlsSettings(client_cert="c.p12", key_password="hunter2")
    form = Form(ProtocolVersion.V1_0, Binding.JSONRPC, "SendMessage", "http://h/", tls=tls)
    draft = RequestDraft()
    assert draft.to_saved(form).network.tls == TlsSettings(client_cert="c.p12")
    assert draft.build_request(form).network.tls.key_password == "hunter2"


def test_history_keeps_the_tls_warning_and_the_proxy() -> None:
    request = A2ARequest("https://h/", "SendMessage", "{}")
    sent = RequestSent(0.0, "POST", "https://h/", (), b"{}", "SendMessage")
    flagged = dataclasses.replace(sent, tls_unverified=True, proxy="http://u:***@p:1")
    for event in (sent, flagged):
        kind, t, meta, payload = codec.encode(event, codec.Masker(request))
        assert codec.decode(kind, t, meta, payload, grpc=False) == [event]
    assert "tls_unverified" not in codec.encode(sent, codec.Masker(request))[2]
