"""Files a tool reads on the model's behalf (a card, a JWKS, a fixture, a collection, a file
part): plain files the server's user may read — except where credentials live. A model
reads pages, cards and answers anyone may have written, so a path it passes may have been
put in its mouth: the workbench's own secrets file (the keyring's stand-in, whose values must
never reach the model: a JSON object would come back whole as a "card") and the hidden files
and directories of the user's home (``~/.ssh``, ``~/.aws``, ``~/.docker``, ``~/.netrc``,
``~/.config``…) are refused, and so is anything but a regular file: reading a FIFO, a
device or ``/dev/stdin`` would hang the server or never end."""

from __future__ import annotations

from pathlib import Path

from app.errors import UsageError
from app.paths import secrets_path


def local_file(text: str) -> Path:
    """``text`` as a path (``~`` expanded, symbolic links followed), when a tool may read it.

    Raises:
        UsageError: the path is the workbench's secrets file, lies among the home's hidden
            files, or is no regular file (a directory, a FIFO, a device).
    """
    path = Path(text).expanduser()
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):  # a symbolic link loop
        raise UsageError(f"{text}: cannot be resolved to a file") from None
    try:
        refused = resolved == secrets_path().resolve()
    except OSError:
        refused = False
    if refused:
        raise UsageError(f"{text} holds the workbench's stored secrets: no tool reads it")
    if _hidden_in_home(resolved):
        raise UsageError(
            f"{text} is among the hidden files of your home directory (~/.ssh, ~/.aws, "
            "~/.config…), where credentials live: no tool reads them"
        )
    if resolved.exists() and not resolved.is_file():
        what = "a directory" if resolved.is_dir() else "not a regular file (a FIFO, a device)"
        raise UsageError(f"{text} is {what}: tools read regular files only")
    return resolved


def read_local(text: str, limit: int) -> bytes:
    """The content of the file ``text`` names (:func:`local_file`), at most ``limit`` bytes.

    Raises:
        UsageError: the file may not be read (:func:`local_file`), cannot be read, or is
            larger than ``limit``.
    """
    path = local_file(text)
    try:
        with path.open("rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise UsageError(f"cannot read {text}: {exc.strerror or exc}") from exc
    if len(data) > limit:
        raise UsageError(f"{text} is larger than {limit} bytes: not read")
    return data


def _hidden_in_home(path: Path) -> bool:
    try:
        inside = path.relative_to(Path.home().resolve())
    except (ValueError, RuntimeError):
        return False
    return bool(inside.parts) and inside.parts[0].startswith(".")
