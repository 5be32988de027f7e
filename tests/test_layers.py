"""The import contracts of pyproject.toml cover every top-level package and module of app/.

import-linter checks what a contract names; these tests check that the contracts name
everything, so a new package (``app/mcp/``, say) is held to them from its first commit
instead of going unchecked until someone remembers to list it.
"""

from __future__ import annotations

import pkgutil
import tomllib
from pathlib import Path
from typing import Any

import grimp
import pytest

import app

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"
ENTRY = {"app.__main__"}  # imports the GUI when started without a subcommand


def _contract(name: str) -> dict[str, Any]:
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (found,) = [c for c in contracts if c["name"] == name]
    return found


def _top_level() -> set[str]:
    """Every package and module directly under app/ (``app.resources`` is data only: in a
    checkout it is not under app/ at all)."""
    return {f"app.{m.name}" for m in pkgutil.iter_modules(app.__path__)} - {"app.resources"}


def test_the_qt_free_contract_names_everything_but_the_gui() -> None:
    contract = _contract("Everything but app.ui is Qt-free")
    listed = set(contract["source_modules"])
    expected = _top_level() - {"app.ui"} - ENTRY
    assert listed == expected, (
        f"missing: {sorted(expected - listed)}; not in app/: {sorted(listed - expected)}"
    )
    assert set(contract["forbidden_modules"]) == {"PySide6", "qasync", "app.ui"}


def test_the_layers_contract_places_everything() -> None:
    contract = _contract("Layers")
    assert contract["containers"] == ["app"]
    assert contract["exhaustive"] is True
    placed = {
        f"app.{name.strip()}"
        for layer in contract["layers"]
        for name in layer.replace(":", "|").split("|")
    }
    outside = {f"app.{name}" for name in contract["exhaustive_ignores"]}
    assert placed.isdisjoint(outside)
    assert placed | outside == _top_level()
    assert contract["layers"][0] == "ui"  # the GUI on top: nothing imports it


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("app", include_external_packages=True, cache_dir=None)


def test_the_gui_does_not_import_the_cli(graph: grimp.ImportGraph) -> None:
    """The two front ends share what lies below them; the GUI's options are read by the
    entry point, the history's jsonl export is ``app.history.jsonl_export``."""
    contract = _contract("The GUI does not import the CLI")
    assert contract["type"] == "forbidden"
    assert contract["source_modules"] == ["app.ui"]
    assert contract["forbidden_modules"] == ["app.commands"]
    assert not contract.get("allow_indirect_imports", False)
    # What lint-imports checks, here too, so that the suite alone catches a regression.
    chains = graph.find_shortest_chains(importer="app.ui", imported="app.commands")
    assert not chains, sorted(" -> ".join(chain) for chain in chains)


def test_the_root_package_is_qt_free(graph: grimp.ImportGraph) -> None:
    """``app/__init__.py`` itself (a contract on ``app`` would take in app.ui too)."""
    imported = graph.find_modules_directly_imported_by("app")
    assert not {m for m in imported if m.split(".")[0] in {"PySide6", "qasync"}}
    assert not {m for m in imported if m == "app.ui" or m.startswith("app.ui.")}
