"""Data files shipped inside the package (a wheel, ``pipx install`` and the PyInstaller
bundle all carry them): the example spec for the bundled demo agent.

Every reader goes through :mod:`importlib.resources`, never a path relative to the source
checkout, so the files are found wherever the package is installed.
"""

from __future__ import annotations

import atexit
import contextlib
from importlib.resources import as_file, files
from pathlib import Path

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
    resource = files(__name__).joinpath(*name.split("/"))
    if isinstance(resource, Path):
        return resource
    return _extracted.enter_context(as_file(resource))


def example_spec() -> Path:
    """The example spec for the bundled demo agent (opened at start-up, used by ``run``)."""
    return resource_path(EXAMPLE_SPEC_NAME)
