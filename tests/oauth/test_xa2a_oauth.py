"""``x-a2a.auth`` of ``type: oauth2``: the saved bytes, the round trip, and ``run``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.protocol.oauth import OAuthConfig, OAuthFlow
from app.protocol.types import Binding, ProtocolVersion
from app.spec.document import SpecDocument, load
from app.spec.oauth_saved import oauth_to_saved, saved_to_oauth
from app.spec.xa2a import SavedRequest, extract_secrets
from tests.helpers.bad_server import Canned, bad_server
from tests.peers.oidc_fixtures import CC_CLIENT

REPO = Path(__file__).resolve().parents[2]
BODY = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SendMessage",
        "params": {
            "message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "12 30"}]}
        },
    }
)


def _save(tmp_path: Path, endpoint: str, token_url: str) -> tuple[Path, dict[str, str]]:
    config = OAuthConfig(
        OAuthFlow.CLIENT_CREDENTIALS, token_url, CC_CLIENT[0], CC_CLIENT[1], scopes=("a2a",)
    )
    saved = SavedRequest(
        name="sum",
        version=ProtocolVersion.V1_0,
        binding=Binding.JSONRPC,
        endpoint=endpoint,
        method="SendMessage",
        body=BODY,
        auth=oauth_to_saved(config),
    )
    cleaned, secrets = extract_secrets(saved)
    doc = SpecDocument.new(path=tmp_path / "oauth.yaml")
    doc.upsert(cleaned)
    return doc.save(), secrets


def test_saved_bytes_hold_a_reference_never_the_secret(tmp_path: Path) -> None:
    path, secrets = _save(tmp_path, "http://127.0.0.1:9/", "http://127.0.0.1:8/token")
    raw = path.read_bytes()
    assert CC_CLIENT[1].encode() not in raw
    assert secrets == {"clientSecret.127.0.0.1-9": CC_CLIENT[1]}
    (op,) = [
        o for p in yaml.safe_load(raw)["paths"].values() for o in p.values() if isinstance(o, dict)
    ]
    assert op["x-a2a"]["auth"] == {
        "type": "oauth2",
        "flow": "clientCredentials",
        "tokenUrl": "http://127.0.0.1:8/token",
        "clientId": "cc-client",
        "scopes": ["a2a"],
        "clientSecret": "{{clientSecret.127.0.0.1-9}}",
    }
    (loaded,) = load(path).operations()
    config = saved_to_oauth(loaded.request.auth)
    assert config is not None and config.scopes == ("a2a",)
    assert config.client_secret == "{{clientSecret.127.0.0.1-9}}"


def test_a_public_client_saves_no_secret_reference(tmp_path: Path) -> None:
    saved = oauth_to_saved(OAuthConfig(OAuthFlow.DEVICE_CODE, "http://t/", "device-client"))
    assert "clientSecret" not in dict(saved.params)


@pytest.mark.peer
def test_run_gets_the_token_and_sends(oauth_agent: dict[str, Any], tmp_path: Path) -> None:
    path, secrets = _save(tmp_path, oauth_agent["jsonrpc_url"], oauth_agent["oidc"]["token_url"])
    ((name, value),) = secrets.items()
    proc = subprocess.run(
        [sys.executable, "-m", "app", "run", str(path), "--var", f"{name}={value}",
         "--no-history"],
        capture_output=True, text=True, cwd=REPO, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert lines[0]["headers"]["Authorization"] == "Bearer ****"
    assert lines[1]["body"]["result"]["message"]["parts"][0]["text"] == "Sum: 42"


def test_run_renews_once_after_invalid_token(oauth_agent: dict[str, Any], tmp_path: Path) -> None:
    # A token endpoint of our own hands out a token the agent's provider never issued: the
    # agent answers 401 invalid_token, `run` gets one new token and resends once, as `send`.
    canned = Canned(body=b'{"access_token": "forged", "token_type": "Bearer", "expires_in": 60}')
    with bad_server(canned) as base:
        path, secrets = _save(tmp_path, oauth_agent["jsonrpc_url"], base + "token")
        ((name, value),) = secrets.items()
        proc = subprocess.run(
            [sys.executable, "-m", "app", "run", str(path), "--var", f"{name}={value}",
             "--no-history"],
            capture_output=True, text=True, cwd=REPO, timeout=60, check=False,
        )  # fmt: skip
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "the agent refused the token (invalid_token" in proc.stderr
    assert len(canned.received) == 2  # one renewal, no loop
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [line["event"] for line in lines].count("end") == 2
    assert "forged" not in proc.stdout
