"""Access checks: the extended card, required extensions, declared security.

- ``extendedAgentCard`` (0.3: ``supportsAuthenticatedExtendedCard``) claimed: the extended
  card answers with the run's credentials, and is refused without them when the card
  declares security;
- a required extension: a request without it gets ExtensionSupportRequired;
- declared security: a request without credentials is refused (HTTP 401 / gRPC
  UNAUTHENTICATED), not served.
"""

from __future__ import annotations

from typing import Any

from app.check.calls import CallResult
from app.check.check_model import CheckArea
from app.check.context import CheckContext, message_of, task_of
from app.check.spec import CheckSpec, Verdict, failed, not_applicable, passed, skipped, warned
from app.check.target import EXTENSION_REQUIRED, Target, expected_form
from app.protocol.bindings import traits
from app.protocol.methods.catalog import MethodRole, TemplateContext
from app.protocol.net.auth import AuthKind

_REFUSED = frozenset({401, 403, "UNAUTHENTICATED", "PERMISSION_DENIED"})


def _declares_security(ctx: CheckContext) -> bool:
    return bool(ctx.view.security_requirements)


def _has_credentials(ctx: CheckContext) -> bool:
    return ctx.settings.auth.kind is not AuthKind.NONE or any(
        name.lower() in ("authorization", "cookie") for name, _ in ctx.settings.headers
    )


def _is_card(value: Any) -> bool:
    if isinstance(value, dict) and isinstance(value.get("card"), dict):
        value = value["card"]  # a wrapped answer, as some 0.3 proto servers send
    return isinstance(value, dict) and isinstance(value.get("name"), str)


def _claims_extended(ctx: CheckContext) -> bool:
    # The view reads 1.0 capabilities.extendedAgentCard and 0.3 supportsAuthenticatedExtendedCard.
    return ctx.view.capabilities.extended_agent_card is True


async def extended_with_credentials(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    if not _claims_extended(ctx):
        return not_applicable("the card does not claim an extended card")
    if _declares_security(ctx) and not _has_credentials(ctx):
        return skipped("the card declares security and no credentials were given")
    if _declares_security(ctx) and target.index in ctx.withheld:
        return skipped("the interface is not on the card's host: no credentials go to it")
    call = await ctx.role_call(target, MethodRole.EXTENDED_CARD)
    if not call.ok:
        return failed(f"the extended card was not served: {call.describe()}")
    if not _is_card(call.value):
        return failed("the answer is not an Agent Card (no name)")
    return passed("the extended card was served")


def refused(call: CallResult) -> bool:
    """Refused for want of credentials: HTTP 401/403, gRPC UNAUTHENTICATED/PERMISSION_DENIED."""
    error = call.rpc_error
    return call.status in (401, 403) or (error is not None and error.code in _REFUSED)


async def extended_without_credentials(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    if not _claims_extended(ctx):
        return not_applicable("the card does not claim an extended card")
    if not _declares_security(ctx):
        return not_applicable("the card declares no security: anyone may read the extended card")
    call = await ctx.role_call(target, MethodRole.EXTENDED_CARD, auth=False)
    if call.ok and _is_card(call.value):
        return failed("the extended card was served to a caller without credentials")
    if refused(call):
        return passed(f"refused: {call.describe()}")
    if call.rpc_error is not None:
        return warned(f"refused, but not as unauthenticated: {call.describe()}")
    return failed(f"not refused cleanly: {call.describe()}")


async def required_extensions(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    required = [e.uri for e in ctx.view.capabilities.extensions if e.required]
    if not required:
        return not_applicable("the card requires no extension")
    call = await ctx.role_call(
        target, MethodRole.SEND, TemplateContext(text=ctx.message_text), extensions=()
    )
    verdict_form = expected_form(target.binding, EXTENSION_REQUIRED)
    error = call.rpc_error
    if error is not None and ctx.refused_as(target, call, EXTENSION_REQUIRED):
        return passed(f"a request without {', '.join(required)} got {verdict_form}")
    if call.ok:
        return failed(f"served without the required extension {required[0]}")
    return failed(f"expected {verdict_form}, got {call.describe()}")


async def unauthenticated(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    if not _declares_security(ctx):
        return not_applicable("the card declares no security")
    call = await ctx.role_call(
        target, MethodRole.SEND, TemplateContext(text=ctx.message_text), auth=False
    )
    if call.ok and (task_of(call.value) or message_of(call.value)) is not None:
        # Name what the card promised; a carrier without headers could not even carry it
        # (iac-code's gRPC and custom carriers serve anyone: docs/PEERS.md Q26).
        declared = " or ".join(
            " and ".join(name for name, _ in alternative.schemes)
            for alternative in ctx.view.security_requirements
        )
        found = traits(target.binding)
        carrier = "" if found.carries_headers else f" ({found.label} has no place for them)"
        return failed(
            f"a request without credentials was served; the card requires {declared}{carrier}"
        )
    if refused(call):
        return passed(f"refused: {call.describe()}")
    if call.rpc_error is not None:
        return warned(f"refused, but not with 401 / UNAUTHENTICATED: {call.describe()}")
    return failed(f"not refused cleanly: {call.describe()}")


CHECKS = (
    CheckSpec(
        "extended-card.with-credentials",
        CheckArea.EXTENDED_CARD,
        "extendedAgentCard: the extended card answers with credentials",
        "A2A 1.0 §3.1.11, §8.4",
        "A2A 0.3 §7.10",
        extended_with_credentials,
        tck=("CARD-EXT-001",),
    ),
    CheckSpec(
        "extended-card.without-credentials",
        CheckArea.EXTENDED_CARD,
        "extendedAgentCard: the extended card is refused without credentials",
        "A2A 1.0 §3.1.11, §7",
        "A2A 0.3 §7.10",
        extended_without_credentials,
        tck=("CARD-EXT-001", "AUTH-SERVER-002"),
    ),
    CheckSpec(
        "extensions.required",
        CheckArea.EXTENSIONS,
        "a required extension missing gets ExtensionSupportRequired",
        "A2A 1.0 §3.2.6, §4.6",
        "A2A 0.3 §4.6",
        required_extensions,
        tck=("CORE-CAP-004", "JSONRPC-SSE-002", "HTTP_JSON-STATUS-001", "GRPC-ERR-002"),
    ),
    CheckSpec(
        "security.unauthenticated",
        CheckArea.SECURITY,
        "declared security: a request without credentials is refused",
        "A2A 1.0 §7",
        "A2A 0.3 §4",
        unauthenticated,
        tck=("AUTH-SERVER-002", "AUTH-SCOPE-001"),
    ),
)
