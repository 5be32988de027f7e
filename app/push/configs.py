"""Pointing a request body's push config at the local receiver (Qt-free; the GUI's button).

A body holds a push config in one of a few places: the 1.0 CreateTaskPushNotificationConfig
params themselves (``{"taskId", "url", "token"}``), 0.3 ``pushNotificationConfig`` (JSON-RPC
params, or inside the proto ``config`` of REST/gRPC), or a send's configuration, whose
member is named differently in each dialect (:data:`SEND_CONFIG_FIELD`: 1.0
``taskPushNotificationConfig``; a peer ignores a wrong name and never delivers).
:func:`fill_push_config` finds every object that carries a ``url`` and either a ``token``
or a ``push…`` key above it, and sets both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.protocol.methods.parts import Dialect, dialect_of
from app.protocol.types import Binding, ProtocolVersion

SEND_CONFIG_FIELD = {
    Dialect.V1: "taskPushNotificationConfig",  # SendMessageConfiguration, A2A 1.0 §3.2.2
    Dialect.V03_JSONRPC: "pushNotificationConfig",  # MessageSendConfiguration (0.3)
    Dialect.V03_PROTO: "pushNotification",  # the 0.3 proto's SendMessageConfiguration
}
"""The member of a send's ``configuration`` that holds its push config, per dialect."""

_CREATE_METHOD = {
    Dialect.V1: "CreateTaskPushNotificationConfig",
    Dialect.V03_JSONRPC: "tasks/pushNotificationConfig/set",
    Dialect.V03_PROTO: "CreateTaskPushNotificationConfig",
}


def send_config_field(version: ProtocolVersion, binding: Binding) -> str:
    """The ``configuration`` member of a send that carries a push config for this tab."""
    return SEND_CONFIG_FIELD[dialect_of(version, binding)]


def where_push_configs_go(version: ProtocolVersion, binding: Binding) -> str:
    """Where a body of this version and binding puts a push config, in words (a hint)."""
    dialect = dialect_of(version, binding)
    return (
        f"choose {_CREATE_METHOD[dialect]}, or add configuration.{SEND_CONFIG_FIELD[dialect]} "
        '{"url": …, "token": …} to a send'
    )


@dataclass
class Filled:
    """What :func:`fill_push_config` changed.

    Attributes:
        value: the body with the receiver's URL and token in every push config found.
        count: how many push configs were filled (0: the body has none).
        task_ids: the tasks those configs are for (``taskId``, a 0.3 ``tasks/{id}`` parent
            or name), as the body names them; a send's config names none.
    """

    value: Any
    count: int = 0
    task_ids: list[str] = field(default_factory=list)


def fill_push_config(value: Any, url: str, token: str) -> Filled:
    """``value`` (parsed JSON, not changed) with every push config set to ``url``/``token``."""
    result = Filled(value)
    result.value = _walk(value, url, token, result, under_push=False, task_id="")
    result.task_ids = list(dict.fromkeys(t for t in result.task_ids if t))
    return result


def _walk(value: Any, url: str, token: str, out: Filled, *, under_push: bool, task_id: str) -> Any:
    if isinstance(value, list):
        return [_walk(v, url, token, out, under_push=under_push, task_id=task_id) for v in value]
    if not isinstance(value, dict):
        return value
    task_id = _task_of(value) or task_id
    copy: dict[str, Any] = {}
    for key, item in value.items():
        push = isinstance(key, str) and "push" in key.lower()
        copy[key] = _walk(item, url, token, out, under_push=push, task_id=task_id)
    if "url" in copy and ("token" in copy or under_push):
        copy["url"] = url
        copy["token"] = token
        out.count += 1
        out.task_ids.append(task_id)
    return copy


def _task_of(obj: dict[str, Any]) -> str:
    task_id = obj.get("taskId")
    if isinstance(task_id, str) and task_id:
        return task_id
    for key in ("parent", "name"):
        name = obj.get(key)
        if isinstance(name, str) and name.startswith("tasks/"):
            return name.split("/")[1]
    return ""
