"""Writes a plan's project in its language: Python here, Node in ``node_project``."""

from __future__ import annotations

import importlib
from pathlib import Path

from app.errors import WorkbenchError
from app.generate.model import Language, ServerPlan

__all__ = ["GeneratorMissing", "write"]


class GeneratorMissing(WorkbenchError):
    """The generator of a language is not part of this build."""


def write(plan: ServerPlan, out: Path, *, force: bool = False) -> list[Path]:
    """Writes ``plan``'s project into ``out``; see ``python_project.write_project``.

    Raises:
        OutputDirError: ``out`` is unusable (see ``app.generate.output.prepare_dir``).
        GeneratorMissing: no generator for ``plan.language``.
    """
    module = "python_project" if plan.language is Language.PYTHON else "node_project"
    try:
        generator = importlib.import_module(f"app.generate.{module}")
    except ModuleNotFoundError as exc:
        if exc.name != f"app.generate.{module}":
            raise
        raise GeneratorMissing(f"no {plan.language.value} generator in this build") from exc
    written: list[Path] = generator.write_project(plan, out, force=force)
    return written
