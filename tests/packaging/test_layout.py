"""The layout the build configuration promises: every package of app/ is listed, and the shipped
data is read through ``app.resources`` and ``app.docs`` from the checkout's top-level
``resources/`` and ``docs/`` folders."""

from __future__ import annotations

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
