"""``a2a-workbench generate-server``: what it prints, what it writes, its exit statuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.commands import SUBCOMMANDS
from app.commands.generate_server import main
from tests.generate.cards import card_03


def _card_file(tmp_path: Path, card: object | None = None) -> Path:
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card if card is not None else card_03()), encoding="utf-8")
    return path


def test_writes_the_project_and_prints_how_to_start_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "server"
    code = SUBCOMMANDS["generate-server"](
        ["--from", str(_card_file(tmp_path)), "--lang", "python", "--out", str(out),
         "--port", "9100", "--grpc-port", "9101", "--bindings", "JSONRPC,HTTP+JSON"]
    )  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "note: reshaped the 0.3 card into a 1.0 card" in captured.out
    assert "  agent_server/server.py" in captured.out
    assert f"cd {out} && pip install -e ." in captured.out
    assert 'A2A_TOKEN="<32+ random characters>" python -m agent_server' in captured.out
    card = json.loads((out / "agent_server" / "card.json").read_text(encoding="utf-8"))
    assert [i["url"] for i in card["supportedInterfaces"]] == [
        "http://127.0.0.1:9100/",
        "http://127.0.0.1:9100/rest",
    ]
    # A second run into the same directory is refused, before the source is even read.
    again = main(["--from", "nope.json", "--lang", "python", "--out", str(out)])
    assert again == 3
    assert "is not empty; choose another directory or use --force" in capsys.readouterr().err
    assert (
        main(
            ["--from", str(_card_file(tmp_path)), "--lang", "python", "--out", str(out), "--force"]
        )
        == 0
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--from", "missing.json"], "cannot read missing.json"),
        (["--bindings", "SOAP"], "unknown binding 'SOAP'"),
        (["--port", "9000", "--grpc-port", "9000"], "must differ"),
        (["--lang", "cobol"], "invalid choice"),
        (["--var", "secret-without-name"], "--var must look like NAME=VALUE (value not shown)"),
    ],
)
def test_usage_errors_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    base = {"--from": str(_card_file(tmp_path)), "--lang": "python", "--out": str(tmp_path / "o")}
    for flag, value in zip(args[::2], args[1::2], strict=True):
        base[flag] = value
    argv = [item for pair in base.items() for item in pair]
    assert main(argv) == 3
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_a_card_the_validator_rejects_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _card_file(tmp_path, {"description": "no name"})
    assert main(["--from", str(source), "--lang", "python", "--out", str(tmp_path / "o")]) == 3
    err = capsys.readouterr().err
    assert "error: name:" in err and "not valid" in err


def test_unreachable_card_url_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--from", "http://127.0.0.1:1/", "--lang", "python", "--out", str(tmp_path / "o")]
    assert main(argv) == 2
    assert (
        "card not fetched from http://127.0.0.1:1/.well-known/agent-card.json"
        in capsys.readouterr().err
    )
