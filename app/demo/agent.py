"""What the demo agent does with a message. Start here if you are new to A2A servers.

The SDK calls ``execute`` once per incoming message. The agent answers by putting events
on the queue: either ONE ``Message`` (a plain reply, no task) or a ``Task`` followed by
status and artifact updates. ``TaskUpdater`` builds those updates for us.

Commands (the first text part of the user's message, stripped):

* ``12 30`` or ``1.5, 2`` -> a Message ``Sum: 42`` plus a data part ``{"total": 42}``.
* ``stream [N] [INTERVAL_MS]`` -> a Task with N ``progress i/N`` updates, then an artifact.
* ``ask`` -> a Task that waits for the user's name (INPUT_REQUIRED), then greets them.
* ``fail`` -> a Task that ends FAILED.
* ``echo parts`` -> a completed Task whose artifact ``echo`` holds every part of the
  message after the command text (files and data parts come back as they were sent).
* anything else -> a Message ``Echo: <text>``.
"""

from __future__ import annotations

import asyncio
import re

from a2a.helpers import new_data_part, new_message, new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Part, TaskState

MAX_STREAM_STEPS = 100_000
ECHO_PARTS = "echo parts"
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def parse_numbers(text: str) -> list[int] | list[float] | None:
    """Reads a whitespace/comma separated list of numbers.

    Args:
        text: the user's text, e.g. ``"12 30"`` or ``"1.5, 2"``.

    Returns:
        Ints when every item is an integer literal, else floats; None when ``text`` is
        empty or any item is not a plain decimal number (``nan``/``inf`` are rejected).
    """
    items = [item for item in re.split(r"[\s,]+", text) if item]
    if not items or not all(_NUMBER.fullmatch(item) for item in items):
        return None
    if all(re.fullmatch(r"[+-]?\d+", item) for item in items):
        return [int(item) for item in items]
    return [float(item) for item in items]


def parse_stream_args(text: str) -> tuple[int, float] | None:
    """Reads ``stream [N] [INTERVAL_MS]``.

    Args:
        text: the user's text.

    Returns:
        ``(steps, interval_seconds)`` with steps in 1..MAX_STREAM_STEPS (default 5) and the
        interval >= 0 (default 0.2 s), or None when ``text`` is not a stream command.
    """
    match = re.fullmatch(r"stream(?:\s+(\d+))?(?:\s+(\d+(?:\.\d+)?))?", text, re.IGNORECASE)
    if match is None:
        return None
    steps = min(max(int(match.group(1) or 5), 1), MAX_STREAM_STEPS)
    interval_ms = float(match.group(2) or 200)
    return steps, interval_ms / 1000


class DemoAgentExecutor(AgentExecutor):
    """The demo agent's behaviour; one instance serves every request."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Answers one user message (see the module docstring for the commands).

        Args:
            context: the request, with the user's message and the task it continues, if any.
            event_queue: where the reply events go.
        """
        text = _first_text(context)
        task = context.current_task
        # A follow-up to a task that asked a question is an answer, whatever its text.
        if task is not None and task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED:
            updater = TaskUpdater(event_queue, task.id, task.context_id)
            await updater.complete(updater.new_agent_message([new_text_part(f"Hello, {text}!")]))
            return

        numbers = parse_numbers(text)
        if numbers is not None:
            total = sum(numbers)
            await event_queue.enqueue_event(
                new_message(
                    [new_text_part(f"Sum: {total}"), new_data_part({"total": total})],
                    context_id=context.context_id,
                )
            )
            return

        stream_args = parse_stream_args(text)
        command = text.lower()
        if command == ECHO_PARTS:
            await _echo_parts(context, event_queue)
            return
        if stream_args is None and command not in ("ask", "fail"):
            await event_queue.enqueue_event(
                new_message([new_text_part(f"Echo: {text}")], context_id=context.context_id)
            )
            return

        # Everything below is a task: announce it first, the SDK requires a Task before updates.
        updater = await _start_task(context, event_queue)
        if stream_args is not None:
            steps, interval = stream_args
            for i in range(1, steps + 1):
                progress = updater.new_agent_message([new_text_part(f"progress {i}/{steps}")])
                await updater.start_work(progress)
                await asyncio.sleep(interval)
            await updater.add_artifact([new_text_part(f"done after {steps} steps")], name="result")
            await updater.complete()
        elif command == "ask":
            await updater.requires_input(
                updater.new_agent_message([new_text_part("What is your name?")])
            )
        else:
            await updater.start_work()
            await updater.failed(updater.new_agent_message([new_text_part("Failed on purpose")]))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Marks the task CANCELED; the SDK then cancels the running ``execute`` coroutine.

        Args:
            context: identifies the task being cancelled.
            event_queue: the queue of that task.
        """
        if context.task_id is None or context.context_id is None:
            return
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def _first_text(context: RequestContext) -> str:
    message = context.message
    parts: list[Part] = list(message.parts) if message is not None else []
    return next((part.text.strip() for part in parts if part.HasField("text")), "")


async def _echo_parts(context: RequestContext, event_queue: EventQueue) -> None:
    message = context.message
    parts = list(message.parts) if message is not None else []
    updater = await _start_task(context, event_queue)
    # The command's own text part is left out: the artifact holds what was attached.
    await updater.add_artifact(parts[1:], name="echo")
    await updater.complete()


async def _start_task(context: RequestContext, event_queue: EventQueue) -> TaskUpdater:
    task = context.current_task
    if task is None:
        if context.message is None:
            raise ValueError("a new task needs the user's message")
        task = new_task_from_user_message(context.message)
        await event_queue.enqueue_event(task)
    return TaskUpdater(event_queue, task.id, task.context_id)
