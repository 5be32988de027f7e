"""Writing and keeping state files safely: one atomic writer, one way to set damage aside.

Every file the application writes (specs, the session, the secrets fallback file, saved
bodies) goes through :func:`atomic_write`: a temp file in the same directory, fsync, then
``os.replace``, so a crash or a full disk leaves the previous file as it was. A save killed
between the two steps leaves its temp file behind; the next write to the same file removes
such leftovers of our own naming once they are old enough not to belong to a running save.

A file that cannot be read back is never overwritten in place: :func:`set_aside` renames it
with a timestamp so the user can recover it by hand.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import time
from pathlib import Path

STALE_TEMP_AGE_S = 3600.0
"""A temp file of ours older than this is a leftover of a killed save (no save takes an hour)."""

# ``.<name>.<12 hex>.tmp`` is ours; ``.<name>.<8 of [a-z0-9_]>.tmp`` is what tempfile.mkstemp
# made for the session file in earlier versions.
_TEMP_TAIL = re.compile(r"\.(?:[0-9a-f]{12}|[a-z0-9_]{8})\.tmp")


def temp_name(path: Path) -> Path:
    """A fresh temp file name next to ``path`` (``.<name>.<12 hex digits>.tmp``)."""
    return path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")


def is_own_temp(candidate: Path, path: Path) -> bool:
    """Whether ``candidate`` is a temp file :func:`atomic_write` makes for ``path``."""
    prefix = f".{path.name}"
    name = candidate.name
    return name.startswith(prefix) and bool(_TEMP_TAIL.fullmatch(name[len(prefix) :]))


def remove_stale_temps(path: Path, *, older_than: float = STALE_TEMP_AGE_S) -> list[Path]:
    """Delete temp files of ours for ``path`` last modified more than ``older_than``
    seconds ago; returns those removed. Other files are never touched."""
    directory = path.parent
    removed: list[Path] = []
    cutoff = time.time() - older_than
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        candidate = directory / entry.name
        if not is_own_temp(candidate, path):
            continue
        with contextlib.suppress(OSError):
            if entry.is_file(follow_symlinks=False) and entry.stat().st_mtime < cutoff:
                os.unlink(candidate)
                removed.append(candidate)
    return removed


def atomic_write(path: Path, text: str, *, mode: int | None = None) -> None:
    """Write ``text`` (UTF-8, ``\\n`` line ends) to ``path`` as :func:`atomic_write_bytes`
    does."""
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode)


def atomic_write_bytes(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` through a temp file in the same directory and
    ``os.replace``; on any failure the previous file is left as it was.

    The temp file is created with mode 0600 (``os.open``, ``O_EXCL``) and gets its final
    mode before any byte is written: ``mode`` when given (``0o600`` for private files), else
    the old file's mode, else 0644. Stale temp files of earlier killed saves are removed.
    """
    path = Path(path)
    if not str(path.parent):
        path = Path(".") / path
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o777
        except OSError:
            mode = 0o644
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = temp_name(path)
        try:
            fd = os.open(tmp, flags, 0o600)
            break
        except FileExistsError:
            continue
    else:  # pragma: no cover - 100 collisions of 48 random bits
        raise FileExistsError(f"no free temp file name next to {path}")
    try:
        with contextlib.suppress(OSError):
            if hasattr(os, "fchmod"):
                os.fchmod(fd, mode)
            else:  # pragma: no cover - Windows before Python 3.13
                os.chmod(tmp, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    remove_stale_temps(path)


def set_aside(path: Path) -> Path:
    """Rename a damaged ``path`` to ``<name>.bad-<YYYYmmdd-HHMMSS>`` (``-2``, ``-3``… when
    that name is taken: an earlier copy is never replaced) and return the new path.

    Raises:
        OSError: the rename failed (the file stays where it was).
    """
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.name}.bad-{stamp}")
    n = 2
    while aside.exists():
        aside = path.with_name(f"{path.name}.bad-{stamp}-{n}")
        n += 1
    os.rename(path, aside)
    return aside
