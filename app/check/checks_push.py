"""Push checks: what ``capabilities.pushNotifications: true`` claims, against a receiver
of our own on loopback (:class:`app.push.receiver.PushReceiver`).

- ``push.config``: a config pointing at the receiver is created for a task, listed, and
  deleted (then no longer listed);
- ``push.delivery``: a send carrying a config for the receiver gets at least one delivery,
  with the token the config set.

Checked once per protocol version, over the first interface of that version. An agent on
another machine cannot reach a loopback receiver: then the delivery is skipped. A strict
agent refuses a loopback callback URL (docs/PEERS.md Q29): with no ``--push-public-url``
(the address of a tunnel to the receiver) both checks are then n/a, with the agent's words.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from app.check.calls import CallResult
from app.check.check_model import CheckArea
from app.check.checks_core import finished_task
from app.check.checks_errors import judge
from app.check.context import UNKNOWN_TASK_ID, CheckContext, task_of
from app.check.spec import (
    CheckSpec,
    Scope,
    Verdict,
    failed,
    not_applicable,
    passed,
    skipped,
    warned,
)
from app.check.target import PUSH_NOT_SUPPORTED, Target
from app.protocol.methods.catalog import (
    WEBHOOK_PLACEHOLDER,
    MethodRole,
    TemplateContext,
    find_method,
    method_for_role,
)
from app.protocol.net.network import is_loopback
from app.protocol.types import ProtocolVersion
from app.push.configs import send_config_field
from app.push.receiver import PushDelivery, PushReceiver, is_loopback_url

_METHODS = {
    ProtocolVersion.V1_0: (
        "CreateTaskPushNotificationConfig",
        "ListTaskPushNotificationConfigs",
        "DeleteTaskPushNotificationConfig",
    ),
    ProtocolVersion.V0_3: (
        "tasks/pushNotificationConfig/set",
        "tasks/pushNotificationConfig/list",
        "tasks/pushNotificationConfig/delete",
    ),
}
_TEMPLATE_TOKEN = "webhook-token"
_NO_RESULT = 'neither "result" nor "error"'
DELIVERY_WAIT_S = 5.0
"""The longest a delivery is waited for after the send returned (bounded by the call timeout)."""


def _claims_push(ctx: CheckContext) -> bool:
    return ctx.view.capabilities.push_notifications is True


def _filled(value: Any, url: str, token: str) -> Any:
    """The catalog template with our receiver's URL and token put in."""
    if isinstance(value, dict):
        return {k: _filled(v, url, token) for k, v in value.items()}
    if isinstance(value, list):
        return [_filled(v, url, token) for v in value]
    if value == WEBHOOK_PLACEHOLDER:
        return url
    if value == _TEMPLATE_TOKEN:
        return token
    return value


def _params(target: Target, method: str, ctx: TemplateContext, url: str, token: str) -> Any:
    spec = find_method(target.version, method)
    assert spec is not None  # the catalog has every push method of both versions
    return _filled(spec.template(target.binding, ctx), url, token)


def _config_id(value: Any) -> str:
    """The created config's id in any dialect (1.0 ``id``, 0.3 nested, 0.3 proto ``name``)."""
    if not isinstance(value, dict):
        return ""
    nested = value.get("pushNotificationConfig")
    if isinstance(nested, dict) and isinstance(nested.get("id"), str):
        return str(nested["id"])
    if isinstance(value.get("id"), str):
        return str(value["id"])
    name = value.get("name")
    if isinstance(name, str) and "/pushNotificationConfigs/" in name:
        return name.rsplit("/", 1)[-1]
    return ""


async def push_config(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    if not _claims_push(ctx):
        return not_applicable("the card does not claim push notifications")
    task, reason = await finished_task(ctx, target)
    if task is None:
        return skipped(reason)
    create, list_method, delete = _METHODS[target.version]
    async with _receiver(ctx) as receiver:
        token = receiver.new_token()
        base = TemplateContext(task_id=task["id"])
        made = await ctx.call(
            target, create, params=_params(target, create, base, receiver.url, token)
        )
        if (refused := _refused_loopback(made, receiver)) is not None:
            return refused
        if not made.ok:
            return failed(f"{create} failed: {made.describe()}")
        config_id = _config_id(made.value)
        listed = await ctx.call(
            target, list_method, params=_params(target, list_method, base, receiver.url, token)
        )
        if not listed.ok:
            return failed(f"{list_method} failed: {listed.describe()}")
        if receiver.url not in json.dumps(listed.value):
            return failed(f"{list_method} does not list the config for {receiver.url}")
        if not config_id:
            return warned(f"{create} answered without a config id; it cannot be deleted")
        ref = TemplateContext(task_id=task["id"], push_config_id=config_id)
        gone = await ctx.call(
            target, delete, params=_params(target, delete, ref, receiver.url, token)
        )
        # a2a-sdk's 0.3 JSON-RPC delete drops its null result (docs/PEERS.md Q21): whether
        # the config is gone still decides.
        no_result = any(_NO_RESULT in e.message for e in gone.errors)
        if not gone.ok and not no_result:
            return failed(f"{delete} of {config_id} failed: {gone.describe()}")
        again = await ctx.call(
            target, list_method, params=_params(target, list_method, base, receiver.url, token)
        )
        if again.ok and receiver.url in json.dumps(again.value):
            return failed(f"{list_method} still lists config {config_id} after {delete}")
    if no_result:
        return warned(f"{delete} deleted {config_id} but answered without a result member")
    return passed(f"config {config_id} created, listed and deleted")


async def push_not_supported(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    if _claims_push(ctx):
        return not_applicable("the card claims push notifications (push.config checks them)")
    if not target.v1:
        # 0.3 servers disagree on a REST push config's body (docs/PEERS.md Q19), so a
        # refusal there may not be about push at all.
        return not_applicable("a rule of A2A 1.0 (§3.3.4)")
    task, _ = await finished_task(ctx, target)
    task_id = task["id"] if task is not None else UNKNOWN_TASK_ID
    create = _METHODS[target.version][0]
    base = TemplateContext(task_id=task_id)
    call = await ctx.call(
        target, create, params=_params(target, create, base, WEBHOOK_PLACEHOLDER, "token")
    )
    return judge(ctx, target, call, PUSH_NOT_SUPPORTED, f"{create} on an agent without push")


def _send_params(target: Target, text: str, url: str, token: str) -> dict[str, Any]:
    spec = method_for_role(target.version, MethodRole.SEND)
    params: dict[str, Any] = spec.template(target.binding, TemplateContext(text=text))
    configuration: dict[str, Any] = {
        send_config_field(target.version, target.binding): {"url": url, "token": token}
    }
    if target.version is not ProtocolVersion.V1_0:
        configuration["blocking"] = True  # 1.0 sends block by default (returnImmediately)
    params["configuration"] = configuration
    return params


def _receiver(ctx: CheckContext) -> PushReceiver:
    settings = ctx.settings
    return PushReceiver("127.0.0.1", settings.push_port, public_url=settings.push_public_url)


def _refused_loopback(call: CallResult, receiver: PushReceiver) -> Verdict | None:
    """n/a when the agent refused our only, loopback, address (its words kept): a strict
    agent will not call back to this machine's loopback (docs/PEERS.md Q29)."""
    if call.rpc_error is None or not is_loopback_url(receiver.url):
        return None
    return not_applicable(
        f"only a loopback receiver ({receiver.url}) was available and the agent refused it: "
        f"{call.describe()}; give --push-public-url (a tunnel to the receiver) to check push"
    )


def _loopback(target: Target) -> bool:
    url = target.url if "://" in target.url else f"//{target.url}"
    return is_loopback(urlsplit(url).hostname or "")


async def push_delivery(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    if not _claims_push(ctx):
        return not_applicable("the card does not claim push notifications")
    public = ctx.settings.push_public_url
    if not public and not _loopback(target):
        return skipped("the agent is not on this machine: it cannot reach a loopback receiver")
    method = method_for_role(target.version, MethodRole.SEND).name
    async with _receiver(ctx) as receiver:
        token = receiver.new_token()
        sent = await ctx.call(
            target, method, params=_send_params(target, ctx.task_text, receiver.url, token)
        )
        if (refused := _refused_loopback(sent, receiver)) is not None:
            return refused
        task = task_of(sent.value)
        if not sent.ok or task is None:
            return skipped(f"the send created no task to be notified about: {sent.describe()}")
        task_id = task.get("id")

        def ours(delivery: PushDelivery) -> bool:
            return delivery.task_id in (None, task_id)

        wait = max(0.0, min(DELIVERY_WAIT_S, ctx.settings.timeout_s, ctx.remaining()))
        delivery = await receiver.wait_for(ours, wait)
    if delivery is None:
        return failed(f"no notification for task {task_id} reached {receiver.url} in {wait:g} s")
    if delivery.token_ok is False or delivery.token is None:
        return warned(f"delivered, but without the config's token (task {task_id})")
    return passed(f"delivered with the config's token ({delivery.summary()})")


CHECKS = (
    CheckSpec(
        "push.not-supported",
        CheckArea.PUSH,
        "no push notifications claimed: a push config gets PushNotificationNotSupported",
        "A2A 1.0 §3.3.4, §5.4",
        "",
        push_not_supported,
        tck=("CORE-CAP-001", "JSONRPC-SSE-002", "HTTP_JSON-STATUS-001", "GRPC-ERR-002"),
    ),
    CheckSpec(
        "push.config",
        CheckArea.PUSH,
        "pushNotifications: a config is created, listed and deleted",
        "A2A 1.0 §3.1.7-§3.1.10",
        "A2A 0.3 §7.5-§7.8",
        push_config,
        Scope.VERSION,
        tck=("PUSH-CREATE-001", "PUSH-LIST-001", "PUSH-DEL-001"),
    ),
    CheckSpec(
        "push.delivery",
        CheckArea.PUSH,
        "pushNotifications: a notification reaches our receiver",
        "A2A 1.0 §4.3.3",
        "A2A 0.3 §9.5",
        push_delivery,
        Scope.VERSION,
        tck=("PUSH-DELIVER-001", "PUSH-DELIVER-002"),
    ),
)
