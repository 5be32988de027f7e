"""OAuth 2 settings from an Agent Card's ``securitySchemes`` (docs/PROTOCOL.md §6).

Shapes read (A2A 1.0 §4.5 ``SecurityScheme``; 0.3 OpenAPI-style objects):

- 1.0 ``{"oauth2SecurityScheme": {"flows": {"clientCredentials": {"tokenUrl", "scopes"}}}}``
  (flows ``clientCredentials``, ``deviceCode`` with ``deviceAuthorizationUrl``,
  ``authorizationCode`` with ``authorizationUrl``);
- 1.0 ``{"openIdConnectSecurityScheme": {"openIdConnectUrl": …}}``;
- 0.3 ``{"type": "oauth2", "flows": {…}}`` and ``{"type": "openIdConnect",
  "openIdConnectUrl": …}``.

``scopes`` is a map of scope name to description in every shape.

The scopes asked for are the ones the card's security requirements name for the scheme
(1.0 ``securityRequirements[].schemes.<name>.list``, 0.3 ``security[].<name>``), else every
scope the flow declares. An OpenID Connect scheme's user flows (device code, authorization
code) ask for ``openid`` too: an OpenID provider refuses an authorization request without
it (OpenID Connect Core §3.1.2.1), and a request with no scope at all is answered
``access_denied`` or ``invalid_scope`` with no hint of why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.protocol.oauth.config import OAuthConfig, OAuthFlow


@dataclass(frozen=True, slots=True)
class CardOAuthOption:
    """One usable (scheme, flow) pair of a card.

    Attributes:
        scheme: the ``securitySchemes`` key.
        config: the endpoints and scopes the card gives (no client id or secret).
        label: one line for a picker, e.g. ``"oauth2 · clientCredentials"``.
    """

    scheme: str
    config: OAuthConfig
    label: str


def _body(entry: object) -> tuple[str, dict[str, Any]] | None:
    if not isinstance(entry, dict):
        return None
    for wrapper, kind in (
        ("oauth2SecurityScheme", "oauth2"),
        ("openIdConnectSecurityScheme", "openIdConnect"),
    ):
        if isinstance(entry.get(wrapper), dict):
            return kind, entry[wrapper]
    if entry.get("type") in ("oauth2", "openIdConnect"):
        return str(entry["type"]), entry
    return None


def _s(value: object) -> str:
    return value if isinstance(value, str) else ""


def _scopes(flow: dict[str, Any]) -> tuple[str, ...]:
    scopes = flow.get("scopes")
    return tuple(str(k) for k in scopes) if isinstance(scopes, dict) else ()


def required_scopes(card: object) -> dict[str, tuple[str, ...]]:
    """Scheme name → the scopes the card's security requirements name for it (both shapes;
    a scheme named in several requirements gets the scopes of all, in card order)."""
    if not isinstance(card, dict):
        return {}
    found: dict[str, list[str]] = {}
    for requirement in card.get("securityRequirements") or card.get("security") or ():
        if not isinstance(requirement, dict):
            continue
        schemes = requirement.get("schemes", requirement)  # 1.0 wraps them, 0.3 does not
        for name, scopes in schemes.items() if isinstance(schemes, dict) else ():
            listed = scopes.get("list") if isinstance(scopes, dict) else scopes
            if isinstance(listed, list):
                found.setdefault(str(name), []).extend(str(s) for s in listed)
    return {name: tuple(dict.fromkeys(scopes)) for name, scopes in found.items()}


def card_oauth_options(card: object) -> tuple[CardOAuthOption, ...]:
    """Every OAuth 2 / OpenID Connect option the card declares, in card order."""
    schemes = card.get("securitySchemes") if isinstance(card, dict) else None
    if not isinstance(schemes, dict):
        return ()
    required = required_scopes(card)
    options: list[CardOAuthOption] = []
    for name, entry in schemes.items():
        found = _body(entry)
        if found is None:
            continue
        kind, body = found
        if kind == "openIdConnect":
            url = _s(body.get("openIdConnectUrl"))
            for flow in OAuthFlow:
                user = flow is not OAuthFlow.CLIENT_CREDENTIALS
                scopes = ("openid",) if user else ()
                scopes = tuple(dict.fromkeys((*scopes, *required.get(name, ()))))
                config = OAuthConfig(flow, scopes=scopes, discovery_url=url)
                options.append(CardOAuthOption(name, config, f"{name} · openIdConnect · {flow}"))
            continue
        flows = body.get("flows")
        for flow in OAuthFlow:
            spec = flows.get(flow.value) if isinstance(flows, dict) else None
            if not isinstance(spec, dict):
                continue
            config = OAuthConfig(
                flow,
                token_url=_s(spec.get("tokenUrl")),
                scopes=required.get(name) or _scopes(spec),
                device_authorization_url=_s(spec.get("deviceAuthorizationUrl")),
                authorization_url=_s(spec.get("authorizationUrl")),
                discovery_url=_s(body.get("oauth2MetadataUrl")),
            )
            options.append(CardOAuthOption(name, config, f"{name} · oauth2 · {flow}"))
    return tuple(options)


def pick_option(
    options: tuple[CardOAuthOption, ...], scheme: str = "", flow: OAuthFlow | None = None
) -> CardOAuthOption | None:
    """The first option matching ``scheme`` (any when "") and ``flow`` (any when None)."""
    for option in options:
        if (not scheme or option.scheme == scheme) and (flow is None or option.config.flow is flow):
            return option
    return None
