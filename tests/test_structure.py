"""Structure gates on `app/`: no module over 600 lines, no import cycle between modules.

Every import counts: function-level (lazy) ones, since hiding an import inside a function
does not remove the dependency, and those under ``if TYPE_CHECKING:``, since a module that
names another's types to type-check depends on it as surely (the import-linter contracts
count them too). Two modules that need each other's types share a lower module or a
``Protocol`` instead.
"""

from __future__ import annotations

from pathlib import Path

import grimp
import pytest

APP = Path(__file__).resolve().parent.parent / "app"
MAX_LINES = 600

# Exemptions (a listed module that no longer offends fails the test too, so the lists cannot go
# stale). There are none: split a module, or break a cycle, instead of listing it.
OVERSIZED_ALLOWED: set[str] = set()  # keep empty: split a module before it grows past 600
CYCLES_ALLOWED: set[frozenset[str]] = set()  # keep empty


def _line_counts() -> dict[str, int]:
    root = APP.parent
    return {
        path.relative_to(root).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted(APP.rglob("*.py"))
    }


def _import_cycles(package: str = "app") -> set[frozenset[str]]:
    """Strongly connected components of the module import graph with more than one module."""
    graph = grimp.build_graph(package, cache_dir=None)
    modules = graph.modules
    edges = {m: sorted(graph.find_modules_directly_imported_by(m) & modules) for m in modules}

    # Tarjan's algorithm, iterative so a deep import chain cannot hit the recursion limit.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: set[frozenset[str]] = set()
    for start in sorted(modules):
        if start in index:
            continue
        work = [(start, iter(edges[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.add(frozenset(component))
    return cycles


def test_no_module_over_600_lines() -> None:
    counts = _line_counts()
    oversized = {path for path, lines in counts.items() if lines > MAX_LINES}
    new = sorted(oversized - OVERSIZED_ALLOWED)
    assert not new, "over 600 lines: " + ", ".join(f"{p} ({counts[p]})" for p in new)
    stale = sorted(OVERSIZED_ALLOWED - oversized)
    assert not stale, f"no longer over 600 lines, remove from OVERSIZED_ALLOWED: {stale}"


def test_no_import_cycles() -> None:
    cycles = _import_cycles()
    new = sorted(sorted(c) for c in cycles - CYCLES_ALLOWED)
    assert not new, f"import cycles between app modules: {new}"
    stale = sorted(sorted(c) for c in CYCLES_ALLOWED - cycles)
    assert not stale, f"cycle gone, remove from CYCLES_ALLOWED: {stale}"


def test_cycle_finder_sees_a_cycle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The gate itself: a cycle through a lazy import is found, and one through a
    TYPE_CHECKING import too."""
    pkg = tmp_path / "cyclepkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from cyclepkg import b\n")
    (pkg / "b.py").write_text("from cyclepkg import c\n")
    (pkg / "c.py").write_text("from cyclepkg import a\n")
    (pkg / "d.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from cyclepkg import e\n"
    )
    (pkg / "e.py").write_text("from cyclepkg import d\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert _import_cycles("cyclepkg") == {
        frozenset({"cyclepkg.a", "cyclepkg.b", "cyclepkg.c"}),
        frozenset({"cyclepkg.d", "cyclepkg.e"}),
    }
