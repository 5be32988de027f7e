"""The saved document declares the media types the REST transport actually sends (A2A 1.0
spec §11.1, §14.1.1: ``application/a2a+json``; 0.3 §3.2.3: ``application/json``)."""

from __future__ import annotations

import asyncio

import pytest

from app.protocol import exchange
from app.protocol.events import RequestSent
from app.protocol.methods.catalog import TemplateContext, methods_for
from app.protocol.request import render_body
from app.protocol.types import Binding, ProtocolVersion
from app.spec.operations import build_operation
from app.spec.requests import to_a2a_request
from app.spec.xa2a import SavedRequest
from tests.helpers.bad_server import Canned, bad_server


async def _sent(saved: SavedRequest) -> RequestSent | None:
    events = [event async for event in exchange.run(to_a2a_request(saved, None).request)]
    return next((event for event in events if isinstance(event, RequestSent)), None)


@pytest.mark.parametrize("version", list(ProtocolVersion))
def test_declared_request_media_type_is_the_sent_one(version: ProtocolVersion) -> None:
    with bad_server(Canned(body=b"{}")) as url:
        checked = 0
        for spec in methods_for(version):
            if spec.streaming:
                continue
            body = render_body(spec, Binding.HTTP_JSON, TemplateContext(text="hi", task_id="t1"))
            saved = SavedRequest(name=spec.name, operation_id=spec.name, endpoint=url,
                                 method=spec.name, version=version, binding=Binding.HTTP_JSON,
                                 body=body)  # fmt: skip
            operation = build_operation(saved).operation
            sent = asyncio.run(_sent(saved))
            if sent is None:  # a method this template cannot send over REST
                continue
            headers = {n.lower(): v for n, v in sent.headers}
            if "requestBody" in operation:
                (declared,) = operation["requestBody"]["content"]
                assert headers["content-type"] == declared, spec.name
                checked += 1
            (answer,) = operation["responses"]["200"]["content"]
            assert answer in headers["accept"], spec.name
    assert checked >= 2
    expected = "application/a2a+json" if version is ProtocolVersion.V1_0 else "application/json"
    assert declared == expected
