"""Pytest fixtures that run the bundled demo agent (official ``a2a-sdk`` server) on loopback.

``sdk_peer`` and ``sdk_peer_token`` yield the agent's ready-line dict (see
``tests.peers.launch``); ``sdk_peer_token`` adds ``info["token"]``, the bearer token every
A2A endpoint of that peer requires. Both are session-scoped: tests must not rely on an
empty task store.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.peers.launch import PeerProcess, start_peer

REPO_ROOT = Path(__file__).resolve().parents[2]
SDK_PEER_TOKEN = "secret-token"


def start_sdk_peer(*extra_args: str) -> PeerProcess:
    """Starts ``python -m app demo-agent`` on free loopback ports with extra CLI flags.

    Args:
        extra_args: further ``demo-agent`` options, e.g. ``"--token", "t"``.

    Returns:
        The running peer; call ``stop()`` when done.
    """
    cmd = [sys.executable, "-m", "app", "demo-agent", "--host", "127.0.0.1"]
    cmd += ["--port", "0", "--grpc-port", "0", *extra_args]
    return start_peer(cmd, timeout=30.0, cwd=str(REPO_ROOT))


@pytest.fixture(scope="session")
def sdk_peer() -> Iterator[dict[str, Any]]:
    """The demo agent without auth."""
    peer = start_sdk_peer()
    try:
        yield dict(peer.info)
    finally:
        peer.stop()


@pytest.fixture(scope="session")
def sdk_peer_token() -> Iterator[dict[str, Any]]:
    """The demo agent requiring ``Authorization: Bearer secret-token`` (``info["token"]``)."""
    peer = start_sdk_peer("--token", SDK_PEER_TOKEN)
    try:
        yield {**peer.info, "token": SDK_PEER_TOKEN}
    finally:
        peer.stop()
