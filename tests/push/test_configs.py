"""Filling a body's push config with the local receiver's URL and token (every template)."""

from __future__ import annotations

import json

import pytest

from app.protocol.methods.catalog import WEBHOOK_PLACEHOLDER, TemplateContext, find_method
from app.protocol.request import render_body
from app.protocol.types import Binding, ProtocolVersion
from app.push.configs import fill_push_config

URL, TOKEN = "http://127.0.0.1:1234/push", "tok-123456"
V1, V03 = ProtocolVersion.V1_0, ProtocolVersion.V0_3


@pytest.mark.parametrize(
    ("version", "method", "binding"),
    [
        (V1, "CreateTaskPushNotificationConfig", Binding.JSONRPC),
        (V1, "CreateTaskPushNotificationConfig", Binding.HTTP_JSON),
        (V03, "tasks/pushNotificationConfig/set", Binding.JSONRPC),
        (V03, "tasks/pushNotificationConfig/set", Binding.HTTP_JSON),
        (V03, "tasks/pushNotificationConfig/set", Binding.GRPC),
    ],
)
def test_every_push_config_template_is_filled(
    version: ProtocolVersion, method: str, binding: Binding
) -> None:
    spec = find_method(version, method)
    assert spec is not None
    body = json.loads(render_body(spec, binding, TemplateContext(task_id="task-9")))
    filled = fill_push_config(body, URL, TOKEN)
    text = json.dumps(filled.value)
    assert filled.count == 1 and filled.task_ids == ["task-9"]
    assert WEBHOOK_PLACEHOLDER not in text and URL in text and TOKEN in text
    assert WEBHOOK_PLACEHOLDER in json.dumps(body)  # the input is left as it was


def test_a_send_configuration_push_config_is_filled_and_a_message_is_not() -> None:
    body = {"message": {"parts": [{"text": "url"}]}, "configuration": {
        "pushNotificationConfig": {"url": "https://x.invalid/hook"}}}  # fmt: skip
    filled = fill_push_config(body, URL, TOKEN)
    assert filled.value["configuration"]["pushNotificationConfig"] == {"url": URL, "token": TOKEN}
    assert filled.count == 1 and filled.task_ids == []
    assert fill_push_config({"message": {"url": "u"}}, URL, TOKEN).count == 0
