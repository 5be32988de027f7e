"""Streaming checks: what ``capabilities.streaming`` claims against what the stream does.

``streaming: true``: a stream of the task starts with the Task (1.0; or is one Message),
passes the lifecycle lint (:mod:`app.protocol.stream.lifecycle`) and ends in a terminal or
interrupted state (0.3: with ``final: true``); subscribing to an unknown task gets
TaskNotFound, to a finished one UnsupportedOperation; a second stream joining a running task
gets the same events as the first, in the same order. ``streaming: false`` or absent: the
stream method is refused with an error, not served and not dropped.
"""

from __future__ import annotations

import asyncio

from app.check.calls import CallResult
from app.check.check_model import CheckArea
from app.check.checks_core import finished_task
from app.check.checks_errors import judge
from app.check.context import UNKNOWN_TASK_ID, CheckContext, task_state
from app.check.spec import CheckSpec, Verdict, failed, not_applicable, passed, skipped, warned
from app.check.target import TASK_NOT_FOUND, UNSUPPORTED_OPERATION, Target, expected_form
from app.protocol.events import ErrorKind, StreamItem
from app.protocol.methods.catalog import MethodRole, TemplateContext
from app.protocol.stream.lifecycle import StreamEnding, StreamLinter
from app.protocol.stream.stream_items import ItemInfo, ItemKind

_ENDED = (StreamEnding.TERMINAL, StreamEnding.INTERRUPTED, StreamEnding.MESSAGE)
_FINISHED = ("completed", "failed", "canceled", "rejected")


def _streaming(ctx: CheckContext) -> bool | None:
    return ctx.view.capabilities.streaming


async def stream_lifecycle(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    if _streaming(ctx) is not True:
        return not_applicable("the card does not claim streaming")
    call = await ctx.role_call(target, MethodRole.STREAM, TemplateContext(text=ctx.task_text))
    if call.rpc_error is not None and not call.items:
        return failed(f"the card claims streaming, but the stream was refused: {call.describe()}")
    linter = StreamLinter(target.version, check_first=True)
    problems = []
    for info in call.infos:
        if info.kind is ItemKind.ERROR:
            problems.append(f"error event: {info.summary}")
            continue
        problems += [f.message for f in linter.feed(info)]
    transport = any(e.kind is ErrorKind.TRANSPORT for e in call.errors)
    ending = linter.ending(transport_error=transport)
    problems += [f.message for f in linter.finish(ending)]
    problems += [e.message for e in call.errors if e.kind is ErrorKind.PROTOCOL]
    if not call.items:
        return failed(f"no stream events arrived: {call.describe()}")
    if ending not in _ENDED:
        problems.append(f"the stream ended {ending.value}")
    if problems:
        return failed("; ".join(dict.fromkeys(problems)))
    return passed(f"{len(call.items)} events, {ending.value}")


async def stream_refused(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    if _streaming(ctx) is True:
        return not_applicable("the card claims streaming")
    call = await ctx.role_call(target, MethodRole.STREAM, TemplateContext(text=ctx.task_text))
    if call.items and call.rpc_error is None:
        return failed(
            f"the card does not claim streaming, but {len(call.items)} stream events were served"
        )
    if call.rpc_error is not None:
        return passed(f"refused: {call.describe()}")
    return failed(f"the stream method was not refused cleanly: {call.describe()}")


async def subscribe_unknown(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    if _streaming(ctx) is not True:
        return not_applicable("the card does not claim streaming")
    call = await ctx.role_call(
        target, MethodRole.SUBSCRIBE, TemplateContext(task_id=UNKNOWN_TASK_ID)
    )
    error = call.rpc_error
    want = expected_form(target.binding, TASK_NOT_FOUND)
    if error is not None and ctx.refused_as(target, call, TASK_NOT_FOUND):
        return passed(f"refused with {want}")
    if call.items and error is None:
        return failed(f"a stream of an unknown task was served; expected {want}")
    if call.status is not None and not call.items:
        # Answered, then the connection cut before any event: not served, but not the
        # error either (a2a-sdk's 0.3 REST route does this; docs/CHECKS.md).
        return warned(
            f"the server cut the connection (HTTP {call.status}) instead of answering {want}"
        )
    return failed(f"expected {want}, got {call.describe()}")


async def subscribe_finished(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    if _streaming(ctx) is not True:
        return not_applicable("the card does not claim streaming")
    if not target.v1:
        return not_applicable("a rule of A2A 1.0 (§3.1.6)")
    task, why = await finished_task(ctx, target)
    if task is None:
        return skipped(why)
    if task_state(task) not in _FINISHED:
        return skipped(f"the task is {task_state(task) or 'in no known state'}, not finished")
    call = await ctx.role_call(target, MethodRole.SUBSCRIBE, TemplateContext(task_id=task["id"]))
    return judge(
        ctx,
        target,
        call,
        UNSUPPORTED_OPERATION,
        f"SubscribeToTask of {task_state(task)} task {task['id']}",
    )


CONCURRENT_TASK_TEXT = "stream 8 150"
"""A task that runs ≈ 1.2 s on the demo and test peers: long enough for a second stream."""


def _event_key(info: ItemInfo) -> tuple[str, str, str]:
    """What two streams of one task must agree on, event by event (ids and times aside)."""
    return info.kind.value, info.state.value if info.state is not None else "", info.summary


async def concurrent_streams(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    if _streaming(ctx) is not True:
        return not_applicable("the card does not claim streaming")
    started = asyncio.Event()
    task_ids: list[str] = []

    def first_event(item: StreamItem) -> None:
        info = item.info
        if info is not None and info.kind is ItemKind.TASK and info.task_id and not task_ids:
            task_ids.append(info.task_id)
            started.set()

    async def second() -> CallResult | None:
        await started.wait()
        return await ctx.role_call(
            target, MethodRole.SUBSCRIBE, TemplateContext(task_id=task_ids[0])
        )

    joiner = asyncio.create_task(second())
    try:
        first = await ctx.role_call(
            target,
            MethodRole.STREAM,
            TemplateContext(text=CONCURRENT_TASK_TEXT),
            on_item=first_event,
        )
        if not started.is_set():
            joiner.cancel()
            return skipped(f"the stream did not begin with a Task: {first.describe()}")
        other = await joiner
    finally:
        joiner.cancel()
    assert other is not None
    joined = [i for i in other.infos if i.kind is not ItemKind.ERROR]
    if not joined:
        return not_applicable(
            f"task {task_ids[0]} ended before a second stream could join (the agent ran "
            f"{CONCURRENT_TASK_TEXT!r} as a short task): {other.describe()}"
        )
    # The joining stream opens with the Task as it is (1.0 §3.1.6); every event after it
    # is one the first stream delivers too, in the same order (1.0 §3.5.2).
    after = [_event_key(i) for i in joined[1:]]
    events = [_event_key(i) for i in first.infos]
    if not after:
        return passed(f"task {task_ids[0]} ended as the second stream joined")
    if events[len(events) - len(after) :] != after:
        lost = [key for key in after if key not in events]
        why = f"events the first stream lacks: {lost[:3]}" if lost else "another order"
        return failed(
            f"two streams of task {task_ids[0]} disagree: the second's {len(after)} events "
            f"after its Task are not the first's last {len(after)} ({why})"
        )
    return passed(f"both streams of task {task_ids[0]} carried the same last {len(after)} events")


CHECKS = (
    CheckSpec(
        "streaming.lifecycle",
        CheckArea.STREAMING,
        "streaming: a stream starts with the Task and ends terminal or interrupted",
        "A2A 1.0 §3.1.2, §11.7",
        "A2A 0.3 §7.2, §7.2.2",
        stream_lifecycle,
        tck=(
            "CORE-STREAM-001",
            "CORE-STREAM-002",
            "CORE-STREAM-003",
            "STREAM-ORDER-001",
            "JSONRPC-SSE-001",
            "HTTP_JSON-SSE-001",
            "GRPC-ERR-003",
        ),
    ),
    CheckSpec(
        "streaming.subscribe-unknown",
        CheckArea.STREAMING,
        "streaming: SubscribeToTask of an unknown task id gets TaskNotFound",
        "A2A 1.0 §3.1.6, §5.4",
        "A2A 0.3 §7.9, §8.2",
        subscribe_unknown,
        tck=("STREAM-SUB-004", "JSONRPC-SSE-002", "HTTP_JSON-STATUS-001", "GRPC-ERR-002"),
    ),
    CheckSpec(
        "streaming.subscribe-finished",
        CheckArea.STREAMING,
        "streaming: SubscribeToTask of a finished task gets UnsupportedOperation",
        "A2A 1.0 §3.1.6, §5.4",
        "",
        subscribe_finished,
        tck=("STREAM-SUB-003", "JSONRPC-SSE-002", "HTTP_JSON-STATUS-001", "GRPC-ERR-002"),
    ),
    CheckSpec(
        "streaming.concurrent",
        CheckArea.STREAMING,
        "streaming: two streams of one task get the same events in the same order",
        "A2A 1.0 §3.5.2",
        "A2A 0.3 §7.9",
        concurrent_streams,
        tck=("STREAM-ORDER-002", "STREAM-ORDER-003"),
    ),
    CheckSpec(
        "streaming.refused",
        CheckArea.STREAMING,
        "no streaming claimed: the stream method is refused cleanly",
        "A2A 1.0 §3.1.2, §5.4",
        "A2A 0.3 §7.2",
        stream_refused,
        tck=("CORE-CAP-002",),
    ),
)
