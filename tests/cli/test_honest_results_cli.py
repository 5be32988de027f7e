"""Results that misled, at the command line (issue 29, kind 8), against the demo agent:

- ``send`` holds back a body with a member its method's schema lacks (``--force`` sends it);
- ``send``'s 0.3 push-config *get* and *delete* templates name the config of ``--task-id``,
  which the 0.3 *set* template created: the agent finds it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.cli.test_send import by_event, send

pytestmark = pytest.mark.peer


def test_send_holds_back_an_unknown_member_and_names_the_right_one(
    sdk_peer: dict[str, Any],
) -> None:
    message = {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "ask"}]}
    config = {"pushNotificationConfig": {"url": "http://127.0.0.1:9/"}}
    body = json.dumps({"message": message, "configuration": config})  # the params
    code, lines = send(sdk_peer["jsonrpc_url"], "--method", "SendMessage", "--body", "-",
                       stdin=body)  # fmt: skip
    assert code == 3
    (error,) = by_event(lines, "error")
    assert "$.params.configuration.pushNotificationConfig" in error["message"]
    assert "did you mean 'taskPushNotificationConfig'?" in error["message"]
    assert "--force" in error["message"]
    code, lines = send(sdk_peer["jsonrpc_url"], "--method", "SendMessage", "--body", "-",
                       "--force", stdin=body)  # fmt: skip
    assert code == 0 and by_event(lines, "request")


def test_the_0_3_push_config_get_and_delete_templates_name_the_task_s_config(
    sdk_peer: dict[str, Any],
) -> None:
    # Over JSON-RPC: the Python server's 0.3 REST create is broken (docs/PEERS.md Q19).
    url, v03 = sdk_peer["jsonrpc_url"], ["--version", "0.3"]
    code, lines = send(url, "--method", "message/send", *v03, "--text", "ask")
    assert code == 0, lines
    task_id = by_event(lines, "response")[0]["body"]["result"]["id"]
    code, lines = send(url, "--method", "tasks/pushNotificationConfig/set", *v03,
                       "--task-id", task_id)  # fmt: skip
    assert code == 0, lines
    for method in ("tasks/pushNotificationConfig/get", "tasks/pushNotificationConfig/delete"):
        code, lines = send(url, "--method", method, *v03, "--task-id", task_id)
        assert code == 0, lines  # was: no config "<push-config-id>" (an error answer)
        (request,) = by_event(lines, "request")
        assert request["body"]["params"]["pushNotificationConfigId"] == task_id


def test_the_0_3_proto_templates_name_the_config_their_create_template_makes() -> None:
    from app.protocol.methods.catalog import TemplateContext, find_method
    from app.protocol.types import Binding, ProtocolVersion

    ctx = TemplateContext(task_id="t-1")
    for name in ("tasks/pushNotificationConfig/get", "tasks/pushNotificationConfig/delete"):
        spec = find_method(ProtocolVersion.V0_3, name)
        assert spec is not None
        body = spec.template(Binding.HTTP_JSON, ctx)
        assert body == {"name": "tasks/t-1/pushNotificationConfigs/webhook-1"}
