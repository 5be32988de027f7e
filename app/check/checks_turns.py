"""A task's conversation: how much history an answer carries, a second turn on the same
``contextId``, and a message to a finished task.

- ``core.history-length``: GetTask with ``historyLength`` 1 returns at most one message,
  with 0 none (the field omitted, as ProtoJSON does with an empty list), and a send with
  ``historyLength`` 0 none either (1.0 §3.2.4: the server MUST NOT return more than asked);
- ``core.multi-turn``: a send carrying the ``contextId`` of the task a first send made
  continues that context: the answer carries the same ``contextId``, or the agent refuses
  the request with an error — it MUST NOT answer in a new context (1.0 §3.4.1);
- ``errors.terminal-task``: a message to a completed task gets UnsupportedOperation
  (1.0 §3.1.1: a terminal task takes no more messages).
"""

from __future__ import annotations

from typing import Any

from app.check.check_model import CheckArea
from app.check.checks_core import finished_task
from app.check.checks_errors import judge
from app.check.context import CheckContext, message_of, task_of, task_state
from app.check.spec import (
    CheckSpec,
    Verdict,
    failed,
    not_applicable,
    passed,
    skipped,
    warned,
)
from app.check.target import UNSUPPORTED_OPERATION, Target
from app.protocol.methods.catalog import MethodRole, TemplateContext, method_for_role


def _history(task: dict[str, Any]) -> list[Any]:
    history = task.get("history")
    return history if isinstance(history, list) else []


async def history_length(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    if not target.v1:
        return not_applicable("historyLength's bounds are A2A 1.0's rule (§3.2.4)")
    task, why = await finished_task(ctx, target)
    if task is None:
        return skipped(why)
    get = method_for_role(target.version, MethodRole.GET)
    problems: list[str] = []
    kept: dict[int, int] = {}
    for limit in (1, 0):
        params = get.template(target.binding, TemplateContext(task_id=task["id"]))
        params["historyLength"] = limit
        call = await ctx.call(target, get.name, params=params)
        got = task_of(call.value)
        if not call.ok or got is None:
            return failed(f"GetTask with historyLength {limit} failed: {call.describe()}")
        kept[limit] = len(_history(got))
        if kept[limit] > limit:
            problems.append(f"GetTask with historyLength {limit} returned {kept[limit]} messages")
    send = method_for_role(target.version, MethodRole.SEND)
    params = send.template(target.binding, TemplateContext(text=ctx.task_text))
    params["configuration"] = {"historyLength": 0}
    sent = await ctx.call(target, send.name, params=params)
    answer = task_of(sent.value)
    if sent.ok and answer is not None and _history(answer):
        problems.append(
            f"a send with historyLength 0 answered with {len(_history(answer))} history messages"
        )
    if problems:
        return failed("; ".join(problems) + " (the server MUST NOT return more than asked)")
    return passed(f"historyLength 1 kept {kept[1]} message(s), 0 kept none")


async def multi_turn(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    task, why = await finished_task(ctx, target)
    if task is None:
        return skipped(why)
    context_id = task.get("contextId")
    if not isinstance(context_id, str) or not context_id:
        return skipped("the first task has no contextId to continue")
    call = await ctx.role_call(
        target, MethodRole.SEND, TemplateContext(text=ctx.message_text, context_id=context_id)
    )
    if call.rpc_error is not None:
        return passed(
            f"the agent does not take a client's contextId (it MAY refuse): {call.describe()}"
        )
    answer = task_of(call.value) or message_of(call.value)
    if not call.ok or answer is None:
        return failed(f"the second turn was not answered: {call.describe()}")
    got = answer.get("contextId")
    if got == context_id:
        return passed(f"the second turn stayed in context {context_id}")
    if not got:
        return warned(f"the second turn's answer carries no contextId (sent {context_id})")
    return failed(
        f"the second turn on context {context_id} was answered in context {got}: an agent "
        "that does not accept a contextId MUST refuse it, not start a new one"
    )


async def terminal_task(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    if not target.v1:
        return not_applicable("a rule of A2A 1.0 (§3.1.1)")
    task, why = await finished_task(ctx, target)
    if task is None:
        return skipped(why)
    if task_state(task) not in ("completed", "failed", "canceled", "rejected"):
        return skipped(f"the task is {task_state(task) or 'in no known state'}, not finished")
    context = task.get("contextId")
    context_id = context if isinstance(context, str) else ""
    call = await ctx.role_call(
        target,
        MethodRole.SEND,
        TemplateContext(text=ctx.message_text, task_id=task["id"], context_id=context_id),
    )
    return judge(
        ctx, target, call, UNSUPPORTED_OPERATION, f"a message to finished task {task['id']}"
    )


CHECKS = (
    CheckSpec(
        "core.history-length",
        CheckArea.CORE,
        "historyLength bounds the history an answer carries",
        "A2A 1.0 §3.2.4",
        "",
        history_length,
        tck=("CORE-HIST-001", "CORE-HIST-002", "CORE-HIST-003"),
    ),
    CheckSpec(
        "core.multi-turn",
        CheckArea.CORE,
        "a second turn on the same contextId stays in that context",
        "A2A 1.0 §3.4.1",
        "A2A 0.3 §6.4",
        multi_turn,
        tck=("CORE-MULTI-002", "CORE-MULTI-002a"),
    ),
    CheckSpec(
        "errors.terminal-task",
        CheckArea.ERRORS,
        "a message to a finished task gets UnsupportedOperation",
        "A2A 1.0 §3.1.1, §5.4",
        "",
        terminal_task,
        tck=("CORE-SEND-002", "JSONRPC-SSE-002", "HTTP_JSON-STATUS-001", "GRPC-ERR-002"),
    ),
)
