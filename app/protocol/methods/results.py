"""Checks that a parsed unary result is what the method promises.

A peer that answers 200 with the wrong shape has still failed, and the user should be told
what was wrong rather than be left to spot it in the raw body. Each check returns ``None``
when the value fits, or one sentence saying what does not (the transport turns it into a
``protocol`` :class:`~app.protocol.events.ExchangeError`; the raw bytes are still shown).

The checks are deliberately shallow: the fields a client needs to go on (ids, states, the
result discriminator), not full schema validation, so that peers that omit empty optional
fields (ProtoJSON) still pass. Three result dialects exist:

- 1.0, every binding: ProtoJSON of ``lf.a2a.v1`` (``{"task": …}`` / ``{"message": …}``);
- 0.3 JSON-RPC: ``kind``-discriminated objects, lower-case states (``input-required``);
- 0.3 REST and gRPC: ProtoJSON of the 0.3 proto (``content``, ``TASK_STATE_CANCELLED``,
  push configs named ``tasks/{t}/pushNotificationConfigs/{c}``).

Sources: docs/PROTOCOL.md §2.2–2.3, §3.1, §3.4, §4.1, §5.2–5.4. Pure functions, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.protocol.methods.catalog import MethodSpec
from app.protocol.methods.parts import Dialect, dialect_of
from app.protocol.types import Binding, ProtocolVersion

Check = Callable[[Any], "str | None"]

V1_STATES = frozenset(
    {
        "TASK_STATE_UNSPECIFIED", "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING",
        "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED",
        "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_REJECTED", "TASK_STATE_AUTH_REQUIRED",
    }
)  # fmt: skip
V03_PROTO_STATES = (V1_STATES - {"TASK_STATE_CANCELED"}) | {"TASK_STATE_CANCELLED"}
V03_JSONRPC_STATES = frozenset(
    {"submitted", "working", "input-required", "completed", "canceled", "failed",
     "rejected", "auth-required", "unknown"}
)  # fmt: skip

_EMPTY_OK = frozenset({"DeleteTaskPushNotificationConfig", "tasks/pushNotificationConfig/delete"})


def check_result(spec: MethodSpec, binding: Binding, value: Any) -> str | None:
    """Whether ``value`` (a parsed unary result) is what ``spec`` promises over ``binding``.

    Args:
        spec: the method; streaming methods are not checked here (each stream item is).
        binding: selects the 0.3 dialect (JSON-RPC objects or 0.3 ProtoJSON).
        value: the JSON-RPC ``result``, the REST body or the gRPC response as ProtoJSON.

    Returns:
        None when it fits, else e.g. ``'SendMessage result has both "task" and "message";
        exactly one is expected'``.
    """
    if spec.streaming:
        return None
    check = _checks(spec.version, binding).get(spec.grpc_rpc or spec.name)
    if check is None:
        return None
    problem = check(value)
    return f"{spec.name} result {problem}" if problem else None


def allows_empty_body(spec: MethodSpec) -> bool:
    """True for methods whose success answer may be an empty body (the deletes)."""
    return spec.name in _EMPTY_OK


def _checks(version: ProtocolVersion, binding: Binding) -> dict[str, Check]:
    return _BY_DIALECT[dialect_of(version, binding)]


# --- building blocks: each returns a problem phrase (without the method name) or None ---


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return "a string" if isinstance(value, str) else "a number"


def _object(value: Any, what: str) -> str | None:
    return None if isinstance(value, dict) else f"is {_describe(value)}, expected {what}"


def _task(states: frozenset[str], kind: bool = False) -> Check:
    def check(value: Any) -> str | None:
        problem = _object(value, "a Task object")
        if problem:
            return problem
        if kind and value.get("kind") != "task":
            return f'has kind {value.get("kind")!r}, expected "task"'
        if not isinstance(value.get("id"), str) or not value["id"]:
            return 'is a Task without an "id"'
        status = value.get("status")
        if not isinstance(status, dict):
            return f'is a Task without a "status" object (task {value["id"]})'
        state = status.get("state")
        if (isinstance(state, str) and state) or type(state) is int:
            # Another dialect's spelling, a number, even an unknown name: still a state the
            # client can show; the deviation is a finding (app/protocol/methods/deviations.py).
            return None
        return f"has a Task status state {state!r}, which is not a {_dialect(states)} state"

    return check


def _dialect(states: frozenset[str]) -> str:
    if states is V03_JSONRPC_STATES:
        return "0.3 JSON-RPC"
    return "0.3 proto" if states is V03_PROTO_STATES else "1.0"


def _message(parts_key: str, kind: bool = False) -> Check:
    def check(value: Any) -> str | None:
        problem = _object(value, "a Message object")
        if problem:
            return problem
        if kind and value.get("kind") != "message":
            return f'has kind {value.get("kind")!r}, expected "message"'
        if not isinstance(value.get("messageId"), str) or not value["messageId"]:
            return 'is a Message without a "messageId"'
        if "role" not in value:
            return 'is a Message without a "role"'
        if not isinstance(value.get(parts_key, []), list):
            return f'is a Message whose "{parts_key}" is not an array'
        return None

    return check


def _one_of(**members: Check) -> Check:
    """ProtoJSON oneof: exactly one member present, then checked."""

    def check(value: Any) -> str | None:
        names = " or ".join(f'"{name}"' for name in members)
        problem = _object(value, f"an object with {names}")
        if problem:
            return problem
        present = [name for name in members if name in value]
        if not present:
            return f"has none of {names}; exactly one is expected"
        if len(present) > 1:
            found = " and ".join(f'"{name}"' for name in present)
            return f"has {found}; exactly one is expected"
        inner = members[present[0]](value[present[0]])
        return f'"{present[0]}" {inner}' if inner else None

    return check


def _by_kind(**kinds: Check) -> Check:
    """0.3 JSON-RPC: a bare object whose ``kind`` says which it is."""

    def check(value: Any) -> str | None:
        problem = _object(value, "a Task or Message object")
        if problem:
            return problem
        kind = value.get("kind")
        if kind not in kinds:
            allowed = " or ".join(f'"{k}"' for k in kinds)
            return f"has kind {kind!r}, expected {allowed}"
        return kinds[kind](value)

    return check


def _fields(what: str, **required: type) -> Check:
    def check(value: Any) -> str | None:
        problem = _object(value, what)
        if problem:
            return problem
        for name, kind in required.items():
            if not isinstance(value.get(name), kind):
                return f'is a {what} without "{name}"'
        return None

    return check


def _list_of(key: str | None, item: Check, what: str) -> Check:
    """A list (``key`` None, 0.3 JSON-RPC) or an object whose optional ``key`` is a list."""

    def check(value: Any) -> str | None:
        if key is not None:
            problem = _object(value, f"an object with {key!r}")
            if problem:
                return problem
            value = value.get(key, [])
        if not isinstance(value, list):
            where = f'"{key}" ' if key else ""
            return f"{where}is {_describe(value)}, expected an array of {what}"
        for index, entry in enumerate(value):
            problem = item(entry)
            if problem:
                return f"item {index} {problem}"
        return None

    return check


def _empty(value: Any) -> str | None:
    if value is None or value == {}:
        return None
    return f"is {_describe(value)}, expected an empty answer"


_card = _fields("AgentCard object", name=str)

_V1_TASK = _task(V1_STATES)
_V1_PUSH = _fields("TaskPushNotificationConfig object", url=str)
_V1: dict[str, Check] = {
    "SendMessage": _one_of(task=_V1_TASK, message=_message("parts")),
    "GetTask": _V1_TASK,
    "CancelTask": _V1_TASK,
    "ListTasks": _list_of("tasks", _V1_TASK, "Tasks"),
    "CreateTaskPushNotificationConfig": _V1_PUSH,
    "GetTaskPushNotificationConfig": _V1_PUSH,
    "ListTaskPushNotificationConfigs": _list_of("configs", _V1_PUSH, "push configs"),
    "DeleteTaskPushNotificationConfig": _empty,
    "GetExtendedAgentCard": _card,
}

_V03_TASK = _task(V03_JSONRPC_STATES, kind=True)
_V03_PUSH = _fields("TaskPushNotificationConfig object", taskId=str, pushNotificationConfig=dict)
_V03_SEND = _by_kind(task=_V03_TASK, message=_message("parts", kind=True))
# Keyed by gRPC rpc name like the other dialects; "tasks/send" is the pre-0.3 JSON-RPC name.
_V03_JSONRPC: dict[str, Check] = {
    "SendMessage": _V03_SEND,
    "tasks/send": _V03_SEND,
    "GetTask": _V03_TASK,
    "CancelTask": _V03_TASK,
    "CreateTaskPushNotificationConfig": _V03_PUSH,
    "GetTaskPushNotificationConfig": _V03_PUSH,
    "ListTaskPushNotificationConfig": _list_of(None, _V03_PUSH, "push configs"),
    "DeleteTaskPushNotificationConfig": _empty,
    "GetAgentCard": _card,
}

_V03P_TASK = _task(V03_PROTO_STATES)
_V03P_PUSH = _fields("TaskPushNotificationConfig object", name=str, pushNotificationConfig=dict)
_V03_PROTO: dict[str, Check] = {
    "SendMessage": _one_of(task=_V03P_TASK, message=_message("content")),
    "GetTask": _V03P_TASK,
    "CancelTask": _V03P_TASK,
    "CreateTaskPushNotificationConfig": _V03P_PUSH,
    "GetTaskPushNotificationConfig": _V03P_PUSH,
    "ListTaskPushNotificationConfig": _list_of("configs", _V03P_PUSH, "push configs"),
    "DeleteTaskPushNotificationConfig": _empty,
    "GetAgentCard": _card,
}
_BY_DIALECT = {Dialect.V1: _V1, Dialect.V03_JSONRPC: _V03_JSONRPC, Dialect.V03_PROTO: _V03_PROTO}
