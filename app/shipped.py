"""Data files shipped with the app: the example spec for the demo agent (top-level
``resources/``; the package ``app.resources`` in a wheel, ``pipx install`` and the PyInstaller
bundle) and the manual (top-level ``docs/``: the package ``app.docs``).

Every reader goes through :mod:`importlib.resources` on those names, never a path relative to
the source checkout, so the files are found wherever the app is installed (``app/__init__.py``
lets a checkout resolve the names too).
"""

from __future__ import annotations

import atexit
import contextlib
from importlib.resources import as_file, files
from pathlib import Path

RESOURCES_PACKAGE = "app.resources"
"""The package the shipped data is read from."""

DOCS_PACKAGE = "app.docs"
"""The package the manual's pages (``*.md``) and screenshots are read from."""

EXAMPLE_SPEC_NAME = "examples/demo-agent.a2a.yaml"
"""The example document for the demo agent, relative to this package."""

_extracted = contextlib.ExitStack()
atexit.register(_extracted.close)


def resource_path(name: str) -> Path:
    """A file-system path to the shipped resource ``name`` (``/``-separated).

    Installed packages are plain directories, so this is the file itself; only when the
    package is imported from a zip archive is the file extracted to a temporary copy, kept
    until the interpreter exits.
    """
    return _path(RESOURCES_PACKAGE, name)


def example_spec() -> Path:
    """The example spec for the bundled demo agent (opened at start-up, used by ``run``)."""
    return resource_path(EXAMPLE_SPEC_NAME)


def doc_page(name: str) -> Path:
    """The manual's page ``name`` (``GUI.md``) as a file, which the pages it links to and
    the screenshots it shows sit beside (:func:`resource_path`'s rules)."""
    return _path(DOCS_PACKAGE, name)


def doc_pages() -> list[str]:
    """The names of the manual's pages (``*.md``), sorted."""
    return sorted(
        entry.name for entry in files(DOCS_PACKAGE).iterdir() if entry.name.endswith(".md")
    )


def _path(package: str, name: str) -> Path:
    resource = files(package).joinpath(*name.split("/"))
    if isinstance(resource, Path):
        return resource
    return _extracted.enter_context(as_file(resource))
