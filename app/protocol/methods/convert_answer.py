"""Explicit 0.3 ⇄ 1.0 conversion of one recorded answer, for the explainer's second page.

Same pivot as :mod:`app.protocol.methods.convert`, through the SDK's compat layer: the 0.3
pydantic model (``Task``, ``Message``, status and artifact updates) in the middle, the
1.0 protobuf message on one side (``a2a.compat.v0_3.conversions``), the 0.3 JSON-RPC JSON
or the 0.3 proto JSON on the other (``proto_utils``). Results are the send and stream
items (wrapped in 1.0 and in the 0.3 proto, bare and ``kind``-typed in 0.3 JSON-RPC) and the
``Task`` of get and cancel (docs/PROTOCOL.md §5.2); anything else is passed through as is.
"""

from __future__ import annotations

from typing import Any

from a2a.compat.v0_3 import a2a_v0_3_pb2 as pb03
from a2a.compat.v0_3 import conversions as conv
from a2a.compat.v0_3 import types as t03
from a2a.compat.v0_3.proto_utils import FromProto, ToProto
from a2a.types import a2a_pb2 as pb10
from google.protobuf.json_format import MessageToDict, ParseDict

from app.protocol.bindings import traits
from app.protocol.types import Binding, ProtocolVersion

WRAPPED = {
    "SendMessage", "SendStreamingMessage", "SubscribeToTask",
    "message/send", "message/stream", "tasks/resubscribe",
}  # fmt: skip
"""Methods whose result is a one-member wrapper in 1.0 and the 0.3 proto."""
_BARE_TASK = {"GetTask", "CancelTask", "tasks/get", "tasks/cancel"}

# kind (0.3 JSON-RPC) → 0.3 model, 1.0 wrapper key, 0.3 proto wrapper key, converters.
_ITEMS: dict[str, tuple[Any, str, str, type[Any], Any, Any, Any, Any, Any]] = {
    "task": (t03.Task, "task", "task", pb10.Task, conv.to_core_task, conv.to_compat_task,
             pb03.Task, FromProto.task, ToProto.task),
    "message": (t03.Message, "message", "msg", pb10.Message, conv.to_core_message,
                conv.to_compat_message, pb03.Message, FromProto.message, ToProto.message),
    "status-update": (
        t03.TaskStatusUpdateEvent, "statusUpdate", "statusUpdate", pb10.TaskStatusUpdateEvent,
        conv.to_core_task_status_update_event, conv.to_compat_task_status_update_event,
        pb03.TaskStatusUpdateEvent, FromProto.task_status_update_event,
        ToProto.task_status_update_event,
    ),
    "artifact-update": (
        t03.TaskArtifactUpdateEvent, "artifactUpdate", "artifactUpdate",
        pb10.TaskArtifactUpdateEvent, conv.to_core_task_artifact_update_event,
        conv.to_compat_task_artifact_update_event, pb03.TaskArtifactUpdateEvent,
        FromProto.task_artifact_update_event, ToProto.task_artifact_update_event,
    ),
}  # fmt: skip


def convert_answer(version: ProtocolVersion, binding: Binding, method: str, value: Any) -> Any:
    """``value`` (the parsed answer body of a ``version`` × ``binding`` tab) in the other
    version. A JSON-RPC error envelope comes back unchanged (only the names differ).

    Raises:
        ValueError: the result does not parse as the item it claims to be (pydantic and
            protobuf parse errors are ``ValueError``s).
    """
    if traits(binding).payload.envelope:
        if not isinstance(value, dict) or "result" not in value:
            return value
        out = dict(value)
        out["result"] = _convert(version, True, method, value["result"])
        return out
    return _convert(version, False, method, value)


def _convert(version: ProtocolVersion, jsonrpc: bool, method: str, result: Any) -> Any:
    if not isinstance(result, dict) or not (method in WRAPPED or method in _BARE_TASK):
        return result
    if version is ProtocolVersion.V0_3:
        found = _from_v03(result, jsonrpc, method in WRAPPED)
        if found is None:
            return result
        kind, model = found
        item = _ITEMS[kind]
        core = MessageToDict(item[4](model))
        return {item[1]: core} if method in WRAPPED else core
    found10 = _from_v10(result, method in WRAPPED)
    if found10 is None:
        return result
    kind, model = found10
    item = _ITEMS[kind]
    if jsonrpc:
        dumped: Any = model.model_dump(mode="json", by_alias=True, exclude_none=True)
        return dumped
    proto = MessageToDict(item[8](model))
    return {item[2]: proto} if method in WRAPPED else proto


def _from_v03(result: dict[str, Any], jsonrpc: bool, wrapped: bool) -> tuple[str, Any] | None:
    """The 0.3 model of a 0.3 answer: JSON-RPC by ``kind``, proto by wrapper key."""
    if jsonrpc:
        kind = result.get("kind")
        if kind not in _ITEMS:
            return None
        return str(kind), _ITEMS[str(kind)][0].model_validate(result)
    for kind, item in _ITEMS.items():
        inner = result.get(item[2]) if wrapped else (result if kind == "task" else None)
        if isinstance(inner, dict):
            return kind, item[7](ParseDict(inner, item[6]()))
    return None


def _from_v10(result: dict[str, Any], wrapped: bool) -> tuple[str, Any] | None:
    """The 0.3 model of a 1.0 answer (wrapped items, or the bare ``Task``)."""
    for kind, item in _ITEMS.items():
        inner = result.get(item[1]) if wrapped else (result if kind == "task" else None)
        if isinstance(inner, dict):
            return kind, item[5](ParseDict(inner, item[3]()))
    return None
