"""Named environments (``local``, ``staging``, ``demo``): sets of variable values saved with
a document and selected when sending (``run --env NAME``, the window's environment combo).

In the file they are one top-level object, ``x-a2a-environments``, environment name →
variable name → value::

    x-a2a-environments:
      demo:
        baseUrl: http://127.0.0.1:8000
        grpcTarget: 127.0.0.1:50051
      staging:
        baseUrl: https://staging.example.com
        token: <secret>

A secret variable is written as the marker :data:`SECRET_MARKER` (``<secret>``), never its
value: the marker keeps the variable's name and secret flag in the file, and the value
lives in the OS keyring (service ``a2a-workbench``) or the private fallback file, under
:func:`app.spec.variables.environment_secret_key` (``env/staging/token``). A plain value
that is exactly ``<secret>`` therefore reads back as a secret. Where the selected
environment stands among the other sources of values: :mod:`app.spec.variables`.

The environment named :data:`DEMO_ENVIRONMENT` (``demo``) is filled by the app with the
addresses of the bundled demo agent it starts (its port changes on every start).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app.spec.variables import (
    NoKeyring,
    Resolver,
    SecretStore,
    environment_secret_key,
    keyring_get,
)
from app.spec.xa2a import split_endpoint

X_ENVIRONMENTS = "x-a2a-environments"
SECRET_MARKER = "<secret>"
"""What the file holds in place of a secret value (no ``{{`` in it: never resolved)."""
DEMO_ENVIRONMENT = "demo"
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
"""A variable name an environment may hold (no dot: dotted names are scoped credentials
of one host, see :mod:`app.spec.variables`)."""
_ENV_NAME = re.compile(r"[^\x00-\x1f\x7f/]{1,64}")


def valid_environment_name(name: str) -> bool:
    """Environment names: 1–64 printable characters, no ``/``, not blank."""
    return bool(_ENV_NAME.fullmatch(name)) and bool(name.strip())


@dataclass
class Variable:
    """One variable of an environment. ``loaded`` is False for a secret whose value has
    not been read from the keyring / fallback file yet (``value`` is then "")."""

    name: str
    value: str = ""
    secret: bool = False
    loaded: bool = True


@dataclass
class Environment:
    """A named set of variables, in file order."""

    name: str
    variables: list[Variable] = field(default_factory=list)

    def get(self, name: str) -> Variable | None:
        """The variable ``name``, if any."""
        return next((v for v in self.variables if v.name == name), None)

    def set(self, name: str, value: str, *, secret: bool = False) -> Variable:
        """Set (or add) ``name``; returns the variable."""
        var = self.get(name)
        if var is None:
            var = Variable(name, value, secret)
            self.variables.append(var)
        else:
            var.value, var.secret, var.loaded = value, secret, True
        return var

    def known_values(self) -> dict[str, str]:
        """Values known in memory (secrets only once loaded or typed)."""
        return {v.name: v.value for v in self.variables if v.loaded}

    def secret_names(self) -> frozenset[str]:
        """Names of the secret variables."""
        return frozenset(v.name for v in self.variables if v.secret)


def find(environments: Iterable[Environment], name: str) -> Environment | None:
    """The environment called ``name``, if any."""
    return next((e for e in environments if e.name == name), None)


def read(data: Mapping[str, Any]) -> tuple[list[Environment], list[str]]:
    """The environments of a document's data, and problems (each naming its place) for
    entries that are not ``{name: {variable: scalar}}``; those entries are skipped."""
    raw = data.get(X_ENVIRONMENTS)
    if raw is None:
        return [], []
    if not isinstance(raw, dict):
        return [], [f"{X_ENVIRONMENTS}: not an object of environments; ignored"]
    found: list[Environment] = []
    problems: list[str] = []
    for env_name, variables in raw.items():
        place = f"{X_ENVIRONMENTS}.{env_name}"
        if not isinstance(env_name, str) or not valid_environment_name(env_name):
            problems.append(f"{place}: not a usable environment name; skipped")
            continue
        if not isinstance(variables, dict):
            problems.append(f"{place}: not an object of variables; skipped")
            continue
        env = Environment(env_name)
        for var_name, value in variables.items():
            if not isinstance(var_name, str) or not NAME.fullmatch(var_name):
                problems.append(f"{place}.{var_name}: not a variable name; skipped")
                continue
            if isinstance(value, dict | list) or value is None:
                problems.append(f"{place}.{var_name}: not a text value; skipped")
                continue
            text = value if isinstance(value, str) else json.dumps(value)
            if text == SECRET_MARKER:
                env.variables.append(Variable(var_name, "", True, loaded=False))
            else:
                env.variables.append(Variable(var_name, text))
        found.append(env)
    return found, problems


def to_file(environments: Iterable[Environment]) -> dict[str, dict[str, str]]:
    """The ``x-a2a-environments`` object: plain values, :data:`SECRET_MARKER` for secrets."""
    return {
        env.name: {v.name: SECRET_MARKER if v.secret else v.value for v in env.variables}
        for env in environments
    }


def write(data: dict[str, Any], environments: list[Environment], *, replace: bool) -> None:
    """Put ``environments`` into a document's data (never a secret value).

    ``replace``: the document is the one they were read from, so they replace its
    environments (removed ones go). Otherwise (saving into another file) they are added
    to that file's, whose own environments of the same names win. A document without
    environments gets no ``x-a2a-environments`` key.
    """
    current = data.get(X_ENVIRONMENTS)
    written = to_file(environments)
    if not replace and isinstance(current, dict):
        written = {**written, **current}
    if written:
        data[X_ENVIRONMENTS] = written
    elif X_ENVIRONMENTS in data and replace:
        del data[X_ENVIRONMENTS]


def load_secrets(
    environments: Iterable[Environment], store: SecretStore | None, *, use_keyring: bool = True
) -> str:
    """Read the values of secrets not loaded yet (keyring, then the fallback file); a
    secret found nowhere stays unloaded. Returns the keyring's problem, if any."""
    problem = ""
    for env in environments:
        for var in env.variables:
            if not var.secret or var.loaded:
                continue
            key = environment_secret_key(env.name, var.name)
            value: str | None = None
            if use_keyring:
                try:
                    value = keyring_get(key)
                except NoKeyring as exc:
                    problem = str(exc)
            if value is None and store is not None:
                value = store.get(key)
            if value is not None:
                var.value, var.loaded = value, True
    return problem


def store_secrets(environments: Iterable[Environment], store: SecretStore) -> list[str]:
    """Put every secret value known in memory into the keyring (or the fallback file);
    one note per value stored."""
    notes = []
    for env in environments:
        for var in env.variables:
            if var.secret and var.loaded and var.value:
                key = environment_secret_key(env.name, var.name)
                label = f"{{{{{var.name}}}}} of environment {env.name}"
                notes.append(store.put(key, var.value, label))
    return notes


def snapshot(environments: Iterable[Environment]) -> list[Environment]:
    """A deep copy (handed to the thread that saves while the GUI keeps editing)."""
    return copy.deepcopy(list(environments))


def resolver_for(
    environments: Iterable[Environment],
    active: str,
    *,
    values: Mapping[str, str] | None = None,
    defaults: Mapping[str, str] | None = None,
    store: SecretStore | None = None,
    gui_hint: str = "",
) -> Resolver:
    """A :class:`Resolver` with ``active`` (when it names one of ``environments``) between
    the explicit ``values`` and the app's ``defaults``."""
    env = find(environments, active)
    return Resolver(
        dict(values or {}),
        store=store,
        environment=env.name if env else "",
        environment_values=env.known_values() if env else {},
        environment_secrets=env.secret_names() if env else frozenset(),
        defaults=dict(defaults or {}),
        gui_hint=gui_hint,
    )


def origin_of(endpoint: str) -> str:
    """``scheme://host:port`` of an absolute URL without user info (``http://127.0.0.1:8000``
    for ``http://127.0.0.1:8000/rest``), or the whole of a gRPC ``host:port``; else ""."""
    prefix, userinfo, hostport, rest = split_endpoint(endpoint.strip())
    if "{{" in prefix + hostport or userinfo or not hostport:
        return ""
    if not prefix:
        return hostport if not rest else ""
    return prefix + hostport if prefix.endswith("://") else ""


def variable_for_origin(
    environments: Iterable[Environment], active: str, endpoint: str
) -> str | None:
    """The name of a plain variable whose value is the origin of ``endpoint`` (with or
    without a trailing ``/``), looked for in the ``active`` environment first, then the
    others in file order; None when no value matches."""
    origin = origin_of(endpoint)
    if not origin:
        return None
    envs = list(environments)
    ordered = [e for e in envs if e.name == active] + [e for e in envs if e.name != active]
    for env in ordered:
        for var in env.variables:
            if not var.secret and var.value.rstrip("/") == origin:
                return var.name
    return None


def with_variable(url: str, name: str) -> str:
    """``url`` with its origin replaced by ``{{name}}`` (unchanged when it has none)."""
    stripped = url.strip()
    origin = origin_of(stripped)
    if not origin or not stripped.startswith(origin):
        return url
    return f"{{{{{name}}}}}{stripped[len(origin) :]}"
