"""Pre-send validation against the generated request schemas."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.protocol.methods.body_shape import ShapeIssue
from app.protocol.methods.catalog import TemplateContext, methods_for
from app.protocol.request import render_body
from app.protocol.types import Binding, ProtocolVersion
from app.spec.request_validation import check_request_body, schema_problems

V1, V03 = ProtocolVersion.V1_0, ProtocolVersion.V0_3


@pytest.mark.parametrize("version", list(ProtocolVersion))
@pytest.mark.parametrize("binding", list(Binding))
def test_every_template_passes_its_schema(version: ProtocolVersion, binding: Binding) -> None:
    ctx = TemplateContext(task_id="t-1", context_id="c-1")
    for spec in methods_for(version):
        if spec.supports(binding):
            body = render_body(spec, binding, ctx)
            assert check_request_body(version, binding, spec.name, body) == [], (spec.name, body)


@pytest.mark.parametrize(
    ("version", "binding", "method", "body", "path"),
    [
        (V1, Binding.JSONRPC, "SendMessage",
         {"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
          "params": {"message": {"messageId": "m", "parts": [{"text": "hi"}]}}},
         "$.params.message"),
        (V1, Binding.HTTP_JSON, "SendMessage",
         {"message": {"messageId": "m", "role": "ROLE_USER", "parts": "hi"}},
         "$.message.parts"),
        (V1, Binding.GRPC, "SendMessage",
         {"message": {"messageId": "m", "role": "ROLE_HUMAN", "parts": []}},
         "$.message.role"),
        (V03, Binding.JSONRPC, "message/send",
         {"jsonrpc": "2.0", "id": 1, "method": "message/send",
          "params": {"message": {"kind": "message", "messageId": "m",
                                 "parts": [{"kind": "text", "text": "x"}]}}},
         "$.params.message"),
    ],
)  # fmt: skip
def test_violations_are_listed_by_json_path(
    version: ProtocolVersion, binding: Binding, method: str, body: object, path: str
) -> None:
    problems = schema_problems(version, binding, method, json.dumps(body))
    assert problems and all(p.issue is ShapeIssue.SCHEMA_VIOLATION for p in problems)
    assert path in [p.path for p in problems]


def test_unknown_methods_and_non_json_are_left_to_other_checks() -> None:
    assert schema_problems(V1, Binding.JSONRPC, "NoSuchMethod", "{}") == []
    assert schema_problems(V1, Binding.JSONRPC, "SendMessage", "{not json") == []
    deep = "[" * 100000 + "]" * 100000
    assert schema_problems(V1, Binding.HTTP_JSON, "SendMessage", deep) == []  # not parsed


def test_the_cli_holds_a_body_without_role_back_unless_forced(tmp_path: Path) -> None:
    body = tmp_path / "body.json"
    body.write_text(json.dumps({"message": {"messageId": "m", "parts": [{"text": "hi"}]}}))
    args = [sys.executable, "-m", "app", "send", "http://127.0.0.1:9/", "--method",
            "SendMessage", "--body", str(body), "--timeout", "1"]  # fmt: skip
    held = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert held.returncode == 3
    assert "$.params.message: 'role' is a required property" in held.stdout
    forced = subprocess.run([*args, "--force"], capture_output=True, text=True, timeout=60)
    assert forced.returncode == 2  # sent: nothing listens on port 9
