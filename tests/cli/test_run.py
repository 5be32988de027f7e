"""``a2a-workbench run SPEC``: saved requests sent headlessly against the real SDK peer."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from app.protocol import exchange
from app.protocol.events import ResponseBody
from app.shipped import example_spec
from app.spec.document import load
from app.spec.requests import to_a2a_request
from app.spec.snippets import curl
from app.spec.variables import Resolver, env_name
from app.spec.xa2a import secret_scope

pytestmark = pytest.mark.peer

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = example_spec()


def run_cli(*args: str, env: dict[str, str] | None = None) -> tuple[int, list[dict[str, Any]], str]:
    proc = subprocess.run(
        [sys.executable, "-m", "app", "run", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        env=env,
    )
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return proc.returncode, records, proc.stderr


def peer_vars(peer: dict[str, Any]) -> list[str]:
    return ["--var", f"baseUrl={peer['base_url']}", "--var", f"grpcTarget={peer['grpc_target']}"]


def test_run_sends_every_saved_request_of_the_example_in_file_order(
    sdk_peer: dict[str, Any],
) -> None:
    status, records, _ = run_cli(str(EXAMPLE), *peer_vars(sdk_peer))
    assert status == 0
    ends = [r for r in records if r["event"] == "end"]
    assert [e["outcome"] for e in ends] == ["ok"] * 12
    order = list(dict.fromkeys(r["operation"] for r in records))
    assert order == [op.request.operation_id for op in load(EXAMPLE).operations()]
    responses = [r for r in records if r["event"] == "response"]
    streamed_heads = [r for r in responses if r["body"] is None]  # a stream's status line
    assert {r["operation"] for r in streamed_heads} == {
        op for op in order if op.startswith("stream-progress")
    }
    assert all("Sum: 42" in json.dumps(r["body"]) for r in responses if r["body"] is not None)
    streamed = {r["operation"] for r in records if r["event"] == "item"}
    assert streamed == {op for op in order if op.startswith("stream-progress")}


def test_run_named_operations_and_variables_from_the_environment(
    sdk_peer: dict[str, Any],
) -> None:
    import os

    env = {**os.environ, "A2A_WB_BASEURL": sdk_peer["base_url"]}
    status, records, _ = run_cli(
        str(EXAMPLE), "--operation", "sum-numbers-0-3-http-json",
        "--operation", "sum-numbers-1-0-json-rpc", env=env,
    )  # fmt: skip
    assert status == 0
    assert list(dict.fromkeys(r["operation"] for r in records)) == [
        "sum-numbers-0-3-http-json",
        "sum-numbers-1-0-json-rpc",
    ]


def test_run_usage_errors_exit_3_with_a_clear_message(tmp_path: Path) -> None:
    status, records, stderr = run_cli(str(EXAMPLE), "--operation", "nope")
    assert status == 3 and "unknown operation nope" in records[0]["message"]
    assert "sum-numbers-1-0-json-rpc" in stderr

    status, records, stderr = run_cli(
        str(EXAMPLE), "--operation", "sum-numbers-1-0-json-rpc", env={"PATH": "/usr/bin"}
    )
    assert status == 3
    error = next(r for r in records if r["event"] == "error")
    assert "{{baseUrl}}" in error["message"] and "A2A_WB_BASEURL" in error["message"]
    # Said on stderr too, pointing at the example's environments.
    assert stderr.startswith("run: sum-numbers-1-0-json-rpc: Variable {{baseUrl}}")
    assert "pass --env demo (the file's environment that sets it)" in stderr

    broken = tmp_path / "broken.yaml"
    broken.write_text("openapi: 3.2.0\npaths: [\n")
    status, records, _ = run_cli(str(broken))
    assert status == 3 and "invalid YAML at line" in records[0]["message"]


def test_run_reports_agent_errors_with_exit_1(sdk_peer: dict[str, Any], tmp_path: Path) -> None:
    spec = tmp_path / "t.yaml"
    spec.write_text(
        "openapi: 3.2.0\ninfo: {title: t, version: '1'}\npaths:\n  /a2a/get:\n    post:\n"
        "      operationId: get\n      x-protocol: a2a\n      x-a2a:\n        version: '1.0'\n"
        "        binding: JSONRPC\n        endpoint: '{{baseUrl}}/'\n        method: GetTask\n"
        "        example: {jsonrpc: '2.0', id: 1, method: GetTask, params: {id: no-such-task}}\n"
    )
    status, records, _ = run_cli(str(spec), *peer_vars(sdk_peer))
    assert status == 1
    assert next(r for r in records if r["event"] == "error")["code"] == -32001


def _spec_with(endpoint: str, scoped: str) -> str:
    ref = "'{{" + scoped + "}}'"
    return (
        "openapi: 3.2.0\ninfo: {title: t, version: '1'}\npaths:\n  /a2a/send:\n    post:\n"
        "      operationId: send\n      x-protocol: a2a\n      x-a2a:\n        version: '1.0'\n"
        f"        binding: JSONRPC\n        endpoint: '{endpoint}'\n"
        "        method: SendMessage\n"
        f"        auth: {{type: bearer, token: {ref}}}\n"
        f"        headers: {{X-Auth-Token: {ref}}}\n"
        "        example: {jsonrpc: '2.0', id: 1, method: SendMessage, params: {message: "
        "{messageId: m1, role: ROLE_USER, parts: [{text: '12 30'}]}}}\n"
    )


def test_run_never_sends_another_hosts_token(tmp_path: Path) -> None:
    """The QA repro: a spec for one host naming another host's token gets nothing sent."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    connections: list[bytes] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                connections.append(conn.recv(65536))

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    victim = "token.127.0.0.1-42415"
    spec = tmp_path / "exfil.yaml"
    spec.write_text(_spec_with(f"http://127.0.0.1:{port}/echohdr", victim))
    env = {**os.environ, "A2A_WB_TOKEN_127_0_0_1_42415": "VICTIMSECRET"}
    try:
        status, records, stderr = run_cli(str(spec), "--var", f"{victim}=VICTIMSECRET", env=env)
    finally:
        stop.set()
        thread.join(5)
        listener.close()
    assert status == 3
    error = next(r for r in records if r["event"] == "error")
    assert error["kind"] == "usage" and error["operation"] == "send"
    assert "{{token.127.0.0.1-42415}}" in error["message"]
    assert f"127.0.0.1:{port}" in error["message"] and "127.0.0.1-42415" in error["message"]
    assert [r["event"] for r in records] == ["error", "end"]
    assert connections == []
    assert "VICTIMSECRET" not in json.dumps(records) + stderr


def test_run_sends_a_scoped_token_to_its_own_host(sdk_peer: dict[str, Any], tmp_path: Path) -> None:
    name = "token." + secret_scope(sdk_peer["base_url"])
    spec = tmp_path / "own.yaml"
    spec.write_text(_spec_with("{{baseUrl}}/", name))
    env = {**os.environ, env_name(name): "MINE"}
    status, records, stdout_err = run_cli(str(spec), *peer_vars(sdk_peer), env=env)
    assert status == 0, records
    sent = next(r for r in records if r["event"] == "request")
    assert sent["headers"]["Authorization"] == "Bearer ****"
    assert sent["headers"]["X-Auth-Token"] == "****"
    assert "MINE" not in json.dumps(records) + stdout_err  # masked in the output


@pytest.mark.parametrize("index", [0, 2, 6, 8])  # 1.0/0.3 × JSON-RPC/HTTP+JSON, unary
def test_generated_curl_returns_the_same_result_as_the_app(
    sdk_peer: dict[str, Any], index: int
) -> None:
    op = load(EXAMPLE).operations()[index]
    values = {"baseUrl": sdk_peer["base_url"], "grpcTarget": sdk_peer["grpc_target"]}
    script = curl(op.request, values)
    assert "127.0.0.1" in script
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    by_curl = json.loads(out.stdout)

    async def app_body() -> Any:
        request = to_a2a_request(op.request, Resolver(values, environ={})).request
        async for event in exchange.run(request):
            if isinstance(event, ResponseBody):
                return event.json
        return None

    by_app = asyncio.run(app_body())
    assert _shape(by_curl) == _shape(by_app)
    assert "Sum: 42" in json.dumps(by_curl) and "Sum: 42" in json.dumps(by_app)


def _shape(value: Any) -> Any:
    """The JSON structure with ids and timestamps blanked (they differ per call)."""
    if isinstance(value, dict):
        return {
            k: "<id>" if k.endswith(("Id", "id")) or k == "id" else _shape(v)
            for k, v in sorted(value.items())
        }
    if isinstance(value, list):
        return [_shape(v) for v in value]
    return value


def test_run_strict_and_deadline(tmp_path: Path) -> None:
    from tests.helpers.bad_server import Canned, bad_server

    task = {"id": "t", "status": {"state": "cancelled"}}  # British: an error finding
    canned = Canned(body=json.dumps({"jsonrpc": "2.0", "id": 1, "result": task}).encode())
    spec = tmp_path / "t.yaml"
    spec.write_text(
        "openapi: 3.2.0\ninfo: {title: t, version: '1'}\npaths:\n  /a2a/get:\n    post:\n"
        "      operationId: get\n      x-protocol: a2a\n      x-a2a:\n        version: '1.0'\n"
        "        binding: JSONRPC\n        endpoint: '{{baseUrl}}'\n        method: GetTask\n"
        "        example: {jsonrpc: '2.0', id: 1, method: GetTask, params: {id: t}}\n"
    )
    with bad_server(canned) as url:
        status, records, _ = run_cli(str(spec), "--var", f"baseUrl={url}")
        strict, _, _ = run_cli(str(spec), "--var", f"baseUrl={url}", "--strict")
        bounded, _, _ = run_cli(str(spec), "--var", f"baseUrl={url}", "--deadline", "30")
    assert (status, strict, bounded) == (0, 2, 0)
    finding = next(r for r in records if r["event"] == "finding")
    assert finding["operation"] == "get" and finding["raw"] == "cancelled"
    assert finding["path"] == "$.result.status.state"
