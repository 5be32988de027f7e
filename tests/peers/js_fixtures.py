"""Pytest fixtures that start the @a2a-js/sdk test peer (tests/peers/js/server.mjs).

Each fixture is session-scoped and yields the peer's ready dict::

    {"event": "ready", "base_url", "card_url", "jsonrpc_url", "rest_url",
     "grpc_target", "jwks_path", "pid"}

``js_peer_token`` adds ``info["token"]``. The peer needs ``node`` and the
packages from ``tests/peers/js/package-lock.json``; when ``node_modules`` is
missing, ``npm ci`` is run once (under a lock) so a bare ``pytest`` works.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.peers.launch import PeerProcess, start_peer

JS_PEER_DIR = Path(__file__).resolve().parent / "js"
JS_PEER_TOKEN = "secret-token"

_SDK_MARKER = JS_PEER_DIR / "node_modules" / "@a2a-js" / "sdk" / "package.json"
# The authorization server of the OAuth tests (tests/peers/js/oidc.mjs) comes from the same
# package.json: an older node_modules without it is installed anew.
_OIDC_MARKER = JS_PEER_DIR / "node_modules" / "oidc-provider" / "package.json"
_STAMP = JS_PEER_DIR / "node_modules" / ".installed"  # same stamp as the Makefile
_install_lock = threading.Lock()


@contextlib.contextmanager
def _interprocess_lock() -> Iterator[None]:
    """Serialise `npm ci` across processes (e.g. pytest-xdist workers)."""
    lock_path = Path(tempfile.gettempdir()) / "a2a-workbench-js-peer-npm.lock"
    try:
        import fcntl
    except ImportError:  # Windows: the thread lock has to do
        yield
        return
    with open(lock_path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed; the @a2a-js/sdk peer cannot run")
    return node


def ensure_js_peer_installed() -> None:
    """Run `npm ci` in tests/peers/js once if node_modules is missing or out of date."""
    if _installed():
        return
    with _install_lock, _interprocess_lock():
        if _installed():
            return
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip("npm is not installed; cannot install the @a2a-js/sdk peer")
        proc = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=JS_PEER_DIR,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if proc.returncode != 0 or not _installed():
            pytest.fail(
                f"npm ci in {JS_PEER_DIR} failed (exit {proc.returncode}):\n"
                f"{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
            )
        _STAMP.touch()


def _installed() -> bool:
    return _SDK_MARKER.is_file() and _OIDC_MARKER.is_file()


def start_js_peer(*extra_args: str, env: dict[str, str] | None = None) -> PeerProcess:
    """Start server.mjs on free loopback ports with extra CLI flags."""
    node = _node()
    ensure_js_peer_installed()
    cmd = [node, "server.mjs", "--host", "127.0.0.1", "--port", "0", "--grpc-port", "0"]
    return start_peer(
        [*cmd, *extra_args],
        timeout=30.0,
        env={**os.environ, **env} if env else None,
        cwd=str(JS_PEER_DIR),
    )


@pytest.fixture(scope="session")
def js_peer() -> Iterator[dict[str, Any]]:
    """@a2a-js/sdk peer without auth."""
    peer = start_js_peer()
    try:
        yield dict(peer.info)
    finally:
        peer.stop()


@pytest.fixture(scope="session")
def js_peer_token() -> Iterator[dict[str, Any]]:
    """@a2a-js/sdk peer requiring `Authorization: Bearer secret-token` (info["token"])."""
    peer = start_js_peer("--token", JS_PEER_TOKEN)
    try:
        yield {**peer.info, "token": JS_PEER_TOKEN}
    finally:
        peer.stop()


@pytest.fixture(scope="session")
def js_peer_signed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """@a2a-js/sdk peer signing its card with a fresh RS256 key (JWKS at info["jwks_path"])."""
    jwks = tmp_path_factory.mktemp("js-peer-signed") / "jwks.json"
    peer = start_js_peer("--sign-alg", "RS256", "--jwks-out", str(jwks))
    try:
        yield dict(peer.info)
    finally:
        peer.stop()
