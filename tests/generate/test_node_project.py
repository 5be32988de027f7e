"""The Node.js project writer: what it writes, what it refuses (no npm here)."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from app.generate.node_project import TEMPLATE_FILES, rendered_files, write_project
from app.generate.output_dir import OutputDirError
from app.generate.project_model import ALL_BINDINGS
from app.protocol.types import Binding
from tests.generate.plans import demo_plan

TEMPLATES = Path(__file__).parents[2] / "resources" / "server_templates" / "node"


def test_writes_the_project_with_the_card_and_pinned_versions(tmp_path: Path) -> None:
    plan = demo_plan(host="0.0.0.0", port=8123, grpc_port=50123)
    written = write_project(plan, tmp_path / "agent")
    names = {p.relative_to(tmp_path / "agent").as_posix() for p in written}
    assert names == {*TEMPLATE_FILES.values(), "package.json", "agent-card.json"}
    project = tmp_path / "agent"
    assert json.loads((project / "agent-card.json").read_text()) == plan.card
    package = json.loads((project / "package.json").read_text())
    assert package["name"] == "demo-agent"
    assert package["type"] == "module"
    assert package["engines"] == {"node": ">=20"}
    assert set(package["scripts"]) == {"start", "test"}
    # Exact versions only: a generated project installs the same way every time.
    assert all(re.fullmatch(r"\d+\.\d+\.\d+", v) for v in package["dependencies"].values())
    config = (project / "src" / "config.mjs").read_text()
    assert 'HOST: "0.0.0.0"' in config and "PORT: '8123'" in config
    assert "GRPC_PORT: '50123'" in config
    assert "PORT=8123" in (project / ".env.example").read_text()
    readme = (project / "README.md").read_text()
    assert "# Demo agent" in readme and "npm start" in readme and "npm install" in readme


def test_no_placeholder_and_no_internal_name_is_left() -> None:
    for relative, text in rendered_files(demo_plan()).items():
        assert "__" not in re.sub(r"__proto__|__dirname|__filename", "", text), relative
        lowered = text.lower()
        assert "workbench" not in lowered, relative
        assert not re.search(r"\bapp\.(generate|protocol|ui|commands)", text), relative


def test_refuses_a_non_empty_folder_unless_forced(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    with pytest.raises(OutputDirError, match="not empty"):
        write_project(demo_plan(), tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]
    write_project(demo_plan(), tmp_path, force=True)
    assert (tmp_path / "keep.txt").read_text() == "mine"
    assert (tmp_path / "package.json").is_file()


def test_refuses_a_file(tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x")
    with pytest.raises(OutputDirError, match="not a directory"):
        write_project(demo_plan(), target)
    assert target.read_text() == "x"


def test_an_odd_host_stays_a_javascript_string() -> None:
    plan = dataclasses.replace(demo_plan(), host="h'); process.exit(1); ('")
    config = rendered_files(plan)["src/config.mjs"]
    assert """HOST: "h'); process.exit(1); ('",""" in config


@pytest.mark.parametrize(
    ("bindings", "said"),
    [
        (ALL_BINDINGS, "JSON-RPC, HTTP+JSON (REST) and gRPC"),
        (frozenset({Binding.GRPC}), "serves gRPC."),
    ],
)
def test_readme_names_the_bindings(bindings: frozenset[Binding], said: str) -> None:
    readme = rendered_files(demo_plan(bindings=bindings))["README.md"]
    assert said in " ".join(readme.split())


def test_every_template_is_listed() -> None:
    on_disk = {
        p.relative_to(TEMPLATES).as_posix()
        for p in TEMPLATES.rglob("*")
        if p.is_file() and "node_modules" not in p.parts
    }
    assert on_disk == {*TEMPLATE_FILES, "package.json"}
