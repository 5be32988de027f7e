"""Generated code never executes data: the snippets are run on hostile values.

Shell snippets run under bash with fake ``curl`` / ``grpcurl`` programs on PATH that record
their argv; the Python snippet runs against a loopback server that records the request.
Each test asserts that every value arrives byte for byte and that nothing ran.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from app.protocol.types import Binding, ProtocolVersion
from app.spec.snippets import curl, grpcurl, httpx_code, snippet, snippet_kinds
from app.spec.xa2a import SavedAuth, SavedRequest

# Each would create the file PWNED (or print to stdout) if it were ever executed.
HOSTILE = [
    "{__import__('pathlib').Path('PWNED').touch()}",
    "$(touch PWNED)",
    "`touch PWNED`",
    "'; touch PWNED; echo '",
    '"; touch PWNED; echo "',
    "${IFS}touch${IFS}PWNED",
    "\\'\\\"\\\\ {0} %s {{",
    "ünïcödé ✓ \t tab",
]
# Values that may hold line breaks (bodies, shell words; HTTP header values cannot).
MULTILINE = [*HOSTILE, "line one\nEOF\ntouch PWNED\nEOF", "\nEOF\n", "'\n$(touch PWNED)\n'"]

RECORDER = """#!{python}
import json, sys
with open({out!r}, "a", encoding="utf-8") as fh:
    fh.write(json.dumps({{"argv": sys.argv[1:], "stdin": sys.stdin.read()}}) + "\\n")
"""


def fake_bin(tmp_path: Path, *names: str) -> Path:
    """A directory with recording stand-ins for ``names`` (argv and stdin to calls.jsonl)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name in names:
        exe = bin_dir / name
        exe.write_text(RECORDER.format(python=sys.executable, out=str(tmp_path / "calls.jsonl")))
        exe.chmod(0o755)
    return bin_dir


def run_shell(script: str, tmp_path: Path, env: dict[str, str] | None = None) -> list[Any]:
    check = subprocess.run(["bash", "-n"], input=script, text=True, capture_output=True)
    assert check.returncode == 0, check.stderr
    bin_dir = fake_bin(tmp_path, "curl", "grpcurl")
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    out = subprocess.run(
        ["bash", "-c", script],
        cwd=work,
        env={"PATH": f"{bin_dir}:/usr/bin:/bin", **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 0, out.stderr
    assert list(work.iterdir()) == [], "the snippet created files: data was executed"
    assert out.stdout == "" and out.stderr == ""
    lines = (tmp_path / "calls.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def jsonrpc_request(value: str, *, binding: Binding = Binding.JSONRPC) -> SavedRequest:
    message = {"role": "ROLE_USER", "messageId": value, "parts": [{"text": value}]}
    body = (
        {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}
        if binding is Binding.JSONRPC
        else {"message": message}
    )
    return SavedRequest(
        name="hostile",
        version=ProtocolVersion.V1_0,
        binding=binding,
        endpoint="{{baseUrl}}/",
        method="SendMessage",
        body=json.dumps(body, ensure_ascii=False),
        headers=(("X-Evil", value), ("X-Token", "{{token}}"), ("X-Mixed", "a{{token}}" + value)),
        query=(("q", value), ("plain", "1")),
        auth=SavedAuth("bearer", (("token", "{{token}}"),)),
    )


def _argv_headers(argv: list[str]) -> list[str]:
    return [argv[i + 1] for i, a in enumerate(argv) if a == "-H"]


@pytest.mark.parametrize("value", MULTILINE)
@pytest.mark.parametrize("binding", [Binding.JSONRPC, Binding.HTTP_JSON])
def test_curl_snippet_passes_hostile_values_as_data(
    tmp_path: Path, value: str, binding: Binding
) -> None:
    saved = jsonrpc_request(value, binding=binding)
    script = curl(saved, {"baseUrl": "http://127.0.0.1:9"})
    (call,) = run_shell(script, tmp_path, {"A2A_WB_TOKEN": "tok$(touch PWNED)`x`"})
    argv = call["argv"]
    headers = _argv_headers(argv)
    assert f"X-Evil: {value}" in headers
    assert "X-Token: tok$(touch PWNED)`x`" in headers
    assert f"X-Mixed: atok$(touch PWNED)`x`{value}" in headers
    assert "Authorization: Bearer tok$(touch PWNED)`x`" in headers
    body = json.loads(argv[argv.index("--data-binary") + 1])
    message = body["params"]["message"] if binding is Binding.JSONRPC else body["message"]
    assert message["parts"][0]["text"] == value
    url = next(a for a in argv if a.startswith("http://127.0.0.1:9/"))
    from urllib.parse import parse_qs, urlsplit

    query = parse_qs(urlsplit(url).query)
    assert query == {"q": [value], "plain": ["1"]}  # the saved query is part of the snippet


def test_json_rpc_snippets_include_the_saved_query() -> None:
    saved = jsonrpc_request("v")
    values = {"baseUrl": "http://127.0.0.1:9"}
    assert "http://127.0.0.1:9/?q=v&plain=1" in curl(saved, values)
    assert "'http://127.0.0.1:9/?q=v&plain=1'" in httpx_code(saved, values)


def grpc_request(value: str, body: str | None = None) -> SavedRequest:
    message = {"message": {"role": "ROLE_USER", "messageId": "m", "parts": [{"text": value}]}}
    return SavedRequest(
        name="hostile",
        version=ProtocolVersion.V1_0,
        binding=Binding.GRPC,
        endpoint="{{grpcTarget}}",
        method="SendMessage",
        body=body if body is not None else json.dumps(message, ensure_ascii=False),
        headers=(("x-evil", value), ("x-token", "{{token}}"), ("x-data-bin", "AAEC/w==")),
    )


@pytest.mark.parametrize("value", MULTILINE)
def test_grpcurl_snippet_passes_hostile_values_as_data(tmp_path: Path, value: str) -> None:
    saved = grpc_request(value)
    script = grpcurl(saved, {"grpcTarget": "127.0.0.1:9"})
    (call,) = run_shell(script, tmp_path, {"A2A_WB_TOKEN": "$(touch PWNED)"})
    argv = call["argv"]
    headers = _argv_headers(argv)
    assert f"x-evil: {value}" in headers
    assert "x-token: $(touch PWNED)" in headers
    assert "x-data-bin: AAEC/w==" in headers  # binary metadata stays base64, as grpcurl wants
    body = json.loads(argv[argv.index("-d") + 1])
    assert body["message"]["parts"][0]["text"] == value
    assert argv[-2:] == ["127.0.0.1:9", "lf.a2a.v1.A2AService/SendMessage"]


@pytest.mark.parametrize("value", MULTILINE)
def test_grpcurl_snippet_keeps_a_draft_body_with_eof_lines_whole(
    tmp_path: Path, value: str
) -> None:
    draft = "not json yet\nEOF\ntouch PWNED\n" + value + "\n'EOF'\n${token}"
    script = grpcurl(grpc_request("v", body=draft + "{{token}}"), {"grpcTarget": "127.0.0.1:9"})
    (call,) = run_shell(script, tmp_path, {"A2A_WB_TOKEN": "T"})
    argv = call["argv"]
    assert argv[argv.index("-d") + 1] == draft + "T"


class _Recorder(BaseHTTPRequestHandler):
    seen: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        self.seen.append(
            {
                "path": self.path,
                "headers": [(k, v) for k, v in self.headers.items()],
                "body": self.rfile.read(length).decode("utf-8"),
            }
        )
        payload = b'{"jsonrpc": "2.0", "id": 1, "result": {}}'
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def recorder() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    seen: ClassVar[list[dict[str, Any]]] = []
    handler = type("Handler", (_Recorder,), {"seen": seen})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("value", [v for v in HOSTILE if v.isascii()])  # httpx headers: ASCII
@pytest.mark.parametrize("binding", [Binding.JSONRPC, Binding.HTTP_JSON])
def test_httpx_snippet_sends_hostile_values_intact(
    tmp_path: Path,
    recorder: tuple[str, list[dict[str, Any]]],
    value: str,
    binding: Binding,
) -> None:
    base_url, seen = recorder
    saved = jsonrpc_request(value, binding=binding)
    code = httpx_code(saved, {"baseUrl": base_url})
    compile(code, "<snippet>", "exec")
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "A2A_WB_TOKEN": "{os.getcwd()}$(x)"}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=work, env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert list(work.iterdir()) == []
    assert out.stdout.splitlines()[0] == "200"
    (request,) = seen
    headers = dict(request["headers"])
    assert headers["X-Evil"] == value
    assert headers["X-Token"] == "{os.getcwd()}$(x)"
    assert headers["Authorization"] == "Bearer {os.getcwd()}$(x)"
    body = json.loads(request["body"])
    message = body["params"]["message"] if binding is Binding.JSONRPC else body["message"]
    assert message["parts"][0]["text"] == value
    from urllib.parse import parse_qs, urlsplit

    assert parse_qs(urlsplit(request["path"]).query) == {"q": [value], "plain": ["1"]}


@pytest.mark.parametrize("value", MULTILINE)
def test_httpx_snippet_is_literal_python_for_any_body(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("A2A_WB_TOKEN", "t")
    saved = jsonrpc_request("v")
    saved = SavedRequest(**{**_fields(saved), "headers": (("X-Evil", "v"),), "query": ()})
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "text": value})
    saved = SavedRequest(**{**_fields(saved), "body": body})
    code = httpx_code(saved, {"baseUrl": "http://127.0.0.1:9"})
    assert "f'" not in code and 'f"' not in code
    namespace: dict[str, Any] = {}
    # Run the assignments only (everything before the request goes out).
    prelude = code.split("response = ")[0]
    exec(compile(prelude, "<snippet>", "exec"), namespace)
    assert json.loads(namespace["content"])["text"] == value


def _fields(saved: SavedRequest) -> dict[str, Any]:
    return {name: getattr(saved, name) for name in SavedRequest.__slots__}


def test_spec_text_cannot_forge_a_variable_marker(tmp_path: Path) -> None:
    from app.spec import snippets

    forged = "A2AWBVAR_A2A_WB_HOME_A2AWBVAR"
    saved = jsonrpc_request(forged)
    script = curl(saved, {"baseUrl": "http://127.0.0.1:9"})
    (call,) = run_shell(script, tmp_path, {"A2A_WB_TOKEN": "t", "A2A_WB_HOME": "leak"})
    assert f"X-Evil: {forged}" in _argv_headers(call["argv"])
    assert snippets._MARK not in script


def test_snippet_kinds_and_dispatch() -> None:
    assert snippet_kinds(grpc_request("v")) == ["grpcurl"]
    assert snippet_kinds(jsonrpc_request("v")) == ["curl", "httpx"]
    assert snippet("curl", jsonrpc_request("v")).startswith("curl -sS -X POST")


@pytest.mark.parametrize("name", ["@/etc/passwd", "X Evil", "X:Y", "", "a\nb"])
def test_header_names_that_are_not_tokens_get_no_snippet(name: str) -> None:
    from app.protocol.wire.a2a_errors import UsageError

    saved = SavedRequest(**{**_fields(jsonrpc_request("v")), "headers": ((name, "v"),)})
    with pytest.raises(UsageError, match="not a valid HTTP field name"):
        curl(saved, {"baseUrl": "http://127.0.0.1:9"})
    grpc = SavedRequest(**{**_fields(grpc_request("v")), "headers": ((name, "v"),)})
    with pytest.raises(UsageError):
        grpcurl(grpc, {"grpcTarget": "127.0.0.1:9"})
