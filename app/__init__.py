"""A2A Workbench: a desktop request debugger for the A2A (Agent2Agent) protocol."""

from __future__ import annotations

import sys
from importlib.machinery import ModuleSpec, PathFinder
from pathlib import Path

__version__ = "0.1.0"

_CHECKOUT = Path(__file__).resolve().parent.parent

_SHIPPED = {"app.resources": "resources", "app.docs": "docs"}
"""The packages a wheel and the bundle install from top-level folders of the checkout."""


class _CheckoutData:
    """Finds ``app.resources`` and ``app.docs`` in a checkout's top-level ``resources/`` and
    ``docs/`` folders.

    A wheel and the bundle install those folders as these packages (pyproject.toml's
    package-dir); a checkout (``pip install -e``) has them beside ``app/``. This finder sits
    last on ``sys.meta_path`` and answers for those names only, so
    ``importlib.resources.files("app.resources")`` reads the data the same way in all three.
    """

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> ModuleSpec | None:
        if fullname not in _SHIPPED:
            return None
        return PathFinder.find_spec(fullname, [str(_CHECKOUT)])


if not (Path(__file__).parent / "resources").is_dir() and (_CHECKOUT / "resources").is_dir():
    sys.meta_path.append(_CheckoutData())
