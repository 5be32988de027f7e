"""Saved files that churned (issue 29, kind 9): re-saving a document nobody changed changes
none of its bytes — ``timeout: 12`` stays ``12``, the ``demo`` environment keeps the file's
ports, and environment values that are numbers, ``null``, nested or under an unusable name
are kept as written (and said to be unused), never dropped."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from app.session import Session, TabState, dumps, loads
from app.settings import SettingsFile
from app.shipped import example_spec
from app.spec import environments as envs
from app.spec.document import load
from app.spec.save import save_environments, save_request
from app.spec.variables import SecretStore

REPO = Path(__file__).resolve().parents[2]
ENVIRONMENTS = """x-a2a-environments:
  demo:
    baseUrl: http://127.0.0.1:8000
    grpcTarget: 127.0.0.1:50051
  local:
    port: 8000
    verbose: true
    token: <secret>
    empty: null
    nested: {a: 1}
    listed: [1, 2]
    9lives: x
  bad/name:
    a: b
  notes: just text
"""


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    text = example_spec().read_text()
    text = text.replace("      x-a2a:\n", "      x-a2a:\n        timeout: 12\n", 1)
    start = text.index("x-a2a-environments:\n")
    end = text.index("paths:\n")
    path = tmp_path / "mine.a2a.yaml"
    path.write_text(text[:start] + ENVIRONMENTS + text[end:])
    return path


def _store(tmp_path: Path) -> SecretStore:
    return SecretStore(tmp_path / "secrets.json")


def test_an_unchanged_document_is_saved_byte_for_byte(spec: Path, tmp_path: Path) -> None:
    doc = load(spec)
    found, _ = envs.read(doc.data)
    op = doc.operations()[0]
    assert op.request.timeout == 12 and isinstance(op.request.timeout, int)
    # Twice: the first save is the app's own form of the file, the second must not differ.
    for _ in range(2):
        before = spec.read_bytes()
        result = save_request(op.request, spec, current=doc, store=_store(tmp_path),
                              environments=envs.snapshot(found))  # fmt: skip
        assert result.doc is not None
        doc = result.doc
    assert spec.read_bytes() == before
    text = spec.read_text()
    assert "timeout: 12\n" in text
    assert "port: 8000\n" in text and "verbose: true\n" in text and "empty: null\n" in text


def test_unusable_environment_entries_are_said_and_kept(spec: Path, tmp_path: Path) -> None:
    doc = load(spec)
    found, problems = envs.read(doc.data)
    said = "\n".join(problems)
    for place in ("local.nested", "local.listed", "local.9lives", "bad/name", "notes"):
        assert f"x-a2a-environments.{place}: not " in said, place
    assert said.count("kept in the file as written, not used") == 5
    local = envs.find(found, "local")
    assert local is not None and local.get("empty") is not None  # null: the empty text
    assert local.get("port") is not None and local.get("port").value == "8000"  # type: ignore[union-attr]
    # The dialog's OK: one value edited, one variable removed, one added.
    local.set("port", "9000")
    local.variables = [v for v in local.variables if v.name != "verbose"]
    local.set("added", "yes")
    written, _ = save_environments(spec, found, current=doc, store=_store(tmp_path))
    saved = yaml.safe_load(spec.read_text())["x-a2a-environments"]
    assert saved["local"] == {
        "port": "9000", "token": "<secret>", "empty": None, "nested": {"a": 1},
        "listed": [1, 2], "9lives": "x", "added": "yes",
    }  # fmt: skip
    assert saved["bad/name"] == {"a": "b"} and saved["notes"] == "just text"
    assert list(saved) == ["demo", "local", "bad/name", "notes"]
    assert envs.find(envs.read(written.data)[0], "local") is not None


def test_the_demo_agent_s_ports_are_not_written(spec: Path, tmp_path: Path) -> None:
    doc = load(spec)
    found, _ = envs.read(doc.data)
    doc, _ = save_environments(spec, envs.snapshot(found), current=doc, store=_store(tmp_path))
    demo = envs.find(found, "demo")
    assert demo is not None
    saved = {v.name: v.value for v in demo.variables}
    session = {"baseUrl": "http://127.0.0.1:39123", "grpcTarget": "127.0.0.1:39124",
               "extra": "x"}  # fmt: skip
    for name, value in session.items():
        demo.set(name, value)  # what the window does with the demo agent's ready line
    copies = envs.without_session_values(found, "demo", session, saved)
    assert [(v.name, v.value) for v in envs.find(copies, "demo").variables] == [  # type: ignore[union-attr]
        ("baseUrl", "http://127.0.0.1:8000"), ("grpcTarget", "127.0.0.1:50051"),
    ]  # fmt: skip
    assert demo.get("baseUrl").value == session["baseUrl"]  # type: ignore[union-attr]
    before = spec.read_bytes()
    save_environments(spec, copies, current=doc, store=_store(tmp_path))
    assert spec.read_bytes() == before


@pytest.mark.parametrize("timeout", [12, 12.5, 12.0])
def test_a_timeout_is_written_as_it_was_read(tmp_path: Path, timeout: float) -> None:
    doc = load(example_spec())
    op = doc.operations()[0]
    request = replace(op.request, timeout=timeout)
    text = dumps(Session(tabs=[TabState(request)]))
    session, _ = loads(text)
    assert repr(session.tabs[0].draft.timeout) == repr(timeout)
    assert json.loads(text)["tabs"][0]["draft"]["timeout"] == timeout


def test_settings_keep_a_whole_number_timeout(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"schema_version": 2, "settings": {"default_timeout": 30}}))
    stored = SettingsFile.load(path)
    assert repr(stored.settings.default_timeout) == "30"
    stored.save()
    assert json.loads(path.read_text())["settings"]["default_timeout"] == 30
    assert '"default_timeout": 30,' in path.read_text()


def test_run_says_which_environment_entries_it_cannot_use(spec: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "app", "run", str(spec), "--env", "local", "--operation", "x"],
        capture_output=True, text=True, timeout=60, cwd=REPO, check=False,
    )  # fmt: skip
    assert proc.returncode == 3
    warning = "warning: environment entry not used: x-a2a-environments.local.nested (line "
    assert warning in proc.stderr
    assert proc.stderr.count("x-a2a-environments.local.nested") == 1  # said once
