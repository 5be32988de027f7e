"""Card checks: the validator's findings, each interface answering in its binding and
version, and version negotiation (``A2A-Version``)."""

from __future__ import annotations

from app.check.check_model import CheckArea
from app.check.context import CheckContext, message_of, task_of
from app.check.spec import CheckSpec, Scope, Verdict, failed, not_applicable, passed, warned
from app.check.target import (
    VERSION_NOT_SUPPORTED,
    Target,
    answered,
    expected_form,
    table_note,
)
from app.protocol.bindings import traits
from app.protocol.card.card_shape import CardProblem, Severity
from app.protocol.events import Headers
from app.protocol.methods.catalog import MethodRole, TemplateContext, method_for_role
from app.protocol.types import A2A_VERSION_HEADER, Binding

# A known peer habit, not a trait of the binding: the Python SDK's gRPC server ignores
# a2a-version metadata (docs/CHECKS.md), so serving it warns there and fails elsewhere.
_IGNORES_VERSION = frozenset({Binding.GRPC})

NO_ANSWER = "no answer at "
"""How ``card.interface-answers`` begins when nothing answered (the runner then stops)."""

UNSUPPORTED_VERSION = "99.0"
"""An ``A2A-Version`` no agent speaks (a major version far ahead)."""


def _problem_line(problem: CardProblem) -> str:
    where = problem.path or "(card)"
    return f"{problem.severity.value}: {where}: {problem.message}"


async def card_valid(ctx: CheckContext, target: Target | None) -> Verdict:
    problems: tuple[CardProblem, ...] = ctx.extras.get("problems", ())
    errors = [p for p in problems if p.severity is Severity.ERROR]
    warnings = [p for p in problems if p.severity is Severity.WARNING]
    lines = "\n".join(_problem_line(p) for p in problems)
    if errors:
        return failed(f"{len(errors)} validation error(s):\n{lines}")
    if warnings:
        return warned(f"{len(warnings)} validation warning(s):\n{lines}")
    return passed(lines or "no problems")


def _header(headers: Headers, name: str) -> str | None:
    return next((value for key, value in headers if key.lower() == name), None)


async def card_caching(ctx: CheckContext, target: Target | None) -> Verdict:
    headers: Headers | None = ctx.extras.get("card_headers")
    if headers is None:
        return not_applicable("the card was read from a file: there are no HTTP headers")
    cache_control = _header(headers, "cache-control")
    etag = _header(headers, "etag")
    modified = _header(headers, "last-modified")
    should: list[str] = []
    if cache_control is None:
        should.append("no Cache-Control header (SHOULD, with a max-age)")
    elif "max-age" not in cache_control.lower() and "no-store" not in cache_control.lower():
        should.append(f"Cache-Control {cache_control!r} has no max-age (SHOULD)")
    if etag is None:
        should.append("no ETag header (SHOULD)")
    notes = [] if modified is not None else ["note: no Last-Modified header (MAY)"]
    if should:
        return warned("\n".join([*should, *notes]))
    seen = f"Cache-Control {cache_control!r}, ETag {etag}"
    if modified is not None:
        seen += f", Last-Modified {modified}"
    return passed("\n".join([seen, *notes]))


async def interface_answers(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    call = await ctx.first_send(target)
    if call.unreachable:
        return failed(f"{NO_ANSWER}{target.url}: {call.describe()}")
    if not call.ok:
        hint = ""
        if call.status in (401, 403) or (
            call.rpc_error and call.rpc_error.code == "UNAUTHENTICATED"
        ):
            hint = " (the agent wants credentials: --bearer, --basic, --api-key or --oauth2)"
        return failed(
            f"the {target.binding.value} {target.version.value} {_send_method(target)} "
            f"was not answered with a result: {call.describe()}{hint}"
        )
    return passed(f"answered {_send_method(target)} over {target.binding.value}")


def _send_method(target: Target) -> str:
    return method_for_role(target.version, MethodRole.SEND).name


async def version_unsupported(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    if not target.v1:
        return not_applicable("0.3 has no A2A-Version header to negotiate")
    if not traits(target.binding).carries_headers:
        label = traits(target.binding).label
        return not_applicable(f"{label} has no headers: A2A-Version cannot be sent")
    call = await ctx.role_call(
        target,
        MethodRole.SEND,
        TemplateContext(text=ctx.message_text),
        headers=((A2A_VERSION_HEADER, UNSUPPORTED_VERSION),),
    )
    error = call.rpc_error
    want = expected_form(target.binding, VERSION_NOT_SUPPORTED)
    tables = ctx.refused_as(target, call, VERSION_NOT_SUPPORTED)
    if error is not None and tables:
        got = answered(target.binding, error)
        return passed(
            f"A2A-Version {UNSUPPORTED_VERSION} refused with {got} "
            f"({VERSION_NOT_SUPPORTED.reason}){table_note(tables)}"
        )
    served = task_of(call.value) is not None or message_of(call.value) is not None
    if call.ok and served and target.binding in _IGNORES_VERSION:
        return warned(
            f"a2a-version {UNSUPPORTED_VERSION} was served as if supported; the spec asks "
            f"for {want}"
        )
    if call.ok:
        return failed(f"A2A-Version {UNSUPPORTED_VERSION} was served; expected {want}")
    return failed(f"expected {want}, got {call.describe()}")


CHECKS = (
    CheckSpec(
        "card.valid",
        CheckArea.CARD,
        "the Agent Card passes validation",
        "A2A 1.0 §4.4.1, §8",
        "A2A 0.3 §5.5",
        card_valid,
        Scope.CARD,
        tck=("CARD-STRUCT-001", "CARD-PROTO-001", "CARD-PROTO-002", "DM-SERIAL-004"),
    ),
    CheckSpec(
        "card.caching",
        CheckArea.CARD,
        "the card is served with caching headers (Cache-Control, ETag)",
        "A2A 1.0 §8.6.1",
        "",
        card_caching,
        Scope.CARD,
        tck=("CARD-CACHE-001", "CARD-CACHE-002", "CARD-CACHE-003"),
    ),
    CheckSpec(
        "card.interface-answers",
        CheckArea.CARD,
        "the interface answers at its URL in its binding and version",
        "A2A 1.0 §8.3, §5.3",
        "A2A 0.3 §5.6",
        interface_answers,
        tck=(
            "CARD-PROTO-002",
            "JSONRPC-FMT-001",
            "JSONRPC-SVC-001",
            "HTTP_JSON-URL-001",
            "HTTP_JSON-URL-002",
            "GRPC-SVC-001",
        ),
    ),
    CheckSpec(
        "card.version-unsupported",
        CheckArea.CARD,
        "an unsupported A2A-Version gets VersionNotSupported",
        "A2A 1.0 §3.6.2",
        "",
        version_unsupported,
        tck=("VER-SERVER-002", "JSONRPC-SSE-002", "HTTP_JSON-STATUS-001", "GRPC-ERR-002"),
    ),
)
