"""``send --file`` / ``--data``: parts attached from the command line, echoed by the demo."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_send import by_event, send
from tests.protocol.test_parts import PAYLOAD


@pytest.mark.peer
@pytest.mark.parametrize(("version", "method"), [("1.0", "SendMessage"), ("0.3", "message/send")])
def test_files_and_data_parts_go_out_and_come_back(
    sdk_peer: dict[str, Any], tmp_path: Path, version: str, method: str
) -> None:
    blob = tmp_path / "blob.bin"
    blob.write_bytes(PAYLOAD)
    code, lines = send(
        sdk_peer["jsonrpc_url"], "--method", method, "--version", version,
        "--text", "echo parts", "--file", str(blob), "--file", "https://example.invalid/a.pdf",
        "--data", '{"k": "v"}',
    )  # fmt: skip
    assert code == 0, lines
    (response,) = by_event(lines, "response")
    result = response["body"]["result"]
    task = result["task"] if version == "1.0" else result
    (artifact,) = task["artifacts"]
    inline, by_uri, data = artifact["parts"]
    if version == "1.0":
        assert base64.b64decode(inline["raw"]) == PAYLOAD and inline["filename"] == "blob.bin"
        assert by_uri == {
            "url": "https://example.invalid/a.pdf", "mediaType": "application/pdf",
            "filename": "a.pdf",
        }  # fmt: skip
        assert data == {"data": {"k": "v"}}
    else:
        assert base64.b64decode(inline["file"]["bytes"]) == PAYLOAD
        assert by_uri["file"]["uri"] == "https://example.invalid/a.pdf"
        assert data == {"kind": "data", "data": {"k": "v"}}


def test_bad_parts_are_usage_errors(tmp_path: Path) -> None:
    code, _lines = send("http://127.0.0.1:9/", "--method", "SendMessage", "--data", "[1]")
    assert code == 3
    code, _lines = send(
        "http://127.0.0.1:9/", "--method", "SendMessage", "--file", str(tmp_path / "missing")
    )
    assert code == 3
