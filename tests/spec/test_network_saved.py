"""TLS and proxy settings in the session file and in drafts (never the key password)."""

from __future__ import annotations

import dataclasses

from app.protocol.network import ProxyMode, ProxySettings, TlsSettings
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
