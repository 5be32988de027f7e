"""Field-level validation of an Agent Card, for both protocol versions; never raises.

1.0 cards (pure or hybrid) are walked against the ``AgentCard`` descriptor
(:mod:`app.protocol.card.descriptor`), then their interfaces are checked for meaning: absolute
http(s) URLs, gRPC targets (``host:port`` or an absolute URL), versions the app can speak,
duplicates. 0.3 cards are checked against the 0.3 JSON-RPC schema's required fields and types
(docs/PROTOCOL.md §6.2) and get the same interface checks.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from app.protocol.bindings import HTTP_URL, binding_named, traits
from app.protocol.card.card_shape import (
    SPEAKABLE_VERSIONS,
    CardProblem,
    CardShape,
    Severity,
    detect_shape,
    json_type,
    major_minor,
)
from app.protocol.card.descriptor import CARD_DESCRIPTOR, DescriptorWalker
from app.protocol.types import Binding

__all__ = ["validate_card"]


# ---------------------------------------------------------------------------------------
# semantic checks shared by both versions


def _check_interface(
    problems: list[CardProblem],
    path: str,
    url: object,
    binding: object,
    version: object,
    *,
    v1: bool,
) -> None:
    known = binding_named(binding)
    found = traits(known) if known is not None else None
    # An unknown binding's url is held to the common shape, an http(s) URL.
    shape = found.url if found is not None else HTTP_URL
    if isinstance(url, str) and url:
        if found is not None and shape.target:
            # The 1.0 proto asks for an absolute URL; older cards give a bare host:port.
            scheme, sep, rest = url.partition("://")
            if sep and (scheme.lower() not in shape.target_schemes or "/" in rest.strip("/")):
                problems.append(
                    CardProblem(
                        f"{path}.url",
                        f"{found.label} interface url {url!r} is not a target the app can call "
                        f"({shape.words})",
                        Severity.WARNING,
                    )
                )
        else:
            try:
                parts = urlsplit(url)
                scheme, host = parts.scheme.lower(), parts.hostname
            except ValueError:
                scheme, host = "", None
            if scheme not in shape.schemes or (shape.host and not host):
                problems.append(
                    CardProblem(
                        f"{path}.url", f"not an absolute {shape.words}: {url!r}", Severity.ERROR
                    )
                )
    bpath = f"{path}.{'protocolBinding' if v1 else 'transport'}"
    if isinstance(binding, str) and binding and known is None:
        problems.append(
            CardProblem(
                bpath,
                f"custom binding {binding!r}; the app speaks {', '.join(b.value for b in Binding)}",
                Severity.INFO,
            )
        )
    elif isinstance(binding, str) and known is not None and found is not None:
        if found.standard and binding != known.value:
            # The spec names the three standard bindings exactly (1.0 §5.5).
            problems.append(
                CardProblem(
                    bpath,
                    f"binding {binding!r} read as {known.value}; A2A 1.0 §5.5 spells it "
                    f"{known.value!r}",
                    Severity.WARNING,
                )
            )
        elif not found.standard:
            problems.append(
                CardProblem(
                    bpath,
                    f"custom binding {binding!r} read as {found.label} (non-standard"
                    + (
                        "; A2A 1.0 §5.8: a custom binding SHOULD be named by a URI)"
                        if ":" not in binding
                        else ")"
                    ),
                    Severity.INFO,
                )
            )
    if isinstance(version, str) and version:
        mm = major_minor(version)
        vpath = f"{path}.protocolVersion"
        if mm is None:
            problems.append(CardProblem(vpath, f"protocol version {version!r} is not Major.Minor"))
        elif mm not in SPEAKABLE_VERSIONS:
            problems.append(
                CardProblem(
                    vpath,
                    f"protocol version {version!r} cannot be spoken by this app "
                    f"(it speaks {', '.join(SPEAKABLE_VERSIONS)})",
                    Severity.WARNING,
                )
            )
        elif v1 and version != mm:
            problems.append(
                CardProblem(
                    vpath,
                    f"1.0 interfaces carry Major.Minor only; {version!r} read as {mm}",
                    Severity.INFO,
                )
            )


def _duplicates(
    problems: list[CardProblem], entries: Iterable[tuple[str, tuple[object, ...]]]
) -> None:
    first: dict[str, str] = {}
    for path, key in entries:
        try:
            text = json.dumps(key, sort_keys=True)
        except (TypeError, ValueError):
            continue
        if text in first:
            problems.append(
                CardProblem(path, f"duplicate interface (same as {first[text]})", Severity.WARNING)
            )
        else:
            first[text] = path


def _check_v1_interfaces(card: dict[str, Any], problems: list[CardProblem]) -> None:
    interfaces = card.get("supportedInterfaces", card.get("supported_interfaces"))
    if not isinstance(interfaces, list):
        return
    if not interfaces:
        problems.append(
            CardProblem("supportedInterfaces", "no interfaces: nothing to talk to", Severity.ERROR)
        )
    keys: list[tuple[str, tuple[object, ...]]] = []
    for index, iface in enumerate(interfaces):
        if not isinstance(iface, dict):
            continue
        path = f"supportedInterfaces[{index}]"
        binding = iface.get("protocolBinding", iface.get("protocol_binding"))
        version = iface.get("protocolVersion", iface.get("protocol_version"))
        _check_interface(problems, path, iface.get("url"), binding, version, v1=True)
        mm = major_minor(version) if isinstance(version, str) else version
        keys.append((path, (iface.get("url"), binding, mm, iface.get("tenant") or "")))
    _duplicates(problems, keys)


# ---------------------------------------------------------------------------------------
# 0.3


_NOT_03 = "not a 0.3 AgentCard field (ignored)"
"""An unrecognized field: implementations SHOULD ignore it (1.0 §5.7), so a note."""

_REQUIRED_03 = (
    ("name", str),
    ("description", str),
    ("url", str),
    ("version", str),
    ("capabilities", dict),
    ("defaultInputModes", list),
    ("defaultOutputModes", list),
    ("skills", list),
)
_OPTIONAL_03: dict[str, type | tuple[type, ...]] = {
    "protocolVersion": str,
    "preferredTransport": str,
    "additionalInterfaces": list,
    "provider": dict,
    "documentationUrl": str,
    "iconUrl": str,
    "securitySchemes": dict,
    "security": list,
    "supportsAuthenticatedExtendedCard": bool,
    "signatures": list,
}
_SKILL_REQUIRED_03 = (("id", str), ("name", str), ("description", str), ("tags", list))
_SKILL_OPTIONAL_03 = {"examples": list, "inputModes": list, "outputModes": list, "security": list}
_CAPS_03 = {
    "streaming": bool,
    "pushNotifications": bool,
    "stateTransitionHistory": bool,
    "extensions": list,
}
_TYPE_NAMES = {str: "a string", dict: "an object", list: "an array", bool: "a boolean"}


def _check_typed(
    problems: list[CardProblem],
    obj: dict[str, Any],
    path: str,
    required: Iterable[tuple[str, type]],
    optional: dict[str, type | tuple[type, ...]],
    *,
    report_unknown: bool,
) -> None:
    prefix = f"{path}." if path else ""
    known = set(optional)
    for name, kind in required:
        known.add(name)
        if obj.get(name) is None:
            problems.append(CardProblem(prefix + name, "missing required field"))
        elif not isinstance(obj[name], kind) or (kind is not bool and isinstance(obj[name], bool)):
            problems.append(
                CardProblem(
                    prefix + name,
                    f"expected {_TYPE_NAMES.get(kind, kind.__name__)}, got {json_type(obj[name])}",
                )
            )
    for name, kinds in optional.items():
        value = obj.get(name)
        if value is not None and not isinstance(value, kinds):
            expected = kinds if isinstance(kinds, type) else kinds[0]
            problems.append(
                CardProblem(
                    prefix + name,
                    f"expected {_TYPE_NAMES.get(expected, expected.__name__)}, "
                    f"got {json_type(value)}",
                )
            )
    if report_unknown:
        for name in obj:
            if name not in known:
                problems.append(CardProblem(prefix + name, _NOT_03, Severity.INFO))


def _validate_03(card: dict[str, Any]) -> list[CardProblem]:
    problems: list[CardProblem] = []
    _check_typed(problems, card, "", _REQUIRED_03, _OPTIONAL_03, report_unknown=False)
    for name in card:
        if name not in _OPTIONAL_03 and name not in dict(_REQUIRED_03):
            if name == "supportedInterfaces":
                problems.append(
                    CardProblem(name, "1.0 interfaces embedded in a 0.3 card", Severity.INFO)
                )
            else:
                problems.append(CardProblem(name, _NOT_03, Severity.INFO))
    caps = card.get("capabilities")
    if isinstance(caps, dict):
        _check_typed(problems, caps, "capabilities", (), dict(_CAPS_03), report_unknown=False)
    skills = card.get("skills")
    if isinstance(skills, list):
        for index, skill in enumerate(skills):
            path = f"skills[{index}]"
            if not isinstance(skill, dict):
                problems.append(CardProblem(path, f"expected an object, got {json_type(skill)}"))
                continue
            _check_typed(
                problems,
                skill,
                path,
                _SKILL_REQUIRED_03,
                dict(_SKILL_OPTIONAL_03),
                report_unknown=False,
            )
    for name in ("defaultInputModes", "defaultOutputModes"):
        modes = card.get(name)
        if isinstance(modes, list):
            for index, mode in enumerate(modes):
                if not isinstance(mode, str):
                    problems.append(
                        CardProblem(f"{name}[{index}]", f"expected a string, got {json_type(mode)}")
                    )

    version = card.get("protocolVersion", "0.3.0")
    transport = card.get("preferredTransport", "JSONRPC")
    keys: list[tuple[str, tuple[object, ...]]] = []
    _check_interface(problems, "", card.get("url"), transport, version, v1=False)
    # The root path "" would render the url check as ".url"; fix paths up.
    root_paths = {".url": "url", ".transport": "preferredTransport"}
    root_paths[".protocolVersion"] = "protocolVersion"
    problems[:] = [
        CardProblem(root_paths.get(p.path, p.path), p.message, p.severity) for p in problems
    ]
    extra = card.get("additionalInterfaces")
    if isinstance(extra, list):
        for index, iface in enumerate(extra):
            path = f"additionalInterfaces[{index}]"
            if not isinstance(iface, dict):
                problems.append(CardProblem(path, f"expected an object, got {json_type(iface)}"))
                continue
            for member in ("url", "transport"):
                if not isinstance(iface.get(member), str):
                    problems.append(
                        CardProblem(f"{path}.{member}", "missing required field (string)")
                    )
            _check_interface(
                problems, path, iface.get("url"), iface.get("transport"), None, v1=False
            )
            keys.append((path, (iface.get("url"), iface.get("transport"))))
    # The 0.3 spec asks for the main url to be repeated in additionalInterfaces, so only
    # repeats inside additionalInterfaces count as duplicates.
    _duplicates(problems, keys)
    return problems


# ---------------------------------------------------------------------------------------
# public validation


def validate_card(card: object, shape: CardShape | None = None) -> list[CardProblem]:
    """List every field-level problem of parsed card JSON; never raises.

    Args:
        card: any JSON value (what ``json.loads`` returned).
        shape: validate as this shape; detected when ``None``.

    Returns:
        Problems in document order (descriptor walk first, then interface checks).
    """
    shape = shape or detect_shape(card)
    if not isinstance(card, dict) or shape is CardShape.NOT_A_CARD:
        return [CardProblem("", f"an Agent Card is a JSON object, got {json_type(card)}")]
    try:
        if shape is CardShape.V0_3:
            return _validate_03(card)
        walker = DescriptorWalker(hybrid=shape is CardShape.HYBRID)
        walker.message(card, CARD_DESCRIPTOR, "", 1)
        problems = walker.problems
        _check_v1_interfaces(card, problems)
        return problems
    except RecursionError:
        return [CardProblem("", "card nested too deeply to validate")]
