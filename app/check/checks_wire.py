"""What goes over the wire around the JSON: the media types of answers and requests, and
the names of the JSON members.

- ``core.content-type``: a JSON-RPC or HTTP+JSON answer, a success and an error alike, is
  typed ``application/json`` (1.0 §9.1, §11.1; the REST binding's own
  ``application/a2a+json``, 1.0 §14.1.1, passes too);
- ``errors.content-type``: a request body typed ``text/plain`` is refused, best with HTTP
  415 Unsupported Media Type (RFC 9110 §15.5.16; the v1.0.0 error table). A server that
  reads any body as JSON lets a browser's cross-origin "simple" POST (``text/plain``, no
  CORS preflight) through: a warning;
- ``core.camel-case``: the answers' member names are camelCase, never the proto's
  snake_case (1.0 §5.5); user data (``metadata``, a data part's ``data``, an extension's
  ``params``) is the sender's own and not judged.

gRPC carries protobuf, typed by gRPC itself, and its JSON form is written by this app: the
three are not applicable there.
"""

from __future__ import annotations

import re
from typing import Any

from app.check.calls import CallResult
from app.check.check_model import CheckArea
from app.check.context import CheckContext
from app.check.spec import (
    CheckSpec,
    Verdict,
    failed,
    not_applicable,
    passed,
    skipped,
    warned,
)
from app.check.target import CONTENT_TYPE_NOT_SUPPORTED, INVALID_REQUEST, Target, tables_matched
from app.protocol.bindings import ErrorForm, traits
from app.protocol.events import NOT_JSON
from app.protocol.methods.catalog import MethodRole, TemplateContext, method_for_role

_JSON = "application/json"
_A2A_JSON = "application/a2a+json"
_WRONG_TYPE = "text/plain"
_USER_DATA = frozenset({"metadata", "data", "params"})
"""Members whose content is the sender's own JSON, not protocol fields."""
_SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")


def _not_http(target: Target) -> Verdict | None:
    found = traits(target.binding)
    if not found.rides_http:
        return not_applicable(f"{found.a_label} answer is protobuf, not a JSON body")
    return None


def media_type(content_type: str) -> str:
    """``"application/json"`` of ``"application/json; charset=utf-8"``."""
    return content_type.split(";", 1)[0].strip().lower()


def _judge_type(what: str, call: CallResult) -> tuple[str, str]:
    """``("fail" | "warn" | "", line)`` for the type of one answer."""
    found = media_type(call.content_type)
    if found in (_JSON, _A2A_JSON):
        return "", f"{what}: {found}"
    if found.endswith("+json") or found == "text/json":
        return "warn", f"{what}: {found}, a JSON type but not {_JSON}"
    return "fail", f"{what}: {found or 'no Content-Type'}, not {_JSON}"


async def answer_type(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    if (why := _not_http(target)) is not None:
        return why
    answers = [
        ("a send's answer", await ctx.first_send(target)),
        ("an error answer (GetTask of an unknown task)", await ctx.get_unknown(target)),
    ]
    judged = [_judge_type(what, call) for what, call in answers if call.status is not None]
    if not judged:
        return skipped("no answer arrived to judge")
    lines = "\n".join(line for _, line in judged)
    if any(level == "fail" for level, _ in judged):
        return failed(lines)
    if any(level == "warn" for level, _ in judged):
        return warned(lines)
    return passed(lines)


async def request_type(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    if (why := _not_http(target)) is not None:
        return why
    call = await ctx.role_call(
        target,
        MethodRole.SEND,
        TemplateContext(text=ctx.message_text),
        headers=(("Content-Type", _WRONG_TYPE),),
    )
    error = call.rpc_error
    if call.status == 415:
        return passed(f"a {_WRONG_TYPE} body was refused with HTTP 415")
    if traits(target.binding).errors is ErrorForm.JSONRPC:
        if error is not None and any(
            tables_matched(target.binding, form, error, call.body)
            for form in (CONTENT_TYPE_NOT_SUPPORTED, INVALID_REQUEST)
        ):
            return passed(f"a {_WRONG_TYPE} body was refused: {call.describe()}")
    elif call.status == 400:
        # The v1.0.1 table's status for ContentTypeNotSupported.
        return passed(
            f"a {_WRONG_TYPE} body was refused with HTTP 400 (415 Unsupported Media Type "
            "would say why: RFC 9110 §15.5.16)"
        )
    if error is not None or (call.status is not None and 400 <= call.status < 500):
        return warned(
            f"a {_WRONG_TYPE} body was refused with {call.describe()}; HTTP 415 Unsupported "
            "Media Type says why (RFC 9110 §15.5.16, the A2A v1.0.0 error table)"
        )
    if call.ok:
        return warned(
            f"a body typed {_WRONG_TYPE} was read as JSON and served; requests are "
            f"{_JSON} (A2A 1.0 §9.1, §11.1), and a server reading any type lets a browser's "
            "cross-origin text/plain POST through without a CORS preflight"
        )
    return failed(f"a {_WRONG_TYPE} body was not answered cleanly: {call.describe()}")


def snake_case_keys(value: Any, path: str = "") -> list[str]:
    """The JSON paths of snake_case member names in ``value``, user data left out."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if _SNAKE.match(str(key)):
                found.append(where)
            if str(key) not in _USER_DATA:
                found += snake_case_keys(item, where)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += snake_case_keys(item, f"{path}[{index}]")
    return found


async def camel_case(ctx: CheckContext, target: Target | None) -> Verdict:
    assert target is not None
    if (why := _not_http(target)) is not None:
        return why
    answers = [await ctx.first_send(target), await ctx.task_send(target)]
    bodies = [call.body for call in answers if call.body is not NOT_JSON]
    bodies += [item.json for call in answers for item in call.items]
    if not bodies:
        return skipped("no JSON answer arrived to judge")
    found = list(dict.fromkeys(p for body in bodies for p in snake_case_keys(body)))
    if found:
        shown = ", ".join(found[:8]) + (" …" if len(found) > 8 else "")
        return failed(f"snake_case member names where JSON uses camelCase: {shown}")
    method = method_for_role(target.version, MethodRole.SEND).name
    return passed(f"every member name of the {method} answers is camelCase")


CHECKS = (
    CheckSpec(
        "core.content-type",
        CheckArea.CORE,
        "answers are typed application/json",
        "A2A 1.0 §9.1, §11.1",
        "A2A 0.3 §3.2",
        answer_type,
        tck=("JSONRPC-FMT-002", "HTTP_JSON-SVC-001", "HTTP_JSON-ERR-001"),
    ),
    CheckSpec(
        "core.camel-case",
        CheckArea.CORE,
        "JSON member names are camelCase",
        "A2A 1.0 §5.5",
        "A2A 0.3 §3.2",
        camel_case,
        tck=("DM-SERIAL-001",),
    ),
    CheckSpec(
        "errors.content-type",
        CheckArea.ERRORS,
        "a request body of another media type is refused (HTTP 415)",
        "A2A 1.0 §9.1, §11.1; RFC 9110 §15.5.16",
        "A2A 0.3 §3.2",
        request_type,
        tck=("JSONRPC-FMT-002", "HTTP_JSON-STATUS-001"),
    ),
)
