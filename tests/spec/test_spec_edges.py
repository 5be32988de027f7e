"""Spec files at the edges (issue 29, kind 5), in every reader of spec-like files — the
spec document, ``run``, the import sources and the replay fixtures:

- a YAML tag that builds a program object (``!!python/object/apply``, ``!ruby/object``) is
  refused naming the tag and its line; YAML's own types and custom ``!tags`` still open;
- a key written twice is named with both its lines, in YAML and in JSON (tabs included);
- a file over the size limit is refused with both figures;
- ``run`` ends every failure, file-level usage errors included, with its ``end`` record.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.imports.raw import ImportSourceError
from app.imports.sources import parse_file, parse_text
from app.replay.fixture import FixtureError
from app.replay.fixture import load as load_fixture
from app.spec import spec_text
from app.spec.document import SpecError, load, loads

REPO = Path(__file__).resolve().parents[2]
HEAD = "openapi: 3.2.0\ninfo: {title: t, version: '1'}\n"
X_A2A = (
    "{endpoint: 'http://127.0.0.1:9/', method: GetTask, version: '1.0', binding: JSONRPC, "
    "example: {jsonrpc: '2.0', id: 1, method: GetTask, params: {id: t}}}"
)


def _run(*args: str) -> tuple[int, list[dict[str, Any]], str]:
    proc = subprocess.run(
        [sys.executable, "-m", "app", "run", *args, "--no-history"],
        capture_output=True, text=True, timeout=60, cwd=REPO, check=False,
    )  # fmt: skip
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return proc.returncode, records, proc.stderr


# --- YAML tags that build program objects ----------------------------------------------------

CODE_TAGS = [
    ("!!python/object/apply:os.system ['echo pwned']", "!!python/object/apply:os.system"),
    ("!!python/name:os.system", "!!python/name:os.system"),
    ("!!python/object:__main__.X {}", "!!python/object:__main__.X"),
    ("!ruby/object:Gem::Requirement {}", "!ruby/object:Gem::Requirement"),
    ("!!java.util.Date 1", "!!java.util.Date"),
]


@pytest.mark.parametrize(("value", "tag"), CODE_TAGS)
def test_a_tag_that_builds_a_program_object_is_refused_by_name(value: str, tag: str) -> None:
    with pytest.raises(SpecError) as caught:
        loads(HEAD + f"paths: {{}}\nx-odd: {value}\n")
    assert f"line 4: the YAML tag {tag} asks a loader to build a program object" in str(
        caught.value
    )


@pytest.mark.parametrize("value", ["!!binary aGk=", "!Ref MyThing", "!!set {a}", "!custom x"])
def test_yaml_types_and_custom_tags_still_open_with_a_report(value: str) -> None:
    doc = loads(HEAD + f"paths: {{}}\nx-odd: {value}\n")
    assert doc.unrepresented and "not a JSON value" in doc.unrepresented[0].message


@pytest.mark.parametrize(("value", "tag"), CODE_TAGS[:1])
def test_every_reader_refuses_the_tag(tmp_path: Path, value: str, tag: str) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text(HEAD + f"paths:\n  /a:\n    post:\n      x-a2a: {X_A2A}\nx-odd: {value}\n")
    code, records, _ = _run(str(spec))
    assert code == 3
    assert [r["event"] for r in records] == ["error", "end"]
    assert tag in records[0]["message"] and records[1]["outcome"] == "usage_error"
    with pytest.raises(ImportSourceError, match="asks a loader to build a program object"):
        parse_file(spec)
    fixture = tmp_path / "f.yaml"
    fixture.write_text(f"format: a2a-workbench-fixture/1\nx: {value}\n")
    with pytest.raises(FixtureError, match="asks a loader to build a program object"):
        load_fixture(fixture)


# --- keys written twice ------------------------------------------------------------------------


def _twice_yaml() -> str:
    op = f"    post:\n      operationId: one\n      x-a2a: {X_A2A}\n"
    return HEAD + "paths:\n  /a:\n" + op + "  /a:\n" + op.replace("one", "two")


def test_a_path_written_twice_is_named_with_both_lines_on_open_and_in_run(tmp_path: Path) -> None:
    spec = tmp_path / "dup.yaml"
    spec.write_text(_twice_yaml())
    doc = load(spec)
    (dup,) = doc.unrepresented
    assert dup.place == "paths./a (line 8)" and "also at line 4" in dup.message
    _, _, err = _run(str(spec), "--operation", "nope")
    assert "paths./a (line 8): key written twice in one object (also at line 4)" in err


def test_an_operation_written_twice_in_json_with_tabs_is_named_with_both_lines() -> None:
    op = '{"operationId": "x", "x-a2a": {}}'
    text = (
        '{\n\t"openapi": "3.2.0",\n\t"info": {"title": "t", "version": "1"},\n'
        f'\t"paths": {{"/a": {{\n\t\t"post": {op},\n\t\t"post": {op}\n\t}}}}\n}}'
    )
    doc = loads(text)
    (dup,) = doc.unrepresented
    assert dup.place == "paths./a.post (line 6)" and "also at line 5" in dup.message


def test_imports_and_fixtures_do_not_drop_a_key_written_twice(tmp_path: Path) -> None:
    collection = (
        '{"info": {"name": "first",\n  "name": "second", "schema":'
        ' "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"}, "item": []}'
    )
    source = parse_text(collection, "dup.json")
    assert any(n.startswith("info.name (line 2): key written twice") for n in source.notes)
    fixture = tmp_path / "f.json"
    fixture.write_text('{"format": "a2a-workbench-fixture/1",\n "format": "other"}')
    with pytest.raises(FixtureError, match=r"format \(line 2\): key written twice"):
        load_fixture(fixture)


# --- size ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_run_on_a_100_mib_spec_ends_with_its_end_record_and_both_figures(
    tmp_path: Path, suffix: str
) -> None:
    spec = tmp_path / f"huge{suffix}"
    with spec.open("wb") as fh:
        fh.truncate(100 * 2**20)  # sparse: costs nothing to make
    code, records, _ = _run(str(spec))
    assert code == 3
    assert [r["event"] for r in records] == ["error", "end"]
    limit = spec_text.MAX_SPEC_BYTES // 2**20
    assert (
        f"the file is 100.0 MiB; specs larger than {limit} MiB are not opened"
        in (records[0]["message"])
    )
    assert records[1] == {"event": "end", "outcome": "usage_error", "elapsed_ms": 0.0}


# --- run: an end record after every failure --------------------------------------------------


@pytest.mark.parametrize(
    "case", ["missing file", "not yaml", "no operations", "unknown operation", "bad --var"]
)
def test_every_file_level_failure_of_run_ends_with_the_end_record(
    tmp_path: Path, case: str
) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text(
        HEAD + f"paths:\n  /a:\n    post:\n      operationId: a\n      x-a2a: {X_A2A}\n"
    )
    args = {
        "missing file": [str(tmp_path / "nope.yaml")],
        "not yaml": [str(spec.with_name("bad.yaml"))],
        "no operations": [str(spec.with_name("empty.yaml"))],
        "unknown operation": [str(spec), "--operation", "nope"],
        "bad --var": [str(spec), "--var", "novalue"],
    }[case]
    spec.with_name("bad.yaml").write_text("openapi: [\n")
    spec.with_name("empty.yaml").write_text(HEAD + "paths: {}\n")
    code, records, _ = _run(*args)
    assert code == 3
    assert [r["event"] for r in records] == ["error", "end"], records
    assert records[-1]["outcome"] == "usage_error"


def test_an_unwritable_junit_report_ends_with_an_error_and_the_end_record(
    tmp_path: Path,
) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text(
        HEAD + f"paths:\n  /a:\n    post:\n      operationId: a\n      x-a2a: {X_A2A}\n"
    )
    code, records, _ = _run(str(spec), "--junit", str(tmp_path))  # a folder: not writable
    assert code == 3
    assert [r["event"] for r in records[-2:]] == ["error", "end"]
    assert "JUnit" in records[-2]["message"] and records[-1]["outcome"] == "usage_error"
