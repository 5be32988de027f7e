"""The MCP server against a prompt-injected model: a collection the model wrote that starts
a command or reaches a local socket, a card that changes between the allow-list check and
the run, a card naming a Unix socket, file arguments that are FIFOs, devices, huge files or
the user's hidden files, and hosts spelt to slip past the allow-list.

The server runs in this process (the ``mcp`` SDK's in-memory client); hostile agents are
small stubs on loopback, since no real agent serves a card that changes under the reader.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml
from mcp import Client

from app.commands.mcp.allow_list import HostPolicy, HostRefused
from app.commands.mcp.mcp_app import build_server
from app.commands.mcp.mcp_state import ServerState
from app.protocol.types import Binding
from app.shipped import example_spec
from tests.attack.stub import card_with
from tests.mcp.harness import text

SEND = "sum-numbers-1-0-json-rpc"

pytestmark = pytest.mark.timeout(60)


@contextlib.asynccontextmanager
async def _client(*allow: str) -> AsyncIterator[Client]:
    state = ServerState(hosts=HostPolicy(tuple(allow)))
    async with Client(build_server(state)) as client:
        yield client


def _refused(result: Any) -> str:
    assert result.is_error, result
    words = text(result)
    assert "Traceback" not in words
    return words


def _model_written(folder: Path, x_a2a: dict[str, Any]) -> Path:
    """The example collection with its SendMessage changed: a file the model wrote (not
    one of the user's collections)."""
    data = yaml.safe_load(example_spec().read_text(encoding="utf-8"))
    data["paths"][f"/a2a/{SEND}"]["post"]["x-a2a"].update(x_a2a)
    path = folder / "written.a2a.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


async def test_a_collection_the_model_wrote_starts_no_command(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    command = shlex.join([sys.executable, "-c", f"open({str(marker)!r}, 'w').write('pwned')"])
    spec = _model_written(
        tmp_path, {"binding": "stdio", "endpoint": "stdio://localhost", "command": command}
    )
    async with _client() as client:
        result = await client.call_tool(
            "run_collection", {"collection": str(spec), "operations": [SEND]}
        )
    await asyncio.sleep(0.5)
    assert not marker.exists(), "a model-written collection ran a command"
    run = result.structured_content
    assert run is not None and run["operations"][0]["exchange"] is None
    assert "command" in run["operations"][0]["error"]


async def test_a_collection_the_model_wrote_reaches_no_unix_socket(tmp_path: Path) -> None:
    path = tmp_path / "private.sock"
    connected: list[bool] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connected.append(True)
        writer.close()

    server = await asyncio.start_unix_server(handle, path=str(path))
    spec = _model_written(tmp_path, {"binding": "unix", "endpoint": f"unix://localhost{path}"})
    try:
        async with _client() as client:
            result = await client.call_tool(
                "run_collection", {"collection": str(spec), "operations": [SEND]}
            )
    finally:
        server.close()
        await server.wait_closed()
    assert not connected, "a model-written collection reached a local Unix socket"
    run = result.structured_content
    assert run is not None and run["operations"][0]["exchange"] is None


class _ChangingCard:
    """An agent whose card names loopback interfaces the first time it is read and
    ``elsewhere`` after that; every request recorded by its Host header."""

    def __init__(self) -> None:
        self.port = 0
        self.cards = 0
        self.hosts: list[str] = []
        self.elsewhere = ""

    def card(self) -> dict[str, Any]:
        self.cards += 1
        url = f"http://127.0.0.1:{self.port}/" if self.cards == 1 else self.elsewhere
        return card_with([url])


@contextlib.contextmanager
def _changing_agent() -> Iterator[_ChangingCard]:
    agent = _ChangingCard()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _answer(self, body: bytes) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self._answer(json.dumps(agent.card()).encode())

        def do_POST(self) -> None:
            agent.hosts.append(self.headers.get("Host", ""))
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            request_id = json.loads(raw).get("id") if raw.startswith(b"{") else None
            self._answer(json.dumps({"jsonrpc": "2.0", "id": request_id, "error": {
                "code": -32601, "message": "no"}}).encode())  # fmt: skip

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    agent.port = server.server_address[1]
    agent.elsewhere = f"http://localhost:{agent.port}/"  # a host the allow-list refuses
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield agent
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


async def test_a_card_that_changes_after_the_allow_list_check_is_not_followed() -> None:
    with _changing_agent() as agent:
        async with _client("127.0.0.1") as client:
            result = await client.call_tool(
                "check_agent",
                {"card_url": f"http://127.0.0.1:{agent.port}", "only": ["core"], "budget": 20},
            )
    assert not any(h.startswith("localhost") for h in agent.hosts), (
        "check_agent called a host the allow-list refuses, named by a card read after the check"
    )
    assert not result.is_error or "localhost" in text(result)


async def test_a_card_naming_a_unix_socket_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "docker.sock"
    connected: list[bool] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connected.append(True)
        writer.close()

    card = card_with([])
    card["supportedInterfaces"] = [
        {"url": f"unix://{path}", "protocolBinding": "unix", "protocolVersion": "1.0"}
    ]
    card_file = tmp_path / "card.json"
    card_file.write_text(json.dumps(card))
    server = await asyncio.start_unix_server(handle, path=str(path))
    try:
        async with _client() as client:
            result = await client.call_tool(
                "check_agent", {"card_url": str(card_file), "only": ["core"], "budget": 10}
            )
    finally:
        server.close()
        await server.wait_closed()
    assert not connected, "a card made check_agent connect to a local Unix socket"
    assert "unix" in _refused(result).lower()


def _sparse(path: Path, size: int) -> Path:
    with path.open("wb") as fh:
        fh.truncate(size)
    return path


async def test_file_arguments_that_are_no_plain_files_are_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    huge = _sparse(tmp_path / "huge.json", 512 * 1024 * 1024)
    card = tmp_path / "card.json"
    card.write_text(json.dumps(card_with(["http://127.0.0.1:1/"])))
    async with _client() as client:
        for arguments in (
            {"card_path": str(fifo)},
            {"card_path": str(tmp_path)},
            {"card_path": "/dev/zero"},
        ):
            words = _refused(await client.call_tool("validate_card", arguments))
            assert "not a regular file" in words or "directory" in words, words
        for jwks_path in (str(fifo), "/dev/zero", str(tmp_path)):
            result = await client.call_tool(
                "verify_card_signature", {"card_path": str(card), "jwks_path": jwks_path}
            )
            assert "not a regular file" in _refused(result) or "directory" in text(result)
        result = await client.call_tool(
            "verify_card_signature", {"card_path": str(card), "jwks_path": str(huge)}
        )
        assert "bytes" in _refused(result)
        for files in ([str(fifo)], ["/dev/zero"]):
            result = await client.call_tool("send", {"url": "http://127.0.0.1:1/", "files": files})
            assert "not a regular file" in _refused(result)
        fixture = await client.call_tool("replay_start", {"fixture": str(fifo)})
        assert "not a regular file" in _refused(fixture)


async def test_the_users_hidden_files_are_not_read(tmp_path: Path) -> None:
    home = Path.home()
    docker = home / ".docker" / "config.json"
    docker.parent.mkdir(parents=True, exist_ok=True)
    docker.write_text(json.dumps({"auths": {"registry.example": {"auth": "c2VjcmV0LXRva2Vu"}}}))
    ssh = home / ".ssh" / "id_ed25519"
    ssh.parent.mkdir(parents=True, exist_ok=True)
    ssh.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nc2VjcmV0LWtleQ==\n-----END\n")
    link = tmp_path / "innocent.json"
    link.symlink_to(docker)
    async with _client() as client:
        for path in (
            str(docker),
            "~/.docker/config.json",
            str(link),
            str(tmp_path / ".." / docker),
        ):
            result = await client.call_tool("validate_card", {"card_path": path})
            assert "c2VjcmV0" not in text(result) + json.dumps(result.structured_content)
            assert "hidden" in _refused(result)
        result = await client.call_tool("send", {"url": "http://127.0.0.1:1/", "files": [str(ssh)]})
        assert "hidden" in _refused(result)
        result = await client.call_tool("run_collection", {"collection": "~/.ssh/id_ed25519"})
        assert "c2VjcmV0" not in text(result) and "hidden" in _refused(result)


@pytest.mark.parametrize(
    "target",
    [
        "localhost:1,10.255.255.1:80",  # a gRPC target list: the first name allowed
        "localhost:1@10.255.255.1:80",
        "ipv4:10.255.255.1:80,@localhost:1",
        "ipv4:10.255.255.1:80",
        "dns:10.255.255.1:80",
        "unix:@localhost",
    ],
)
def test_grpc_targets_name_one_host_or_are_refused(target: str) -> None:
    policy = HostPolicy()
    with pytest.raises(HostRefused):
        policy.check(target, "the interface URL")


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:80@10.255.255.1/",
        "http://10.255.255.1#@127.0.0.1/",
        "http://10.255.255.1?@127.0.0.1/",
        "http://localhost.10.255.255.1.nip.io/",
        "http://localhost%2e10.255.255.1/",
        "http://127.0.0.1\u300210.255.255.1/",
        "ws://127.0.0.1:1@10.255.255.1/a2a",
        "redis-streams://redis://127.0.0.1:1@10.255.255.1:6379/a/b/c",
    ],
)
def test_urls_spelt_to_look_like_loopback_are_refused(url: str) -> None:
    with pytest.raises(HostRefused):
        HostPolicy().check(url, "the interface URL")


@pytest.mark.parametrize(
    "url", ["http://[::1]:1/", "http://LOCALHOST.:1/", "http://127.0.0.1:1/", "127.0.0.7:50051"]
)
def test_loopback_spellings_are_loopback(url: str) -> None:
    HostPolicy().check(url, "the interface URL")


@pytest.mark.parametrize(
    "target", ["grpc://localhost:1,10.255.255.1:80", "http://localhost:1,10.255.255.1:80"]
)
def test_a_grpc_url_holding_a_target_list_is_refused(target: str) -> None:
    with pytest.raises(HostRefused):
        HostPolicy().check_binding(Binding.GRPC, target, "the interface URL", own=False)
    HostPolicy().check_binding(Binding.GRPC, "grpc://localhost:50051", "the target", own=False)


@contextlib.contextmanager
def _redirector(location: str) -> Iterator[int]:
    """An agent whose every answer is ``302 Location: location``."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _redirect(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(302)
            self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_POST = _redirect

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


async def test_a_prompt_in_a_card_or_a_redirect_reaches_no_other_host() -> None:
    with _changing_agent() as elsewhere:  # records what reaches it, as "localhost:PORT"
        target = f"http://localhost:{elsewhere.port}/"
        with _redirector(target + ".well-known/agent-card.json") as port:
            async with _client("127.0.0.1") as client:
                card = await client.call_tool("fetch_card", {"url": f"http://127.0.0.1:{port}"})
                sent = await client.call_tool("send", {"url": f"http://127.0.0.1:{port}/"})
                told = await client.call_tool("send", {"url": target})  # what the card said
    assert elsewhere.cards == 0 and elsewhere.hosts == [], "a redirect was followed"
    assert card.structured_content is not None
    assert card.structured_content["outcome"] == "not_fetched"
    assert sent.structured_content is not None and not sent.structured_content["ok"]
    assert "--allow-host localhost" in _refused(told)
