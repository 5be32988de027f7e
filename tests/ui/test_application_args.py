"""The GUI's options are read without argparse when spelt out plainly (the first paint
does not wait for the parser, app/ui/shell/application.py), with argparse's result."""

from __future__ import annotations

import pytest

from app.commands import SUMMARIES
from app.commands.cli import gui_parser
from app.ui.shell.application import parse_args, plain_args

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
    assert plain_args(argv) == gui_parser(SUMMARIES).parse_args(argv)
    assert parse_args(argv) == gui_parser(SUMMARIES).parse_args(argv)


@pytest.mark.parametrize("argv", LEFT_TO_ARGPARSE)
def test_anything_else_is_parsed_by_argparse(argv: list[str]) -> None:
    assert plain_args(argv) is None
    try:
        expected = gui_parser(SUMMARIES).parse_args(argv)
    except SystemExit:
        with pytest.raises(SystemExit):
            parse_args(argv)
        return
    assert parse_args(argv) == expected


@pytest.mark.parametrize("argv", [["--bogus"], ["--endpoint"], ["stray"]])
def test_a_bad_option_is_still_an_argparse_error(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert plain_args(argv) is None
    with pytest.raises(SystemExit) as exited:
        parse_args(argv)
    assert exited.value.code == 2
    assert "usage: a2a-workbench" in capsys.readouterr().err
