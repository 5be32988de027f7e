"""Body shape checks: every template fits its own tab, and each misfit names its reason."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.protocol.methods.body_shape import ShapeIssue, check_body, expected_shape
from app.protocol.methods.catalog import TemplateContext, methods_for
from app.protocol.request import render_body
from app.protocol.types import Binding, ProtocolVersion

V1, V03 = ProtocolVersion.V1_0, ProtocolVersion.V0_3
RPC, REST, GRPC = Binding.JSONRPC, Binding.HTTP_JSON, Binding.GRPC


def _env(method: str, params: Any) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})


V1_MSG = {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}
V03_MSG = {
    "message": {
        "kind": "message",
        "messageId": "m",
        "role": "user",
        "parts": [{"kind": "text", "text": "hi"}],
    }
}
V03_PROTO_MSG = {"message": {"messageId": "m", "role": "ROLE_USER", "content": [{"text": "hi"}]}}


@pytest.mark.parametrize("version", list(ProtocolVersion))
@pytest.mark.parametrize("binding", list(Binding))
def test_every_template_fits_its_own_tab(version: ProtocolVersion, binding: Binding) -> None:
    ctx = TemplateContext(task_id="t-1", context_id="c-1")
    for spec in methods_for(version):
        if spec.supports(binding):
            body = render_body(spec, binding, ctx)
            assert check_body(version, binding, spec.name, body) == [], (spec.name, body)


CASES = [
    # (version, binding, picker method, body, expected issues)
    (V1, RPC, "SendMessage", "{nope", [ShapeIssue.NOT_JSON]),
    (V1, RPC, "SendMessage", "[1, 2]", [ShapeIssue.NOT_OBJECT]),
    (V1, REST, "SendMessage", _env("SendMessage", V1_MSG),
     [ShapeIssue.ENVELOPE_IN_PROTO_BINDING]),
    (V1, GRPC, "SendMessage", _env("SendMessage", V1_MSG),
     [ShapeIssue.ENVELOPE_IN_PROTO_BINDING]),
    (V1, RPC, "SendMessage", json.dumps(V1_MSG), [ShapeIssue.BARE_OBJECT_IN_JSONRPC]),
    (V1, RPC, "SendMessage", _env("GetTask", V1_MSG), [ShapeIssue.METHOD_MISMATCH]),
    (V1, RPC, "SendMessage",
     json.dumps({"jsonrpc": "1.0", "id": 1, "method": "SendMessage", "params": V1_MSG}),
     [ShapeIssue.BAD_JSONRPC_VERSION]),
    (V1, RPC, "SendMessage", _env("SendMessage", json.loads(_env("SendMessage", V1_MSG))),
     [ShapeIssue.NESTED_ENVELOPE]),
    # A 0.3 message in a 1.0 tab: role, kind on the message, kind on the part.
    (V1, RPC, "SendMessage", _env("SendMessage", V03_MSG),
     [ShapeIssue.WRONG_VERSION_ROLE, ShapeIssue.WRONG_VERSION_PART,
      ShapeIssue.WRONG_VERSION_PART]),
    (V1, REST, "SendMessage",
     json.dumps({"message": {"messageId": "m", "role": "ROLE_USER",
                             "parts": [{"kind": "text", "text": "hi"}]}}),
     [ShapeIssue.WRONG_VERSION_PART]),
    (V1, GRPC, "SendMessage", json.dumps(V03_PROTO_MSG), [ShapeIssue.WRONG_PARTS_FIELD]),
    # A 1.0 message in a 0.3 JSON-RPC tab: ROLE_USER, parts without kind.
    (V03, RPC, "message/send", _env("message/send", V1_MSG),
     [ShapeIssue.WRONG_VERSION_ROLE, ShapeIssue.WRONG_VERSION_PART]),
    (V03, RPC, "message/send", _env("SendMessage", V03_MSG), [ShapeIssue.METHOD_MISMATCH]),
    # 0.3 REST/gRPC want `content`, not `parts`; and no `kind`.
    (V03, REST, "message/send", json.dumps(V1_MSG), [ShapeIssue.WRONG_PARTS_FIELD]),
    (V03, GRPC, "message/send", json.dumps(V03_MSG),
     [ShapeIssue.WRONG_VERSION_ROLE, ShapeIssue.WRONG_PARTS_FIELD,
      ShapeIssue.WRONG_VERSION_PART, ShapeIssue.WRONG_VERSION_PART]),
    (V03, REST, "message/send", json.dumps(V03_PROTO_MSG), []),
    (V03, RPC, "message/send", _env("message/send", V03_MSG), []),
    (V1, REST, "GetTask", json.dumps({"id": "t"}), []),
]  # fmt: skip


@pytest.mark.parametrize(("version", "binding", "method", "body", "issues"), CASES)
def test_shape_problems(
    version: ProtocolVersion, binding: Binding, method: str, body: str, issues: list[ShapeIssue]
) -> None:
    problems = check_body(version, binding, method, body)
    assert [p.issue for p in problems] == issues, [str(p) for p in problems]
    for problem in problems:
        assert problem.message


def test_reasons_are_readable() -> None:
    (mismatch,) = check_body(V1, RPC, "SendMessage", _env("GetTask", V1_MSG))
    assert (
        str(mismatch)
        == 'method: The envelope\'s "method" is "GetTask" but the picker says "SendMessage"'
    )
    problems = check_body(V03, REST, "message/send", json.dumps(V1_MSG))
    assert str(problems[0]) == (
        'message.parts: a 0.3 HTTP+JSON tab expects "content" (the 0.3 proto field), not "parts"'
    )
    (bad,) = check_body(V1, RPC, "SendMessage", '{"a": 1,,}')
    assert "line 1, column 9" in bad.message


def test_expected_shape_names() -> None:
    assert expected_shape(V1, RPC) == "JSON-RPC envelope (1.0)"
    assert expected_shape(V03, REST) == "HTTP+JSON request object (0.3)"
    assert expected_shape(V1, GRPC) == "gRPC request (ProtoJSON, 1.0)"


def test_cli_refuses_a_misfit_body_unless_forced(tmp_path: Any) -> None:
    import subprocess
    import sys
    from pathlib import Path

    from tests.helpers.bad_server import Canned, bad_server

    repo = Path(__file__).resolve().parents[2]
    body = tmp_path / "params.json"
    body.write_text(json.dumps(V03_MSG))  # 0.3 params for a 1.0 SendMessage

    def cli(*extra: str, url: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "app", "send", url, "--method", "SendMessage",
             "--body", str(body), *extra],
            capture_output=True, text=True, cwd=repo, timeout=60,
        )  # fmt: skip

    canned = Canned(body=b'{"jsonrpc": "2.0", "id": null, "result": {}}')
    with bad_server(canned) as url:
        refused = cli(url=url)
        assert refused.returncode == 3
        assert canned.received == []
        record = json.loads(refused.stdout.splitlines()[0])
        assert record["kind"] == "usage"
        assert 'role "user" is the 0.3 JSON-RPC form' in record["message"]
        assert "--force" in refused.stderr

        forced = cli("--force", url=url)
        assert forced.returncode != 3, forced.stdout
        ((_, _, _, sent),) = canned.received
        assert json.loads(sent)["params"] == V03_MSG
