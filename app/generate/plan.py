"""From a user's Agent Card to the 1.0 card a generated server publishes, and its plan.

A generated server is a new agent: it keeps what the card says about the agent (name,
description, version, provider, skills, input/output modes, documentation and icon URLs)
and replaces what only the original server could honour:

- ``supportedInterfaces`` point at the chosen host and ports, one per chosen binding
  (protocol 1.0, and 0.3 too with ``compat_v03``): JSON-RPC at ``/``, HTTP+JSON at ``/rest``,
  gRPC on its own port;
- ``signatures`` are dropped (they sign the original card; the generated server signs its
  own when given a key);
- security: the generated server implements one scheme, a static bearer token, so the card
  declares exactly that (``bearerAuth``) and nothing else (other schemes, per-skill
  requirements);
- capabilities: streaming only (no push notifications, no extended card, no extensions).

A 0.3 card is reshaped into that 1.0 card the same way (the fields kept have the same names
in both versions); every change is listed in :attr:`PlanResult.notes`. The result is checked
with the card validator (:func:`app.protocol.card.card_validate.validate_card`).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.generate.project_model import ALL_BINDINGS, SERVED_BINDINGS, Language, ServerPlan
from app.protocol.bindings import traits
from app.protocol.card.card_shape import CardProblem, CardShape, Severity, detect_shape
from app.protocol.card.card_validate import validate_card
from app.protocol.types import Binding

__all__ = [
    "BEARER_SCHEME",
    "JSONRPC_PATH",
    "REST_PATH",
    "PlanResult",
    "interfaces_for",
    "plan_from_card",
    "server_card",
]

JSONRPC_PATH = "/"
REST_PATH = "/rest"
BEARER_SCHEME = "bearerAuth"
_KEPT_FIELDS = (
    "name",
    "description",
    "version",
    "provider",
    "documentationUrl",
    "iconUrl",
    "defaultInputModes",
    "defaultOutputModes",
)
_SKILL_FIELDS = ("id", "name", "description", "tags", "examples", "inputModes", "outputModes")


@dataclass(frozen=True)
class PlanResult:
    """A plan and what building it found.

    Attributes:
        plan: the server to generate.
        problems: the card validator's findings on ``plan.card``.
        notes: what was changed from the source card, one sentence each.
    """

    plan: ServerPlan
    problems: tuple[CardProblem, ...]
    notes: tuple[str, ...]

    @property
    def errors(self) -> tuple[CardProblem, ...]:
        """The problems of severity ERROR: a strict peer would refuse the card."""
        return tuple(p for p in self.problems if p.severity is Severity.ERROR)


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def interfaces_for(
    host: str, port: int, grpc_port: int, bindings: frozenset[Binding], compat_v03: bool
) -> list[dict[str, str]]:
    """The ``supportedInterfaces`` of a generated server, 1.0 first, bindings in a fixed order."""
    base = f"http://{_url_host(host)}:{port}"
    urls = {
        Binding.JSONRPC: base + JSONRPC_PATH,
        Binding.HTTP_JSON: base + REST_PATH,
        # The 1.0 proto: "the URL where this interface is available", an absolute URL.
        Binding.GRPC: f"http://{_url_host(host)}:{grpc_port}",
    }
    versions = ("1.0", "0.3") if compat_v03 else ("1.0",)
    return [
        {"url": urls[b], "protocolBinding": b.value, "protocolVersion": v}
        for v in versions
        for b in SERVED_BINDINGS
        if b in bindings
    ]


def _skills(source: Any, notes: list[str]) -> list[dict[str, Any]]:
    if not isinstance(source, list):
        return []
    skills: list[dict[str, Any]] = []
    dropped_security = False
    for skill in source:
        if not isinstance(skill, dict):
            continue
        dropped_security |= any(k in skill for k in ("security", "securityRequirements"))
        skills.append({k: copy.deepcopy(skill[k]) for k in _SKILL_FIELDS if k in skill})
    if dropped_security:
        notes.append("dropped per-skill security requirements (the server checks one token)")
    return skills


def server_card(
    card: Mapping[str, Any],
    interfaces: list[dict[str, str]],
) -> tuple[dict[str, Any], list[str]]:
    """The 1.0 card a generated server publishes for ``card`` (module docstring).

    Returns:
        ``(card, notes)``: the new card and one sentence per change made.
    """
    notes: list[str] = []
    if detect_shape(card) is CardShape.V0_3:
        notes.append("reshaped the 0.3 card into a 1.0 card (the server speaks 1.0)")
    out: dict[str, Any] = {k: copy.deepcopy(card[k]) for k in _KEPT_FIELDS if k in card}
    if not out.get("version"):
        out["version"] = "1.0.0"
        notes.append("set version to 1.0.0 (the source card had none)")
    if not out.get("description") and isinstance(out.get("name"), str):
        out["description"] = out["name"]
        notes.append("set description to the name (the source card had none)")
    for modes in ("defaultInputModes", "defaultOutputModes"):
        if not out.get(modes):
            out[modes] = ["text/plain"]
    out["supportedInterfaces"] = interfaces
    out["capabilities"] = {"streaming": True}
    out["securitySchemes"] = {BEARER_SCHEME: {"httpAuthSecurityScheme": {"scheme": "bearer"}}}
    out["securityRequirements"] = [{"schemes": {BEARER_SCHEME: {"list": []}}}]
    out["skills"] = _skills(card.get("skills"), notes)
    if card.get("signatures"):
        notes.append("dropped the card's signatures (the server signs its own card)")
    schemes = card.get("securitySchemes")
    others = sorted(k for k in schemes if k != BEARER_SCHEME) if isinstance(schemes, dict) else []
    if others:
        notes.append("dropped security schemes the server does not implement: " + ", ".join(others))
    notes.append("declared one security scheme: a bearer token (bearerAuth)")
    return out, notes


def plan_from_card(
    card: Mapping[str, Any],
    *,
    language: Language,
    host: str = "127.0.0.1",
    port: int = 8000,
    grpc_port: int = 50051,
    bindings: frozenset[Binding] = ALL_BINDINGS,
    compat_v03: bool = False,
) -> PlanResult:
    """The plan of a server that publishes ``card``'s agent on ``host``/``port``/``grpc_port``.

    Args:
        card: a 1.0, hybrid or 0.3 Agent Card (parsed JSON).
        language: the generated project's language.
        host: where the server listens and what its card names.
        port: the HTTP port (JSON-RPC and HTTP+JSON).
        grpc_port: the gRPC port.
        bindings: the bindings served; at least one.
        compat_v03: also serve protocol 0.3 (and list its interfaces).

    Returns:
        The plan, the validator's problems on the new card and the changes made.

    Raises:
        ValueError: no binding, a binding the generated server cannot serve, a port outside
            1..65535, or an empty host.
    """
    if not bindings:
        raise ValueError("choose at least one binding")
    if unserved := sorted(bindings - ALL_BINDINGS):
        raise ValueError(f"a generated server cannot serve {', '.join(unserved)}")
    if not host.strip():
        raise ValueError("the host is empty")
    for label, value in (("port", port), ("gRPC port", grpc_port)):
        if not 0 < value < 65536:
            raise ValueError(f"the {label} must be in 1..65535, got {value}")
    # What does not ride HTTP (gRPC) has a server, and a port, of its own.
    if any(not traits(b).rides_http for b in bindings) and port == grpc_port:
        raise ValueError(f"the HTTP and gRPC ports must differ (both {port})")
    interfaces = interfaces_for(host, port, grpc_port, bindings, compat_v03)
    new_card, notes = server_card(card, interfaces)
    plan = ServerPlan(
        card=new_card,
        language=language,
        host=host,
        port=port,
        grpc_port=grpc_port,
        bindings=frozenset(bindings),
        compat_v03=compat_v03,
    )
    return PlanResult(plan, tuple(validate_card(new_card)), tuple(notes))
