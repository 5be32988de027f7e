"""Writes a plan's project in its language: Python here, Node in ``node_project``."""

from __future__ import annotations

import importlib
from pathlib import Path

from app.errors import WorkbenchError
from app.generate.project_model import Language, ServerPlan

__all__ = ["GeneratorMissing", "start_commands", "write"]

_START = {
    Language.PYTHON: ("pip install -e .", "python -m agent_server"),
    Language.NODE: ("npm install", "npm start"),
}


class GeneratorMissing(WorkbenchError):
    """The generator of a language is not part of this build."""


def write(plan: ServerPlan, out: Path, *, force: bool = False) -> list[Path]:
    """Writes ``plan``'s project into ``out``; see ``python_project.write_project``.

    Raises:
        OutputDirError: ``out`` is unusable (see ``app.generate.output_dir.prepare_dir``).
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


def start_commands(language: Language, out: Path) -> tuple[str, str]:
    """The two commands that start a project generated into ``out``: install, then start
    (with a placeholder for the token, which is never written anywhere by the generator)."""
    install, start = _START[language]
    return f"cd {out} && {install}", f'A2A_TOKEN="<32+ random characters>" {start}'
