"""Streaming checks: what ``capabilities.streaming`` claims against what the stream does.

``streaming: true``: a stream of the task starts with the Task (1.0; or is one Message),
passes the lifecycle lint (:mod:`app.protocol.stream.lifecycle`) and ends in a terminal or
interrupted state (0.3: with ``final: true``). ``streaming: false`` or absent: the stream
method is refused with an error, not served and not dropped.
"""

from __future__ import annotations

from app.check.check_model import CheckArea
from app.check.context import UNKNOWN_TASK_ID, CheckContext
from app.check.spec import CheckSpec, Verdict, failed, not_applicable, passed, warned
from app.check.target import TASK_NOT_FOUND, Target, expected_form, matches
from app.protocol.events import ErrorKind
from app.protocol.methods.catalog import MethodRole, TemplateContext
from app.protocol.stream.lifecycle import StreamEnding, StreamLinter
from app.protocol.stream.stream_items import ItemKind

_ENDED = (StreamEnding.TERMINAL, StreamEnding.INTERRUPTED, StreamEnding.MESSAGE)


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
    if error is not None and matches(target.binding, TASK_NOT_FOUND, error, call.body):
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


CHECKS = (
    CheckSpec(
        "streaming.lifecycle",
        CheckArea.STREAMING,
        "streaming: a stream starts with the Task and ends terminal or interrupted",
        "A2A 1.0 §3.1.2, §11.7",
        "A2A 0.3 §7.2, §7.2.2",
        stream_lifecycle,
        tck="Streaming capability",
    ),
    CheckSpec(
        "streaming.subscribe-unknown",
        CheckArea.STREAMING,
        "streaming: SubscribeToTask of an unknown task id gets TaskNotFound",
        "A2A 1.0 §3.1.6, §5.4",
        "A2A 0.3 §7.9, §8.2",
        subscribe_unknown,
        tck="Streaming capability",
    ),
    CheckSpec(
        "streaming.refused",
        CheckArea.STREAMING,
        "no streaming claimed: the stream method is refused cleanly",
        "A2A 1.0 §3.1.2, §5.4",
        "A2A 0.3 §7.2",
        stream_refused,
        tck="Streaming capability",
    ),
)
