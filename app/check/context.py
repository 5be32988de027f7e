"""What the checks of one run share: the card, the interfaces, the calls made so far.

Calls whose answer several rules judge (the task a send created, the GetTask of it) are
made once per interface and remembered; each rule that judges one lists its exchange.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.check.calls import CallResult, CallSettings, build_request, perform, replace_timeout
from app.check.target import A2AErrorForm, ErrorTable, Target, tables_matched
from app.protocol.bindings import traits
from app.protocol.card.view import CardView
from app.protocol.clock import Clock
from app.protocol.events import Headers, StreamItem
from app.protocol.methods.catalog import MethodRole, TemplateContext, method_for_role
from app.protocol.stream.stream_items import normalize_state


class BudgetExhausted(Exception):
    """The run's time budget is used up: no further call is made."""


@dataclass(frozen=True)
class TableNote:
    """An A2A error answered in the form of one error table only (where the two differ)."""

    check_id: str
    interface: str
    error: str
    """The A2A error's name (``TaskNotCancelableError``)."""
    code: str
    """What the agent answered (``HTTP 409``, ``gRPC UNIMPLEMENTED``)."""
    table: ErrorTable


@dataclass
class CheckContext:
    """One run's shared state."""

    card: dict[str, Any]
    view: CardView
    targets: tuple[Target, ...]
    settings: CallSettings
    budget_s: float
    message_text: str = "hello"
    task_text: str = "stream 2 10"
    clock: Clock = field(default_factory=Clock)
    extras: dict[str, Any] = field(default_factory=dict)
    """Services a check needs that the runner provides (the push receiver factory)."""
    withheld: frozenset[int] = frozenset()
    """Indexes of the interfaces off the card's host: no credential is ever sent to them
    (a card must not be able to send the user's token to a host of its choosing)."""
    tables: list[TableNote] = field(default_factory=list)
    """Which error table each telling answer of the run followed (``errors.table``)."""
    _memo: dict[tuple[str, int], CallResult] = field(default_factory=dict)
    _seen: list[int] = field(default_factory=list)
    operation: str = ""

    # --- time ---

    def remaining(self) -> float:
        return self.budget_s - self.clock.now()

    # --- exchanges of the running check ---

    def begin(self, operation: str) -> None:
        self.operation = operation
        self._seen = []

    def exchanges(self) -> tuple[int, ...]:
        return tuple(dict.fromkeys(self._seen))

    def cite(self, call: CallResult) -> CallResult:
        """List ``call``'s exchange among the running check's evidence."""
        if call.exchange_id is not None:
            self._seen.append(call.exchange_id)
        return call

    # --- errors ---

    def refused_as(
        self, target: Target, call: CallResult, form: A2AErrorForm
    ) -> frozenset[ErrorTable]:
        """The error tables in which ``call`` was refused with ``form`` (none: it was not);
        an answer that tells the tables apart on a 1.0 interface is noted for
        ``errors.table``."""
        error = call.rpc_error
        if error is None:
            return frozenset()
        found = tables_matched(target.binding, form, error, call.body)
        if len(found) == 1 and target.v1:
            (table,) = found
            code = f"{traits(target.binding).errors.value} {error.code}"
            self.tables.append(TableNote(self.operation, target.label, form.name, code, table))
        return found

    # --- calls ---

    async def call(
        self,
        target: Target,
        method: str,
        *,
        ctx: TemplateContext | None = None,
        params: Any = None,
        raw_body: str | None = None,
        headers: Headers = (),
        auth: bool = True,
        extensions: Sequence[str] | None = None,
        drop_after: int | None = None,
        on_item: Callable[[StreamItem], None] | None = None,
    ) -> CallResult:
        """One exchange with ``target``, bounded by the call timeout and the budget
        (``drop_after``, ``on_item``: :func:`app.check.calls.perform`)."""
        if target.index in self.withheld:
            auth = False
        left = self.remaining()
        if left <= 0.05:
            raise BudgetExhausted
        settings = replace_timeout(self.settings, left)
        request = build_request(
            settings,
            target,
            method,
            ctx=ctx,
            params=params,
            raw_body=raw_body,
            headers=headers,
            auth=auth,
            extensions=extensions,
        )
        done = await perform(
            settings,
            request,
            operation=self.operation,
            auth=auth,
            drop_after=drop_after,
            on_item=on_item,
        )
        return self.cite(done)

    async def role_call(
        self, target: Target, role: MethodRole, ctx: TemplateContext | None = None, **kw: Any
    ) -> CallResult:
        """A call of the method that does ``role`` in the target's version."""
        return await self.call(target, method_for_role(target.version, role).name, ctx=ctx, **kw)

    async def once(self, key: str, target: Target, make: Any) -> CallResult:
        """The remembered call ``key`` on ``target``, made by ``make()`` the first time."""
        memo_key = (key, target.index)
        if memo_key not in self._memo:
            self._memo[memo_key] = await make()
        return self.cite(self._memo[memo_key])

    # --- the calls several rules judge ---

    async def first_send(self, target: Target) -> CallResult:
        """A plain message send (the interface answers at all, in its binding)."""
        return await self.once(
            "send",
            target,
            lambda: self.role_call(
                target, MethodRole.SEND, TemplateContext(text=self.message_text)
            ),
        )

    async def task_send(self, target: Target) -> CallResult:
        """A send the peer answers with a Task (``task_text``), finished when it returns."""
        return await self.once(
            "task",
            target,
            lambda: self.role_call(target, MethodRole.SEND, TemplateContext(text=self.task_text)),
        )

    async def get_task(self, target: Target, task_id: str) -> CallResult:
        return await self.once(
            "get",
            target,
            lambda: self.role_call(target, MethodRole.GET, TemplateContext(task_id=task_id)),
        )

    async def cancel_finished(self, target: Target, task_id: str) -> CallResult:
        return await self.once(
            "cancel",
            target,
            lambda: self.role_call(target, MethodRole.CANCEL, TemplateContext(task_id=task_id)),
        )

    async def get_unknown(self, target: Target) -> CallResult:
        return await self.once(
            "unknown",
            target,
            lambda: self.role_call(
                target, MethodRole.GET, TemplateContext(task_id=UNKNOWN_TASK_ID)
            ),
        )


UNKNOWN_TASK_ID = "a2a-workbench-check-no-such-task"


def task_of(value: Any) -> dict[str, Any] | None:
    """The Task in a send/get result of any dialect (``{"task": …}``, a bare 0.3 Task)."""
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("task"), dict):
        task: dict[str, Any] = value["task"]
        return task
    if value.get("kind") == "task" or ("status" in value and "id" in value):
        return value
    return None


def message_of(value: Any) -> dict[str, Any] | None:
    """The Message in a send result of any dialect."""
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("message"), dict):
        message: dict[str, Any] = value["message"]
        return message
    if value.get("kind") == "message" or ("messageId" in value and "role" in value):
        return value
    return None


def task_state(task: dict[str, Any]) -> str:
    """The task's state, normalised (``completed``), ``""`` when none."""
    status = task.get("status")
    raw = status.get("state") if isinstance(status, dict) else None
    state = normalize_state(raw)
    return state.value if state is not None else ""
