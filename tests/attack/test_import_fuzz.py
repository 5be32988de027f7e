"""Hostile import sources: every failure is an ImportSourceError, never another exception."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from app.imports.raw import ImportSourceError
from app.imports.sources import _parse_kind, import_file, import_text, kind_of

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=25,
)
# Keys the parsers look up, so the wrong types land where the code reads them.
KEYS = st.sampled_from(
    ["item", "request", "url", "raw", "host", "path", "query", "header", "body", "mode",
     "auth", "type", "bearer", "key", "value", "name", "method", "postData", "text",
     "headers", "queryString", "entries", "paths", "servers", "components", "schemas",
     "$ref", "requestBody", "content", "application/json", "schema", "example", "examples",
     "parameters", "security", "securitySchemes", "enum", "properties", "variable", "in"]
)  # fmt: skip
shaped = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=30,
)

POSTMAN = "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"


def _shells(body: Any) -> list[Any]:
    return [
        {"info": {"schema": POSTMAN, "name": "x"}, "item": body},
        {"info": {"schema": POSTMAN}, "item": [body], "auth": body, "variable": body},
        {"log": {"entries": body}},
        {"log": {"entries": [body, {"request": body}]}},
        {"openapi": "3.1.0", "paths": body},
        {"openapi": "3.0.3", "paths": {"/": {"post": body}}, "components": body},
        {"openapi": "3.0.3", "servers": body, "paths": {"/x": body}},
        {"openapi": body, "paths": {}},
        {"swagger": body},
    ]


def _import(text: str) -> None:
    with contextlib.suppress(ImportSourceError):
        import_text(text)


@FUZZ
@given(shaped | values)
@example({"type": []})  # Postman auth type a list: TypeError unhashable (fixed)
@example({"type": {}})
def test_wrong_types_anywhere_are_import_errors(body: Any) -> None:
    for doc in _shells(body):
        _import(json.dumps(doc))


@FUZZ
@given(st.lists(st.text(max_size=12) | KEYS.map(lambda k: f"-{k[:1]}"), max_size=12))
def test_curl_words_are_import_errors(words: list[str]) -> None:
    _import("curl " + " ".join(words))
    _import("curl " + " ".join(json.dumps(w) for w in words))


def test_deep_nesting_is_an_import_error(tmp_path: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    for text in (
        deep,
        json.dumps({"log": {"entries": "X"}}).replace('"X"', deep),
        '{"openapi": "3.0.0", "paths": ' + '{"a":' * 50_000 + "1" + "}" * 50_000 + "}",
        "a:\n" + "".join(" " * i + "- \n" for i in range(1, 3000)),
        "[" * 100_000,
    ):
        _import(text)


def test_openapi_refs_that_loop_or_fan_out_are_bounded() -> None:
    loop = {
        "openapi": "3.0.3",
        "paths": {"/": {"post": {"$ref": "#/components/x"}}},
        "components": {"x": {"$ref": "#/components/x"}},
    }
    _import(json.dumps(loop))
    schemas = {f"s{i}": {"properties": {"a": {"$ref": f"#/components/schemas/s{i + 1}"},
                                        "b": {"$ref": f"#/components/schemas/s{i + 1}"}}}
               for i in range(60)}  # fmt: skip
    fan = {
        "openapi": "3.0.3",
        "paths": {"/": {"post": {"requestBody": {"content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/s0"}}}}}}},
        "components": {"schemas": schemas},
    }  # fmt: skip
    _import(json.dumps(fan))


def test_yaml_alias_bomb_is_an_import_error() -> None:
    lines = ["openapi: 3.0.3", 'a0: &a0 ["x","x","x","x","x","x","x","x","x"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    lines.append("paths: {'/': {post: {x: *a9}}}")
    try:
        import_text("\n".join(lines))
    except ImportSourceError:
        return
    raise AssertionError("an alias bomb was imported")


def test_non_utf8_and_huge_files_are_import_errors(tmp_path: Path) -> None:
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"info": {"name": "caf\xe9"}}')
    huge = tmp_path / "huge.json"
    huge.write_bytes(b'{"log": {"entries": ["' + b"a" * (50 << 20) + b'"]}}')
    nul = tmp_path / "nul.json"
    nul.write_bytes(b"\x00\xff\xfe" * 100)
    for path in (latin, huge, nul, tmp_path / "missing.json", tmp_path):
        try:
            import_file(path)
        except ImportSourceError:
            continue
        raise AssertionError(f"{path.name} was imported")


def _must_fail_cleanly(doc: Any) -> None:
    # The parsers themselves (not only the safety net of parse_text) take wrong types.
    with contextlib.suppress(ImportSourceError):
        _parse_kind(kind_of(doc), doc, "x")


@FUZZ
@given(shaped | values)
@example({"type": []})  # Postman auth type a list: TypeError unhashable
@example({"parameters": 1})  # OpenAPI parameters an int: TypeError
@example({"headers": 1})  # HAR headers an int: TypeError
@example({"servers": [{"variables": []}]})  # OpenAPI server variables a list
@example({"host": [1, 2]})  # Postman url.host of numbers
def test_each_parser_takes_wrong_types(body: Any) -> None:
    for doc in _shells(body):
        _must_fail_cleanly(doc)
