"""``run --env NAME``: a document's named environment against the real SDK peer; its secret
comes from the fallback secrets file the GUI writes (no keyring backend here)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.paths import secrets_path
from app.shipped import example_spec
from app.spec.environments import SECRET_MARKER, X_ENVIRONMENTS
from app.spec.variables import environment_secret_key
from tests.cli.test_run import run_cli

pytestmark = pytest.mark.peer

OPERATION = "sum-numbers-1-0-json-rpc"


def spec_with(tmp_path: Path, environments: dict[str, dict[str, str]], auth: bool) -> Path:
    data = yaml.safe_load(example_spec().read_text())
    data[X_ENVIRONMENTS] = environments
    if auth:
        op = data["paths"][f"/a2a/{OPERATION}"]["post"]
        op["x-a2a"]["auth"] = {"type": "bearer", "token": "{{token}}"}
    path = tmp_path / "envs.a2a.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def outcomes(records: list[dict[str, Any]]) -> list[str]:
    return [r["outcome"] for r in records if r["event"] == "end"]


def test_run_env_selects_the_environment_and_reads_its_secret_from_the_gui_store(
    sdk_peer_token: dict[str, Any], tmp_path: Path
) -> None:
    peer = sdk_peer_token
    spec = spec_with(
        tmp_path,
        {
            "nowhere": {"baseUrl": "http://127.0.0.1:9"},
            "peer": {"baseUrl": peer["base_url"], "token": SECRET_MARKER},
        },
        auth=True,
    )
    store = secrets_path()  # under the test's own XDG_CONFIG_HOME
    store.parent.mkdir(parents=True, exist_ok=True)
    store.write_text(json.dumps({environment_secret_key("peer", "token"): peer["token"]}))
    store.chmod(0o600)

    status, records, _ = run_cli(str(spec), "--env", "peer", "--operation", OPERATION)
    assert status == 0 and outcomes(records) == ["ok"]
    assert peer["token"] not in json.dumps(records)  # the secret is masked in the output

    # --var wins over the environment: the same environment now points nowhere.
    status, records, _ = run_cli(
        str(spec), "--env", "nowhere", "--var", f"baseUrl={peer['base_url']}",
        "--var", f"token={peer['token']}", "--operation", OPERATION,
    )  # fmt: skip
    assert status == 0 and outcomes(records) == ["ok"]

    # Without the stored secret the environment's {{token}} has no value: a usage error.
    store.write_text("{}")
    status, records, _ = run_cli(str(spec), "--env", "peer", "--operation", OPERATION)
    assert status == 3 and outcomes(records) == ["usage_error"]
    assert "{{token}}" in records[0]["message"]


def test_an_unknown_environment_is_a_usage_error_listing_the_known_ones(tmp_path: Path) -> None:
    status, records, stderr = run_cli(str(example_spec()), "--env", "prod")
    assert status == 3
    assert records == [
        {"event": "error", "kind": "usage",
         "message": "unknown environment 'prod' (environments: demo)"},
        {"event": "end", "outcome": "usage_error", "elapsed_ms": 0.0},
    ]  # fmt: skip
    assert "unknown environment 'prod' (environments: demo)" in stderr
    plain = spec_with(tmp_path, {}, auth=False)
    status, records, _ = run_cli(str(plain), "--env", "demo")
    assert status == 3 and "the document defines none" in records[0]["message"]


def test_a_plain_variable_without_a_value_says_how_to_give_it_one_not_the_keyring(
    tmp_path: Path,
) -> None:
    """A request saved from the window into a new file ({{baseUrl}}, no environment) made
    `run` talk of installing a keyring backend: for a URL it says --var, --env and the
    file's environments; only a credential's advice names the keyring."""
    bare = spec_with(tmp_path, {}, auth=False)
    status, records, stderr = run_cli(str(bare), "--operation", OPERATION)
    assert status == 3 and outcomes(records) == ["usage_error"]
    message = records[0]["message"]
    assert message.startswith("Variable {{baseUrl}} (used in sum-numbers-1-0-json-rpc:")
    assert "keyring" not in message.lower() and "keyring" not in stderr.lower()
    assert "--var baseUrl=VALUE" in message and "A2A_WB_BASEURL" in message
    assert "x-a2a-environments" in message and "--env NAME" in message

    # An environment of the file sets it: the message names it.
    named = spec_with(tmp_path, {"demo": {"baseUrl": "http://127.0.0.1:8000"}}, auth=False)
    status, records, _ = run_cli(str(named), "--operation", OPERATION)
    assert status == 3
    assert "pass --env demo (the file's environment that sets it)" in records[0]["message"]
    other = spec_with(tmp_path, {"demo": {"baseUrl": "x"}, "empty": {}}, auth=False)
    status, records, _ = run_cli(str(other), "--env", "empty", "--operation", OPERATION)
    assert "environment empty does not set it; pass --env demo" in records[0]["message"]

    # A credential's advice still names the keyring (where the window stores it).
    secret = spec_with(tmp_path, {"demo": {"baseUrl": "http://127.0.0.1:9"}}, auth=True)
    status, records, _ = run_cli(str(secret), "--env", "demo", "--operation", OPERATION)
    assert status == 3 and "{{token}}" in records[0]["message"]
    assert "keyring" in records[0]["message"].lower()
