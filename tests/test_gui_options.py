"""The GUI's options are read without argparse when spelt out plainly (the first paint
does not wait for the parser, app/__main__.py), with argparse's result."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from app.__main__ import gui_options, gui_parser, plain_args

REPO = Path(__file__).resolve().parent.parent

PLAIN = [
    [],
    ["--no-demo"],
    ["--selftest"],
    ["--endpoint", "http://127.0.0.1:9999/"],
    ["--endpoint", ""],
    ["--no-demo", "--endpoint", "http://h/", "--selftest"],
    ["--verbose"],
    ["--selftest", "--verbose", "--no-demo"],
    ["--endpoint", "http://h/", "--no-demo"],
]
LEFT_TO_ARGPARSE = [
    ["--no-d"],  # an abbreviation
    ["--endpoint=http://h/"],
    ["--no-demo", "--no-demo"],
    ["--verbose", "--verbose"],
    ["--endpoint", "http://a/", "--endpoint", "http://b/"],
    ["--endpoint", "-x"],
]


@pytest.mark.parametrize("argv", PLAIN)
def test_plain_options_give_what_argparse_gives(argv: list[str]) -> None:
    assert plain_args(argv) == gui_parser().parse_args(argv)
    assert gui_options(argv) == gui_parser().parse_args(argv)


@pytest.mark.parametrize("argv", LEFT_TO_ARGPARSE)
def test_anything_else_is_parsed_by_argparse(argv: list[str]) -> None:
    assert plain_args(argv) is None
    try:
        expected = gui_parser().parse_args(argv)
    except SystemExit:
        with pytest.raises(SystemExit):
            gui_options(argv)
        return
    assert gui_options(argv) == expected


@pytest.mark.parametrize("argv", [["--bogus"], ["--endpoint"], ["stray"]])
def test_a_bad_option_is_still_an_argparse_error(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert plain_args(argv) is None
    with pytest.raises(SystemExit) as exited:
        gui_options(argv)
    assert exited.value.code == 2
    assert "usage: a2a-workbench" in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "status"), [(["--help"], 0), (["--bogus"], 2)])
def test_help_and_bad_options_are_answered_before_qt(argv: list[str], status: int) -> None:
    """The entry point parses the GUI's options itself: neither Qt nor a command is loaded."""
    script = textwrap.dedent(
        """
        import sys
        from app.__main__ import main
        try:
            main(sys.argv[1:])
        finally:
            heavy = ("PySide6", "app.ui", "app.commands.")
            loaded = [m for m in sys.modules if m.startswith(heavy)]
            print("loaded:", loaded, file=sys.stderr)
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, *argv],
        capture_output=True, text=True, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=60,
    )  # fmt: skip
    assert proc.returncode == status, proc.stderr
    assert "loaded: []" in proc.stderr
    if status == 0:
        assert "usage: a2a-workbench" in proc.stdout and "  send " in proc.stdout
        # Every command's description starts in one column (generate-server and
        # push-receiver, longer than the others, pushed theirs out of line).
        commands = proc.stdout.split("commands (a2a-workbench COMMAND --help):\n")[1]
        starts = {len(row) - len(row.lstrip()[row.lstrip().index(" ") :].lstrip())
                  for row in commands.splitlines() if row.strip()}  # fmt: skip
        assert len(starts) == 1, commands
