"""Error checks: each failure answered with the right A2A error in the binding's form
(docs/PROTOCOL.md §8.3): unknown task, unknown method, invalid params, malformed JSON-RPC,
cancelling a finished task."""

from __future__ import annotations

import json

from app.check.calls import CallResult
from app.check.check_model import CheckArea
from app.check.checks_core import finished_task
from app.check.context import UNKNOWN_TASK_ID, CheckContext, task_of, task_state
from app.check.spec import CheckSpec, Verdict, failed, not_applicable, passed, skipped, warned
from app.check.target import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    TASK_NOT_CANCELABLE,
    TASK_NOT_FOUND,
    A2AErrorForm,
    Target,
    answered,
    expected_form,
    table_note,
    what_differed,
)
from app.protocol.bindings import ErrorForm, Payload, traits
from app.protocol.methods.catalog import MethodRole, TemplateContext, method_for_role

_STANDARD = {
    -32700: "the body is not JSON",
    -32600: "the JSON sent is not a valid Request object",
    -32601: "the method does not exist",
    -32602: "invalid method parameters",
    -32603: "an internal error",
}
"""JSON-RPC 2.0 §5.1's standard codes and what each says."""


def judge(
    ctx: CheckContext, target: Target, call: CallResult, form: A2AErrorForm, what: str
) -> Verdict:
    """Pass when ``call`` was refused with ``form`` in the binding's form (either error
    table; which one is noted); warn when a JSON-RPC rule got a neighbouring standard code
    (the request was refused, only the code is off: a known SDK habit, docs/CHECKS.md)."""
    want = expected_form(target.binding, form)
    error = call.rpc_error
    tables = ctx.refused_as(target, call, form)
    if error is not None and tables:
        return passed(
            f"{what}: {answered(target.binding, error)} ({form.reason}){table_note(tables)}"
        )
    if (
        error is not None
        and traits(target.binding).errors is ErrorForm.JSONRPC
        and form.jsonrpc in _STANDARD
        and isinstance(error.code, int)
        and error.code in _STANDARD
    ):
        return warned(
            f"{what}: refused with {error.code} ({_STANDARD[error.code]}) where JSON-RPC 2.0 "
            f"§5.1 says {form.jsonrpc} ({_STANDARD[form.jsonrpc]}): {call.describe()}"
        )
    if call.ok:
        return failed(f"{what} was answered as a success; expected {want}")
    differed = what_differed(target.binding, form, error, call.body) if error else ""
    return failed(
        f"{what}: expected {want}, got {call.describe()}" + (f" ({differed})" if differed else "")
    )


async def task_not_found(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    call = await ctx.get_unknown(target)
    return judge(ctx, target, call, TASK_NOT_FOUND, "GetTask of an unknown task id")


async def cancel_not_found(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    call = await ctx.role_call(target, MethodRole.CANCEL, TemplateContext(task_id=UNKNOWN_TASK_ID))
    return judge(ctx, target, call, TASK_NOT_FOUND, "CancelTask of an unknown task id")


async def send_unknown_task(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    call = await ctx.role_call(
        target,
        MethodRole.SEND,
        TemplateContext(text=ctx.message_text, task_id=UNKNOWN_TASK_ID),
    )
    return judge(ctx, target, call, TASK_NOT_FOUND, "a message continuing an unknown task")


async def not_cancelable(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    task, why = await finished_task(ctx, target)
    if task is None:
        return skipped(why)
    state = task_state(task)
    if state not in ("completed", "failed", "rejected"):
        return skipped(f"the task is {state or 'in no known state'}, not finished")
    call = await ctx.cancel_finished(target, task["id"])
    got = task_of(call.value)
    if call.ok and got is not None and task_state(got) == state:
        # Cancel is idempotent (1.0 §3.3.1): answering with the unchanged task is lenient
        # but leaves the task as it was; the spec asks for TaskNotCancelable.
        return failed(
            f"CancelTask of a {state} task answered with the task; expected "
            f"{expected_form(target.binding, TASK_NOT_CANCELABLE)}"
        )
    return judge(ctx, target, call, TASK_NOT_CANCELABLE, f"CancelTask of a {state} task")


INVALID_STATE = "TASK_STATE_NOT_A_STATE"
"""A ListTasks ``status`` filter no TaskState has."""
INVALID_STATE_NUMBER = 99
"""The same for a typed gRPC message, which cannot carry an unknown name (proto3 enums are
open: an unknown number is carried as is)."""


async def list_filter(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    if not target.v1:
        return not_applicable("ListTasks is a 1.0 method")
    typed = traits(target.binding).payload is Payload.PROTO
    status: str | int = INVALID_STATE_NUMBER if typed else INVALID_STATE
    call = await ctx.call(target, "ListTasks", params={"status": status, "pageSize": 1})
    return judge(ctx, target, call, INVALID_PARAMS, f"ListTasks filtered by status {status!r}")


def _jsonrpc_only(target: Target) -> Verdict | None:
    # The JSON-RPC rules send broken envelopes and expect JSON-RPC error codes.
    found = traits(target.binding)
    if not found.payload.envelope:
        return not_applicable(f"a JSON-RPC rule: {found.label} requests have no JSON-RPC envelope")
    return None


async def method_not_found(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    if (why := _jsonrpc_only(target)) is not None:
        return why
    body = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "a2a-workbench/noSuchMethod", "params": {}}
    )
    call = await ctx.call(target, "a2a-workbench/noSuchMethod", raw_body=body)
    return judge(ctx, target, call, METHOD_NOT_FOUND, "an unknown method")


async def invalid_params(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    found = traits(target.binding)
    if found.payload is Payload.PROTO:
        return not_applicable(
            f"{found.a_label} request is a typed message: it cannot carry ill-typed params"
        )
    method = method_for_role(target.version, MethodRole.SEND).name
    params = {"message": "not a message object"}
    call = await ctx.call(target, method, params=params)
    return judge(ctx, target, call, INVALID_PARAMS, f"{method} with a string as the message")


async def invalid_request(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    if (why := _jsonrpc_only(target)) is not None:
        return why
    method = method_for_role(target.version, MethodRole.SEND).name
    call = await ctx.call(target, method, raw_body='{"jsonrpc": "2.0", "id": 1, "params": {}}')
    return judge(ctx, target, call, INVALID_REQUEST, "a request object without a method")


async def parse_error(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    if (why := _jsonrpc_only(target)) is not None:
        return why
    method = method_for_role(target.version, MethodRole.SEND).name
    # Cut off mid-object, as a dropped write or a broken client would send it.
    body = '{"jsonrpc": "2.0", "id": 1, "method": ' + json.dumps(method) + ', "params": {'
    call = await ctx.call(target, method, raw_body=body)
    return judge(ctx, target, call, PARSE_ERROR, "a body that is not JSON")


CHECKS = (
    CheckSpec(
        "errors.task-not-found",
        CheckArea.ERRORS,
        "GetTask of an unknown task id gets TaskNotFound",
        "A2A 1.0 §3.1.3, §5.4",
        "A2A 0.3 §7.3, §8.2",
        task_not_found,
        tck=("CORE-GET-002", "JSONRPC-SSE-002", "HTTP_JSON-STATUS-001", "GRPC-ERR-002"),
    ),
    CheckSpec(
        "errors.cancel-not-found",
        CheckArea.ERRORS,
        "CancelTask of an unknown task id gets TaskNotFound",
        "A2A 1.0 §3.1.5, §5.4",
        "A2A 0.3 §7.4, §8.2",
        cancel_not_found,
        tck=("CORE-CANCEL-003", "JSONRPC-SSE-002", "HTTP_JSON-STATUS-001", "GRPC-ERR-002"),
    ),
    CheckSpec(
        "errors.send-unknown-task",
        CheckArea.ERRORS,
        "a message continuing an unknown task gets TaskNotFound",
        "A2A 1.0 §3.1.1, §5.4",
        "A2A 0.3 §7.1, §8.2",
        send_unknown_task,
        tck=("CORE-MULTI-004", "JSONRPC-SSE-002", "HTTP_JSON-STATUS-001", "GRPC-ERR-002"),
    ),
    CheckSpec(
        "errors.not-cancelable",
        CheckArea.ERRORS,
        "CancelTask of a finished task gets TaskNotCancelable",
        "A2A 1.0 §3.1.5, §5.4",
        "A2A 0.3 §7.4, §8.2",
        not_cancelable,
        tck=("CORE-CANCEL-002", "JSONRPC-SSE-002", "HTTP_JSON-STATUS-001", "GRPC-ERR-002"),
    ),
    CheckSpec(
        "errors.list-filter",
        CheckArea.ERRORS,
        "ListTasks with an invalid status filter gets invalid params",
        "A2A 1.0 §3.1.4, §3.3.2",
        "",
        list_filter,
        tck=("CORE-ERR-002",),
    ),
    CheckSpec(
        "errors.method-not-found",
        CheckArea.ERRORS,
        "an unknown method gets -32601",
        "A2A 1.0 §9.5; JSON-RPC 2.0 §5.1",
        "A2A 0.3 §8.1",
        method_not_found,
        tck=("CORE-ERR-001", "JSONRPC-ERR-001"),
    ),
    CheckSpec(
        "errors.invalid-params",
        CheckArea.ERRORS,
        "invalid params get -32602 (REST: 400)",
        "A2A 1.0 §9.5, §11.6",
        "A2A 0.3 §8.1",
        invalid_params,
        tck=("CORE-ERR-002", "JSONRPC-ERR-001", "HTTP_JSON-ERR-001"),
    ),
    CheckSpec(
        "errors.invalid-request",
        CheckArea.ERRORS,
        "a request without a method gets -32600",
        "A2A 1.0 §9.5; JSON-RPC 2.0 §5.1",
        "A2A 0.3 §8.1",
        invalid_request,
        tck=("CORE-ERR-002", "JSONRPC-FMT-001", "JSONRPC-ERR-001"),
    ),
    CheckSpec(
        "errors.parse-error",
        CheckArea.ERRORS,
        "a body that is not JSON gets -32700",
        "A2A 1.0 §9.5; JSON-RPC 2.0 §5.1",
        "A2A 0.3 §8.1",
        parse_error,
        tck=("CORE-ERR-002", "JSONRPC-ERR-001"),
    ),
)
