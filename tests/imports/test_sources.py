"""Imports from real files: curl lines, a Postman v2.1 collection, HAR (a browser's and our
own export, recorded against the real peer), OpenAPI 3.0 and 3.1 — detected, explained,
secrets kept out of the document, and the imported requests accepted by the real peer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from app.history.har_export import har_log
from app.history.store import HistoryStore
from app.imports.build import ImportResult
from app.imports.curl import parse_curl
from app.imports.raw import ImportSourceError
from app.imports.sources import import_file, import_text, parse_text
from app.protocol import exchange
from app.protocol.events import ExchangeEnd, Outcome
from app.protocol.methods.catalog import TemplateContext, find_method
from app.protocol.net.auth import AuthConfig, apply_auth, secret_header_names
from app.protocol.request import A2ARequest, render_body
from app.protocol.types import Binding, ProtocolVersion
from app.spec.document import load, validate_openapi
from app.spec.requests import to_a2a_request
from app.spec.variables import Resolver

DATA = Path(__file__).with_name("data")
HAR_SCHEMA = json.loads((DATA.parent.parent / "history" / "har-1.2.schema.json").read_text())
V1, V03 = ProtocolVersion.V1_0, ProtocolVersion.V0_3
J, R = Binding.JSONRPC, Binding.HTTP_JSON


def rows(result: ImportResult) -> list[tuple[str, str, str, bool]]:
    return [
        (
            item.name,
            item.detection.version.value if item.detection.version else "",
            item.detection.binding.value if item.detection.binding else "",
            item.imported,
        )
        for item in result.items
    ]


def assert_no_secret(result: ImportResult, *values: str) -> None:
    text = result.doc.dumps()
    for value in values:
        assert value not in text
    assert validate_openapi(result.doc.data) == []


# --- curl ---------------------------------------------------------------------------------


SEND_10 = json.dumps(
    {"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
     "params": {"message": {"role": "ROLE_USER", "messageId": "m", "parts": [{"text": "hi"}]}}}
)  # fmt: skip
STREAM_BODY = '{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]}}'
CURL_FORMS = f"""
curl -sS -X POST 'http://127.0.0.1:8000/' \\
  -H 'Content-Type: application/json' -H 'Authorization: Bearer curl-secret-1' \\
  --data-raw '{SEND_10}'
curl -u alice:curl-pw-2 "http://127.0.0.1:8000/rest/v1/tasks/t%201?historyLength=2"
curl --json '{STREAM_BODY}' -H "A2A-Version: 1.0" \\
  http://127.0.0.1:8000/rest/message:stream
curl -XPOST http://127.0.0.1:8000/rest/tasks/abc:cancel -d '{{}}' -H 'X-API-Key: curl-key-3'
curl -G http://127.0.0.1:8000/rest/tasks -d pageSize=5 --data-urlencode 'contextId=a b'
curl https://example.com/index.html
"""


def test_curl_forms_are_detected_and_explained() -> None:
    result = import_text(CURL_FORMS)
    assert rows(result) == [
        ("SendMessage", "1.0", "JSONRPC", True),
        ("tasks/get", "0.3", "HTTP+JSON", True),
        ("SendStreamingMessage", "1.0", "HTTP+JSON", True),
        ("CancelTask", "1.0", "HTTP+JSON", True),
        ("ListTasks", "1.0", "HTTP+JSON", True),
        ("GET /index.html", "", "", False),
    ]
    send, get, stream, cancel, listing, page = result.items
    assert "method SendMessage is 1.0" in send.detection.explanation
    assert "/v1 spelling is read as 0.3" in get.detection.explanation
    assert json.loads(get.detection.body) == {"name": "tasks/t 1", "historyLength": 2}
    assert "1.0 route of SendStreamingMessage" in stream.detection.explanation
    assert stream.notes == ()  # it sent A2A-Version: 1.0, as 1.0 clients must
    assert json.loads(cancel.detection.body) == {"id": "abc"}
    assert json.loads(listing.detection.body) == {"pageSize": 5, "contextId": "a b"}
    assert "neither a JSON-RPC body" in page.detection.explanation
    assert set(result.secrets.values()) == {"curl-secret-1", "curl-pw-2", "curl-key-3"}
    assert_no_secret(result, "curl-secret-1", "curl-pw-2", "curl-key-3")
    ops = {op.request.method: op.request for op in result.doc.operations()}
    assert ops["SendMessage"].auth.kind == "bearer"
    assert ops["tasks/get"].auth.get("username") == "alice"
    assert ops["CancelTask"].auth.kind == "api_key"
    assert ops["SendMessage"].endpoint == "http://127.0.0.1:8000/"
    assert ops["tasks/get"].endpoint == "http://127.0.0.1:8000/rest"


def test_curl_errors_and_ignored_options() -> None:
    with pytest.raises(ImportSourceError, match="quotes"):
        parse_curl("curl -d '{")
    with pytest.raises(ImportSourceError, match="no URL"):
        parse_curl("curl -X POST")
    with pytest.raises(ImportSourceError, match="does not start with 'curl'"):
        parse_curl("wget http://x/")
    (raw,) = parse_curl("curl -k -L --compressed -d @body.json -b 'a=b' host:9/a2a").requests
    assert raw.url == "http://host:9/a2a" and raw.method == "GET"
    assert any("@body.json" in n for n in raw.notes) and any("-k" in n for n in raw.notes)
    # Windows cmd.exe carets join lines too.
    (win,) = parse_curl('curl http://h/ ^\n -H "A: b"').requests
    assert win.headers == (("A", "b"),)


# --- Postman --------------------------------------------------------------------------------


def test_postman_collection_written_to_the_schema() -> None:
    collection = json.loads((DATA / "a2a-agent.postman_collection.json").read_text())
    schema = json.loads((DATA / "postman-collection-v2.1.0.schema.json").read_text())
    jsonschema.Draft7Validator(schema).validate(collection)
    result = import_file(DATA / "a2a-agent.postman_collection.json")
    assert result.kind == "postman"
    assert rows(result) == [
        ("Add two numbers", "1.0", "JSONRPC", True),
        ("Get the task (literal token)", "1.0", "JSONRPC", True),
        ("Get task 0.3", "0.3", "HTTP+JSON", True),
        ("Send 0.3 (no auth)", "0.3", "HTTP+JSON", True),
        ("Health check (not A2A)", "", "", False),
        ("Upload form (not A2A)", "", "", False),
    ]
    ops = {op.request.name: op.request for op in result.doc.operations()}
    # {{variables}} are the app's own syntax: kept, and the collection's {{token}} keeps its
    # meaning; the literal token of another request gets a name of its own.
    assert ops["Add two numbers"].endpoint == "{{baseUrl}}/"
    assert ops["Add two numbers"].auth.get("token") == "{{token}}"
    assert ops["Get the task (literal token)"].auth.get("token") == "{{token2}}"
    assert result.secrets == {"token2": "pm-literal-secret-42", "apiKey": "pm-api-key-777"}
    assert ops["Get task 0.3"].tags == ("0.3 REST",)
    assert json.loads(ops["Get task 0.3"].body) == {"name": "tasks/task-123", "historyLength": 3}
    assert ops["Send 0.3 (no auth)"].auth.kind == "none"
    assert ops["Add two numbers"].headers == ()  # disabled, Content-Type and A2A-Version
    upload = result.items[-1]
    assert any("{{$guid}}" in n for n in upload.notes)
    assert any("Environments" in n for n in result.notes)
    assert_no_secret(result, "pm-literal-secret-42", "pm-api-key-777")


# --- HAR ---------------------------------------------------------------------------------


def test_browser_har() -> None:
    har = json.loads((DATA / "chrome-export.har").read_text())
    jsonschema.validate(har, HAR_SCHEMA)
    result = import_file(DATA / "chrome-export.har")
    assert rows(result) == [
        ("GET /chat", "", "", False),
        ("message/send", "0.3", "JSONRPC", True),
        ("SendMessage", "1.0", "HTTP+JSON", True),
        ("GET /favicon.ico", "", "", False),
    ]
    send = result.items[1]
    assert any("Cookie header dropped" in n for n in send.notes)
    rest = result.doc.operations()[1].request
    assert rest.headers == (("X-Trace-Id", "trace-42"),)  # browser and protocol headers gone
    assert_no_secret(result, "chrome-secret-token-1", "abc123")


@pytest.mark.peer
async def test_our_own_har_export_imports_and_resends(
    sdk_peer_token: dict[str, Any], tmp_path: Path
) -> None:
    """Record real exchanges, export HAR (app/history/har_export.py), import it, send it again."""
    auth = AuthConfig.bearer(sdk_peer_token["token"])
    store = HistoryStore.open(tmp_path / "history.db")
    try:
        exported = []
        for version, binding, method, endpoint in (
            (V1, J, "SendMessage", sdk_peer_token["jsonrpc_url"]),
            (V03, J, "message/send", sdk_peer_token["jsonrpc_url"]),
            (V1, R, "SendMessage", sdk_peer_token["rest_url"]),
        ):
            spec = find_method(version, method)
            assert spec is not None
            body = render_body(spec, binding, TemplateContext(text="12 30"))
            request = A2ARequest(endpoint, method, body, version, binding, timeout=30)
            request = apply_auth(request, auth, ())
            recorder = store.recorder(request, secret_headers=secret_header_names(auth))
            async for event in exchange.run(request):
                recorder.feed(event)
            assert recorder.close(30) and recorder.exchange_id is not None
            entry = store.entry(recorder.exchange_id)
            assert entry is not None
            exported.append((entry, store.events(recorder.exchange_id)))
        har = har_log(exported)
        jsonschema.validate(har, HAR_SCHEMA)
        path = tmp_path / "workbench.har"
        path.write_text(json.dumps(har))
    finally:
        store.close()
    result = import_file(path)
    assert [r[1:] for r in rows(result)] == [
        ("1.0", "JSONRPC", True), ("0.3", "JSONRPC", True), ("1.0", "HTTP+JSON", True)
    ]  # fmt: skip
    # The export masks the token (Bearer ****): the import asks for it instead of storing it.
    assert result.secrets == {}
    assert all(any("masked" in n for n in item.notes) for item in result.items)
    resolver = Resolver(values={"token.127.0.0.1-" + str(_port(sdk_peer_token)): "secret-token"})
    for op in result.doc.operations():
        sendable = to_a2a_request(op.request, resolver)
        events = [e async for e in exchange.run(sendable.request)]
        end = events[-1]
        assert isinstance(end, ExchangeEnd) and end.outcome is Outcome.OK, events


def _port(peer: dict[str, Any]) -> int:
    return int(str(peer["jsonrpc_url"]).rstrip("/").rsplit(":", 1)[1])


# --- OpenAPI ------------------------------------------------------------------------------


def test_openapi_30_jsonrpc_examples() -> None:
    result = import_file(DATA / "agent-openapi-3.0.yaml")
    assert rows(result) == [
        ("A2A JSON-RPC endpoint (Send a message (0.3))", "0.3", "JSONRPC", True),
        ("A2A JSON-RPC endpoint (Get a task (0.3))", "0.3", "JSONRPC", True),
        ("A2A JSON-RPC endpoint (Not an A2A method)", "", "", False),
        ("Liveness probe", "", "", False),
    ]
    assert "'calculator.add' is no A2A method" in result.items[2].detection.explanation
    (send, _get) = result.doc.operations()
    assert send.request.endpoint == "http://127.0.0.1:8000/"  # server variables' defaults
    assert send.request.auth.kind == "bearer"
    assert send.request.auth.get("token") == "{{token.127.0.0.1-8000}}"  # to fill in


def test_openapi_31_rest_routes(tmp_path: Path) -> None:
    result = import_file(DATA / "agent-openapi-3.1.json")
    assert rows(result) == [
        ("Send a message", "1.0", "HTTP+JSON", True),
        ("Get a task", "1.0", "HTTP+JSON", True),
        ("Cancel a task", "1.0", "HTTP+JSON", True),
        ("Prometheus metrics", "", "", False),
    ]
    send, get, cancel = (op.request for op in result.doc.operations())
    assert json.loads(get.body) == {"id": "task-9", "historyLength": 4}
    assert json.loads(cancel.body) == {"id": "<id>"}  # no example: a placeholder to fill
    assert send.auth.kind == "api_key" and send.auth.get("name") == "X-API-Key"
    # The result is a spec the user can save: written, read back, same requests.
    path = result.doc.save(tmp_path / "imported.yaml")
    assert [op.request.method for op in load(path).operations()] == [
        "SendMessage", "GetTask", "CancelTask"
    ]  # fmt: skip


def test_unknown_and_refused_sources(tmp_path: Path) -> None:
    with pytest.raises(ImportSourceError, match="not a curl command, Postman"):
        parse_text('{"hello": 1}')
    spec = tmp_path / "ours.yaml"
    spec.write_text(
        "openapi: 3.2.0\ninfo: {title: t, version: '1'}\npaths:\n  /a2a/x:\n    post:\n"
        "      x-a2a: {version: '1.0'}\n      responses: {}\n"
    )
    with pytest.raises(ImportSourceError, match="already an A2A Workbench spec"):
        import_file(spec)
    with pytest.raises(ImportSourceError, match=r"Swagger 2\.0"):
        parse_text("swagger: '2.0'\ninfo: {title: t}\n")
    broken = tmp_path / "broken.json"
    broken.write_text('{"log": ')
    with pytest.raises(ImportSourceError, match="line 1"):
        import_file(broken)


def test_openapi_32_without_x_a2a_reads_the_same() -> None:
    text = (DATA / "agent-openapi-3.1.json").read_text().replace('"3.1.0"', '"3.2.0"')
    result = import_text(text, "agent-openapi-3.2.json")
    assert [r[3] for r in rows(result)] == [True, True, True, False]
    assert result.notes == ("OpenAPI 3.2.0",)
