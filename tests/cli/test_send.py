"""``a2a-workbench send`` as a script would run it: a subprocess, JSON lines, exit statuses."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.bad_server import Canned, bad_server
from tests.helpers.sse_server import sse_server

REPO = Path(__file__).resolve().parents[2]


def send(*args: str, stdin: str | None = None) -> tuple[int, list[dict[str, Any]]]:
    proc = subprocess.run(
        [sys.executable, "-m", "app", "send", *args],
        capture_output=True,
        text=True,
        input=stdin,
        cwd=REPO,
        timeout=60,
    )
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    return proc.returncode, lines


def by_event(lines: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [line for line in lines if line["event"] == name]


PEERS = ["sdk_peer", "js_peer"]


@pytest.mark.peer
@pytest.mark.parametrize("peer", PEERS)
def test_send_message_1_0_sums(peer: str, request: pytest.FixtureRequest) -> None:
    info = request.getfixturevalue(peer)
    code, lines = send(info["jsonrpc_url"], "--method", "SendMessage", "--text", "12 30")
    assert code == 0, lines
    assert [line["event"] for line in lines] == ["request", "response", "end"]
    assert lines[0]["headers"]["A2A-Version"] == "1.0"
    message = lines[1]["body"]["result"]["message"]
    assert message["parts"][0]["text"] == "Sum: 42"
    assert message["parts"][1]["data"]["total"] == 42  # 42.0 from Python, 42 from JS
    assert lines[-1]["outcome"] == "ok" and lines[-1]["elapsed_ms"] > 0


@pytest.mark.peer
@pytest.mark.parametrize("peer", PEERS)
def test_message_send_0_3_echoes(peer: str, request: pytest.FixtureRequest) -> None:
    info = request.getfixturevalue(peer)
    code, lines = send(
        info["jsonrpc_url"], "--method", "message/send", "--version", "0.3", "--text", "hi"
    )
    assert code == 0, lines
    assert "A2A-Version" not in lines[0]["headers"]
    result = lines[1]["body"]["result"]
    assert result["kind"] == "message" and result["role"] == "agent"
    assert result["parts"][0] == {"kind": "text", "text": "Echo: hi"}


@pytest.mark.peer
@pytest.mark.parametrize("peer", PEERS)
def test_an_rpc_error_exits_1(peer: str, request: pytest.FixtureRequest) -> None:
    info = request.getfixturevalue(peer)
    code, lines = send(
        info["jsonrpc_url"], "--method", "GetTask", "--body", "-", stdin='{"id": "no-such-task"}'
    )
    assert code == 1, lines
    (error,) = by_event(lines, "error")
    assert error["kind"] == "rpc" and error["code"] == -32001
    assert error["name"] == "TaskNotFoundError"


OK_RESULT = (
    b'{"jsonrpc": "2.0", "id": null, "result": '
    b'{"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "ok"}]}}}'
)
"""A SendMessage answer that is what the method promises (app.protocol.methods.results)."""


def test_body_params_are_sent_verbatim(tmp_path: Path) -> None:
    canned = Canned(body=OK_RESULT)
    params = '{"message": {"n": 1.50, "z": 1, "a": 2}}'
    (tmp_path / "p.json").write_text(params)
    with bad_server(canned) as url:
        # The params break the request schema on purpose (app/spec/request_validation.py): forced.
        code, lines = send(
            url, "--method", "SendMessage", "--body", str(tmp_path / "p.json"), "--force"
        )
    assert code == 0, lines
    sent = canned.received[0][3].decode()
    assert sent.endswith('"params": ' + params + "}")
    assert json.loads(sent)["method"] == "SendMessage"


def test_connection_refused_exits_2() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, lines = send(f"http://127.0.0.1:{port}/", "--method", "SendMessage")
    assert code == 2
    assert by_event(lines, "error")[0]["kind"] == "transport"
    assert "refused" in by_event(lines, "error")[0]["message"]


def test_a_non_json_200_is_a_protocol_error_exit_2() -> None:
    with bad_server(Canned(headers={"Content-Type": "text/plain"}, body=b"hi there")) as url:
        code, lines = send(url, "--method", "SendMessage")
    assert code == 2
    error = by_event(lines, "error")[0]
    assert error["kind"] == "protocol" and "not JSON" in error["message"]
    assert by_event(lines, "response")[0]["body"] == "hi there"


def test_a_non_json_500_page_exits_1_with_the_page_text() -> None:
    page = b"<h1>Internal Server Error</h1>"
    with bad_server(Canned(status=500, headers={"Content-Type": "text/html"}, body=page)) as url:
        code, lines = send(url, "--method", "SendMessage")
    assert code == 1
    error = by_event(lines, "error")[0]
    assert error["code"] == 500 and "Internal Server Error" in error["message"]


def test_a_5_mib_body_is_received_whole() -> None:
    big = (
        b'{"jsonrpc": "2.0", "id": null, "result": {"message": {"messageId": "m", '
        b'"role": "ROLE_AGENT", "parts": [{"text": "' + b"y" * (5 << 20) + b'"}]}}}'
    )
    with bad_server(Canned(body=big)) as url:
        code, lines = send(url, "--method", "SendMessage")
    assert code == 0
    message = by_event(lines, "response")[0]["body"]["result"]["message"]
    assert len(message["parts"][0]["text"]) == 5 << 20


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--method", "Nope"], "unknown 1.0 method"),
        (["--method", "SendMessage", "--version", "9"], "invalid choice"),
        (["--method", "SendMessage", "--header", "NoColon"], "Name: value"),
        (["--method", "SendMessage", "--body", "-"], "not valid JSON"),
        (["--method", "SendMessage", "--body", "/no/such/file"], "cannot read"),
    ],
)
def test_usage_errors_exit_3(args: list[str], needle: str) -> None:
    code, lines = send("http://127.0.0.1:9/", *args, stdin="{oops")
    assert code == 3
    assert [line["event"] for line in lines] == ["error", "end"]
    assert lines[-1]["outcome"] == "usage_error"
    assert needle in lines[0]["message"]


def test_secrets_are_masked_in_request_events() -> None:
    with bad_server(Canned(body=OK_RESULT)) as url:
        code, lines = send(
            url, "--method", "SendMessage", "--header", "Authorization: Bearer s3cr3t"
        )
    assert code == 0
    assert lines[0]["headers"]["Authorization"] == "Bearer ****"
    assert "s3cr3t" not in json.dumps(lines)


def test_findings_are_printed_and_fail_only_under_strict() -> None:
    canned = Canned(body=OK_RESULT)  # "id": null on a success: a finding of error severity
    with bad_server(canned) as url:
        code, lines = send(url, "--method", "SendMessage")
        strict, _ = send(url, "--method", "SendMessage", "--strict")
    assert code == 0 and strict == 2
    (finding,) = by_event(lines, "finding")
    assert finding["rule"] == "null-id" and finding["severity"] == "error"
    assert (finding["path"], finding["spec"], finding["seq"]) == ("$.id", "JSON-RPC 2.0 §5", None)
    assert [r["event"] for r in lines][-2:] == ["finding", "end"]


def test_deadline_ends_the_exchange_with_deadline_exceeded() -> None:
    script = [b'data: {"jsonrpc":"2.0","id":@ID@,"result":{"task":{"id":"t","status":'
              b'{"state":"TASK_STATE_WORKING"}}}}\n\n', *([b": ping\n\n", 0.2] * 50)]  # fmt: skip
    with sse_server(script) as srv:
        code, lines = send(
            srv.url, "--method", "SendStreamingMessage", "--deadline", "0.5", "--timeout", "5"
        )
    assert code == 2
    (error,) = by_event(lines, "error")
    assert error["code"] == "DEADLINE_EXCEEDED" and error["kind"] == "transport"


@pytest.mark.peer
@pytest.mark.parametrize(
    ("version", "method", "module"),
    [("1.0", "SendMessage", "a2a.types.a2a_pb2"),
     ("0.3", "message/send", "a2a.compat.v0_3.a2a_v0_3_pb2")],
)  # fmt: skip
def test_grpc_output_names_the_descriptors_used(
    sdk_peer: dict[str, Any], version: str, method: str, module: str
) -> None:
    target = sdk_peer["grpc_target"]
    args = [target, "--binding", "GRPC", "--version", version, "--method", method, "--text", "hi"]
    code, lines = send(*args)
    assert code == 0, lines
    expected = f"built-in a2a-sdk descriptors ({module}, A2A {version})"
    assert by_event(lines, "request")[0]["descriptors"] == expected
    proc = subprocess.run(
        [sys.executable, "-m", "app", "send", *args, "--output", "pretty"],
        capture_output=True, text=True, cwd=REPO, timeout=60,
    )  # fmt: skip
    first, second = proc.stdout.splitlines()[:2]
    assert first.startswith("→ gRPC ") and second == f"  via {expected}"
    # HTTP request records carry no such key.
    code, lines = send(sdk_peer["jsonrpc_url"], "--version", version, "--method", method,
                       "--text", "hi")  # fmt: skip
    assert code == 0 and "descriptors" not in by_event(lines, "request")[0]
