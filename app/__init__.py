"""A2A Workbench: a desktop request debugger for the A2A (Agent2Agent) protocol."""

from __future__ import annotations

import sys
from importlib.machinery import ModuleSpec, PathFinder
from pathlib import Path

__version__ = "0.1.0"

_CHECKOUT = Path(__file__).resolve().parent.parent


class _CheckoutResources:
    """Finds ``app.resources`` in a checkout's top-level ``resources/`` folder.

    A wheel and the bundle install that folder as the package ``app.resources``
    (pyproject.toml's package-dir); a checkout (``pip install -e``) has it beside ``app/``.
    This finder sits last on ``sys.meta_path`` and answers for that one name only, so
    ``importlib.resources.files("app.resources")`` reads the data the same way in all three.
    """

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> ModuleSpec | None:
        if fullname != "app.resources":
            return None
        return PathFinder.find_spec(fullname, [str(_CHECKOUT)])


if not (Path(__file__).parent / "resources").is_dir() and (_CHECKOUT / "resources").is_dir():
    sys.meta_path.append(_CheckoutResources())
