"""Explicit conversion of one request (or one answer) between A2A 0.3 and 1.0.

The app never converts behind the user's back (docs/PROTOCOL.md §2.3.1, §5.2); this module
is what *Show in the other version* and *Open as a new request in 1.0/0.3* call. It does
not retype the mapping: the official SDK's compat layer does the work
(``a2a.compat.v0_3.conversions`` between the 0.3 JSON-RPC models and the 1.0 protobuf
messages, ``a2a.compat.v0_3.proto_utils`` between those models and the 0.3 proto), exactly
as the SDK's own 0.3 compat servers translate what they receive.

Pivot: a 0.3 request is read into the 0.3 JSON-RPC model (from the envelope, or from the 0.3
proto object of HTTP+JSON/gRPC), a 1.0 request into the 1.0 protobuf message; each is
written out in the other version and the same binding.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from a2a.compat.v0_3 import a2a_v0_3_pb2 as pb03
from a2a.compat.v0_3 import conversions as conv
from a2a.compat.v0_3 import types as t03
from a2a.compat.v0_3.proto_utils import FromProto, ToProto
from a2a.types import a2a_pb2 as pb10
from google.protobuf.json_format import MessageToDict, ParseDict, ParseError
from google.protobuf.message import Message
from pydantic import ValidationError

from app.errors import UsageError
from app.protocol.bindings import traits
from app.protocol.methods.catalog import V03P_PUSH_CONFIG_ID, find_method
from app.protocol.methods.catalog import counterpart as catalog_counterpart
from app.protocol.types import Binding, ProtocolVersion

V1, V03 = ProtocolVersion.V1_0, ProtocolVersion.V0_3

LEGACY_NAMES = {"tasks/send": "message/send", "tasks/sendSubscribe": "message/stream"}


class ConversionError(UsageError):
    """The body cannot be read as a request of its method, or the method has no
    counterpart in the other version (``ListTasks`` is 1.0 only)."""


@dataclass(frozen=True, slots=True)
class Converted:
    """A request in the other version: the tab's new method and editor text."""

    version: ProtocolVersion
    binding: Binding
    method: str
    body: str
    notes: tuple[str, ...] = ()


def other(version: ProtocolVersion) -> ProtocolVersion:
    """The version that is not ``version``."""
    return V03 if version is V1 else V1


def counterpart(version: ProtocolVersion, method: str) -> str:
    """The other version's name of ``method`` ("" when it has none): the catalog's mapping
    (:func:`app.protocol.methods.catalog.counterpart`, docs/PROTOCOL.md §2.3.1)."""
    spec = find_method(version, method)
    found = catalog_counterpart(spec, other(version)) if spec is not None else None
    return found.name if found is not None else ""


def convert_request(
    version: ProtocolVersion, binding: Binding, method: str, body: str
) -> Converted:
    """``body`` (the editor text of a ``version`` × ``binding`` tab sending ``method``) as
    the other version's request over the same binding.

    Raises:
        ConversionError: not JSON, not a valid request of ``method``, or no counterpart.
    """
    target = counterpart(version, method)
    if not target:
        raise ConversionError(
            f"{method} has no A2A {other(version).value} counterpart (docs/PROTOCOL.md §1.1)"
        )
    value = _json(body)
    jsonrpc = traits(binding).payload.envelope
    if version is V03:
        request = _v03_request(value, method) if jsonrpc else _v03_from_proto(method, value)
        core = _core_from_v03(request)
        params = MessageToDict(core)
        notes: list[str] = []
        out: Any = _envelope(value, target, params) if jsonrpc else params
    else:
        params = value.get("params", {}) if jsonrpc and isinstance(value, dict) else value
        core = _core_message(method, params)
        notes = ["tenant dropped: 0.3 has no tenant (§9.2)"] if getattr(core, "tenant", "") else []
        request = _v03_from_core(method, core)
        if jsonrpc:
            dumped = request.model_dump(mode="json", by_alias=True, exclude_none=True)
            out = _envelope(value, target, dumped.get("params", {}))
        else:
            out, extra = _proto_from_v03(request)
            notes += extra
    text = json.dumps(out, indent=2, ensure_ascii=False)
    return Converted(other(version), binding, target, text, tuple(notes))


def _json(body: str) -> Any:
    try:
        return json.loads(body)
    except ValueError as exc:
        raise ConversionError(f"The body is not JSON: {exc}") from exc


def _envelope(source: Any, method: str, params: Any) -> dict[str, Any]:
    request_id = source.get("id", 1) if isinstance(source, dict) else 1
    out: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params or method != "agent/getAuthenticatedExtendedCard":
        out["params"] = params
    return out


# --- 0.3 JSON-RPC model <-> 1.0 protobuf (the SDK's conversions) ---------------------------


def _v03_request(envelope: Any, method: str) -> Any:
    if not isinstance(envelope, dict):
        raise ConversionError("A JSON-RPC tab holds the envelope object")
    data = {"jsonrpc": "2.0", "id": 1, **envelope}
    data["method"] = LEGACY_NAMES.get(str(data.get("method") or method), data.get("method"))
    try:
        return t03.A2ARequest.model_validate(data).root
    except ValidationError as exc:
        raise ConversionError(f"Not a valid 0.3 {method} request: {_first(exc)}") from exc


def _first(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(p) for p in error.get("loc", ()))
    return f"{where}: {error.get('msg', '')}"


_TO_CORE: dict[type, Any] = {
    t03.SendMessageRequest: conv.to_core_send_message_request,
    t03.SendStreamingMessageRequest: conv.to_core_send_message_request,
    t03.GetTaskRequest: conv.to_core_get_task_request,
    t03.CancelTaskRequest: conv.to_core_cancel_task_request,
    t03.TaskResubscriptionRequest: conv.to_core_subscribe_to_task_request,
    t03.SetTaskPushNotificationConfigRequest: (
        conv.to_core_create_task_push_notification_config_request
    ),
    t03.GetTaskPushNotificationConfigRequest: (
        conv.to_core_get_task_push_notification_config_request
    ),
    t03.ListTaskPushNotificationConfigRequest: (
        conv.to_core_list_task_push_notification_config_request
    ),
    t03.DeleteTaskPushNotificationConfigRequest: (
        conv.to_core_delete_task_push_notification_config_request
    ),
    t03.GetAuthenticatedExtendedCardRequest: lambda _r: pb10.GetExtendedAgentCardRequest(),
}

_CORE_TYPES: dict[str, tuple[type[Message], Any]] = {
    "SendMessage": (pb10.SendMessageRequest, conv.to_compat_send_message_request),
    "SendStreamingMessage": (pb10.SendMessageRequest, conv.to_compat_send_message_request),
    "GetTask": (pb10.GetTaskRequest, conv.to_compat_get_task_request),
    "CancelTask": (pb10.CancelTaskRequest, conv.to_compat_cancel_task_request),
    "SubscribeToTask": (pb10.SubscribeToTaskRequest, conv.to_compat_subscribe_to_task_request),
    "CreateTaskPushNotificationConfig": (
        pb10.TaskPushNotificationConfig,
        conv.to_compat_create_task_push_notification_config_request,
    ),
    "GetTaskPushNotificationConfig": (
        pb10.GetTaskPushNotificationConfigRequest,
        conv.to_compat_get_task_push_notification_config_request,
    ),
    "ListTaskPushNotificationConfigs": (
        pb10.ListTaskPushNotificationConfigsRequest,
        conv.to_compat_list_task_push_notification_config_request,
    ),
    "DeleteTaskPushNotificationConfig": (
        pb10.DeleteTaskPushNotificationConfigRequest,
        conv.to_compat_delete_task_push_notification_config_request,
    ),
    "GetExtendedAgentCard": (
        pb10.GetExtendedAgentCardRequest,
        lambda _core, request_id: t03.GetAuthenticatedExtendedCardRequest(id=request_id),
    ),
}


def _core_from_v03(request: Any) -> Message:
    message: Message = _TO_CORE[type(request)](request)
    return message


def _core_message(method: str, params: Any) -> Message:
    cls = _CORE_TYPES[method][0]
    try:
        return ParseDict(params if isinstance(params, dict) else {}, cls())
    except ParseError as exc:
        raise ConversionError(f"Not a valid 1.0 {method} request: {exc}") from exc


def _v03_from_core(method: str, core: Message) -> Any:
    return _CORE_TYPES[method][1](core, 1)


# --- 0.3 proto (HTTP+JSON, gRPC) <-> 0.3 JSON-RPC model (the SDK's proto_utils) -----------

_NAME = re.compile(r"^tasks/([^/]+)(?:/pushNotificationConfigs/([^/]+))?$")


def _ids(name: str, what: str) -> tuple[str, str]:
    match = _NAME.match(name)
    if match is None:
        raise ConversionError(f"{what} must look like tasks/{{id}}…, got {name!r}")
    return match.group(1), match.group(2) or ""


def _v03_from_proto(method: str, obj: Any) -> Any:
    """The 0.3 JSON-RPC request a 0.3 proto request object stands for (as the SDK's 0.3
    gRPC handler reads it)."""
    classes: dict[str, type[Message]] = {
        "message/send": pb03.SendMessageRequest,
        "message/stream": pb03.SendMessageRequest,
        "tasks/get": pb03.GetTaskRequest,
        "tasks/cancel": pb03.CancelTaskRequest,
        "tasks/resubscribe": pb03.TaskSubscriptionRequest,
        "tasks/pushNotificationConfig/set": pb03.CreateTaskPushNotificationConfigRequest,
        "tasks/pushNotificationConfig/get": pb03.GetTaskPushNotificationConfigRequest,
        "tasks/pushNotificationConfig/list": pb03.ListTaskPushNotificationConfigRequest,
        "tasks/pushNotificationConfig/delete": pb03.DeleteTaskPushNotificationConfigRequest,
        "agent/getAuthenticatedExtendedCard": pb03.GetAgentCardRequest,
    }
    name = LEGACY_NAMES.get(method, method)
    try:
        pb: Any = ParseDict(obj if isinstance(obj, dict) else {}, classes[name]())
    except ParseError as exc:
        raise ConversionError(f"Not a valid 0.3 {method} request object: {exc}") from exc
    if name in ("message/send", "message/stream"):
        params = FromProto.message_send_params(pb)
        cls = t03.SendMessageRequest if name == "message/send" else t03.SendStreamingMessageRequest
        return cls(id=1, params=params)
    if name == "tasks/get":
        task, _ = _ids(pb.name, "name")
        query = t03.TaskQueryParams(id=task, history_length=pb.history_length or None)
        return t03.GetTaskRequest(id=1, params=query)
    if name in ("tasks/cancel", "tasks/resubscribe"):
        task, _ = _ids(pb.name, "name")
        cls2 = t03.CancelTaskRequest if name == "tasks/cancel" else t03.TaskResubscriptionRequest
        return cls2(id=1, params=t03.TaskIdParams(id=task))
    if name == "tasks/pushNotificationConfig/set":
        config = FromProto.push_notification_config(pb.config.push_notification_config)
        task, _ = _ids(pb.parent.removesuffix("/pushNotificationConfigs"), "parent")
        push = t03.TaskPushNotificationConfig(task_id=task, push_notification_config=config)
        return t03.SetTaskPushNotificationConfigRequest(id=1, params=push)
    if name == "tasks/pushNotificationConfig/list":
        task, _ = _ids(pb.parent, "parent")
        listing = t03.ListTaskPushNotificationConfigParams(id=task)
        return t03.ListTaskPushNotificationConfigRequest(id=1, params=listing)
    if name in ("tasks/pushNotificationConfig/get", "tasks/pushNotificationConfig/delete"):
        task, config_id = _ids(pb.name, "name")
        if name.endswith("/get"):
            ref = t03.GetTaskPushNotificationConfigParams(
                id=task, push_notification_config_id=config_id
            )
            return t03.GetTaskPushNotificationConfigRequest(id=1, params=ref)
        gone = t03.DeleteTaskPushNotificationConfigParams(
            id=task, push_notification_config_id=config_id
        )
        return t03.DeleteTaskPushNotificationConfigRequest(id=1, params=gone)
    return t03.GetAuthenticatedExtendedCardRequest(id=1)


_PUSH_REFS = (t03.GetTaskPushNotificationConfigRequest, t03.DeleteTaskPushNotificationConfigRequest)


def _proto_from_v03(request: Any) -> tuple[dict[str, Any], list[str]]:
    """The 0.3 proto request object (ProtoJSON) of a 0.3 JSON-RPC request."""
    params: Any = getattr(request, "params", None)
    notes: list[str] = []
    pb: Message
    if isinstance(request, t03.SendMessageRequest | t03.SendStreamingMessageRequest):
        pb = pb03.SendMessageRequest(
            request=ToProto.message(params.message),
            configuration=ToProto.message_send_configuration(params.configuration),
            metadata=ToProto.metadata(params.metadata),
        )
    elif isinstance(request, t03.GetTaskRequest):
        pb = pb03.GetTaskRequest(
            name=f"tasks/{params.id}", history_length=params.history_length or 0
        )
    elif isinstance(request, t03.CancelTaskRequest):
        pb = pb03.CancelTaskRequest(name=f"tasks/{params.id}")
    elif isinstance(request, t03.TaskResubscriptionRequest):
        pb = pb03.TaskSubscriptionRequest(name=f"tasks/{params.id}")
    elif isinstance(request, t03.SetTaskPushNotificationConfigRequest):
        config = params.push_notification_config
        if not config.id:
            config.id = V03P_PUSH_CONFIG_ID
            notes.append(f"0.3 resource names need a config id: {V03P_PUSH_CONFIG_ID!r} chosen")
        pb = pb03.CreateTaskPushNotificationConfigRequest(
            parent=f"tasks/{params.task_id}",
            config_id=config.id,
            config=ToProto.task_push_notification_config(params),
        )
    elif isinstance(request, t03.ListTaskPushNotificationConfigRequest):
        pb = pb03.ListTaskPushNotificationConfigRequest(parent=f"tasks/{params.id}")
    elif isinstance(
        request,
        t03.GetTaskPushNotificationConfigRequest | t03.DeleteTaskPushNotificationConfigRequest,
    ):
        config_id = getattr(params, "push_notification_config_id", "") or ""
        name = f"tasks/{params.id}/pushNotificationConfigs/{config_id}"
        cls = (
            pb03.GetTaskPushNotificationConfigRequest
            if isinstance(request, t03.GetTaskPushNotificationConfigRequest)
            else pb03.DeleteTaskPushNotificationConfigRequest
        )
        pb = cls(name=name)
    else:
        pb = pb03.GetAgentCardRequest()
    return MessageToDict(pb), notes
