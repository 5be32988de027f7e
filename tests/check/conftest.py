"""Fixtures of the check tests: the faulty peers (one process, every planted defect)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest

from tests.peers.fixtures import REPO_ROOT
from tests.peers.launch import start_peer


@pytest.fixture(scope="session")
def faulty_peers() -> Iterator[dict[str, Any]]:
    """``{"base_url", "cards": {defect: card_url}}`` of tests/check/faulty_peers.py."""
    peer = start_peer(
        [sys.executable, "-m", "tests.check.faulty_peers"], timeout=30.0, cwd=str(REPO_ROOT)
    )
    try:
        yield dict(peer.info)
    finally:
        peer.stop()
