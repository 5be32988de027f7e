"""The resubscribe gap check: after a dropped stream and a resubscription, did the client
get everything the task holds? (:mod:`app.protocol.stream.gaps`, docs/PROTOCOL.md §9.4.)

A stream of a task is dropped after its first event, the task is resubscribed to at once
(SubscribeToTask; 0.3 ``tasks/resubscribe``), and a GetTask snapshot afterwards is compared
with every event both connections delivered. A resubscription starts with the current Task
(1.0 §3.1.6), so nothing the snapshot holds should be missing. Checked once per protocol
version, over its first interface.
"""

from __future__ import annotations

from app.check.check_model import CheckArea
from app.check.context import CheckContext, task_of
from app.check.spec import CheckSpec, Scope, Verdict, failed, not_applicable, passed, skipped
from app.check.target import Target
from app.protocol.methods.catalog import MethodRole, TemplateContext
from app.protocol.stream.gaps import find_gaps
from app.protocol.stream.stream_items import ItemKind

GAP_TASK_TEXT = "stream 4 150"
"""A task that runs long enough (≈ 0.6 s on the demo and test peers) to be resubscribed."""


async def resubscribe_gaps(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    if ctx.view.capabilities.streaming is not True:
        return not_applicable("the card does not claim streaming")
    first = await ctx.role_call(
        target, MethodRole.STREAM, TemplateContext(text=GAP_TASK_TEXT), drop_after=1
    )
    info = first.infos[0] if first.infos else None
    if info is None or info.kind is not ItemKind.TASK or not info.task_id:
        return skipped(f"the stream did not begin with a Task: {first.describe()}")
    task_id = info.task_id
    again = await ctx.role_call(target, MethodRole.SUBSCRIBE, TemplateContext(task_id=task_id))
    if not again.items:
        return skipped(f"the task ended before the resubscription: {again.describe()}")
    snapshot = await ctx.role_call(target, MethodRole.GET, TemplateContext(task_id=task_id))
    task = task_of(snapshot.value)
    if task is None:
        return failed(f"GetTask of {task_id} gave no Task: {snapshot.describe()}")
    seen = [item.json for item in (*first.items, *again.items)]
    gaps = find_gaps(seen, task)
    if gaps:
        return failed(f"after the resubscription to {task_id}, {gaps.describe()}")
    return passed(f"{len(again.items)} events after the resubscription; nothing missed")


CHECKS = (
    CheckSpec(
        "gaps.resubscribe",
        CheckArea.GAPS,
        "a resubscription delivers everything the task holds",
        "A2A 1.0 §3.1.6, §3.5.2",
        "A2A 0.3 §7.9",
        resubscribe_gaps,
        Scope.VERSION,
        tck="Streaming capability (resubscribe)",
    ),
)
