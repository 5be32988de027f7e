"""The request composer (app/protocol/compose.py): every method × version × binding, and the
other body sources, without a peer."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from app.protocol.bindings import traits
from app.protocol.compose import RequestInputs, compose, compose_body, with_template
from app.protocol.methods.catalog import METHODS, MethodRole, MethodSpec, TemplateContext
from app.protocol.methods.parts import data_attachment
from app.protocol.net.auth import AuthConfig
from app.protocol.request import render_body
from app.protocol.types import Binding, ProtocolVersion
from app.protocol.wire.a2a_errors import UsageError
from app.spec.request_validation import check_request_body

URL = "http://127.0.0.1:9/"
CASES = [
    pytest.param(spec, binding, id=f"{spec.version.value}-{spec.name}-{binding.value}")
    for spec in METHODS
    for binding in Binding
    if spec.supports(binding)
]


def _inputs(spec: MethodSpec, binding: Binding, **fields: Any) -> RequestInputs:
    return RequestInputs(
        spec.name,
        endpoint=URL,
        version=spec.version,
        binding=binding,
        text="12 30",
        task_id="task-1",
        context_id="ctx-1",
        message_id="msg-1",
        request_id=7,
        **fields,
    )


@pytest.mark.parametrize(("spec", "binding"), CASES)
def test_every_method_version_and_binding_composes_a_body_that_fits(
    spec: MethodSpec, binding: Binding
) -> None:
    request = compose(_inputs(spec, binding))
    assert (request.endpoint, request.method, request.version, request.binding) == (
        URL, spec.name, spec.version, binding,
    )  # fmt: skip
    ctx = TemplateContext(text="12 30", task_id="task-1", context_id="ctx-1", message_id="msg-1")
    template = spec.template(binding, ctx)
    body = json.loads(request.body)
    if traits(binding).payload.envelope:
        assert body == {"jsonrpc": "2.0", "id": 7, "method": spec.name, "params": template}
    else:
        assert body == template
    assert check_request_body(spec.version, binding, spec.name, request.body) == []


@pytest.mark.parametrize(("spec", "binding"), CASES)
def test_the_gui_preview_and_the_cli_render_the_same_template(
    spec: MethodSpec, binding: Binding
) -> None:
    # The GUI keeps the template's fill as a TemplateContext (app/ui/request/body_flow.py).
    ctx = TemplateContext(text="hi", task_id="t-9", message_id="m-9")
    inputs = RequestInputs(spec.name, version=spec.version, binding=binding, request_id=1)
    preview = compose_body(with_template(inputs, ctx))
    assert preview == render_body(spec, binding, ctx, 1)
    cli = RequestInputs(spec.name, version=spec.version, binding=binding, request_id=1,
                        text="hi", task_id="t-9", message_id="m-9")  # fmt: skip
    assert compose_body(cli) == preview


def test_parts_follow_the_text_part() -> None:
    inputs = RequestInputs(
        "SendMessage", binding=Binding.HTTP_JSON, text="hi", parts=(data_attachment('{"n": 1}'),)
    )
    parts = json.loads(compose_body(inputs))["message"]["parts"]
    assert parts[0] == {"text": "hi"} and parts[1]["data"] == {"n": 1}


@pytest.mark.parametrize(
    ("method", "version", "configuration"),
    [
        ("SendMessage", ProtocolVersion.V1_0, {"returnImmediately": True}),
        ("message/send", ProtocolVersion.V0_3, {"blocking": False}),
    ],
)
def test_a_send_configuration_is_set_on_the_request_object(
    method: str, version: ProtocolVersion, configuration: dict[str, Any]
) -> None:
    for binding in Binding:
        inputs = RequestInputs(
            method, version=version, binding=binding, configuration=configuration
        )
        body = json.loads(compose_body(inputs))
        obj = body["params"] if traits(binding).payload.envelope else body
        assert obj["configuration"] == configuration
        assert check_request_body(version, binding, method, json.dumps(body)) == []


def test_a_configuration_on_a_method_that_sends_no_message_is_refused() -> None:
    with pytest.raises(UsageError, match="GetTask sends no message"):
        compose_body(RequestInputs("GetTask", configuration={"blocking": False}))


def test_params_as_data_are_wrapped_as_data() -> None:
    inputs = RequestInputs("ListTasks", params={"pageSize": 1}, request_id="r-1")
    assert json.loads(compose_body(inputs)) == {
        "jsonrpc": "2.0", "id": "r-1", "method": "ListTasks", "params": {"pageSize": 1},
    }  # fmt: skip
    rest = replace(inputs, binding=Binding.HTTP_JSON)
    assert compose_body(rest) == '{"pageSize": 1}'
    fresh = json.loads(compose_body(replace(inputs, request_id=None)))
    assert isinstance(fresh["id"], str) and len(fresh["id"]) == 36  # a UUID, as the SDKs send


def test_params_as_text_reach_the_peer_as_typed() -> None:
    params = '  {"message": {"n": 1.50, "z": 1, "a": 2, "s": "\\u00e9"}}\n'
    body = compose_body(RequestInputs("SendMessage", params_json=params, request_id=3))
    assert body == '{"jsonrpc": "2.0", "id": 3, "method": "SendMessage", "params": ' + (
        params.strip() + "}"
    )
    assert json.loads(body)["params"]["message"]["s"] == "é"
    rest = RequestInputs("SendMessage", binding=Binding.GRPC, params_json=params)
    assert compose_body(rest) == params  # the request object itself, untouched


def test_params_text_that_is_not_json_is_a_usage_error_with_its_place() -> None:
    with pytest.raises(UsageError, match=r"not valid JSON \(line 2, column 1\)"):
        compose_body(RequestInputs("SendMessage", params_json='{"a": 1,\n}'))


def test_a_body_is_sent_as_typed_even_malformed_when_asked() -> None:
    request = compose(RequestInputs("SendMessage", endpoint=URL, body="{not json", malformed=True))
    assert request.body == "{not json" and request.malformed


def test_an_unknown_method_has_no_template() -> None:
    with pytest.raises(UsageError, match=r"unknown 0\.3 method 'Nope' \(known: message/send, "):
        compose_body(RequestInputs("Nope", version=ProtocolVersion.V0_3))
    # As a request object or a body it is sent as given (JSON-RPC calls any method).
    assert '"method": "Nope"' in compose_body(RequestInputs("Nope", params={}))


@pytest.mark.parametrize(
    "fields",
    [
        {"params": {}, "body": "{}"},
        {"params_json": "{}", "task_id": "t"},
        {"body": "{}", "parts": (data_attachment("{}"),)},
        {"params": {}, "configuration": {"blocking": False}},
    ],
    ids=["params-and-body", "params-and-ids", "body-and-parts", "params-and-configuration"],
)
def test_one_source_of_body_at_a_time(fields: dict[str, Any]) -> None:
    with pytest.raises(UsageError, match="not several"):
        compose_body(RequestInputs("SendMessage", **fields))


def test_credentials_and_extensions_are_folded_in_and_registered() -> None:
    request = compose(
        RequestInputs(
            "SendMessage",
            endpoint=URL,
            headers=(("X-Trace", "1"),),
            auth=AuthConfig.api_key("X-Key", "key-value-1"),
            extensions=("https://example.invalid/ext",),
            tenant="acme",
            timeout=3.0,
            deadline=9.0,
        )
    )
    headers = dict(request.headers)
    assert headers["X-Trace"] == "1" and headers["X-Key"] == "key-value-1"
    assert headers["A2A-Extensions"] == "https://example.invalid/ext"
    assert request.secret_headers == ("X-Key",) and "key-value-1" in request.secret_values
    assert (request.tenant, request.timeout, request.deadline) == ("acme", 3.0, 9.0)
    assert "acme" not in request.body  # the transports place the tenant, not the composer


def test_every_role_has_a_template_in_each_version_that_has_it() -> None:
    for version in ProtocolVersion:
        for role in MethodRole:
            specs = [m for m in METHODS if m.version is version and m.role is role]
            assert specs or (role, version) == (MethodRole.LIST, ProtocolVersion.V0_3)
            for spec in specs:
                assert compose_body(RequestInputs(spec.name, version=version))
