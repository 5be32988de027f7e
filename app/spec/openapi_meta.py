"""What other OpenAPI tools read from a saved document: ``servers`` and security.

The ``x-a2a`` blocks say where each request goes and how it authenticates; Swagger UI,
Redoc, Redocly lint and code generators read neither. On every save :func:`refresh`
derives the standard OpenAPI 3.2 parts from them, deterministically (the same document
gives the same bytes, so a load–save round trip moves nothing):

- ``servers``: one Server Object per origin the requests use (the endpoint of each HTTP
  binding request, then its agent card URL; gRPC ``host:port`` targets are not HTTP servers).
  A ``{{variable}}`` in an origin becomes an OpenAPI server variable (``{{baseUrl}}`` →
  ``url: '{baseUrl}'``). With environments (the top-level ``x-a2a-environments`` object,
  ``{name: {variable: value}}``) there is one server per environment defining the origin's
  variables, ``description`` the environment's name and each variable's ``default`` its
  value there; without any, one server whose variables default to ``''`` for the reader to
  fill in.
- ``components.securitySchemes`` and each A2A operation's ``security`` from its
  ``x-a2a.auth`` type: bearer → ``http``/``bearer`` (``bearerAuth``), basic →
  ``http``/``basic`` (``basicAuth``), api_key → ``apiKey`` with its ``in`` and ``name``
  (``apiKey.<in>.<name>``), oauth2 → ``oauth2`` with the flow, its URLs and scopes, and
  its discovery URL as ``oauth2MetadataUrl`` (``oauth2.<flow>``); no auth →
  ``security: []`` (the request sends no credential).
  Only names, locations, URLs and scopes are written: never a credential, nor a client id.

Generated Server and Security Scheme Objects carry ``x-a2a-generated: true``; only those
are replaced, so servers and schemes written by hand stay where they are (a hand-written
scheme equal to a generated one is reused instead of duplicated). An A2A operation's
``security`` is always regenerated: ``x-a2a.auth`` is what the app sends.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from app.protocol.bindings import from_value, traits
from app.spec.spec_text import HTTP_METHODS
from app.spec.xa2a import X_A2A, split_endpoint

ENVIRONMENTS = "x-a2a-environments"
GENERATED = "x-a2a-generated"
_VARIABLE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}")
# Component names must match ^[a-zA-Z0-9.\-_]+$ (OpenAPI 3.2 §4.8.7.1).
_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9._-]")
# x-a2a.auth.flow spellings → OpenAPI 3.2 OAuth Flows Object field, and the URL fields
# that flow requires (§4.8.29); refreshUrl is optional everywhere.
_OAUTH_FLOWS = {
    "clientcredentials": ("clientCredentials", ("tokenUrl",)),
    "authorizationcode": ("authorizationCode", ("authorizationUrl", "tokenUrl")),
    "devicecode": ("deviceAuthorization", ("deviceAuthorizationUrl", "tokenUrl")),
    "deviceauthorization": ("deviceAuthorization", ("deviceAuthorizationUrl", "tokenUrl")),
    "device": ("deviceAuthorization", ("deviceAuthorizationUrl", "tokenUrl")),
    "password": ("password", ("tokenUrl",)),
    "implicit": ("implicit", ("authorizationUrl",)),
}
_OAUTH_URL_FIELDS = ("authorizationUrl", "deviceAuthorizationUrl", "tokenUrl", "refreshUrl")


def refresh(data: dict[str, Any]) -> None:
    """Regenerate ``servers``, ``components.securitySchemes`` and the A2A operations'
    ``security`` in ``data`` (in place) from its ``x-a2a`` blocks and environments."""
    ops = list(_a2a_operations(data))
    _put_servers(data, servers(data, [x for _, x in ops]))
    _put_security(data, ops)


def environments(data: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """The document's ``x-a2a-environments`` as ``{name: {variable: value}}`` (entries that
    are not strings or numbers are left out)."""
    raw = data.get(ENVIRONMENTS)
    out: dict[str, dict[str, str]] = {}
    if not isinstance(raw, Mapping):
        return out
    for name, variables in raw.items():
        if isinstance(variables, Mapping):
            out[str(name)] = {
                str(k): str(v)
                for k, v in variables.items()
                if isinstance(v, str | int | float) and not isinstance(v, bool)
            }
    return out


# --- servers -----------------------------------------------------------------------------


def servers(data: Mapping[str, Any], blocks: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The generated Server Objects for the ``x-a2a`` ``blocks``, in first-use order."""
    envs = environments(data)
    out: list[dict[str, Any]] = []
    for template in _origins(blocks):
        url = _VARIABLE.sub(lambda m: "{" + m.group(1) + "}", template)
        names = list(dict.fromkeys(m.group(1) for m in _VARIABLE.finditer(template)))
        if not names:
            out.append({"url": url, GENERATED: True})
            continue
        defined = [(env, values) for env, values in envs.items() if all(n in values for n in names)]
        for env, values in defined or [("", {})]:
            server: dict[str, Any] = {"url": url}
            if env:
                server["description"] = env
            server["variables"] = {
                n: {
                    "default": _without_userinfo(values.get(n, "")),
                    "description": f"`{{{{{n}}}}}` in the saved requests",
                }
                for n in names
            }
            server[GENERATED] = True
            out.append(server)
    return out


def _origins(blocks: list[Mapping[str, Any]]) -> list[str]:
    """Distinct origins (scheme and host:port, user info dropped) of the requests."""
    found: dict[str, None] = {}
    for x in blocks:
        binding = from_value(x.get("binding"))
        target = binding is not None and traits(binding).url.target  # host:port is no server
        urls = [] if target else [x.get("endpoint")]
        for url in [*urls, x.get("agentCardUrl")]:
            if isinstance(url, str) and url.strip():
                prefix, _, hostport, _ = split_endpoint(url.strip())
                if hostport and (prefix or _VARIABLE.match(hostport)):
                    found[prefix + hostport] = None
    return list(found)


def _without_userinfo(value: str) -> str:
    """``value`` without the ``user:password@`` of a URL: a credential typed into an
    environment's URL is not published as a server default."""
    prefix, userinfo, hostport, rest = split_endpoint(value)
    return prefix + hostport + rest if prefix and userinfo else value


def _put_servers(data: dict[str, Any], generated: list[dict[str, Any]]) -> None:
    old = data.get("servers")
    if old is not None and not isinstance(old, list):
        return  # not ours to repair: the validator reports it
    kept = [s for s in old or [] if not (isinstance(s, Mapping) and s.get(GENERATED) is True)]
    new = kept + generated
    if new:
        _set_after(data, "servers", new, after=("info", "openapi"))
    elif old and not kept:
        del data["servers"]


# --- security ----------------------------------------------------------------------------


def _put_security(data: dict[str, Any], ops: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    components = data.get("components")
    old = components.get("securitySchemes") if isinstance(components, dict) else None
    if old is not None and not isinstance(old, dict):
        return
    foreign = {
        name: scheme
        for name, scheme in (old or {}).items()
        if not (isinstance(scheme, Mapping) and scheme.get(GENERATED) is True)
    }
    chosen: dict[str, str] = {}  # canonical JSON of a scheme → its name
    generated: dict[str, dict[str, Any]] = {}
    for op, x in ops:
        described = _scheme(x.get("auth"))
        if described is None:
            op.pop("security", None)
            continue
        if not described:
            op["security"] = []
            continue
        base, scheme, scopes = described
        key = _canonical(scheme)
        name = chosen.get(key)
        if name is None:
            name = _reuse(foreign, key) or _free_name(base, foreign, generated)
            chosen[key] = name
            if name not in foreign:
                generated[name] = {**scheme, GENERATED: True}
        op["security"] = [{name: scopes}]
    schemes = {**foreign, **generated}
    if schemes:
        if not isinstance(components, dict):
            components = data["components"] = {}
        components["securitySchemes"] = schemes
    elif old and isinstance(components, dict):
        del components["securitySchemes"]


def _scheme(auth: Any) -> tuple[str, dict[str, Any], list[str]] | tuple[()] | None:
    """``(base name, Security Scheme Object, scopes)`` for an ``x-a2a.auth`` value; ``()``
    for no auth; None for a type OpenAPI cannot describe (the operation gets no
    ``security``). Credential fields are never read."""
    if not isinstance(auth, Mapping):
        return ()
    kind = str(auth.get("type") or "none")
    if kind == "none":
        return ()
    if kind in ("bearer", "basic"):
        return f"{kind}Auth", {"type": "http", "scheme": kind}, []
    if kind in ("api_key", "apiKey"):
        location, name = str(auth.get("in") or "header"), str(auth.get("name") or "").strip()
        if not name:
            return None
        base = _NOT_IN_NAME.sub("_", f"apiKey.{location}.{name}")
        return base, {"type": "apiKey", "in": location, "name": name}, []
    if kind == "oauth2":
        return _oauth2(auth)
    return None


def _oauth2(auth: Mapping[str, Any]) -> tuple[str, dict[str, Any], list[str]]:
    scopes = _scopes(auth.get("scopes"))
    flow_key = re.sub(r"[^a-z]", "", str(auth.get("flow") or "").lower())
    field, required = _OAUTH_FLOWS.get(flow_key, ("", ()))
    urls = {f: str(auth[f]) for f in _OAUTH_URL_FIELDS if isinstance(auth.get(f), str) and auth[f]}
    flows: dict[str, Any] = {}
    if field and all(f in urls for f in required):
        wanted = (*required, "refreshUrl")
        flow: dict[str, Any] = {f: urls[f] for f in _OAUTH_URL_FIELDS if f in urls and f in wanted}
        flow["scopes"] = {s: "" for s in scopes}
        flows[field] = flow
    scheme: dict[str, Any] = {"type": "oauth2"}
    # An OpenID Connect discovery document is authorization server metadata (RFC 8414 §3):
    # tools find the endpoints left empty there (OpenAPI 3.2 oauth2MetadataUrl).
    metadata = auth.get("discoveryUrl") or auth.get("oauth2MetadataUrl")
    if isinstance(metadata, str) and metadata:
        scheme["oauth2MetadataUrl"] = metadata
    scheme["flows"] = flows
    return f"oauth2.{field or 'custom'}", scheme, scopes


def _scopes(raw: Any) -> list[str]:
    items = raw if isinstance(raw, list) else re.split(r"[\s,]+", str(raw or ""))
    return list(dict.fromkeys(str(s) for s in items if str(s)))


def _canonical(scheme: Mapping[str, Any]) -> str:
    return json.dumps({k: v for k, v in scheme.items() if k != GENERATED}, sort_keys=True)


def _reuse(foreign: Mapping[str, Any], key: str) -> str | None:
    """The name of a hand-written scheme equal to the one described by ``key``."""
    for name, scheme in foreign.items():
        if isinstance(scheme, Mapping) and _canonical(scheme) == key:
            return str(name)
    return None


def _free_name(base: str, *taken: Mapping[str, Any]) -> str:
    name, n = base, 2
    while any(name in t for t in taken):
        name, n = f"{base}-{n}", n + 1
    return name


# --- helpers -----------------------------------------------------------------------------


def _a2a_operations(data: Mapping[str, Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """``(operation, its x-a2a block)`` of every A2A operation, in file order."""
    paths = data.get("paths")
    if not isinstance(paths, Mapping):
        return
    for item in paths.values():
        if not isinstance(item, Mapping):
            continue
        for method, op in item.items():
            if method in HTTP_METHODS and isinstance(op, dict) and isinstance(op.get(X_A2A), dict):
                yield op, op[X_A2A]


def _set_after(data: dict[str, Any], key: str, value: Any, *, after: tuple[str, ...]) -> None:
    """Set ``data[key]``: in place when present, else right after the first of ``after``
    that is present (at the end when none is)."""
    if key in data:
        data[key] = value
        return
    anchor = next((a for a in after if a in data), None)
    if anchor is None:
        data[key] = value
        return
    items = list(data.items())
    at = [k for k, _ in items].index(anchor) + 1
    data.clear()
    data.update(items[:at])
    data[key] = value
    data.update(items[at:])
