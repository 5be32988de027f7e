"""The exception tree drawn in ``app/errors.py`` is the tree the classes form.

Every module of ``app`` is imported (``app.ui`` too: the suite runs offscreen), then
``WorkbenchError.__subclasses__()`` is walked and compared with the drawing: names, parents,
modules and the ``(also ValueError)`` notes. Exception classes outside the tree must be
private or listed in the docstring's "outside the tree" block.
"""

from __future__ import annotations

import builtins
import importlib
import pkgutil
import re

import pytest

import app
from app import errors
from app.errors import WorkbenchError

# "    │   ├── ScopeError       app.spec.variables: a scoped secret …"
_ENTRY = re.compile(
    r"^    (?P<branch>[│├└─ ]*)(?P<name>[A-Z]\w+)\s+(?P<module>app(?:\.\w+)+): (?P<text>.*)$"
)
_ALSO = re.compile(r"\(also (\w+)\)")


def _import_all() -> list[type[BaseException]]:
    """Every class derived from BaseException defined in a module of ``app``."""
    found: list[type[BaseException]] = []
    for info in pkgutil.walk_packages(app.__path__, "app."):
        if info.name == "app.__main__":
            continue  # the entry point; importing it would not define anything more
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, BaseException)
                and value.__module__ == info.name
            ):
                found.append(value)
    return found


def _drawn() -> tuple[dict[str, tuple[str | None, str, frozenset[str]]], dict[str, str]]:
    """The docstring's tree as {name: (parent, module, also)} and its outside block as
    {name: module}."""
    doc = errors.__doc__ or ""
    tree_text, outside_text = doc.split("Outside the tree on purpose", 1)
    tree: dict[str, tuple[str | None, str, frozenset[str]]] = {}
    parents: list[str] = []  # the open ancestors, by depth
    for line in tree_text.splitlines():
        match = _ENTRY.match(line)
        if match is None:
            continue
        depth = len(match["branch"]) // 4
        del parents[depth:]
        parent = parents[-1] if parents else None
        tree[match["name"]] = (parent, match["module"], frozenset(_ALSO.findall(match["text"])))
        parents.append(match["name"])
    outside = {
        match["name"]: match["module"]
        for line in outside_text.splitlines()
        if (match := _ENTRY.match(line)) is not None
    }
    return tree, outside


def _subclasses(cls: type[BaseException]) -> list[type[BaseException]]:
    found = []
    for sub in cls.__subclasses__():
        found.append(sub)
        found.extend(_subclasses(sub))
    return found


@pytest.fixture(scope="module")
def defined() -> list[type[BaseException]]:
    return _import_all()


def test_the_drawing_is_the_tree(defined: list[type[BaseException]]) -> None:
    tree, _ = _drawn()
    assert "WorkbenchError" in tree and tree["WorkbenchError"][0] is None
    actual: dict[str, tuple[str | None, str, frozenset[str]]] = {
        "WorkbenchError": (None, "app.errors", frozenset())
    }
    for cls in _subclasses(WorkbenchError):
        if not cls.__module__.startswith("app."):
            continue  # a test's own subclass
        parents = [b for b in cls.__bases__ if issubclass(b, WorkbenchError)]
        assert len(parents) == 1, f"{cls.__name__} has several WorkbenchError parents"
        also = frozenset(b.__name__ for b in cls.__bases__ if not issubclass(b, WorkbenchError))
        assert cls.__name__ not in actual, f"two classes named {cls.__name__}"
        actual[cls.__name__] = (parents[0].__name__, cls.__module__, also)
    missing = sorted(set(actual) - set(tree))
    assert not missing, f"WorkbenchError subclasses not drawn in app/errors.py: {missing}"
    stale = sorted(set(tree) - set(actual))
    assert not stale, f"drawn in app/errors.py but not defined: {stale}"
    wrong = {name: (tree[name], actual[name]) for name in tree if tree[name] != actual[name]}
    assert not wrong, f"drawn (parent, module, also) differs from the class: {wrong}"


def test_every_other_exception_is_private_or_listed(defined: list[type[BaseException]]) -> None:
    _, outside = _drawn()
    public = {
        cls.__name__: cls.__module__
        for cls in defined
        if not issubclass(cls, WorkbenchError) and not cls.__name__.startswith("_")
    }
    assert public == outside, (
        "exceptions outside WorkbenchError must be private (_Name) or listed under "
        "'Outside the tree on purpose' in app/errors.py"
    )


def test_the_drawing_reads_the_whole_tree() -> None:
    # A line the pattern missed would make the comparison above vacuous for that class.
    tree, outside = _drawn()
    doc = errors.__doc__ or ""
    drawn_lines = [line for line in doc.splitlines() if re.match(r"^    \S", line)]
    assert len(drawn_lines) == len(tree) + len(outside)
    assert all(getattr(builtins, also, None) for entry in tree.values() for also in entry[2])
