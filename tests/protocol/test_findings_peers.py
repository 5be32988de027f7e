"""The real peers speak their dialects: a full stream gives no findings (and no lint)."""

from __future__ import annotations

from typing import Any

import pytest

from app.protocol import exchange
from app.protocol.events import ExchangeEnd, ExchangeFinding, StreamItem
from app.protocol.methods.catalog import TemplateContext
from app.protocol.stream.stream_session import StreamSession
from app.protocol.types import Binding, ProtocolVersion
from tests.protocol.test_streaming_peers import CELLS, _request

pytestmark = pytest.mark.peer


@pytest.fixture
def peer_info(request: pytest.FixtureRequest) -> dict[str, Any]:
    return dict(request.getfixturevalue(f"{request.param}_peer"))


@pytest.mark.parametrize(("peer_info", "binding", "version"), CELLS, indirect=["peer_info"])
async def test_a_whole_stream_of_a_real_peer_has_no_findings(
    peer_info: dict[str, Any], binding: Binding, version: ProtocolVersion
) -> None:
    request = _request(peer_info, binding, version, "stream", TemplateContext(text="stream 3 5"))
    session = StreamSession(version)
    session.begin_connection()
    events = [event async for event in exchange.run(request)]
    lint = []
    for event in events:
        if isinstance(event, StreamItem):
            lint += session.feed(event)[1]
    end = events[-1]
    assert isinstance(end, ExchangeEnd)
    lint += session.end(end.outcome)[1]
    assert [e.finding for e in events if isinstance(e, ExchangeFinding)] == []
    assert lint == []
    assert sum(isinstance(e, StreamItem) for e in events) >= 3
