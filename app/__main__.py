"""Entry point: ``a2a-workbench`` opens the GUI; subcommands run headless (no Qt imported).

Usage::

    a2a-workbench [--no-demo]              # the desktop app, with the bundled demo agent
    a2a-workbench send URL --method M ...  # one exchange, printed as JSON lines
    a2a-workbench demo-agent [--port N]    # the bundled demo agent on loopback

Exit statuses of the headless commands are documented in docs/CLI.md.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from app.commands import SUBCOMMANDS


def main(argv: list[str] | None = None) -> int:
    """Run the CLI subcommand named in ``argv[0]``, or the GUI when there is none.

    Args:
        argv: the arguments after the program name; ``sys.argv[1:]`` when None.

    Returns:
        The process exit status.
    """
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in SUBCOMMANDS:
        return headless(SUBCOMMANDS[args[0]], args[1:])
    if args and args[0] in ("-h", "--help"):
        from app.commands import SUMMARIES
        from app.commands.cli import gui_parser

        gui_parser(SUMMARIES).print_help()
        return 0
    if args and args[0] in ("-V", "--version"):
        from app import __version__

        print(f"a2a-workbench {__version__}")
        return 0
    # A missing system library would abort Qt with a cryptic error (app/preflight.py).
    from app.preflight import check_before_qt, gui_problem

    if check_before_qt() and (problem := gui_problem()) is not None:
        print(problem, file=sys.stderr)
        return 1
    try:
        # Imported late so that headless subcommands never load Qt.
        from app.ui.shell.application import run_gui
    except ImportError:
        if (problem := gui_problem()) is None:
            raise
        print(problem, file=sys.stderr)
        return 1
    return run_gui(args)


def headless(command: Callable[[list[str]], int], argv: list[str]) -> int:
    """Run a subcommand; a reader that went away (``send … | head -1``) ends it quietly.

    What the reader took was written: the status is 0, as for Unix tools in a pipe, and no
    traceback follows (nor the interpreter's own complaint when it flushes stdout at exit).
    """
    try:
        return command(argv)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 0


if __name__ == "__main__":
    sys.exit(main())
