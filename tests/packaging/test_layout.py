"""The layout the build configuration promises: every package of app/ is listed, and the shipped
data is read through ``app.resources`` and ``app.docs`` from the checkout's top-level
``resources/`` and ``docs/`` folders."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from importlib.resources import files
from pathlib import Path

import app.shipped

REPO = Path(__file__).resolve().parents[2]


def test_every_package_of_app_is_listed_in_pyproject() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    on_disk = {
        ".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "app").rglob("__init__.py")
    }
    assert listed == on_disk | {"app.resources", "app.docs"}
    assert config["tool"]["setuptools"]["package-dir"] == {
        "app.resources": "resources",
        "app.docs": "docs",
    }


def test_a_checkout_reads_the_top_level_resources_folder() -> None:
    root = files("app.resources")
    assert Path(str(root)).resolve() == (REPO / "resources").resolve()
    assert app.shipped.example_spec().resolve() == (
        REPO / "resources" / "examples" / "demo-agent.a2a.yaml"
    )
    assert not (REPO / "app" / "resources").exists()


def test_a_checkout_reads_the_manual_from_the_top_level_docs_folder() -> None:
    assert Path(str(files("app.docs"))).resolve() == (REPO / "docs").resolve()
    assert app.shipped.doc_page("GUI.md").resolve() == (REPO / "docs" / "GUI.md").resolve()
    assert app.shipped.doc_pages() == sorted(p.name for p in (REPO / "docs").glob("*.md"))
    assert not (REPO / "app" / "docs").exists()


# The editable mode `make install` asks for, if any (`--config-settings editable_mode=…`).
_MODE = re.compile(r"-e '\.\[[^]]*\]'(?: --config-settings editable_mode=(\w+))?")


def test_the_build_configuration_builds_without_warnings(tmp_path: Path) -> None:
    """`make install` printed ~330 lines of setuptools warnings: a "Package would be
    ignored" for each data folder (examples/, screenshots/, …) and the deprecation of the
    compat editable mode. The wheel and the editable wheel build without either."""
    src = tmp_path / "src"
    for folder in ("app", "resources", "docs"):
        shutil.copytree(
            REPO / folder, src / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
        )
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, src / name)
    found = _MODE.search((REPO / "Makefile").read_text("utf-8"))
    assert found is not None, "the Makefile's editable install"
    settings = {"editable_mode": found.group(1)} if found.group(1) else {}
    out = tmp_path / "dist"
    out.mkdir()
    for build in ("build_meta.build_wheel(out)", f"build_meta.build_editable(out, {settings!r})"):
        script = f"import sys\nfrom setuptools import build_meta\nout = sys.argv[1]\n{build}"
        proc = subprocess.run(
            [sys.executable, "-c", script, str(out)],
            cwd=src, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        said = proc.stdout + proc.stderr
        assert proc.returncode == 0, said
        assert "would be ignored" not in said and "DeprecationWarning" not in said, said
    assert len(list(out.glob("*.whl"))) == 2
