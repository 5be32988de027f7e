"""Pointing a request body's push config at the local receiver (Qt-free; the GUI's button).

A body holds a push config in one of a few places: the 1.0 CreateTaskPushNotificationConfig
params themselves (``{"taskId", "url", "token"}``), 0.3 ``pushNotificationConfig`` (JSON-RPC
params, or inside the proto ``config`` of REST/gRPC), or a send's
``configuration.pushNotificationConfig``. :func:`fill_push_config` finds every object that
carries a ``url`` and either a ``token`` or a ``push…`` key above it, and sets both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
