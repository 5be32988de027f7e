"""Secret flag values taken from a file or the environment, so they stay out of ``ps`` and
the shell's history.

Every flag that takes a secret (``--bearer``, ``--basic``, ``--api-key``'s value,
``--client-secret``, ``demo-agent``'s ``--token`` and ``--oauth-client``) reads its value
with :func:`secret_value`:

- ``@FILE``: the file's content, its trailing newline stripped;
- ``env:NAME``: the environment variable ``NAME``;
- anything else: the value as typed.

A value that starts with ``@`` but names no readable file, or an ``env:`` variable that is
not set, is a usage error; the message never shows a secret.
"""

from __future__ import annotations

import os

from app.commands.cli import CliUsageError

ENV_PREFIX = "env:"


def secret_value(text: str, flag: str) -> str:
    """The secret ``text`` stands for (module docstring).

    Raises:
        CliUsageError: an unreadable ``@FILE`` or an unset ``env:NAME``.
    """
    if text.startswith("@"):
        path = text[1:]
        if not path:
            raise CliUsageError(f"{flag} @FILE: no file named after the @")
        try:
            with open(path, encoding="utf-8") as fh:
                return fh.read().rstrip("\r\n")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise CliUsageError(f"cannot read {flag} @{path}: {reason}") from exc
    if text.startswith(ENV_PREFIX):
        name = text[len(ENV_PREFIX) :]
        value = os.environ.get(name) if name else None
        if value is None:
            raise CliUsageError(f"{flag} env:{name}: the environment variable is not set")
        return value
    return text
