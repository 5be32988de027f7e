"""Pytest fixtures that run the real iac-code A2A server (``iac-code`` 0.16.0 from the registry).

One ``iac-code a2a --config FILE`` process per carrier, each session-scoped, started on first
use on free loopback ports, with the bearer token ``TOKEN`` and the card signed HS256 under
``SIGNING_SECRET`` (``info["jwks_path"]``: the octet JWKS that verifies it). Its agent talks
to ``iac_llm``, an OpenAI-compatible stub (tests/peers/iac_llm_stub.py). The venv comes
from tests/peers/iac_venv.py (built on first use when ``make`` has not built it).

- ``iac_http``: ``transport: http``, JSON-RPC at ``/``, HTTP+JSON at the root, the card at the
  well-known path; ``base_url``, ``card_url``, ``jsonrpc_url``, ``rest_url``.
- ``iac_grpc``: ``transport: grpc``, the A2A 1.0 gRPC service in plaintext; ``grpc_target``
  (host:port) and ``url`` (``grpc://``, as its card says).
- ``iac_websocket``: ``transport: websocket`` at ``ws://127.0.0.1:PORT/a2a``; ``url``.
- ``iac_unix``: ``transport: unix``; ``url`` (``unix:///…``), ``socket_path``.
- ``iac_redis_streams``: ``transport: redis-streams`` on ``redis_server``; ``url``,
  ``redis_url``.
- ``iac_stdio``: ``transport: stdio``, not started (its client owns the process):
  ``command``, ``env``, ``cwd``, and all three as one ``command_line`` (``env -C …``) for the
  app's ``--command``.

Every ``info`` also has ``token``, ``jwks_path``, ``config_path`` and, for the started ones,
``pid``, ``start_s`` and, for the custom carriers, ``card`` (their ``GetExtendedAgentCard``).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.peers.iac_carrier import carrier_call
from tests.peers.iac_llm_stub import LlmStub, running_llm_stub
from tests.peers.iac_servers import (
    SIGNING_SECRET,
    TOKEN,
    card_of,
    command_line,
    dump_json,
    free_port,
    http_health,
    iac_command,
    iac_home,
    octet_jwks,
    start_process,
    tcp_open,
    write_config,
)
from tests.peers.iac_venv import VenvBuildError, ensure_venv
from tests.peers.launch import PeerProcess

CARD_REQUEST = {"jsonrpc": "2.0", "id": "card", "method": "GetExtendedAgentCard", "params": {}}


@pytest.fixture(scope="session")
def iac_venv() -> float:
    """Builds ``.venv-iac`` when missing or stale; the seconds that took (0 when cached)."""
    try:
        return ensure_venv()
    except VenvBuildError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="session")
def iac_llm() -> Iterator[LlmStub]:
    """The OpenAI-compatible stub every iac-code server of the session talks to."""
    with running_llm_stub() as stub:
        yield stub


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Debian's ``redis-server`` on a free loopback port, nothing persisted."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    port = free_port()
    workdir = tmp_path_factory.mktemp("redis")
    cmd = [binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "",
           "--appendonly", "no", "--dir", str(workdir)]  # fmt: skip
    info = {"redis_url": f"redis://127.0.0.1:{port}/0", "port": port}
    peer = start_process(cmd, env=None, ready=tcp_open(port), info=info)
    try:
        yield dict(peer.info)
    finally:
        peer.stop()


class _Carrier:
    """Starts one iac-code server with ``options`` in a fresh home under ``root``."""

    def __init__(self, root: Path, llm: LlmStub, options: dict[str, Any]) -> None:
        self.root = root
        self.env = iac_home(root, llm)
        base = {"token": TOKEN, "signing-secret": SIGNING_SECRET}
        self.config = write_config(root, {**options, **base})
        self.info: dict[str, Any] = {
            "token": TOKEN,
            "config_path": str(self.config),
            "jwks_path": str(dump_json(root / "jwks.json", octet_jwks())),
        }

    def start(self, ready: Callable[[], bool], **info: Any) -> PeerProcess:
        cmd = iac_command(self.config)
        info = {**self.info, **info}
        return start_process(cmd, env=self.env, ready=ready, info=info, cwd=self.root)

    def card_probe(self, carrier: str, url: str) -> Callable[[], bool]:
        """Readiness of a custom carrier: its ``GetExtendedAgentCard`` answers (kept in info)."""

        def probe() -> bool:
            reply = carrier_call(carrier, url, [CARD_REQUEST], timeout=10.0)
            card = card_of(reply.payloads(0)) if reply.status == 0 else None
            self.info["card"] = card
            return card is not None

        return probe


def _serve(carrier: _Carrier, ready: Callable[[], bool], **info: Any) -> Iterator[dict[str, Any]]:
    peer = carrier.start(ready, **info)
    try:
        yield {**peer.info, **carrier.info}
    finally:
        peer.stop()


@pytest.fixture(scope="session")
def iac_http(
    iac_venv: float, iac_llm: LlmStub, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """iac-code over HTTP: JSON-RPC and HTTP+JSON, push notifications on."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    options = {"transport": "http", "host": "127.0.0.1", "port": port,
               "push-notifications": True}  # fmt: skip
    carrier = _Carrier(tmp_path_factory.mktemp("iac-http"), iac_llm, options)
    yield from _serve(
        carrier, http_health(base, TOKEN), base_url=base,
        card_url=f"{base}/.well-known/agent-card.json", jsonrpc_url=f"{base}/", rest_url=base,
    )  # fmt: skip


@pytest.fixture(scope="session")
def iac_grpc(
    iac_venv: float, iac_llm: LlmStub, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """iac-code over gRPC (A2A 1.0 service, plaintext)."""
    port = free_port()
    options = {"transport": "grpc", "host": "127.0.0.1", "port": port}
    carrier = _Carrier(tmp_path_factory.mktemp("iac-grpc"), iac_llm, options)
    yield from _serve(
        carrier, tcp_open(port), grpc_target=f"127.0.0.1:{port}", url=f"grpc://127.0.0.1:{port}"
    )


@pytest.fixture(scope="session")
def iac_websocket(
    iac_venv: float, iac_llm: LlmStub, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """iac-code over WebSocket at ``ws://127.0.0.1:PORT/a2a``."""
    port = free_port()
    url = f"ws://127.0.0.1:{port}/a2a"
    options = {"transport": "websocket", "host": "127.0.0.1", "port": port, "ws-path": "/a2a"}
    carrier = _Carrier(tmp_path_factory.mktemp("iac-websocket"), iac_llm, options)
    yield from _serve(carrier, carrier.card_probe("websocket", url), url=url)


@pytest.fixture(scope="session")
def iac_unix(
    iac_venv: float, iac_llm: LlmStub, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """iac-code over a Unix socket."""
    # A short folder of its own: socket paths are limited to about 100 bytes.
    folder = Path(tempfile.mkdtemp(prefix="a2a-iac-"))
    socket_path = folder / "a2a.sock"
    url = f"unix://{socket_path}"
    options = {"transport": "unix", "socket-path": str(socket_path)}
    carrier = _Carrier(tmp_path_factory.mktemp("iac-unix"), iac_llm, options)
    try:
        yield from _serve(
            carrier, carrier.card_probe("unix", url), url=url, socket_path=str(socket_path)
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def iac_redis_streams(
    iac_venv: float,
    iac_llm: LlmStub,
    redis_server: dict[str, Any],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[dict[str, Any]]:
    """iac-code over Redis Streams (default stream and group names)."""
    redis_url = redis_server["redis_url"]
    options = {"transport": "redis-streams", "redis-url": redis_url}
    # The URL form iac-code's card gives: the Redis URL, then request stream, reply stream, group.
    url = f"redis-streams://{redis_url}/iac-code:a2a:requests/iac-code:a2a:responses/iac-code"
    carrier = _Carrier(tmp_path_factory.mktemp("iac-redis"), iac_llm, options)
    yield from _serve(
        carrier, carrier.card_probe("redis-streams", url), url=url, redis_url=redis_url
    )


@pytest.fixture(scope="module")
def iac_redis_streams_spare(
    iac_venv: float,
    iac_llm: LlmStub,
    redis_server: dict[str, Any],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[dict[str, Any]]:
    """Another Redis Streams server, on streams and a group of its own, for a test that
    breaks it: a payload that is not JSON stops it serving (docs/PEERS.md Q32)."""
    redis_url = redis_server["redis_url"]
    names = ("spare:requests", "spare:responses", "spare")
    options = {"transport": "redis-streams", "redis-url": redis_url, "request-stream": names[0],
               "response-stream": names[1], "consumer-group": names[2]}  # fmt: skip
    url = f"redis-streams://{redis_url}/{'/'.join(names)}"
    carrier = _Carrier(tmp_path_factory.mktemp("iac-redis-spare"), iac_llm, options)
    yield from _serve(
        carrier, carrier.card_probe("redis-streams", url), url=url, redis_url=redis_url
    )


@pytest.fixture(scope="session")
def iac_stdio(
    iac_venv: float, iac_llm: LlmStub, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    """The command line (and environment) of iac-code over stdio; whoever talks to it starts it."""
    carrier = _Carrier(tmp_path_factory.mktemp("iac-stdio"), iac_llm, {"transport": "stdio"})
    command = iac_command(carrier.config)
    return {**carrier.info, "url": "stdio://iac-code", "command": command,
            "env": carrier.env, "cwd": str(carrier.root),
            "command_line": command_line(command, carrier.env, carrier.root)}  # fmt: skip
