"""A normalized, read-only view of an Agent Card of any shape, for display.

Built from any JSON value without raising: missing or mistyped members become empty values.
1.0 camelCase and snake_case member names are both read; 0.3 cards are mapped onto the same
view (``url`` + ``additionalInterfaces`` become interfaces, ``security`` becomes the
requirements). Signature headers are decoded as text, never verified here.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any

from app.protocol.bindings import binding_named
from app.protocol.card.card_shape import (
    SPEAKABLE_VERSIONS,
    CardShape,
    detect_shape,
    json_type,
    major_minor,
)
from app.protocol.types import Binding

__all__ = [
    "CapabilitiesView",
    "CardView",
    "ExtensionView",
    "InterfaceView",
    "ProviderView",
    "SecurityRequirementView",
    "SecuritySchemeView",
    "SignatureView",
    "SkillView",
    "normalize_card",
]


@dataclass(frozen=True, slots=True)
class ProviderView:
    """``provider`` (organization and url), as text."""

    organization: str
    url: str


@dataclass(frozen=True, slots=True)
class InterfaceView:
    """One way to reach the agent.

    Attributes:
        url: endpoint URL (gRPC: ``host:port``).
        binding: ``JSONRPC`` / ``HTTP+JSON`` / ``GRPC`` / custom URI.
        protocol_version: as written on the card (0.3 cards: top-level ``protocolVersion``,
            default ``"0.3.0"``).
        tenant: 1.0 tenant ("" when none; 0.3 has no tenant).
        source: ``"supportedInterfaces"``, ``"url"`` or ``"additionalInterfaces"``.
    """

    url: str
    binding: str
    protocol_version: str
    tenant: str = ""
    source: str = "supportedInterfaces"

    @property
    def major_minor(self) -> str | None:
        """``"1.0"`` / ``"0.3"`` etc., or ``None`` when the version is not Major.Minor[.Patch]."""
        return major_minor(self.protocol_version)

    @property
    def known_binding(self) -> Binding | None:
        """The binding the card's spelling names, or None for one the app does not speak."""
        return binding_named(self.binding)

    @property
    def speakable(self) -> bool:
        """Whether this app can speak the interface's protocol version and binding."""
        return self.major_minor in SPEAKABLE_VERSIONS and self.known_binding is not None


@dataclass(frozen=True, slots=True)
class ExtensionView:
    """``capabilities.extensions[]`` entry; ``params_json`` is compact JSON text ("" when none)."""

    uri: str
    description: str
    required: bool
    params_json: str = ""


@dataclass(frozen=True, slots=True)
class CapabilitiesView:
    """``capabilities``; ``None`` means "not stated"."""

    streaming: bool | None = None
    push_notifications: bool | None = None
    extended_agent_card: bool | None = None
    state_transition_history: bool | None = None
    extensions: tuple[ExtensionView, ...] = ()


@dataclass(frozen=True, slots=True)
class SkillView:
    """One skill."""

    id: str
    name: str
    description: str
    tags: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    input_modes: tuple[str, ...] = ()
    output_modes: tuple[str, ...] = ()
    security_requirements: tuple[SecurityRequirementView, ...] = ()


@dataclass(frozen=True, slots=True)
class SecuritySchemeView:
    """One ``securitySchemes`` entry.

    Attributes:
        name: the map key, referenced by requirements.
        kind: ``apiKey`` / ``http`` / ``oauth2`` / ``openIdConnect`` / ``mutualTLS`` / ``?``.
        summary: one line for a table, e.g. ``"http bearer (JWT)"`` or ``"apiKey in header X-Key"``.
        description: the scheme's description ("" when none).
        raw_json: the entry as compact JSON text.
    """

    name: str
    kind: str
    summary: str
    description: str
    raw_json: str


@dataclass(frozen=True, slots=True)
class SecurityRequirementView:
    """One alternative of ``securityRequirements``: all listed schemes together (AND)."""

    schemes: tuple[tuple[str, tuple[str, ...]], ...]
    """``(scheme name, scopes)`` pairs."""


@dataclass(frozen=True, slots=True)
class SignatureView:
    """A ``signatures[]`` entry as text; nothing here is fetched or verified.

    Attributes:
        kid: protected header ``kid`` ("" when absent).
        alg: protected header ``alg`` ("" when absent).
        jku: protected header ``jku`` as text (never followed), "" when absent.
        typ: protected header ``typ`` ("" when absent).
        header_json: decoded protected header as compact JSON text, "" if undecodable.
        error: why the protected header could not be decoded, else "".
    """

    kid: str
    alg: str
    jku: str
    typ: str
    header_json: str
    error: str = ""


@dataclass(frozen=True, slots=True)
class CardView:
    """What the card panel shows; built from any JSON without raising.

    Attributes:
        shape: detected shape.
        name, description, version: identity ("" when missing or not text).
        provider: ``None`` when absent.
        icon_url, documentation_url: "" when absent.
        protocol_versions: distinct interface versions in card order.
        interfaces: preferred first (1.0 order; 0.3: ``url`` then ``additionalInterfaces``).
        capabilities: stated capabilities.
        default_input_modes, default_output_modes: media types.
        skills: skills in card order.
        security_schemes: in card order.
        security_requirements: card-level requirements (0.3 ``security`` mapped).
        signatures: decoded signature headers.
    """

    shape: CardShape
    name: str = ""
    description: str = ""
    version: str = ""
    provider: ProviderView | None = None
    icon_url: str = ""
    documentation_url: str = ""
    protocol_versions: tuple[str, ...] = ()
    interfaces: tuple[InterfaceView, ...] = ()
    capabilities: CapabilitiesView = CapabilitiesView()
    default_input_modes: tuple[str, ...] = ()
    default_output_modes: tuple[str, ...] = ()
    skills: tuple[SkillView, ...] = ()
    security_schemes: tuple[SecuritySchemeView, ...] = ()
    security_requirements: tuple[SecurityRequirementView, ...] = ()
    signatures: tuple[SignatureView, ...] = ()


def _s(value: object) -> str:
    return value if isinstance(value, str) else ""


def _get(obj: dict[str, Any], camel: str, snake: str | None = None) -> Any:
    if camel in obj:
        return obj[camel]
    return obj.get(snake) if snake else None


def _strs(value: object) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(v for v in value if isinstance(v, str))


def _b(value: object) -> bool | None:
    return value if isinstance(value, bool) else None


def _compact(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return ""


def _requirements(value: object) -> tuple[SecurityRequirementView, ...]:
    if not isinstance(value, list):
        return ()
    out: list[SecurityRequirementView] = []
    for item in value:
        if not isinstance(item, dict):
            continue
        schemes = item.get("schemes")
        pairs: list[tuple[str, tuple[str, ...]]] = []
        if isinstance(schemes, dict):  # 1.0: {"schemes": {name: {"list": [...]}}}
            for name, scopes in schemes.items():
                scope_list = scopes.get("list") if isinstance(scopes, dict) else None
                pairs.append((str(name), _strs(scope_list)))
        else:  # 0.3: {name: [scopes]}
            pairs.extend((str(name), _strs(scopes)) for name, scopes in item.items())
        out.append(SecurityRequirementView(tuple(pairs)))
    return tuple(out)


_WRAPPERS = {
    "apiKeySecurityScheme": "apiKey",
    "httpAuthSecurityScheme": "http",
    "oauth2SecurityScheme": "oauth2",
    "openIdConnectSecurityScheme": "openIdConnect",
    "mtlsSecurityScheme": "mutualTLS",
}


def _scheme(name: str, entry: object) -> SecuritySchemeView:
    raw = _compact(entry)
    if not isinstance(entry, dict):
        return SecuritySchemeView(name, "?", f"not an object ({json_type(entry)})", "", raw)
    kind, body = "?", entry
    for wrapper, wrapper_kind in _WRAPPERS.items():
        if isinstance(entry.get(wrapper), dict):
            kind, body = wrapper_kind, entry[wrapper]
            break
    else:
        if isinstance(entry.get("type"), str):
            kind = entry["type"]
    if kind == "apiKey":
        location = _s(body.get("location")) or _s(body.get("in"))
        summary = f"apiKey in {location or '?'} {_s(body.get('name')) or '?'}"
    elif kind == "http":
        fmt = _s(body.get("bearerFormat"))
        summary = f"http {_s(body.get('scheme')) or '?'}" + (f" ({fmt})" if fmt else "")
    elif kind == "oauth2":
        flows = body.get("flows")
        names = ", ".join(flows) if isinstance(flows, dict) else "?"
        summary = f"oauth2 flows: {names}"
    elif kind == "openIdConnect":
        summary = f"openIdConnect {_s(body.get('openIdConnectUrl'))}"
    elif kind == "mutualTLS":
        summary = "mutual TLS"
    else:
        summary = "unrecognised scheme"
    return SecuritySchemeView(name, kind, summary, _s(body.get("description")), raw)


def _signature(entry: object) -> SignatureView:
    if not isinstance(entry, dict):
        return SignatureView("", "", "", "", "", f"entry is {json_type(entry)}, not an object")
    protected = entry.get("protected")
    if not isinstance(protected, str):
        return SignatureView("", "", "", "", "", "no 'protected' string")
    try:
        header = json.loads(base64.urlsafe_b64decode(protected + "=" * (-len(protected) % 4)))
    except (binascii.Error, ValueError, RecursionError) as exc:
        return SignatureView("", "", "", "", "", f"protected header undecodable: {exc}")
    if not isinstance(header, dict):
        return SignatureView("", "", "", "", _compact(header), "protected header is not an object")
    jku = header.get("jku")
    return SignatureView(
        kid=_s(header.get("kid")),
        alg=_s(header.get("alg")),
        jku=jku if isinstance(jku, str) else ("" if jku is None else _compact(jku)),
        typ=_s(header.get("typ")),
        header_json=_compact(header),
    )


def _interfaces(card: dict[str, Any], shape: CardShape) -> tuple[InterfaceView, ...]:
    out: list[InterfaceView] = []
    if shape is CardShape.V0_3:
        version = _s(card.get("protocolVersion")) or "0.3.0"
        url = _s(card.get("url"))
        if url:
            binding = _s(card.get("preferredTransport")) or "JSONRPC"
            out.append(InterfaceView(url, binding, version, "", "url"))
        extra = card.get("additionalInterfaces")
        for iface in extra if isinstance(extra, list) else ():
            if isinstance(iface, dict):
                view = InterfaceView(
                    _s(iface.get("url")),
                    _s(iface.get("transport")),
                    version,
                    "",
                    "additionalInterfaces",
                )
                # 0.3 asks cards to repeat the main url there; show it once.
                if not any((o.url, o.binding) == (view.url, view.binding) for o in out):
                    out.append(view)
        return tuple(out)
    interfaces = _get(card, "supportedInterfaces", "supported_interfaces")
    for iface in interfaces if isinstance(interfaces, list) else ():
        if isinstance(iface, dict):
            out.append(
                InterfaceView(
                    _s(iface.get("url")),
                    _s(_get(iface, "protocolBinding", "protocol_binding")),
                    _s(_get(iface, "protocolVersion", "protocol_version")),
                    _s(iface.get("tenant")),
                )
            )
    return tuple(out)


def _skill(entry: dict[str, Any]) -> SkillView:
    reqs = _get(entry, "securityRequirements", "security_requirements")
    if reqs is None:
        reqs = entry.get("security")
    return SkillView(
        id=_s(entry.get("id")),
        name=_s(entry.get("name")),
        description=_s(entry.get("description")),
        tags=_strs(entry.get("tags")),
        examples=_strs(entry.get("examples")),
        input_modes=_strs(_get(entry, "inputModes", "input_modes")),
        output_modes=_strs(_get(entry, "outputModes", "output_modes")),
        security_requirements=_requirements(reqs),
    )


def normalize_card(card: object) -> CardView:
    """Build the UI view of parsed card JSON of any shape; never raises.

    Args:
        card: any JSON value.

    Returns:
        A ``CardView``; missing or mistyped members become empty values.
    """
    shape = detect_shape(card)
    if not isinstance(card, dict):
        return CardView(shape)
    provider_obj = card.get("provider")
    provider = (
        ProviderView(_s(provider_obj.get("organization")), _s(provider_obj.get("url")))
        if isinstance(provider_obj, dict)
        else None
    )
    interfaces = _interfaces(card, shape)
    versions: list[str] = []
    for iface in interfaces:
        if iface.protocol_version and iface.protocol_version not in versions:
            versions.append(iface.protocol_version)

    caps_obj = card.get("capabilities")
    caps_obj = caps_obj if isinstance(caps_obj, dict) else {}
    extensions: list[ExtensionView] = []
    ext_list = caps_obj.get("extensions")
    for ext in ext_list if isinstance(ext_list, list) else ():
        if isinstance(ext, dict):
            params = ext.get("params")
            extensions.append(
                ExtensionView(
                    _s(ext.get("uri")),
                    _s(ext.get("description")),
                    ext.get("required") is True,
                    _compact(params) if params is not None else "",
                )
            )
    extended = _b(_get(caps_obj, "extendedAgentCard", "extended_agent_card"))
    if extended is None:
        extended = _b(card.get("supportsAuthenticatedExtendedCard"))
    capabilities = CapabilitiesView(
        streaming=_b(caps_obj.get("streaming")),
        push_notifications=_b(_get(caps_obj, "pushNotifications", "push_notifications")),
        extended_agent_card=extended,
        state_transition_history=_b(caps_obj.get("stateTransitionHistory")),
        extensions=tuple(extensions),
    )
    skills_obj = card.get("skills")
    skills = tuple(
        _skill(s)
        for s in (skills_obj if isinstance(skills_obj, list) else ())
        if isinstance(s, dict)
    )
    schemes_obj = _get(card, "securitySchemes", "security_schemes")
    schemes = tuple(
        _scheme(str(k), v)
        for k, v in (schemes_obj.items() if isinstance(schemes_obj, dict) else ())
    )
    reqs = _get(card, "securityRequirements", "security_requirements")
    if reqs is None:
        reqs = card.get("security")
    sigs = card.get("signatures")
    return CardView(
        shape=shape,
        name=_s(card.get("name")),
        description=_s(card.get("description")),
        version=_s(card.get("version")),
        provider=provider,
        icon_url=_s(_get(card, "iconUrl", "icon_url")),
        documentation_url=_s(_get(card, "documentationUrl", "documentation_url")),
        protocol_versions=tuple(versions),
        interfaces=interfaces,
        capabilities=capabilities,
        default_input_modes=_strs(_get(card, "defaultInputModes", "default_input_modes")),
        default_output_modes=_strs(_get(card, "defaultOutputModes", "default_output_modes")),
        skills=skills,
        security_schemes=schemes,
        security_requirements=_requirements(reqs),
        signatures=tuple(_signature(s) for s in (sigs if isinstance(sigs, list) else ())),
    )
