"""The one argument parser and usage-error exit of the ``a2a-workbench`` commands.

Every subcommand (``send``, ``run``, ``verify``, ``demo-agent``) builds its parser with
:func:`parser`, whose errors raise :class:`CliUsageError` instead of printing the usage and
exiting 2, and ends a usage error with :func:`usage_exit`: the message is printed once and
the exit status is 3 (``EXIT_USAGE``). ``--help`` still prints and exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import urlsplit

from app.errors import UsageError
from app.protocol.visible_text import escape_controls

EXIT_USAGE = 3
"""The exit status of every usage error (docs/CLI.md); equal to
``app.commands.printer.EXIT_USAGE``, kept here so this module stays light to import."""


class CliUsageError(UsageError):
    """Bad command-line arguments, or an input file named on the command line is unusable.

    Raised by the parsers :func:`parser` builds (``prog`` set: ``str()`` starts with
    ``"<prog>: "``) and by the commands' argument checks. Caught by each command's ``main``,
    which ends with :func:`usage_exit`.
    """

    def __init__(self, detail: str, prog: str = "") -> None:
        super().__init__(f"{prog}: {detail}" if prog else detail)
        self.detail = detail
        """The message without the program name."""
        self.prog = prog


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise CliUsageError(message, self.prog)


def parser(prog: str, description: str, epilog: str | None = None) -> argparse.ArgumentParser:
    """An ``ArgumentParser`` for ``prog`` whose errors raise :class:`CliUsageError`."""
    return _Parser(prog=prog, description=description, epilog=epilog)


def card_source(text: str, what: str = "CARD_URL") -> str:
    """``text`` when it names an Agent Card this app can read: an ``http(s)`` URL with a
    host, or a readable file (``card``, ``check``, ``verify``).

    Raises:
        CliUsageError: anything else (a typo, ``ftp://…``, a file that is not there): the
            command line is wrong, not the agent.
    """
    if "://" in text:
        parts = urlsplit(text)
        if parts.scheme.lower() in ("http", "https") and parts.hostname:
            return text
        raise CliUsageError(f"{what} {text!r}: not an http(s) URL with a host")
    path = Path(text)
    if path.is_file() and os.access(path, os.R_OK):
        return text
    raise CliUsageError(f"{what} {text!r}: neither an http(s) URL nor a readable file")


def usage_exit(
    message: str, records: Sequence[Mapping[str, Any]] = (), *, stderr_line: str | None = None
) -> int:
    """Report a usage error once; returns ``EXIT_USAGE``.

    ``records`` (JSON lines for the machine reading stdout) are printed first; the human
    line (``stderr_line``, default ``message``) goes to stderr, unless stdout is a terminal
    that already shows the same message in a record.
    """
    for record in records:
        print(json.dumps(record))
    if not (records and sys.stdout.isatty()):
        say(message if stderr_line is None else stderr_line)
    return EXIT_USAGE


def say(text: str, *, stdout: bool = False, flush: bool = False) -> None:
    """Print ``text`` as one message on stderr (or stdout), its control characters escaped:
    messages quote what servers and files said (an authorization server's error, a card's
    name)."""
    out = sys.stdout if stdout else sys.stderr
    print(escape_controls(text, multiline=True), file=out, flush=flush)
