"""Every request the app sends says ``User-Agent: a2a-workbench/VERSION``, read from what a
real peer (@a2a-js/sdk, ``--log-user-agents``) saw: JSON-RPC, HTTP+JSON, gRPC, the card
fetch, the window's own client; a request's own User-Agent header still wins."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from app import __version__
from app.protocol import exchange
from app.protocol.card.fetch import fetch_card
from app.protocol.events import ExchangeEnd, Outcome
from app.protocol.methods.catalog import TemplateContext, find_method
from app.protocol.request import A2ARequest, render_body
from app.protocol.types import Binding, ProtocolVersion
from tests.peers.js_fixtures import start_js_peer
from tests.peers.launch import PeerProcess

pytestmark = pytest.mark.peer

OURS = f"a2a-workbench/{__version__}"


def body(binding: Binding) -> str:
    """SendMessage's body of the catalog's own template, for ``binding``."""
    spec = find_method(ProtocolVersion.V1_0, "SendMessage")
    assert spec is not None
    return render_body(spec, binding, TemplateContext(text="1 2"))


@pytest.fixture(scope="module")
def peer() -> Iterator[PeerProcess]:
    """The JavaScript SDK peer, logging each request's User-Agent to its stderr."""
    started = start_js_peer("--log-user-agents")
    try:
        yield started
    finally:
        started.stop()


def seen(peer: PeerProcess, where: str) -> list[str]:
    """The User-Agents the peer logged for ``where`` (``POST:/``, ``grpc:sendMessage``)."""
    found = []
    for line in peer.stderr_text().splitlines():
        _, _, rest = line.partition("user-agent ")
        place, _, agent = rest.partition(" ")
        if place == where:
            found.append(agent)
    return found


async def sent(request: A2ARequest) -> None:
    events = [event async for event in exchange.run(request)]
    end = events[-1]
    assert isinstance(end, ExchangeEnd) and end.outcome is Outcome.OK, events


async def logged(peer: PeerProcess, where: str, count: int) -> list[str]:
    for _ in range(100):  # the peer writes its line as the request arrives
        if len(found := seen(peer, where)) >= count:
            return found
        await asyncio.sleep(0.02)
    return seen(peer, where)


async def test_every_binding_and_the_card_fetch_say_a2a_workbench(peer: PeerProcess) -> None:
    info = peer.info
    for url, binding in (
        (info["jsonrpc_url"], Binding.JSONRPC),
        (info["rest_url"], Binding.HTTP_JSON),
        (info["grpc_target"], Binding.GRPC),
    ):
        await sent(A2ARequest(url, "SendMessage", body(binding), binding=binding))
    card = await fetch_card(info["base_url"])
    assert card.status == 200

    assert await logged(peer, "POST:/", 1) == [OURS]
    assert await logged(peer, "POST:/rest/message:send", 1) == [OURS]
    assert await logged(peer, "GET:/.well-known/agent-card.json", 1) == [OURS]
    grpc_agents = await logged(peer, "grpc:sendMessage", 1)
    # gRPC's own library names itself after it ("a2a-workbench/0.1.0 grpc-python-asyncio/…").
    assert len(grpc_agents) == 1 and grpc_agents[0].startswith(OURS + " grpc-")


async def test_a_requests_own_user_agent_header_wins(peer: PeerProcess) -> None:
    before = len(seen(peer, "POST:/"))
    headers = (("User-Agent", "my-probe/2"),)
    request = A2ARequest(peer.info["jsonrpc_url"], "SendMessage", body(Binding.JSONRPC))
    await sent(dataclasses.replace(request, headers=headers))
    assert (await logged(peer, "POST:/", before + 1))[before:] == ["my-probe/2"]


@pytest.mark.gui
def test_the_windows_requests_say_a2a_workbench(
    qtbot: Any, qloop: Any, wait_until: Callable[..., None], peer: PeerProcess
) -> None:
    from app.ui.shell.main_window import MainWindow

    window = MainWindow()
    window.show()
    try:
        before = len(seen(peer, "POST:/"))
        tab = window.new_a2a_tab(peer.info["jsonrpc_url"], "1 2")
        tab.send_or_cancel()  # through the window's shared client
        wait_until(lambda: not tab.busy and tab.response_view.outcome is not None, timeout=15)
        assert tab.response_view.outcome is Outcome.OK
        wait_until(lambda: len(seen(peer, "POST:/")) > before)
        assert seen(peer, "POST:/")[before:] == [OURS]
    finally:
        qloop.run_until_complete(window.shutdown())
        window.close_now()
        window.deleteLater()
