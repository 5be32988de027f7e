"""Core checks: a send returns a Task or Message of the right shape, GetTask returns that
task, ListTasks pages consistently (1.0)."""

from __future__ import annotations

from typing import Any

from app.check.check_model import CheckArea
from app.check.context import CheckContext, message_of, task_of, task_state
from app.check.spec import CheckSpec, Verdict, failed, not_applicable, passed, skipped
from app.check.target import TASK_NOT_CANCELABLE, Target
from app.protocol.methods.catalog import MethodRole, TemplateContext, method_for_role
from app.protocol.methods.parts import Dialect, dialect_of


def _parts_key(target: Target) -> str:
    # 0.3 REST and gRPC speak the 0.3 proto, whose Message holds `content` (PROTOCOL.md §5.2).
    if dialect_of(target.version, target.binding) is Dialect.V03_PROTO:
        return "content"
    return "parts"


def shape_problems(target: Target, value: Any) -> list[str]:
    """What a send result lacks to be a Task or a Message (the fields a client needs)."""
    task = task_of(value)
    if task is not None:
        missing = [name for name in ("id", "contextId") if not isinstance(task.get(name), str)]
        problems = [f"the Task has no {name}" for name in missing]
        if not task_state(task):
            problems.append("the Task has no known status.state")
        return problems
    message = message_of(value)
    if message is not None:
        problems = []
        if not isinstance(message.get("messageId"), str):
            problems.append("the Message has no messageId")
        if not message.get("role"):
            problems.append("the Message has no role")
        if not isinstance(message.get(_parts_key(target)), list):
            problems.append(f"the Message has no {_parts_key(target)} list")
        return problems
    return ["the result is neither a Task nor a Message"]


async def send_message(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    call = await ctx.first_send(target)
    if not call.ok:
        return failed(f"the send failed: {call.describe()}")
    problems = shape_problems(target, call.value)
    if problems:
        return failed("; ".join(problems))
    kind = "Task" if task_of(call.value) is not None else "Message"
    return passed(f"answered with a {kind}")


async def finished_task(ctx: CheckContext, target: Target) -> tuple[dict[str, Any] | None, str]:
    """The task ``task_text`` created, or why there is none (the skip reason)."""
    call = await ctx.task_send(target)
    if not call.ok:
        return None, f"the send of {ctx.task_text!r} failed: {call.describe()}"
    task = task_of(call.value)
    if task is None or not isinstance(task.get("id"), str):
        return None, f"the agent answered {ctx.task_text!r} without a Task; nothing to get"
    return task, ""


async def get_task(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    task, why = await finished_task(ctx, target)
    if task is None:
        return skipped(why)
    call = await ctx.get_task(target, task["id"])
    if not call.ok:
        return failed(f"GetTask of {task['id']} failed: {call.describe()}")
    got = task_of(call.value)
    if got is None:
        return failed("GetTask did not answer with a Task")
    if got.get("id") != task["id"]:
        return failed(f"GetTask answered task {got.get('id')!r}, not {task['id']!r}")
    if not task_state(got):
        return failed("the Task GetTask returned has no known status.state")
    return passed(f"task {task['id']} is {task_state(got)}")


RUNNING_TASK_TEXT = "stream 20 100"
"""A task that runs ≈ 2 s on the demo and test peers: long enough to be cancelled. A generic
agent may finish it at once: then there is nothing running to cancel (n/a)."""

_FINISHED = ("completed", "failed", "rejected")


def non_blocking(target: Target, text: str) -> dict[str, Any]:
    """A send that returns as soon as the task exists (1.0 ``returnImmediately``, 0.3
    ``blocking: false``), so the task is one this check controls."""
    spec = method_for_role(target.version, MethodRole.SEND)
    params: dict[str, Any] = spec.template(target.binding, TemplateContext(text=text))
    if target.v1:
        params["configuration"] = {"returnImmediately": True}
    else:
        params["configuration"] = {"blocking": False}
    return params


async def cancel_task(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    method = method_for_role(target.version, MethodRole.SEND).name
    sent = await ctx.call(target, method, params=non_blocking(target, RUNNING_TASK_TEXT))
    if not sent.ok:
        return skipped(f"no running task to cancel: {sent.describe()}")
    task = task_of(sent.value)
    if task is None or not isinstance(task.get("id"), str):
        return not_applicable(
            f"the agent answered {RUNNING_TASK_TEXT!r} with a Message: no task to cancel"
        )
    if task_state(task) in _FINISHED:
        return not_applicable(
            f"the agent finished {RUNNING_TASK_TEXT!r} before a non-blocking send returned "
            f"(task {task['id']} is {task_state(task)}): nothing running to cancel"
        )
    call = await ctx.role_call(target, MethodRole.CANCEL, TemplateContext(task_id=task["id"]))
    got = task_of(call.value)
    if call.ok and got is not None and task_state(got) in _FINISHED:
        return not_applicable(
            f"task {task['id']} was {task_state(got)} before the cancel landed (the agent ran "
            f"{RUNNING_TASK_TEXT!r} as a short task)"
        )
    if not call.ok and ctx.refused_as(target, call, TASK_NOT_CANCELABLE):
        # Right for a task that finished meanwhile: GetTask says whether it had.
        now = await ctx.role_call(target, MethodRole.GET, TemplateContext(task_id=task["id"]))
        state = task_state(task_of(now.value) or {})
        if state in _FINISHED:
            return not_applicable(
                f"task {task['id']} was {state} before the cancel landed (TaskNotCancelable "
                "is the right answer then)"
            )
        return failed(
            f"CancelTask of task {task['id']}, {state or 'in no known state'}, was refused: "
            f"{call.describe()}"
        )
    if not call.ok:
        return failed(f"CancelTask of a running task failed: {call.describe()}")
    if got is None:
        return failed("CancelTask did not answer with the Task")
    if got.get("id") != task["id"]:
        return failed(f"CancelTask answered task {got.get('id')!r}, not {task['id']!r}")
    if task_state(got) != "canceled":
        return failed(f"after CancelTask the task is {task_state(got) or 'in no known state'}")
    return passed(f"task {task['id']} canceled")


def _tasks_page(value: Any) -> tuple[list[Any], str] | None:
    if not isinstance(value, dict) or not isinstance(value.get("tasks", []), list):
        return None
    token = value.get("nextPageToken", "")
    return list(value.get("tasks", [])), token if isinstance(token, str) else ""


async def list_tasks(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    if not target.v1:
        return not_applicable("ListTasks is a 1.0 method")
    # At least one task to list (the store may hold more: then a page of one has a next).
    await finished_task(ctx, target)
    first = await ctx.call(target, "ListTasks", params={"pageSize": 1})
    if not first.ok:
        return failed(f"ListTasks failed: {first.describe()}")
    page = _tasks_page(first.value)
    if page is None:
        return failed("ListTasks did not answer with a tasks list")
    tasks, token = page
    if len(tasks) > 1:
        return failed(f"pageSize 1 answered {len(tasks)} tasks")
    if not token:
        if tasks:
            return passed("one page of at most one task (no next page token)")
        return passed("no tasks listed")
    second = await ctx.call(target, "ListTasks", params={"pageSize": 1, "pageToken": token})
    if not second.ok:
        return failed(f"ListTasks with the nextPageToken failed: {second.describe()}")
    next_page = _tasks_page(second.value)
    if next_page is None:
        return failed("the second page is not a tasks list")
    ids = {t.get("id") for t in tasks if isinstance(t, dict)}
    again = [t.get("id") for t in next_page[0] if isinstance(t, dict) and t.get("id") in ids]
    if again:
        return failed(f"the next page repeats task {again[0]}")
    return passed("pages of one task follow each other without repeats")


CHECKS = (
    CheckSpec(
        "core.send-message",
        CheckArea.CORE,
        "a send returns a Task or a Message of the right shape",
        "A2A 1.0 §3.1.1, §9.4.1",
        "A2A 0.3 §7.1",
        send_message,
        tck=(
            "CORE-SEND-001",
            "CORE-MULTI-001a",
            "CORE-MULTI-003",
            "DM-TASK-001",
            "DM-TASK-002",
            "DM-MSG-001",
            "DM-MSG-002",
            "DM-STATUS-001",
        ),
    ),
    CheckSpec(
        "core.get-task",
        CheckArea.CORE,
        "GetTask returns the task a send created",
        "A2A 1.0 §3.1.3",
        "A2A 0.3 §7.3",
        get_task,
        tck=("CORE-GET-001",),
    ),
    CheckSpec(
        "core.cancel-task",
        CheckArea.CORE,
        "CancelTask of a running task cancels it",
        "A2A 1.0 §3.1.5",
        "A2A 0.3 §7.4",
        cancel_task,
        tck=("CORE-CANCEL-001", "CORE-EXECUTION-MODE-002"),
    ),
    CheckSpec(
        "core.list-tasks",
        CheckArea.CORE,
        "ListTasks pages consistently",
        "A2A 1.0 §3.1.4",
        "",
        list_tasks,
        tck=("CORE-LIST-002", "CORE-LIST-004"),
    ),
)
