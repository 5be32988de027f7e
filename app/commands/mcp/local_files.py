"""Files a tool reads on the model's behalf (a card, a JWKS, a fixture, a collection, a file
part): any file the server's user may read — except the workbench's own secrets file, the
keyring's stand-in, whose values must never reach the model (a JSON object would come back
whole as a "card")."""

from __future__ import annotations

from pathlib import Path

from app.errors import UsageError
from app.paths import secrets_path


def local_file(text: str) -> Path:
    """``text`` as a path (``~`` expanded), refused when it is the secrets file.

    Raises:
        UsageError: the path is the workbench's secrets file.
    """
    path = Path(text).expanduser()
    try:
        refused = path.resolve() == secrets_path().resolve()
    except OSError:
        refused = False
    if refused:
        raise UsageError(f"{text} holds the workbench's stored secrets: no tool reads it")
    return path
