"""Entry point: ``a2a-workbench`` opens the GUI; subcommands run headless (no Qt imported).

Usage::

    a2a-workbench [--no-demo]              # the desktop app, with the bundled demo agent
    a2a-workbench send URL --method M ...  # one exchange, printed as JSON lines
    a2a-workbench demo-agent [--port N]    # the bundled demo agent on loopback

The whole command line is read here, before Qt or any command module is imported: a
subcommand's name hands the rest to that command (``app.commands.SUBCOMMANDS``); anything
else is the GUI's options, parsed here (``--help``, which also lists the subcommands, and
usage errors answered without loading Qt) and handed to the GUI already parsed, so the GUI
never imports the CLI (an import contract in pyproject.toml).

Exit statuses of the headless commands are documented in docs/CLI.md.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

from app.commands import SUBCOMMANDS, SUMMARIES


def main(argv: list[str] | None = None) -> int:
    """Run the CLI subcommand named in ``argv[0]``, or the GUI when there is none.

    Args:
        argv: the arguments after the program name; ``sys.argv[1:]`` when None.

    Returns:
        The process exit status. ``--help`` and a bad GUI option exit through argparse
        (``SystemExit`` 0 and 2).
    """
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in SUBCOMMANDS:
        return headless(SUBCOMMANDS[args[0]], args[1:])
    if args and args[0] in ("-V", "--version"):
        from app import __version__

        print(f"a2a-workbench {__version__}")
        return 0
    options = gui_options(args)
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
    return run_gui(options)


def gui_options(argv: list[str]) -> argparse.Namespace:
    """The GUI's options: ``--no-demo``, ``--endpoint URL``, ``--selftest``, ``--verbose``."""
    plain = plain_args(argv)
    return plain if plain is not None else gui_parser().parse_args(argv)


def plain_args(argv: list[str]) -> argparse.Namespace | None:
    """What :func:`gui_parser` makes of ``argv`` when it holds the options spelt out, each
    once (as a launcher passes them), else None: argparse parses the rest (abbreviations,
    ``--endpoint=URL``, errors, help). Building the parser looks up gettext catalogues for
    every message, ~3 ms before the first paint (bench/startup.py)."""
    values: dict[str, Any] = {"no_demo": False, "endpoint": "", "selftest": False}
    values["verbose"] = False
    flags = {"--no-demo": "no_demo", "--selftest": "selftest", "--verbose": "verbose"}
    seen: set[str] = set()
    rest = iter(argv)
    for arg in rest:
        if arg in seen:
            return None
        seen.add(arg)
        if arg in flags:
            values[flags[arg]] = True
        elif arg == "--endpoint":
            url = next(rest, None)
            if url is None or url.startswith("-"):
                return None
            values["endpoint"] = url
        else:
            return None
    return argparse.Namespace(**values)


def gui_parser() -> argparse.ArgumentParser:
    """The ``a2a-workbench`` (GUI) options; ``--help`` also lists the subcommands. Plain
    argparse errors (exit 2): the GUI is not a scripted command."""
    width = max(map(len, SUMMARIES))  # the longest name (generate-server) sets the column
    lines = [f"  {name:<{width}}  {summary}" for name, summary in SUMMARIES.items()]
    p = argparse.ArgumentParser(
        prog="a2a-workbench",
        description="A2A Workbench",
        epilog="commands (a2a-workbench COMMAND --help):\n" + "\n".join(lines),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--no-demo", action="store_true", help="do not start the bundled demo agent")
    p.add_argument("--endpoint", default="", help="open a first tab pointed at this URL")
    p.add_argument(
        "--selftest",
        action="store_true",
        help="start with the demo agent, send the first request, check the answer, quit "
        "(exit 0 when it says 'Sum: 42'); for packaging and CI smoke tests. Runs in a "
        "temporary home: the user's session, settings and history are neither read nor written",
    )
    p.add_argument(
        "--verbose", action="store_true", help="log INFO lines to stderr too (default: warnings)"
    )
    return p


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
