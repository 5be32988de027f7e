"""The Python project's files: rendered safely, pinned to what is tested, written atomically
into an empty (or ``force``d) directory; the language dispatcher."""

from __future__ import annotations

import importlib.metadata
import json
import re
import sys
import tomllib
from pathlib import Path

import pytest

from app.generate.output_dir import OutputDirError
from app.generate.plan import plan_from_card
from app.generate.project_model import Language
from app.generate.python_project import DEPENDENCIES, TEST_DEPENDENCIES, render, write_project
from app.generate.write import GeneratorMissing, write
from app.protocol.types import Binding
from tests.generate.cards import card_03, demo_card

_PACKAGES = "protocol|spec|commands|demo|generate|ui|resources"
INTERNALS = re.compile(
    rf"a2a[-_ ]workbench|\bfrom app\b|\bimport app\b|\bapp\.(?:{_PACKAGES})\b", re.IGNORECASE
)


def _files(card: dict[str, object] | None = None, **kwargs: object) -> dict[str, str]:
    result = plan_from_card(card or card_03(), language=Language.PYTHON, **kwargs)  # type: ignore[arg-type]
    return render(result.plan)


def test_every_python_file_compiles_and_nothing_names_this_app() -> None:
    files = _files()
    expected = {".env.example", ".gitignore", "agent_server/card.json", "tests/test_server.py"}
    assert expected <= set(files)
    for name, text in files.items():
        assert "${" not in text, name
        assert not INTERNALS.search(text), (name, INTERNALS.search(text))
        if name.endswith(".py"):
            compile(text, name, "exec")
    card = json.loads(files["agent_server/card.json"])
    assert card["name"] == "Weather" and "signatures" not in card


def test_defaults_follow_the_plan() -> None:
    files = _files(
        host="::1", port=9001, grpc_port=9002, bindings=frozenset({Binding.GRPC}), compat_v03=True
    )
    namespace: dict[str, object] = {}
    exec(files["agent_server/defaults.py"], namespace)  # our own rendered file
    assert namespace["HOST"] == "::1" and namespace["PORT"] == 9001
    assert namespace["GRPC_PORT"] == 9002
    assert namespace["BINDINGS"] == ("GRPC",) and namespace["COMPAT_V03"] is True
    assert "`[::1]:9002`" in files["README.md"]
    assert "0.3 compatibility layer" in files["README.md"]


def test_pins_are_the_tested_versions() -> None:
    for requirement in (*DEPENDENCIES, *TEST_DEPENDENCIES):
        name, _, version = requirement.partition("==")
        assert importlib.metadata.version(name.split("[")[0]) == version, requirement
    project = tomllib.loads(_files()["pyproject.toml"])["project"]
    assert project["dependencies"] == list(DEPENDENCIES)
    assert project["optional-dependencies"]["test"] == list(TEST_DEPENDENCIES)


def test_a_hostile_card_cannot_break_out_of_its_places() -> None:
    hostile = {
        **card_03(),
        "name": 'Evil"""\n${host} `rm -rf` <script>',
        "description": '"\\\n[x](javascript:1) """',
        "version": '1"\nx = 1',
    }
    files = _files(hostile)
    project = tomllib.loads(files["pyproject.toml"])["project"]
    assert project["version"] == '1"\nx = 1'
    assert "\n" not in project["description"]
    title = files["README.md"].splitlines()[0]
    assert "<script>" not in title and "`" not in title
    assert json.loads(files["agent_server/card.json"])["name"] == hostile["name"]
    for name, text in files.items():
        if name.endswith(".py"):
            compile(text, name, "exec")


def test_write_refuses_a_non_empty_dir_unless_forced(tmp_path: Path) -> None:
    plan = plan_from_card(demo_card(), language=Language.PYTHON).plan
    out = tmp_path / "project"
    written = write(plan, out)
    assert sorted(p.relative_to(out).as_posix() for p in written) == sorted(render(plan))
    assert (out / ".env.example").read_text(encoding="utf-8").startswith("# Copy to .env")
    (out / "README.md").write_text("mine", encoding="utf-8")
    with pytest.raises(OutputDirError, match="not empty"):
        write_project(plan, out)
    assert (out / "README.md").read_text(encoding="utf-8") == "mine"
    write_project(plan, out, force=True)
    assert (out / "README.md").read_text(encoding="utf-8") != "mine"
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(OutputDirError, match="not a directory"):
        write_project(plan, tmp_path / "file")
    assert not list(out.rglob("*.tmp"))


def test_a_missing_language_generator_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "app.generate.node_project", None)
    plan = plan_from_card(demo_card(), language=Language.NODE).plan
    with pytest.raises(GeneratorMissing, match="no node generator"):
        write(plan, tmp_path / "node")
    with pytest.raises(ValueError, match="not a Python plan"):
        render(plan)
