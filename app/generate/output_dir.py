"""Writing a generated project: the output directory's checks and one atomic write per file."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from app.errors import UsageError
from app.fileio import atomic_write

__all__ = ["OutputDirError", "check_dir", "prepare_dir", "write_files"]


class OutputDirError(UsageError):
    """The output directory cannot take the project (CLI exit 3); the message says why."""


def check_dir(out: Path, *, force: bool) -> None:
    """Refuses a file, or a non-empty directory unless ``force`` (before any work is done).

    Raises:
        OutputDirError: see above.
    """
    if out.exists() and not out.is_dir():
        raise OutputDirError(f"{out} exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise OutputDirError(f"{out} is not empty; choose another directory or use --force")


def prepare_dir(out: Path, *, force: bool) -> None:
    """Creates ``out`` when missing, after :func:`check_dir`.

    Raises:
        OutputDirError: see :func:`check_dir`, or the directory cannot be created.
    """
    check_dir(out, force=force)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputDirError(f"cannot create {out}: {exc.strerror or exc}") from exc


def write_files(out: Path, files: Mapping[str, str]) -> list[Path]:
    """Writes each ``relative path → text`` under ``out`` atomically; returns the paths.

    Raises:
        OutputDirError: a file cannot be written (the files written before it stay).
    """
    written: list[Path] = []
    for name, text in files.items():
        path = out / name
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, text)
        except OSError as exc:
            raise OutputDirError(f"cannot write {path}: {exc.strerror or exc}") from exc
        written.append(path)
    return written
