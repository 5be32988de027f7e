"""OpenAPI 3.2 documents with x-a2a: validation, round trips, hand-edited input, safety."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from openapi_spec_validator import validate

from app import fileio
from app.protocol.methods.catalog import METHODS, TemplateContext
from app.protocol.request import render_body
from app.protocol.types import Binding, ProtocolVersion
from app.shipped import example_spec
from app.spec import document
from app.spec import spec_text as parse
from app.spec.document import SpecDocument, SpecError, load, loads
from app.spec.xa2a import SavedAuth, SavedRequest, extract_secrets

EXAMPLE = example_spec()
SECRETS = ("s3cr3t-bearer-token", "hunter2-password", "api-key-value-123", "cookie-secret")


def every_request() -> list[SavedRequest]:
    out = []
    for spec in METHODS:
        for binding in Binding:
            if not spec.supports(binding):
                continue
            out.append(
                SavedRequest(
                    name=f"{spec.name} {binding.value} {spec.version.value}",
                    version=spec.version,
                    binding=binding,
                    endpoint="{{baseUrl}}/",
                    method=spec.name,
                    body=render_body(spec, binding, TemplateContext(text="12 30")),
                )
            )
    return out


def full_document(tmp_path: Path) -> Path:
    doc = SpecDocument.new(path=tmp_path / "all.yaml")
    for saved in every_request():
        doc.upsert(saved)
    return doc.save()


def test_every_method_binding_and_version_saves_a_valid_openapi_32_document(
    tmp_path: Path,
) -> None:
    path = full_document(tmp_path)
    data = yaml.safe_load(path.read_text())
    validate(data)  # raises on any error
    assert data["openapi"] == "3.2.0"
    ops = load(path).operations()
    assert len(ops) == len(every_request())
    for op in ops:
        raw = data["paths"][op.ref.path][op.ref.method]
        assert raw["x-protocol"] == "a2a"
        assert {"version", "binding", "endpoint", "method", "example"} <= set(raw["x-a2a"])


def test_streaming_operations_describe_sse_with_item_schema_and_a_real_frame(
    tmp_path: Path,
) -> None:
    data = yaml.safe_load(full_document(tmp_path).read_text())
    sse = [
        (op["x-a2a"], op["responses"]["200"]["content"]["text/event-stream"])
        for item in data["paths"].values()
        for op in item.values()
        if "text/event-stream" in op["responses"]["200"].get("content", {})
    ]
    expected = [r for r in every_request() if r.streaming and r.binding is not Binding.GRPC]
    assert len(sse) == len(expected) >= 8
    for x_a2a, media in sse:
        data_schema = media["itemSchema"]["properties"]["data"]
        assert data_schema["contentMediaType"] == "application/json"
        assert data_schema.get("contentSchema") == x_a2a.get("responseSchema")
        frame = media["examples"]["statusUpdate"]["serializedValue"]
        assert frame.startswith("data: ") and frame.endswith("\n\n")
        json.loads(frame[len("data: ") :])


def test_example_document_is_valid_and_stable(tmp_path: Path) -> None:
    text = EXAMPLE.read_text()
    validate(yaml.safe_load(text))
    doc = load(EXAMPLE)
    assert not doc.problems and len(doc.operations()) == 12
    assert doc.save(tmp_path / "copy.yaml").read_text() == text


def test_load_save_keeps_unknown_paths_x_keys_and_key_order(tmp_path: Path) -> None:
    text = EXAMPLE.read_text().replace(
        "paths:\n",
        "x-team: payments\npaths:\n  /health:\n    get:\n      x-internal: true\n"
        "      responses: {'200': {description: ok}}\n",
        1,
    )
    text = text.replace(
        "      x-protocol: a2a\n", "      x-protocol: a2a\n      x-owner: alice\n", 1
    )
    path = tmp_path / "doc.yaml"
    path.write_text(text)
    doc = load(path)
    first = doc.operations()[0]
    doc.upsert(first.request)  # re-save an operation: its unknown keys stay
    doc.save()
    again = yaml.safe_load(path.read_text())
    original = yaml.safe_load(text)
    assert list(again) == list(original)
    assert again["x-team"] == "payments"
    assert again["paths"]["/health"] == original["paths"]["/health"]
    op = again["paths"][first.ref.path][first.ref.method]
    assert op["x-owner"] == "alice"
    assert list(op) == list(original["paths"][first.ref.path][first.ref.method])


def test_yaml_is_written_without_anchors_and_reads_with_safe_load(tmp_path: Path) -> None:
    shared = {"type": "object"}
    doc = SpecDocument.new(path=tmp_path / "a.yaml")
    doc.data["x-a"] = shared
    doc.data["x-b"] = shared
    text = doc.save().read_text()
    assert "&id" not in text and "*id" not in text
    assert yaml.safe_load(text)["x-b"] == shared


def test_hand_edited_yaml_with_anchors_aliases_and_merge_keys_loads() -> None:
    text = """
openapi: 3.2.0
info: {title: t, version: '1'}
x-defaults: &defaults
  version: '1.0'
  binding: JSONRPC
  endpoint: http://127.0.0.1:1/
paths:
  /a:
    post:
      operationId: a
      x-a2a:
        <<: *defaults
        method: GetTask
        example: &ex {jsonrpc: '2.0', id: 1, method: GetTask, params: {id: t1}}
  /b:
    post:
      operationId: b
      x-a2a:
        <<: *defaults
        binding: HTTP+JSON
        method: GetTask
        example: *ex
"""
    doc = loads(text)
    a, b = doc.operations()
    assert (a.request.binding.value, b.request.binding.value) == ("JSONRPC", "HTTP+JSON")
    assert json.loads(b.request.body)["params"] == {"id": "t1"}
    # Aliased nodes are independent after loading: editing one leaves the other alone.
    doc.data["paths"]["/a"]["post"]["x-a2a"]["example"]["id"] = 99
    assert doc.data["paths"]["/b"]["post"]["x-a2a"]["example"]["id"] == 1


def test_json_with_comments_is_rejected_with_line_and_advice(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_text('{\n  // my spec\n  "openapi": "3.2.0"\n}\n')
    with pytest.raises(SpecError, match=r"line 2.*comments"):
        load(path)


def test_json_documents_round_trip(tmp_path: Path) -> None:
    doc = SpecDocument.new(path=tmp_path / "doc.json")
    doc.upsert(every_request()[0])
    path = doc.save()
    assert json.loads(path.read_text())["openapi"] == "3.2.0"
    assert load(path).operations()[0].request.method == "SendMessage"


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("openapi: 3.2.0\ninfo: [\n", r"invalid YAML at line \d+, column \d+"),
        ("openapi: 2.9.0\ninfo: {}\n", r"openapi \(line 1\): version '2.9.0' is not supported"),
        ("swagger: '2.0'\n", "Swagger 2.0"),
        ("info: {}\n", "missing 'openapi'"),
    ],
)
def test_broken_input_names_the_place(text: str, pattern: str) -> None:
    with pytest.raises(SpecError, match=pattern):
        loads(text, name="doc.yaml")


def test_invalid_x_a2a_is_reported_with_its_path_and_line_and_the_rest_loads() -> None:
    text = EXAMPLE.read_text().replace("binding: GRPC", "binding: SOAP", 1)
    doc = loads(text)
    assert len(doc.operations()) == 11
    (problem,) = doc.problems
    assert "x-a2a.binding" in problem.place and "(line " in problem.place
    assert "'SOAP' is not one of JSONRPC, HTTP+JSON, GRPC" in problem.message


@pytest.mark.parametrize("version", ["3.0.3", "3.1.0"])
def test_openapi_30_and_31_open_read_only_with_an_upgrade_notice(version: str) -> None:
    text = EXAMPLE.read_text().replace("openapi: 3.2.0", f"openapi: {version}", 1)
    doc = loads(text)
    assert doc.read_only and "read-only" in doc.notice and "3.2" in doc.notice
    assert len(doc.operations()) == 12
    with pytest.raises(SpecError, match="read-only"):
        doc.upsert(doc.operations()[0].request)


def test_no_secret_is_ever_written(tmp_path: Path) -> None:
    base = every_request()[0]
    requests = [
        SavedRequest(**{**_fields(base), "auth": SavedAuth("bearer", (("token", SECRETS[0]),))}),
        SavedRequest(
            **{
                **_fields(base),
                "auth": SavedAuth("basic", (("username", "alice"), ("password", SECRETS[1]))),
            }
        ),
        SavedRequest(
            **{
                **_fields(base),
                "auth": SavedAuth(
                    "api_key", (("in", "header"), ("name", "X-Key"), ("value", SECRETS[2]))
                ),
                "headers": (("Cookie", SECRETS[3]), ("X-Trace", "on")),
            }
        ),
    ]
    doc = SpecDocument.new(path=tmp_path / "s.yaml")
    stored: dict[str, str] = {}
    for saved in requests:
        cleaned, secrets = extract_secrets(saved)
        stored.update(secrets)
        doc.upsert(cleaned)
    raw = doc.save().read_bytes()
    for secret in SECRETS:
        assert secret.encode() not in raw
    assert set(stored.values()) == set(SECRETS)
    ops = load(tmp_path / "s.yaml").operations()
    assert ops[0].request.auth.get("token") == "{{token}}"
    assert ops[1].request.auth.get("username") == "alice"
    assert dict(ops[2].request.headers) == {"Cookie": "{{cookie}}", "X-Trace": "on"}


def _fields(saved: SavedRequest) -> dict[str, Any]:
    return {f: getattr(saved, f) for f in saved.__dataclass_fields__}


def test_a_failed_save_leaves_the_old_file_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "doc.yaml"
    path.write_text(EXAMPLE.read_text())
    before = path.read_bytes()
    doc = load(path)
    doc.upsert(every_request()[3])

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fileio.os, "replace", broken_replace)
    with pytest.raises(SpecError, match="No space left"):
        doc.save()
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["doc.yaml"]  # no temp file left
    monkeypatch.undo()
    doc.save()
    assert len(load(path).operations()) == 13


def test_save_replaces_atomically_and_keeps_the_file_mode(tmp_path: Path) -> None:
    path = tmp_path / "doc.yaml"
    path.write_text(EXAMPLE.read_text())
    os.chmod(path, 0o640)
    load(path).save()
    assert (path.stat().st_mode & 0o777) == 0o640


def test_a_thousand_operation_document_opens(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text(document.dumps(thousand_operations()))
    started = time.perf_counter()
    doc = load(path)
    ops = doc.operations()
    assert len(ops) == 1000 and not doc.problems
    assert time.perf_counter() - started < 20


def thousand_operations() -> dict[str, Any]:
    doc = SpecDocument.new()
    base = every_request()
    for i in range(1000):
        saved = base[i % len(base)]
        doc.upsert(SavedRequest(**{**_fields(saved), "name": f"{saved.name} #{i}"}))
    return doc.data


def test_two_agents_tokens_get_separate_variables() -> None:
    """A token saved for one agent must never be resolved for another one."""

    def saved(endpoint: str, token: str) -> SavedRequest:
        return SavedRequest(
            name="r",
            version=ProtocolVersion.V1_0,
            binding=Binding.JSONRPC,
            endpoint=endpoint,
            method="SendMessage",
            body="{}",
            auth=SavedAuth("bearer", (("token", token),)),
        )

    a, secrets_a = extract_secrets(saved("https://agent-a.example/a2a", "AAA"))
    b, secrets_b = extract_secrets(saved("http://127.0.0.1:8001/", "BBB"))
    assert a.auth.get("token") == "{{token.agent-a.example}}"
    assert b.auth.get("token") == "{{token.127.0.0.1-8001}}"
    assert secrets_a == {"token.agent-a.example": "AAA"}
    assert secrets_b == {"token.127.0.0.1-8001": "BBB"}


# --- hostile and sloppy input -------------------------------------------------------------

BILLION_LAUGHS = """openapi: 3.2.0
info: {title: t, version: '1'}
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
paths: {}
"""


def test_a_billion_laughs_document_is_refused_fast(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(BILLION_LAUGHS)
    assert len(path.read_bytes()) < 500
    started = time.perf_counter()
    with pytest.raises(SpecError, match=r"YAML aliases would expand .* refusing to open it"):
        load(path)
    assert time.perf_counter() - started < 1.0


def test_a_recursive_alias_is_refused() -> None:
    with pytest.raises(SpecError, match=r"anchor at line 4 is aliased inside itself"):
        loads("openapi: 3.2.0\ninfo: {title: t, version: '1'}\npaths: {}\nx: &a [1, *a]\n")


def test_reasonable_alias_reuse_still_opens() -> None:
    # A 200-node schema aliased by 300 operations: 60 000 nodes once expanded.
    schema = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(60)}}
    lines = ["openapi: 3.2.0", "info: {title: t, version: '1'}"]
    lines.append("x-schema: &schema " + json.dumps(schema))
    lines.append("paths:")
    for i in range(300):
        lines += [f"  /p{i}:", "    post:", f"      operationId: op{i}", "      x-s: *schema"]
    node = yaml.compose("\n".join(lines))
    assert node is not None
    written, expanded = parse.check_alias_expansion(node)
    assert expanded - written > 50_000
    doc = loads("\n".join(lines))
    assert doc.data["paths"]["/p299"]["post"]["x-s"] == schema
    assert doc.data["paths"]["/p1"]["post"]["x-s"] is not doc.data["paths"]["/p2"]["post"]["x-s"]


def test_deeply_nested_json_is_refused_cleanly() -> None:
    with pytest.raises(SpecError, match="nested too deeply"):
        loads('{"openapi": "3.2.0", "x": ' + "[" * 100_000 + "]" * 100_000 + "}")


def _with_x_a2a(**changes: Any) -> str:
    data = yaml.safe_load(EXAMPLE.read_text())
    first_path = next(iter(data["paths"]))
    x = data["paths"][first_path]["post"]["x-a2a"]
    x.update(changes)
    return document.dumps(data)


@pytest.mark.parametrize(
    ("changes", "key", "message"),
    [
        ({"auth": {"type": "bearer", "token": ["{{a}}", "{{b}}"]}}, "auth.token", "a list"),
        ({"auth": {"type": "basic", "password": {"x": 1}}}, "auth.password", "an object"),
        ({"timeout": 1e308}, "timeout", "at most 86400"),
        ({"timeout": -5}, "timeout", "above 0"),
        ({"timeout": float("inf")}, "timeout", "above 0"),
        ({"example": [{"jsonrpc": "2.0", "id": 1, "method": "GetTask"}]}, "example", "batch"),
    ],
)
def test_loose_x_a2a_values_are_problems_naming_the_place(
    changes: dict[str, Any], key: str, message: str
) -> None:
    doc = loads(_with_x_a2a(**changes))
    assert len(doc.operations()) == 11  # the rest of the document still loads
    (problem,) = doc.problems
    assert problem.place.startswith("paths./a2a/") and f"x-a2a.{key} (line " in problem.place
    assert message in problem.message


def test_duplicate_operation_ids_are_problems_and_the_first_one_wins() -> None:
    data = yaml.safe_load(EXAMPLE.read_text())
    ops = [item["post"] for item in data["paths"].values()]
    first_id = ops[0]["operationId"]
    ops[3]["operationId"] = first_id
    doc = loads(document.dumps(data))
    assert len(doc.operations()) == 11
    (problem,) = doc.problems
    assert ".operationId (line " in problem.place
    assert f"duplicate operationId {first_id!r}" in problem.message
    assert doc.find(first_id) == doc.operations()[0]
