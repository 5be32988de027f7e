"""The method catalog: every A2A method of protocol 1.0 and 0.3, as plain data.

One :class:`MethodSpec` per (version, method). Names follow the A2A specification and the
official protobuf descriptors shipped in ``a2a-sdk``:

- 1.0 JSON-RPC names equal the gRPC rpc names of ``lf.a2a.v1.A2AService`` (``SendMessage``);
  params, REST bodies and gRPC messages are all ProtoJSON of the same request message.
- 0.3 JSON-RPC names are ``category/action`` (``message/send``) with ``kind``-discriminated
  params; 0.3 REST and gRPC use ProtoJSON of the 0.3 proto (``a2a.v1.A2AService``), whose
  rpc names differ (``TaskSubscription``, ``GetAgentCard``, singular
  ``ListTaskPushNotificationConfig``).

REST routes are not retyped here: :func:`app.protocol.methods.catalog.grpc_method` gives the method
descriptor whose ``google.api.http`` option holds verb, path template and body rule.

Sources: docs/PROTOCOL.md §2.2–2.3, §3.1, §3.4, §4.1; ``a2a.proto`` (1.0) and
``a2a_v0_3.proto``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import Any

from google.protobuf.descriptor import MethodDescriptor, ServiceDescriptor

from app.protocol.bindings import traits
from app.protocol.methods.parts import Attachment, Dialect, parts_of
from app.protocol.types import Binding, ProtocolVersion


class MethodRole(StrEnum):
    """What a method is for, so callers pick a method by job, not by a version's name.

    Every method has one. Follow-up, cancel and resubscribe requests
    (:mod:`app.protocol.stream.followups`) are built from them, and a version switch keeps
    the job (:func:`counterpart`: ``SendStreamingMessage`` ↔ ``message/stream``). ``LIST``
    exists in 1.0 only.
    """

    SEND = "send"
    STREAM = "stream"
    GET = "get"
    LIST = "list tasks"
    CANCEL = "cancel"
    SUBSCRIBE = "subscribe"
    PUSH_SET = "set push config"
    PUSH_GET = "get push config"
    PUSH_LIST = "list push configs"
    PUSH_DELETE = "delete push config"
    EXTENDED_CARD = "extended card"


class Capability(StrEnum):
    """``AgentCapabilities`` flags that decide whether a card says a method is supported."""

    STREAMING = "streaming"
    PUSH_NOTIFICATIONS = "pushNotifications"
    EXTENDED_CARD = "extendedAgentCard"


@dataclass(frozen=True, slots=True)
class TemplateContext:
    """What a body template may fill in; empty strings mean "not known in this tab"."""

    text: str = "hello"
    message_id: str = ""
    task_id: str = ""
    context_id: str = ""
    tenant: str = ""
    push_config_id: str = ""
    attachments: tuple[Attachment, ...] = ()
    """Files and data parts added after the text part (:mod:`app.protocol.methods.parts`)."""


Template = Callable[[TemplateContext], dict[str, Any]]

TASK_ID_PLACEHOLDER = "<task-id>"
PUSH_CONFIG_ID_PLACEHOLDER = "<push-config-id>"
V03P_PUSH_CONFIG_ID = "webhook-1"
"""The id the 0.3 HTTP+JSON/gRPC create template gives its config (0.3 resource names need
one), and so the config its get and delete name when no other is given."""
WEBHOOK_PLACEHOLDER = "https://example.invalid/a2a/webhook"


@dataclass(frozen=True, slots=True)
class MethodSpec:
    """One A2A method of one protocol version.

    Attributes:
        name: the method's name as the user picks it (the JSON-RPC method name).
        version: the protocol version it belongs to.
        grpc_rpc: the rpc name in the version's ``A2AService``; empty for JSON-RPC-only
            legacy methods.
        streaming: True when the answer is a stream (SSE or gRPC server streaming).
        capability: the card capability that must be true for the agent to support it.
        legacy: pre-0.3 names that some deployed agents still accept.
        role: the method's job (:class:`MethodRole`).
        jsonrpc_params: builds the JSON-RPC ``params`` object.
        proto_request: builds the REST/gRPC request object (ProtoJSON); for 1.0 it is the
            same object as the JSON-RPC params.
    """

    name: str
    version: ProtocolVersion
    grpc_rpc: str
    streaming: bool
    jsonrpc_params: Template
    proto_request: Template
    capability: Capability | None = None
    legacy: bool = False
    summary: str = ""
    role: MethodRole | None = None

    def supports(self, binding: Binding) -> bool:
        """Whether this method can be sent over ``binding`` at all: a JSON-RPC payload names
        any method, the others need its rpc."""
        return traits(binding).payload.envelope or bool(self.grpc_rpc)

    def template(self, binding: Binding, ctx: TemplateContext) -> dict[str, Any]:
        """The object the user edits: JSON-RPC ``params``, or the REST/gRPC request object."""
        if traits(binding).payload.envelope:
            return self.jsonrpc_params(ctx)
        return self.proto_request(ctx)


def new_message_id() -> str:
    """A fresh ``messageId`` (UUID4 text), as the SDK clients generate."""
    return str(uuid.uuid4())


def _task_id(ctx: TemplateContext) -> str:
    return ctx.task_id or TASK_ID_PLACEHOLDER


def _push_config_id(ctx: TemplateContext) -> str:
    """The config a get or delete names: the one given, else the task's own — a config
    created without an id (this catalog's create templates) gets the task's id from the
    SDKs — else the placeholder."""
    return ctx.push_config_id or ctx.task_id or PUSH_CONFIG_ID_PLACEHOLDER


def _with_tenant(ctx: TemplateContext, body: dict[str, Any]) -> dict[str, Any]:
    return {"tenant": ctx.tenant, **body} if ctx.tenant else body


# --- 1.0 templates (ProtoJSON of lf.a2a.v1 messages; identical in all three bindings) ---


def _v1_message(ctx: TemplateContext) -> dict[str, Any]:
    message: dict[str, Any] = {
        "messageId": ctx.message_id or new_message_id(),
        "role": "ROLE_USER",
        "parts": [{"text": ctx.text}, *parts_of(ctx.attachments, Dialect.V1)],
    }
    if ctx.context_id:
        message["contextId"] = ctx.context_id
    if ctx.task_id:
        message["taskId"] = ctx.task_id
    return _with_tenant(ctx, {"message": message})


def _v1_task(ctx: TemplateContext) -> dict[str, Any]:
    return _with_tenant(ctx, {"id": _task_id(ctx)})


def _v1_get_task(ctx: TemplateContext) -> dict[str, Any]:
    return _with_tenant(ctx, {"id": _task_id(ctx), "historyLength": 10})


def _v1_list_tasks(ctx: TemplateContext) -> dict[str, Any]:
    body: dict[str, Any] = {"pageSize": 20}
    if ctx.context_id:
        body["contextId"] = ctx.context_id
    return _with_tenant(ctx, body)


def _v1_create_push(ctx: TemplateContext) -> dict[str, Any]:
    return _with_tenant(
        ctx, {"taskId": _task_id(ctx), "url": WEBHOOK_PLACEHOLDER, "token": "webhook-token"}
    )


def _v1_push_ref(ctx: TemplateContext) -> dict[str, Any]:
    return _with_tenant(ctx, {"taskId": _task_id(ctx), "id": _push_config_id(ctx)})


def _v1_list_push(ctx: TemplateContext) -> dict[str, Any]:
    return _with_tenant(ctx, {"taskId": _task_id(ctx)})


def _v1_extended_card(ctx: TemplateContext) -> dict[str, Any]:
    return _with_tenant(ctx, {})


# --- 0.3 JSON-RPC templates (kind discriminators, lower-case enums) ---


def _v03_message(ctx: TemplateContext) -> dict[str, Any]:
    message: dict[str, Any] = {
        "kind": "message",
        "messageId": ctx.message_id or new_message_id(),
        "role": "user",
        "parts": [
            {"kind": "text", "text": ctx.text},
            *parts_of(ctx.attachments, Dialect.V03_JSONRPC),
        ],
    }
    if ctx.context_id:
        message["contextId"] = ctx.context_id
    if ctx.task_id:
        message["taskId"] = ctx.task_id
    return {"message": message}


def _v03_task_query(ctx: TemplateContext) -> dict[str, Any]:
    return {"id": _task_id(ctx), "historyLength": 10}


def _v03_task_id(ctx: TemplateContext) -> dict[str, Any]:
    return {"id": _task_id(ctx)}


def _v03_set_push(ctx: TemplateContext) -> dict[str, Any]:
    return {
        "taskId": _task_id(ctx),
        "pushNotificationConfig": {"url": WEBHOOK_PLACEHOLDER, "token": "webhook-token"},
    }


def _v03_push_ref(ctx: TemplateContext) -> dict[str, Any]:
    return {"id": _task_id(ctx), "pushNotificationConfigId": _push_config_id(ctx)}


def _v03_no_params(ctx: TemplateContext) -> dict[str, Any]:
    return {}


# --- 0.3 REST/gRPC templates (ProtoJSON of the a2a.v1 0.3 proto: `content`, resource names) ---


def _v03p_message(ctx: TemplateContext) -> dict[str, Any]:
    message: dict[str, Any] = {
        "messageId": ctx.message_id or new_message_id(),
        "role": "ROLE_USER",
        "content": [{"text": ctx.text}, *parts_of(ctx.attachments, Dialect.V03_PROTO)],
    }
    if ctx.context_id:
        message["contextId"] = ctx.context_id
    if ctx.task_id:
        message["taskId"] = ctx.task_id
    # The proto field is `request`; its JSON name is `message` (docs/PROTOCOL.md §3.4).
    return {"message": message}


def _v03p_task_name(ctx: TemplateContext) -> dict[str, Any]:
    return {"name": f"tasks/{_task_id(ctx)}"}


def _v03p_get_task(ctx: TemplateContext) -> dict[str, Any]:
    return {"name": f"tasks/{_task_id(ctx)}", "historyLength": 10}


def _v03p_create_push(ctx: TemplateContext) -> dict[str, Any]:
    parent = f"tasks/{_task_id(ctx)}"
    return {
        "parent": parent,
        "configId": V03P_PUSH_CONFIG_ID,
        "config": {
            "name": f"{parent}/pushNotificationConfigs/{V03P_PUSH_CONFIG_ID}",
            # The Python SDK takes the id from here and ignores configId and name.
            "pushNotificationConfig": {
                "id": V03P_PUSH_CONFIG_ID,
                "url": WEBHOOK_PLACEHOLDER,
                "token": "webhook-token",
            },
        },
    }


def _v03p_push_name(ctx: TemplateContext) -> dict[str, Any]:
    config_id = ctx.push_config_id or V03P_PUSH_CONFIG_ID
    return {"name": f"tasks/{_task_id(ctx)}/pushNotificationConfigs/{config_id}"}


def _v03p_list_push(ctx: TemplateContext) -> dict[str, Any]:
    return {"parent": f"tasks/{_task_id(ctx)}"}


V1 = ProtocolVersion.V1_0
V03 = ProtocolVersion.V0_3
_S = Capability.STREAMING
_P = Capability.PUSH_NOTIFICATIONS
_X = Capability.EXTENDED_CARD

_SEND, _STREAM, _GET, _LIST = MethodRole.SEND, MethodRole.STREAM, MethodRole.GET, MethodRole.LIST
_CANCEL, _SUBSCRIBE, _EXTENDED_CARD = (
    MethodRole.CANCEL,
    MethodRole.SUBSCRIBE,
    MethodRole.EXTENDED_CARD,
)
_PSET, _PGET, _PLIST, _PDEL = (
    MethodRole.PUSH_SET,
    MethodRole.PUSH_GET,
    MethodRole.PUSH_LIST,
    MethodRole.PUSH_DELETE,
)

METHODS: tuple[MethodSpec, ...] = (
    MethodSpec("SendMessage", V1, "SendMessage", False, _v1_message, _v1_message,
               summary="Send a message; the answer is a Task or a Message", role=_SEND),
    MethodSpec("SendStreamingMessage", V1, "SendStreamingMessage", True, _v1_message,
               _v1_message, _S,
               summary="Send a message and stream the task's events", role=_STREAM),
    MethodSpec("GetTask", V1, "GetTask", False, _v1_get_task, _v1_get_task,
               summary="Fetch a task by id", role=_GET),
    MethodSpec("ListTasks", V1, "ListTasks", False, _v1_list_tasks, _v1_list_tasks,
               summary="List tasks, filtered and paged", role=_LIST),
    MethodSpec("CancelTask", V1, "CancelTask", False, _v1_task, _v1_task,
               summary="Ask the agent to cancel a task", role=_CANCEL),
    MethodSpec("SubscribeToTask", V1, "SubscribeToTask", True, _v1_task, _v1_task, _S,
               summary="Reattach to a running task's event stream", role=_SUBSCRIBE),
    MethodSpec("CreateTaskPushNotificationConfig", V1, "CreateTaskPushNotificationConfig",
               False, _v1_create_push, _v1_create_push, _P,
               summary="Register a webhook for a task", role=_PSET),
    MethodSpec("GetTaskPushNotificationConfig", V1, "GetTaskPushNotificationConfig", False,
               _v1_push_ref, _v1_push_ref, _P, summary="Fetch one webhook config", role=_PGET),
    MethodSpec("ListTaskPushNotificationConfigs", V1, "ListTaskPushNotificationConfigs",
               False, _v1_list_push, _v1_list_push, _P,
               summary="List a task's webhook configs", role=_PLIST),
    MethodSpec("DeleteTaskPushNotificationConfig", V1, "DeleteTaskPushNotificationConfig",
               False, _v1_push_ref, _v1_push_ref, _P, summary="Delete a webhook config",
               role=_PDEL),
    MethodSpec("GetExtendedAgentCard", V1, "GetExtendedAgentCard", False, _v1_extended_card,
               _v1_extended_card, _X,
               summary="The authenticated extended Agent Card", role=_EXTENDED_CARD),
    MethodSpec("message/send", V03, "SendMessage", False, _v03_message, _v03p_message,
               summary="Send a message; the answer is a Task or a Message", role=_SEND),
    MethodSpec("message/stream", V03, "SendStreamingMessage", True, _v03_message,
               _v03p_message, _S,
               summary="Send a message and stream the task's events", role=_STREAM),
    MethodSpec("tasks/get", V03, "GetTask", False, _v03_task_query, _v03p_get_task,
               summary="Fetch a task by id", role=_GET),
    MethodSpec("tasks/cancel", V03, "CancelTask", False, _v03_task_id, _v03p_task_name,
               summary="Ask the agent to cancel a task", role=_CANCEL),
    MethodSpec("tasks/resubscribe", V03, "TaskSubscription", True, _v03_task_id,
               _v03p_task_name, _S,
               summary="Reattach to a running task's event stream", role=_SUBSCRIBE),
    MethodSpec("tasks/pushNotificationConfig/set", V03, "CreateTaskPushNotificationConfig",
               False, _v03_set_push, _v03p_create_push, _P,
               summary="Register a webhook for a task", role=_PSET),
    MethodSpec("tasks/pushNotificationConfig/get", V03, "GetTaskPushNotificationConfig",
               False, _v03_push_ref, _v03p_push_name, _P, summary="Fetch one webhook config",
               role=_PGET),
    MethodSpec("tasks/pushNotificationConfig/list", V03, "ListTaskPushNotificationConfig",
               False, _v03_task_id, _v03p_list_push, _P,
               summary="List a task's webhook configs", role=_PLIST),
    MethodSpec("tasks/pushNotificationConfig/delete", V03, "DeleteTaskPushNotificationConfig",
               False, _v03_push_ref, _v03p_push_name, _P, summary="Delete a webhook config",
               role=_PDEL),
    MethodSpec("agent/getAuthenticatedExtendedCard", V03, "GetAgentCard", False,
               _v03_no_params, _v03_no_params, _X,
               summary="The authenticated extended Agent Card", role=_EXTENDED_CARD),
    MethodSpec("tasks/send", V03, "", False, _v03_message, _v03_message, legacy=True,
               summary="Pre-0.3 name of message/send", role=_SEND),
    MethodSpec("tasks/sendSubscribe", V03, "", True, _v03_message, _v03_message, _S,
               legacy=True, summary="Pre-0.3 name of message/stream", role=_STREAM),
)  # fmt: skip


def methods_for(version: ProtocolVersion) -> tuple[MethodSpec, ...]:
    """All methods of ``version``, in catalog order (the order the picker shows)."""
    return tuple(m for m in METHODS if m.version is version)


def find_method(version: ProtocolVersion, name: str) -> MethodSpec | None:
    """The method called ``name`` in ``version``, or None when there is no such method."""
    for method in METHODS:
        if method.version is version and method.name == name:
            return method
    return None


def method_for_role(version: ProtocolVersion, role: MethodRole) -> MethodSpec:
    """The current (non-legacy) method of ``version`` that does ``role``.

    Raises:
        LookupError: ``version`` has no such method (``LIST`` in 0.3).
    """
    for method in METHODS:
        if method.version is version and method.role is role and not method.legacy:
            return method
    raise LookupError(f"no {role} method in A2A {version.value}")


def counterpart(spec: MethodSpec, version: ProtocolVersion) -> MethodSpec | None:
    """The method of ``version`` that does ``spec``'s job: what a version switch picks.

    ``SendStreamingMessage`` ↔ ``message/stream``, ``GetTask`` ↔ ``tasks/get``, the push
    config methods, the extended card (docs/PROTOCOL.md §2.3.1); a legacy 0.3 name maps to
    the current method. None when ``version`` has no such method (``ListTasks`` in 0.3).
    """
    if spec.version is version:
        return spec
    if spec.role is None:
        return None
    try:
        return method_for_role(version, spec.role)
    except LookupError:
        return None


def default_method(version: ProtocolVersion) -> MethodSpec:
    """The method a new tab starts with: ``SendMessage`` (1.0) or ``message/send`` (0.3)."""
    return methods_for(version)[0]


@cache
def grpc_service(version: ProtocolVersion) -> ServiceDescriptor:
    """The official ``A2AService`` descriptor: ``lf.a2a.v1`` (1.0) or ``a2a.v1`` (0.3)."""
    if version is ProtocolVersion.V1_0:
        from a2a.types import a2a_pb2

        return a2a_pb2.DESCRIPTOR.services_by_name["A2AService"]
    from a2a.compat.v0_3 import a2a_v0_3_pb2

    return a2a_v0_3_pb2.DESCRIPTOR.services_by_name["A2AService"]


def grpc_descriptors(version: ProtocolVersion) -> str:
    """Which descriptors :func:`grpc_service` serves ``version`` from, for the output (the
    built-in official ones: server reflection is not used)."""
    v1 = version is ProtocolVersion.V1_0
    module = "a2a.types.a2a_pb2" if v1 else "a2a.compat.v0_3.a2a_v0_3_pb2"
    return f"built-in a2a-sdk descriptors ({module}, A2A {version.value})"


def grpc_method(spec: MethodSpec) -> MethodDescriptor | None:
    """The rpc descriptor of ``spec`` (input/output types, streaming, HTTP rule), if any."""
    if not spec.grpc_rpc:
        return None
    return grpc_service(spec.version).methods_by_name[spec.grpc_rpc]
