"""Hostile spec files: non-JSON YAML, duplicate keys, huge files, remote references,
foreign keys inside x-a2a. Every case opens with findings or fails with a SpecError;
nothing is fetched, nothing is silently lost."""

from __future__ import annotations

import json
import os
import random
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml

from app.shipped import example_spec
from app.spec import document
from app.spec import spec_text as parse
from app.spec.document import SpecDocument, SpecError, load, loads, validate_operation

EXAMPLE = example_spec()
FIRST = "paths./a2a/send-message-1-0-json-rpc.post"


def first_op_path() -> str:
    data = yaml.safe_load(EXAMPLE.read_text())
    return f"paths.{next(iter(data['paths']))}.post"


def insert_after_first_x_a2a(text: str, lines: str) -> str:
    """``lines`` (indented for x-a2a members) right after the first ``x-a2a:`` line."""
    marker = "      x-a2a:\n"
    return text.replace(marker, marker + lines, 1)


# --- YAML values JSON cannot hold --------------------------------------------------------


def test_unquoted_dates_are_text_everywhere() -> None:
    text = insert_after_first_x_a2a(EXAMPLE.read_text(), "        x-created: 2024-01-31\n")
    text = text.replace("info:\n", "info:\n  x-released: 2024-01-31 12:00:00\n", 1)
    doc = loads(text)
    assert doc.problems == [] and doc.unrepresented == []
    assert doc.data["info"]["x-released"] == "2024-01-31 12:00:00"
    json.dumps(doc.data)  # JSON-ready: no datetime objects
    assert len(doc.operations()) == 12


@pytest.mark.parametrize(
    ("value", "tag", "plain"),
    [
        ("!!binary aGVsbG8=", "!!binary", "aGVsbG8="),
        ("!!set {a, b}", "!!set", {"a": None, "b": None}),
        ("!!timestamp 2024-01-31", "!!timestamp", "2024-01-31"),
        ("!!omap [{a: 1}, {b: 2}]", "!!omap", [{"a": 1}, {"b": 2}]),
        ("!!pairs [{a: 1}]", "!!pairs", [{"a": 1}]),
        ("!Ref MyThing", "!Ref", "MyThing"),
        # !!python/… and other program-object tags are refused: test_spec_edges.py
    ],
)
@pytest.mark.parametrize("where", ["x-a2a", "x-a2a example", "info"])
def test_non_json_values_are_reported_by_path_and_line(
    tmp_path: Path, value: str, tag: str, plain: Any, where: str
) -> None:
    text = EXAMPLE.read_text()
    if where == "x-a2a":
        text = insert_after_first_x_a2a(text, f"        x-odd: {value}\n")
        place = f"{first_op_path()}.x-a2a.x-odd"
    elif where == "x-a2a example":
        member = f"        example:\n          x-odd: {value}\n"
        text = text.replace("        example:\n", member, 1)
        place = f"{first_op_path()}.x-a2a.example.x-odd"
    else:
        text = text.replace("info:\n", f"info:\n  x-odd: {value}\n", 1)
        place = "info.x-odd"
    path = tmp_path / "doc.yaml"
    path.write_text(text)
    doc = load(path)
    json.dumps(doc.data)  # never a TypeError
    assert len(doc.operations()) == 12
    (problem,) = doc.unrepresented
    assert problem.place.startswith(place + " (line ")
    assert tag in problem.message and "not a JSON value" in problem.message
    assert problem in doc.problems
    assert _get(doc.data, place) == plain
    before = path.read_bytes()
    with pytest.raises(SpecError, match="could not read as written"):
        doc.save()
    assert path.read_bytes() == before
    copy = doc.save(tmp_path / "copy.yaml")  # a new file is fine: the original stays
    assert yaml.safe_load(copy.read_text())["openapi"] == "3.2.0"
    assert doc.unrepresented == [] and problem not in doc.problems
    doc.save()  # the copy holds exactly the data: saving over it is fine
    assert path.read_bytes() == before


def _get(data: Any, place: str) -> Any:
    keys = parse._split_path(place)
    for key in keys:
        data = data[key]
    return data


@pytest.mark.parametrize(
    "text",
    [
        "openapi: 3.2.0\nx: " + "9" * 5000 + "\n",  # more digits than int() converts
        '{"openapi": "3.2.0", "x": ' + "9" * 5000 + "}",
        "openapi: 3.2.0\nx: !!int nope\n",
        "openapi: 3.2.0\nx: !!float nope\n",
        "openapi: 3.2.0\nx: !!binary '***'\n",
        "openapi: 3.2.0\n? [a, b]\n: complex key\n",
        "openapi: 3.2.0\nx: " + "[" * 5000 + "]" * 5000 + "\n",
    ],
)
def test_values_python_cannot_build_are_spec_errors(text: str) -> None:
    try:
        doc = loads(text)
    except SpecError:
        return
    json.dumps(doc.data)
    assert doc.unrepresented  # opened: then it must say what it could not represent


# --- duplicate keys ----------------------------------------------------------------------


def test_a_duplicated_path_is_reported_with_its_line_and_never_saved_over(tmp_path: Path) -> None:
    data = yaml.safe_load(EXAMPLE.read_text())
    first, second = list(data["paths"])[:2]
    text = EXAMPLE.read_text()
    lines = text.splitlines(keepends=True)
    # Rename the second path to the first one: two identical path keys.
    index = next(i for i, line in enumerate(lines) if line == f"  {second}:\n")
    lines[index] = f"  {first}:\n"
    path = tmp_path / "dup.yaml"
    path.write_text("".join(lines))
    doc = load(path)
    dup = [p for p in doc.unrepresented if "written twice" in p.message]
    assert len(dup) == 1
    assert dup[0].place == f"paths.{first} (line {index + 1})"
    assert "also at line" in dup[0].message
    doc.upsert(doc.operations()[0].request)
    before = path.read_bytes()
    with pytest.raises(SpecError, match="saving would lose it"):
        doc.save()
    assert path.read_bytes() == before


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_duplicate_keys_inside_x_a2a_and_json_are_found(fmt: str) -> None:
    if fmt == "yaml":
        text = insert_after_first_x_a2a(EXAMPLE.read_text(), "        method: GetTask\n")
        expected = f"{first_op_path()}.x-a2a.method (line "
    else:
        data = yaml.safe_load(EXAMPLE.read_text())
        text = json.dumps(data, indent=2)
        text = text.replace('"openapi": "3.2.0",', '"openapi": "3.2.0",\n  "openapi": "3.2.0",', 1)
        expected = "openapi (line 3)"
    doc = loads(text)
    (problem,) = doc.unrepresented
    assert problem.place.startswith(expected)


def test_duplicate_keys_in_json_that_is_not_yaml_still_name_the_path() -> None:
    # A tab inside indentation: valid JSON, but not YAML.
    text = '{"openapi": "3.2.0",\n\t"info": {"title": "a", "title": "b", "version": "1"}}'
    doc = loads(text)
    (problem,) = doc.unrepresented
    assert problem.place.startswith("info.title")


def test_merge_keys_overriding_defaults_are_not_duplicates() -> None:
    text = (
        "openapi: 3.2.0\ninfo: {title: t, version: '1'}\n"
        "x-d: &d {a: 1, b: 2}\nx-e:\n  <<: *d\n  a: 3\npaths: {}\n"
    )
    doc = loads(text)
    assert doc.unrepresented == [] and doc.data["x-e"] == {"a": 3, "b": 2}


# --- size ---------------------------------------------------------------------------------


def test_an_oversized_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    with path.open("wb") as fh:
        fh.truncate(parse.MAX_SPEC_BYTES + 1)  # sparse: costs nothing to make
    started = time.perf_counter()
    with pytest.raises(SpecError, match=r"specs larger than 32 MiB are not opened"):
        load(path)
    assert time.perf_counter() - started < 1.0


def test_oversized_text_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parse, "MAX_SPEC_BYTES", 1000)
    with pytest.raises(SpecError, match="not opened"):
        loads("openapi: 3.2.0\nx: '" + "a" * 2000 + "'\n")


def test_a_file_that_is_not_utf8_is_a_spec_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"openapi: 3.2.0\ninfo: {title: \xe9}\n")
    with pytest.raises(SpecError, match="not UTF-8"):
        load(path)


# --- references are never fetched ------------------------------------------------------


class _Hits(BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.hits.append(self.path)
        body = b"type: object\n"
        self.send_response(200)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def remote() -> Iterator[tuple[str, list[str]]]:
    hits: list[str] = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), type("H", (_Hits,), {"hits": hits}))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", hits
    finally:
        server.shutdown()
        server.server_close()


def test_remote_refs_are_findings_and_never_fetched(
    tmp_path: Path, remote: tuple[str, list[str]]
) -> None:
    url, hits = remote
    (tmp_path / "other.yaml").write_text("type: object\n")
    data = yaml.safe_load(EXAMPLE.read_text())
    first_path = next(iter(data["paths"]))
    op = data["paths"][first_path]["post"]
    op["requestBody"]["content"]["application/json"]["schema"] = {"$ref": f"{url}/schema.yaml"}
    op["responses"]["404"] = {"$ref": "other.yaml#/NotFound"}
    data["components"]["schemas"]["Remote"] = {"$ref": f"{url}/remote.json#/x"}
    data["components"]["schemas"]["File"] = {"$ref": f"file://{tmp_path}/other.yaml"}
    path = tmp_path / "doc.yaml"
    path.write_text(document.dumps(data))

    doc = load(path)
    refs = [p for p in doc.problems if "not fetched" in p.message]
    assert len(refs) == 4
    assert any(p.place.startswith("components.schemas.Remote.$ref (line ") for p in refs)
    assert len(doc.operations()) == 12
    errors = document.validate_openapi(doc.data, limit=50)
    assert sum("points outside this document" in e for e in errors) == 4
    operation_id = doc.operations()[0].request.operation_id
    assert any("not fetched" in e for e in validate_operation(doc, operation_id))
    doc.upsert(doc.operations()[0].request)
    doc.save()
    assert load(path).operations()[0].request.operation_id == operation_id
    time.sleep(0.2)
    assert hits == []


def test_a_valid_document_validates_as_before() -> None:
    doc = load(EXAMPLE)
    assert document.validate_openapi(doc.data) == []
    for op in doc.operations()[::4]:
        assert validate_operation(doc, op.request.operation_id) == []


# --- foreign keys in x-a2a ---------------------------------------------------------------


def test_foreign_x_a2a_keys_survive_a_re_save_in_place(tmp_path: Path) -> None:
    text = EXAMPLE.read_text()
    text = insert_after_first_x_a2a(text, "        x-first: {keep: me}\n")
    text = text.replace(
        "        method: SendMessage\n", "        method: SendMessage\n        note: mine\n", 1
    )
    path = tmp_path / "doc.yaml"
    path.write_text(text)
    doc = load(path)
    op = doc.operations()[0]
    from dataclasses import replace

    doc.upsert(replace(op.request, tenant="acme"))  # a new owned key appears
    doc.save()
    x = yaml.safe_load(path.read_text())["paths"][op.ref.path][op.ref.method]["x-a2a"]
    keys = list(x)
    assert x["x-first"] == {"keep": "me"} and x["note"] == "mine"
    assert keys[0] == "x-first"
    assert keys.index("note") == keys.index("method") + 1
    assert x["tenant"] == "acme"
    doc = load(path)
    doc.upsert(replace(doc.operations()[0].request, tenant=""))  # an owned key is cleared
    doc.save()
    x = yaml.safe_load(path.read_text())["paths"][op.ref.path][op.ref.method]["x-a2a"]
    assert "tenant" not in x and x["note"] == "mine" and x["x-first"] == {"keep": "me"}


def test_re_saving_a_valid_document_is_byte_for_byte(tmp_path: Path) -> None:
    path = tmp_path / "doc.yaml"
    path.write_text(EXAMPLE.read_text())
    doc = load(path)
    for op in doc.operations():
        doc.upsert(op.request)
    doc.save()
    assert path.read_text() == EXAMPLE.read_text()


# --- mutation fuzz ---------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_mutated_documents_open_or_fail_with_a_spec_error(fmt: str) -> None:
    source = EXAMPLE.read_text()
    if fmt == "json":
        source = json.dumps(yaml.safe_load(source), indent=1)
    rng = random.Random(10)
    alphabet = ":-[]{}&*!?|>'\"#,\n\t %@`" + "!!binary !!set !!timestamp 2024-01-01 << $ref"
    for _ in range(100):
        text = list(source)
        for _ in range(rng.randint(1, 6)):
            pos = rng.randrange(len(text))
            action = rng.random()
            if action < 0.4:
                del text[pos : pos + rng.randint(1, 20)]
            elif action < 0.8:
                text.insert(pos, rng.choice(alphabet.split(" ")) if rng.random() < 0.3 else "")
                text.insert(pos, rng.choice(alphabet))
            else:
                start = rng.randrange(len(text))
                text[pos:pos] = text[start : start + rng.randint(1, 200)]
        mutated = "".join(text)
        try:
            doc = loads(mutated, json_hint=fmt == "json")
        except SpecError:
            continue
        json.dumps(doc.data, default=lambda v: pytest.fail(f"non-JSON value {v!r}"))
        doc.operations()
        for op in doc.operations()[:2]:
            doc.upsert(op.request)
        doc.dumps()


def test_save_over_a_clean_file_still_works(tmp_path: Path) -> None:
    path = tmp_path / "doc.yaml"
    SpecDocument.new(path=path).save()
    doc = load(path)
    assert doc.unrepresented == []
    doc.save()
    assert os.path.exists(path)


def test_problems_say_their_kind() -> None:
    text = EXAMPLE.read_text().replace("binding: GRPC", "binding: SOAP", 1)
    extra = "  x-odd: !!binary aGVsbG8=\n  x-ref: {$ref: x.yaml}\n"
    text = text.replace("info:\n", "info:\n" + extra, 1)
    kinds = sorted(p.kind for p in loads(text).problems)
    assert kinds == ["external-ref", "skipped", "unrepresented"]
