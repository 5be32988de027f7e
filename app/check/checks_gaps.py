"""The resubscribe gap check: after a dropped stream and a resubscription, did the client
get everything the task holds? (:mod:`app.protocol.stream.gaps`, docs/PROTOCOL.md §9.4.)

A stream of a task is dropped after its first event, the task is resubscribed to at once
(SubscribeToTask; 0.3 ``tasks/resubscribe``), and a GetTask snapshot afterwards is compared
with every event both connections delivered. A resubscription starts with the current Task
(1.0 §3.1.6), so nothing the snapshot holds should be missing. Checked once per protocol
version, over its first interface.
"""

from __future__ import annotations

from app.check.calls import CallResult
from app.check.check_model import CheckArea
from app.check.context import CheckContext, task_of, task_state
from app.check.spec import CheckSpec, Scope, Verdict, failed, not_applicable, passed, skipped
from app.check.target import Target
from app.protocol.events import StreamItem
from app.protocol.methods.catalog import MethodRole, TemplateContext
from app.protocol.stream.gaps import find_gaps
from app.protocol.stream.stream_items import ItemKind

GAP_TASK_TEXT = "stream 4 150"
"""A task that runs long enough (≈ 0.6 s on the demo and test peers) to be resubscribed."""


_FINISHED = ("completed", "failed", "canceled", "rejected")


def _data(call: CallResult) -> list[StreamItem]:
    """The stream's events; an in-stream error (a JSON-RPC error response or an SSE
    ``error`` frame, allowed in place of events) is the server's answer, not an event."""
    return [
        i for i, info in zip(call.items, call.infos, strict=True) if info.kind is not ItemKind.ERROR
    ]


def _refusal(call: CallResult) -> str:
    errors = [info.summary for info in call.infos if info.kind is ItemKind.ERROR]
    return errors[0] if errors else call.describe()


async def resubscribe_gaps(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    if ctx.view.capabilities.streaming is not True:
        return not_applicable("the card does not claim streaming")
    first = await ctx.role_call(
        target, MethodRole.STREAM, TemplateContext(text=GAP_TASK_TEXT), drop_after=1
    )
    info = next((i for i in first.infos if i.kind is not ItemKind.ERROR), None)
    if info is None or info.kind is not ItemKind.TASK or not info.task_id:
        return skipped(f"the stream did not begin with a Task: {first.describe()}")
    task_id = info.task_id
    again = await ctx.role_call(target, MethodRole.SUBSCRIBE, TemplateContext(task_id=task_id))
    events = _data(again)
    snapshot = await ctx.role_call(target, MethodRole.GET, TemplateContext(task_id=task_id))
    task = task_of(snapshot.value)
    if task is None:
        return failed(f"GetTask of {task_id} gave no Task: {snapshot.describe()}")
    if not events:
        if task_state(task) in _FINISHED:
            return not_applicable(
                f"task {task_id} was {task_state(task)} before the resubscription, which the "
                f"agent refused ({_refusal(again)}): a finished task has nothing to resume"
            )
        return failed(
            f"the resubscription to {task_id} ({task_state(task) or 'in no known state'}) "
            f"delivered no event: {_refusal(again)}"
        )
    opening = next(i.kind for i in again.infos if i.kind is not ItemKind.ERROR)
    if target.v1 and opening is not ItemKind.TASK:
        return failed(
            f"the resubscription to {task_id} began with {opening.value}, not the Task "
            "(A2A 1.0 §3.1.6)"
        )
    seen = [item.json for item in (*_data(first), *events)]
    gaps = find_gaps(seen, task)
    if gaps:
        return failed(f"after the resubscription to {task_id}, {gaps.describe()}")
    return passed(f"{len(events)} events after the resubscription; nothing missed")


CHECKS = (
    CheckSpec(
        "gaps.resubscribe",
        CheckArea.GAPS,
        "a resubscription delivers everything the task holds",
        "A2A 1.0 §3.1.6, §3.5.2",
        "A2A 0.3 §7.9",
        resubscribe_gaps,
        Scope.VERSION,
        tck=("STREAM-SUB-001",),
    ),
)
