"""Requests that follow one already sent: cancel the task, resubscribe to it, the next turn.

They are chosen by the method's :class:`~app.protocol.methods.catalog.MethodRole`, so the same
code serves 1.0 (``CancelTask``, ``SubscribeToTask``, ``SendStreamingMessage``) and 0.3
(``tasks/cancel``, ``tasks/resubscribe``, ``message/stream``).
"""

from __future__ import annotations

import dataclasses
import json

from app.protocol.methods.catalog import (
    MethodRole,
    MethodSpec,
    TemplateContext,
    find_method,
    method_for_role,
)
from app.protocol.request import A2ARequest, render_body
from app.protocol.types import Binding, ProtocolVersion

_SEND_ROLES = frozenset({MethodRole.SEND, MethodRole.STREAM})


def is_send(version: ProtocolVersion, method: str) -> bool:
    """Whether ``method`` sends a message (unary or streaming; legacy names included)."""
    spec = find_method(version, method)
    return spec is not None and spec.role in _SEND_ROLES


def is_streaming(version: ProtocolVersion, method: str) -> bool:
    """Whether ``method`` answers with a stream (False for names the catalog lacks)."""
    spec = find_method(version, method)
    return spec is not None and spec.streaming


def follow_up_method(version: ProtocolVersion, current: str) -> str:
    """The method for the next turn: ``current`` when it sends a message, else the
    streaming send method (the next turn's events are then shown as they come)."""
    if is_send(version, current):
        return current
    return method_for_role(version, MethodRole.STREAM).name


def template_context(
    spec: MethodSpec,
    text: str,
    *,
    follow_up: tuple[str, str] | None,
    last_task_id: str,
    last_context_id: str,
) -> TemplateContext:
    """What ``spec``'s template gets: other methods get the task seen last; message
    templates get ``contextId``/``taskId`` only after *Follow up* (``follow_up`` is
    ``(context_id, task_id)``), because a fresh message must not continue an old task."""
    if spec.role in _SEND_ROLES:
        if follow_up is None:
            return TemplateContext(text=text)
        context_id, task_id = follow_up
        return TemplateContext(text=text, context_id=context_id, task_id=task_id)
    return TemplateContext(text=text, task_id=last_task_id, context_id=last_context_id)


def task_request(
    base: A2ARequest, role: MethodRole, task_id: str, context_id: str = ""
) -> A2ARequest:
    """``base`` (endpoint, binding, headers, auth) turned into the ``role`` method
    (:attr:`MethodRole.CANCEL`, :attr:`MethodRole.SUBSCRIBE`, …) for ``task_id``."""
    spec = method_for_role(base.version, role)
    ctx = TemplateContext(task_id=task_id, context_id=context_id)
    return dataclasses.replace(base, method=spec.name, body=render_body(spec, base.binding, ctx))


_PROBE = "probe-9f2c"


def template_ids(spec: MethodSpec) -> tuple[bool, bool]:
    """Whether ``spec``'s template takes a task id and a context id the tab may prefill
    (GetTask, CancelTask, the push config methods; ListTasks' ``contextId``). Message
    templates answer ``(False, False)``: they carry ids only after *Follow up*."""
    if spec.role in _SEND_ROLES:
        return False, False
    # Every binding's template takes the same ids; JSON-RPC's is as good as any.
    task = spec.template(Binding.JSONRPC, TemplateContext(task_id=_PROBE))
    context = spec.template(Binding.JSONRPC, TemplateContext(context_id=_PROBE))
    return _PROBE in json.dumps(task), _PROBE in json.dumps(context)
