"""Every status of ``send``, ``run``, ``check``, ``card``, ``verify`` and ``replay``, as
docs/CLI.md documents them: 0 ok, 1 the agent answered with an error / an assertion or a
check failed / no valid signature, 2 the agent unreachable (or, for ``verify``, an unsigned
card), 3 a usage error. Each command runs as a process, as CI runs it."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from jwcrypto import jwk

from app.protocol.types import Binding, ProtocolVersion
from app.spec.assertions import Assertion, AssertionOp
from app.spec.document import SpecDocument
from app.spec.xa2a import SavedRequest

pytestmark = pytest.mark.peer

REPO = Path(__file__).resolve().parents[2]


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        capture_output=True, text=True, timeout=timeout, cwd=REPO,
    )  # fmt: skip


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def dead() -> str:
    """An agent that is not there."""
    return f"http://127.0.0.1:{closed_port()}"


# --- send -------------------------------------------------------------------------------


def test_send(sdk_peer: dict[str, Any], dead: str) -> None:
    url = sdk_peer["jsonrpc_url"]
    assert cli("send", url, "--method", "SendMessage", "--no-history").returncode == 0
    unknown = ("--method", "GetTask", "--task-id", "no-such-task", "--no-history")
    assert cli("send", url, *unknown).returncode == 1
    assert cli("send", dead + "/", "--method", "SendMessage", "--no-history").returncode == 2
    assert cli("send", url, "--no-history").returncode == 3  # no --method


# --- run --------------------------------------------------------------------------------


def _spec(tmp_path: Path, base: str, *, assertion: str = "completed") -> Path:
    """send (capturing the task id, asserting its final state) → GetTask of that task."""
    doc = SpecDocument.new()
    body = {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "stream 1 1"}]}}
    doc.upsert(
        SavedRequest(
            name="send", version=ProtocolVersion.V1_0, binding=Binding.HTTP_JSON,
            endpoint=base + "/rest", method="SendMessage", body=json.dumps(body),
            assertions=(Assertion("finalState", AssertionOp.EQUALS, assertion),),
            captures=(("taskId", "/task/id"),),
        )
    )  # fmt: skip
    doc.upsert(
        SavedRequest(
            name="get", version=ProtocolVersion.V1_0, binding=Binding.HTTP_JSON,
            endpoint=base + "/rest", method="GetTask", body=json.dumps({"id": "{{taskId}}"}),
        )
    )  # fmt: skip
    return doc.save(tmp_path / "spec.yaml")


def test_run(sdk_peer: dict[str, Any], dead: str, tmp_path: Path) -> None:
    base = sdk_peer["base_url"]
    ok = cli("run", str(_spec(tmp_path, base)), "--no-history")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    failed = cli("run", str(_spec(tmp_path, base, assertion="failed")), "--no-history")
    assert failed.returncode == 1, failed.stdout
    # A dead agent: the send fails on transport, so GetTask never gets its {{taskId}}; the
    # status is the dead agent's, not a usage error (it was 3).
    gone = cli("run", str(_spec(tmp_path, dead)), "--no-history")
    assert gone.returncode == 2, gone.stdout + gone.stderr
    assert "was to be captured by send, which captured nothing" in gone.stderr
    unknown = cli("run", str(_spec(tmp_path, base)), "--operation", "nope", "--no-history")
    assert unknown.returncode == 3


# --- check ------------------------------------------------------------------------------


def test_check(sdk_peer: dict[str, Any], dead: str, tmp_path: Path) -> None:
    card = httpx.get(sdk_peer["card_url"], timeout=10).json()
    card.pop("signatures", None)
    honest = tmp_path / "card.json"
    honest.write_text(json.dumps(card), encoding="utf-8")
    # Interface 0 only, and a card that denies the streaming the agent serves.
    args = ("--interface", "0", "--no-history", "--timeout", "5")
    ok = cli("check", str(honest), *args)
    assert ok.returncode == 0, ok.stdout
    card["capabilities"]["streaming"] = False
    lying = tmp_path / "lying.json"
    lying.write_text(json.dumps(card), encoding="utf-8")
    assert cli("check", str(lying), *args).returncode == 1
    assert cli("check", dead, "--no-history").returncode == 2
    not_a_url = cli("check", "not a url", "--no-history")
    assert not_a_url.returncode == 3  # it was 2, as if an agent had been unreachable
    assert "neither an http(s) URL nor a readable file" in not_a_url.stderr


# --- card -------------------------------------------------------------------------------


def test_card(sdk_peer: dict[str, Any], dead: str, tmp_path: Path) -> None:
    assert cli("card", sdk_peer["base_url"]).returncode == 0
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"description": "no name"}), encoding="utf-8")
    assert cli("card", str(broken)).returncode == 1
    assert cli("card", dead).returncode == 2
    assert cli("card", "not a url").returncode == 3  # it was 2 (not fetched)
    assert cli("card", "ftp://127.0.0.1/card.json").returncode == 3


# --- verify -----------------------------------------------------------------------------


def test_verify(sdk_peer: dict[str, Any], dead: str, tmp_path: Path) -> None:
    card_url, jwks = sdk_peer["card_url"], sdk_peer["jwks_path"]
    assert cli("verify", card_url, "--jwks", jwks).returncode == 0
    other = tmp_path / "other.json"
    key = json.loads(jwk.JWK.generate(kty="EC", crv="P-256", kid="another").export_public())
    other.write_text(json.dumps({"keys": [key]}), encoding="utf-8")
    # No trusted key: exit 4, not invalid.
    assert cli("verify", card_url, "--jwks", str(other)).returncode == 4
    unsigned = tmp_path / "unsigned.json"
    card = httpx.get(card_url, timeout=10).json()
    card.pop("signatures", None)
    unsigned.write_text(json.dumps(card), encoding="utf-8")
    assert cli("verify", str(unsigned), "--jwks", jwks).returncode == 2
    assert cli("verify", dead, "--jwks", jwks, "--timeout", "2").returncode == 2  # it was 3
    assert cli("verify", card_url).returncode == 3  # no --jwks


# --- replay -----------------------------------------------------------------------------


def test_replay(tmp_path: Path) -> None:
    fixture = tmp_path / "fixture.yaml"
    fixture.write_text("a2aFixture: 1\nexchanges: []\n", encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "replay", str(fixture)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        listening = json.loads(proc.stdout.readline())
        assert listening["event"] == "listening"
        port = int(listening["base_url"].rsplit(":", 1)[1])
        # A second replay on the same port cannot listen: 1.
        assert cli("replay", str(fixture), "--port", str(port)).returncode == 1
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=20)
        assert proc.returncode == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
    assert cli("replay", str(tmp_path / "missing.yaml")).returncode == 3
    assert os.path.exists(fixture)
