"""Binding parity: the same logical call over every binding the card lists for a version,
the answers normalised and compared field by field.

JSON-RPC results, REST bodies and gRPC messages differ in envelope and dialect
(docs/PROTOCOL.md §5.2); what a client acts on should not: the kind of answer, the task
state, the artifacts and their text, the A2A error. Ids and timestamps differ legitimately
(each call makes its own task) and are left out.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from app.check.calls import CallResult
from app.check.check_model import CheckArea
from app.check.context import CheckContext, message_of, task_of, task_state
from app.check.spec import CheckSpec, Scope, Verdict, failed, not_applicable, passed, skipped
from app.check.target import (
    TASK_NOT_CANCELABLE,
    TASK_NOT_FOUND,
    A2AErrorForm,
    Target,
    classify,
    matches,
)
from app.protocol.types import Binding

Normal = dict[str, Any]


def _texts(parts: Any) -> list[str]:
    out = []
    for part in parts if isinstance(parts, list) else ():
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            out.append(part["text"])
    return out


def _parts(obj: dict[str, Any]) -> Any:
    return obj.get("parts", obj.get("content"))


def _role(value: Any) -> str:
    text = str(value or "").lower()
    return text.removeprefix("role_")


def normalise(call: CallResult, target: Target, expected: A2AErrorForm | None = None) -> Normal:
    """What a client acts on in ``call``'s answer, in one dialect. An error is named by
    the A2A error it is; ``expected`` settles a status several errors share (HTTP 400)."""
    error = call.rpc_error
    if error is not None:
        if expected is not None and matches(target.binding, expected, error, call.body):
            return {"answer": "error", "error": expected.name}
        return {"answer": "error", "error": classify(target.binding, error, call.body)}
    if not call.ok:
        return {"answer": "failed", "outcome": call.outcome.value}
    task = task_of(call.value)
    if task is not None:
        status = task.get("status") if isinstance(task.get("status"), dict) else {}
        message = status.get("message") if isinstance(status, dict) else None
        artifacts = [
            {"name": a.get("name", ""), "text": _texts(_parts(a))}
            for a in task.get("artifacts", []) or []
            if isinstance(a, dict)
        ]
        return {
            "answer": "task",
            "state": task_state(task),
            "status.message": _texts(_parts(message)) if isinstance(message, dict) else [],
            "artifacts": sorted(artifacts, key=lambda a: str(a["name"])),
        }
    message = message_of(call.value)
    if message is not None:
        return {
            "answer": "message",
            "role": _role(message.get("role")),
            "text": _texts(_parts(message)),
        }
    if _task_list(call.value):
        return {"answer": "task list"}
    return {"answer": "other"}


_LIST_FIELDS = frozenset({"tasks", "nextPageToken", "pageSize", "totalSize"})
"""ListTasksResponse's fields (1.0 §3.1.4)."""


def _task_list(value: Any) -> bool:
    """A ListTasks answer: ProtoJSON omits empty fields, so an empty list over gRPC is
    ``{}`` — empty, not absent (docs/PROTOCOL.md §5.1)."""
    if not isinstance(value, dict) or not set(value) <= _LIST_FIELDS:
        return False
    return isinstance(value.get("tasks", []), list)


def differences(normals: dict[str, Normal]) -> list[str]:
    """One line per field whose value differs between bindings."""
    keys: list[str] = []
    for normal in normals.values():
        keys += [k for k in normal if k not in keys]
    lines = []
    for key in keys:
        values = {name: normal.get(key) for name, normal in normals.items()}
        if len({repr(v) for v in values.values()}) > 1:
            shown = ", ".join(f"{name}: {value!r}" for name, value in values.items())
            lines.append(f"{key}: {shown}")
    return lines


Call = Callable[[CheckContext, Target], Awaitable[CallResult | None]]


def _bindings(ctx: CheckContext, target: Target) -> list[Target]:
    seen: dict[str, Target] = {}
    for t in ctx.targets:
        if t.version is target.version and t.binding.value not in seen:
            seen[t.binding.value] = t
    return list(seen.values())


def _card_bindings(ctx: CheckContext, target: Target) -> set[Binding]:
    """The bindings the card lists for ``target``'s version (that this app speaks), checked
    in this run or not (``--interface``)."""
    return {
        i.known_binding
        for i in ctx.view.interfaces
        if i.known_binding is not None and i.speakable and i.major_minor == target.version.value
    }


async def _compare(
    ctx: CheckContext,
    target: Target | None,
    call: Call,
    what: str,
    expected: A2AErrorForm | None = None,
) -> Verdict:
    assert target is not None
    targets = _bindings(ctx, target)
    if len(targets) < 2:
        listed = len(_card_bindings(ctx, target))
        if listed < 2:
            return not_applicable(f"the card lists one binding for {target.version.value}")
        return skipped(
            f"one of the card's {listed} bindings for {target.version.value} was checked"
        )
    normals: dict[str, Normal] = {}
    for t in targets:
        result = await call(ctx, t)
        if result is None:
            return skipped(f"no task to {what} over {t.binding.value}")
        normals[t.binding.value] = normalise(result, t, expected)
    lines = differences(normals)
    if lines:
        return failed(f"{what} differs between bindings:\n" + "\n".join(lines))
    first = next(iter(normals.values()))
    return passed(f"{what}: every binding answered {first.get('answer')}")


async def _send(ctx: CheckContext, t: Target) -> CallResult:
    return await ctx.task_send(t)


async def _task_id(ctx: CheckContext, t: Target) -> str | None:
    task = task_of((await ctx.task_send(t)).value)
    return task.get("id") if task is not None and isinstance(task.get("id"), str) else None


async def _get(ctx: CheckContext, t: Target) -> CallResult | None:
    task_id = await _task_id(ctx, t)
    return None if task_id is None else await ctx.get_task(t, task_id)


async def _cancel(ctx: CheckContext, t: Target) -> CallResult | None:
    task_id = await _task_id(ctx, t)
    return None if task_id is None else await ctx.cancel_finished(t, task_id)


async def _unknown(ctx: CheckContext, t: Target) -> CallResult:
    return await ctx.get_unknown(t)


async def _list(ctx: CheckContext, t: Target) -> CallResult:
    return await ctx.once("list", t, lambda: ctx.call(t, "ListTasks", params={"pageSize": 1}))


async def parity_send(ctx: CheckContext, target: Target | None) -> Verdict:
    return await _compare(ctx, target, _send, "the send")


async def parity_get(ctx: CheckContext, target: Target | None) -> Verdict:
    return await _compare(ctx, target, _get, "GetTask")


async def parity_cancel(ctx: CheckContext, target: Target | None) -> Verdict:
    return await _compare(
        ctx, target, _cancel, "CancelTask of a finished task", TASK_NOT_CANCELABLE
    )


async def parity_error(ctx: CheckContext, target: Target | None) -> Verdict:
    return await _compare(ctx, target, _unknown, "GetTask of an unknown task", TASK_NOT_FOUND)


async def parity_list(ctx: CheckContext, target: Target | None) -> Verdict:
    if target is not None and not target.v1:
        return not_applicable("ListTasks is a 1.0 method")
    return await _compare(ctx, target, _list, "ListTasks")


def _spec(
    check_id: str, title: str, rule: Any, v1: str, v03: str, tck: tuple[str, ...]
) -> CheckSpec:
    return CheckSpec(check_id, CheckArea.PARITY, title, v1, v03, rule, Scope.VERSION, tck=tck)


_SAME_RESULTS = ("BIND-EQUIV-002",)
"""All bindings return semantically equivalent results (1.0 §5.1)."""
_SAME_ERRORS = ("BIND-EQUIV-003",)
"""All bindings map errors consistently."""

CHECKS = (
    _spec("parity.send", "the send answers alike on every binding", parity_send,
          "A2A 1.0 §5.3, §3.1.1", "A2A 0.3 §3.4", ("BIND-EQUIV-001", *_SAME_RESULTS)),
    _spec("parity.get-task", "GetTask answers alike on every binding", parity_get,
          "A2A 1.0 §5.3, §3.1.3", "A2A 0.3 §3.4", _SAME_RESULTS),
    _spec("parity.cancel", "cancelling a finished task answers alike on every binding",
          parity_cancel, "A2A 1.0 §5.3, §3.1.5", "A2A 0.3 §3.4", _SAME_ERRORS),
    _spec("parity.task-not-found", "an unknown task gets the same error on every binding",
          parity_error, "A2A 1.0 §5.3, §5.4", "A2A 0.3 §3.4", _SAME_ERRORS),
    _spec("parity.list-tasks", "ListTasks answers alike on every binding", parity_list,
          "A2A 1.0 §5.3, §3.1.4", "", _SAME_RESULTS),
)  # fmt: skip
