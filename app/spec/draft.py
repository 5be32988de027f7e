"""A request tab's draft, Qt-free: the form as plain data, its saved state and its spec.

The tab reads its widgets into a :class:`Form`; :class:`RequestDraft` compares it with
the state last saved or opened (the unsaved marker), turns it into the
:class:`~app.spec.xa2a.SavedRequest` that is saved, and into the
:class:`~app.protocol.request.A2ARequest` that is sent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from app.protocol.compose import RequestInputs, compose
from app.protocol.net.auth import AuthConfig, AuthKind
from app.protocol.net.network import NetworkOptions, TlsSettings
from app.protocol.request import A2ARequest
from app.protocol.types import Binding, ProtocolVersion
from app.spec.assertions import Assertion
from app.spec.labels import follow
from app.spec.requests import auth_to_saved, to_a2a_request
from app.spec.save import same_file
from app.spec.variables import Resolver
from app.spec.xa2a import SavedRequest
from app.spec.xa2a_network import SavedNetwork


@dataclass(frozen=True, slots=True)
class Form:
    """What the tab's widgets hold now; ``endpoint`` and ``tenant`` as typed (unstripped)."""

    version: ProtocolVersion
    binding: Binding
    method: str
    endpoint: str = ""
    tenant: str = ""
    body: str = ""
    headers: tuple[tuple[str, str], ...] = ()
    extensions: tuple[str, ...] = ()
    auth: AuthConfig = field(default_factory=AuthConfig)
    tls: TlsSettings = field(default_factory=TlsSettings)
    assertions: tuple[Assertion, ...] = ()
    captures: tuple[tuple[str, str], ...] = ()
    command: str = ""
    """A stdio agent's command line."""

    def key(self) -> tuple[object, ...]:
        """Everything the user can change, for comparing with the clean state."""
        auth = self.auth
        return (
            self.version, self.binding, self.method, self.endpoint, self.tenant, self.body,
            # An OAuth access token is not the user's edit: getting one leaves the tab clean.
            self.headers, self.extensions, auth.kind,
            "" if auth.kind is AuthKind.OAUTH2 else auth.token, auth.username,
            auth.password, auth.key_name, auth.key_value, auth.key_location, self.tls, auth.oauth,
            self.assertions, self.captures, self.command,
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class CleanState:
    """A draft's clean state: the request it was saved as or opened from, and its form."""

    base: SavedRequest | None
    key: tuple[object, ...]
    body: str = ""
    """The clean form's body ("" before there is one): the unsaved-marker check compares
    the editor with it alone (app/ui/request/body_dirty.py)."""


class RequestDraft:
    """The draft of one tab: clean state, unsaved marker, spec file and variables.

    Attributes:
        spec_path: the spec file the request was opened from or saved to, if any.
        variables: resolves ``{{variables}}`` when the draft uses them (None: sent as typed).
    """

    def __init__(self) -> None:
        self.spec_path: Path | None = None
        self.variables: Resolver | None = None
        self._clean = CleanState(None, ())
        self._dirty = False

    @property
    def saved_base(self) -> SavedRequest | None:
        """The request last saved or opened (the clean state), if any."""
        return self._clean.base

    @property
    def operation_id(self) -> str:
        """The ``operationId`` of this request in :attr:`spec_path` ("" when it is not saved
        there): saving again updates that operation instead of adding another."""
        base = self._clean.base
        return base.operation_id if base is not None and self.spec_path is not None else ""

    def is_operation(self, spec_path: Path | None, operation_id: str) -> bool:
        """Whether this draft is the request ``operation_id`` of the spec at ``spec_path``."""
        if not operation_id or spec_path is None or self.spec_path is None:
            return False
        return operation_id == self.operation_id and same_file(self.spec_path, spec_path)

    def relabel(
        self, *, name: str | None = None, tags: tuple[str, ...] | None = None,
        operation_id: str | None = None,
    ) -> None:  # fmt: skip
        """Change the clean state's name, tags or ``operationId`` (the spec tree renamed,
        moved or deleted its operation); what the form holds and the unsaved marker stay."""
        base = self._clean.base
        if base is None:
            return
        changes: dict[str, Any] = {}
        if name is not None:
            changes["name"] = name
        if tags is not None:
            changes["tags"] = tags
        if operation_id is not None:
            changes["operation_id"] = operation_id
        self._clean = CleanState(replace(base, **changes), self._clean.key, self._clean.body)

    @property
    def dirty(self) -> bool:
        """True when the form changed since it was last saved, opened or created."""
        return self._dirty

    def title(self, method: str) -> str:
        """A short tab title: the saved name (else ``method``), ``*`` when unsaved."""
        base = self._clean.base
        name = base.name if base is not None else method
        return f"{name} *" if self._dirty else name

    def mark_saved(self, saved: SavedRequest | None, form: Form) -> None:
        """Make ``form`` the clean state, ``saved`` (with its operation id) its request."""
        self._clean = CleanState(saved, form.key(), form.body)
        self._dirty = False

    def keep_clean(self, form: Form) -> None:
        """``form`` is the clean state now, of the same request: the app changed it, not
        the user (a following body's fresh ids for a send)."""
        self._clean = CleanState(self._clean.base, form.key(), form.body)
        self._dirty = False

    @property
    def clean_state(self) -> CleanState:
        """The clean state now (kept across showing another request on top of it)."""
        return self._clean

    def set_clean_state(self, clean: CleanState, form: Form) -> None:
        """Go back to ``clean`` with ``form`` shown on top of it (a restored draft)."""
        self._clean = clean
        self._dirty = form.key() != clean.key

    def update(self, form: Form) -> bool:
        """Recompute the unsaved marker; True when it changed."""
        dirty = form.key() != self._clean.key
        changed = dirty != self._dirty
        self._dirty = dirty
        return changed

    def to_saved(self, form: Form) -> SavedRequest:
        """``form`` as a :class:`SavedRequest` (secrets still as typed; the document layer
        turns them into ``{{variables}}`` when writing)."""
        base = self._clean.base
        name, tags = (
            follow(base, form.version, form.binding, form.method) if base else (form.method, ())
        )
        return SavedRequest(
            name=name,
            version=form.version,
            binding=form.binding,
            endpoint=form.endpoint.strip(),
            method=form.method,
            body=form.body,
            operation_id=base.operation_id if base is not None else "",
            tags=tags,
            agent_card_url=base.agent_card_url if base is not None else "",
            agent_card=base.agent_card if base is not None else None,
            tenant=form.tenant.strip(),
            headers=form.headers,
            query=base.query if base is not None else (),
            auth=auth_to_saved(form.auth),
            extensions=form.extensions,
            timeout=base.timeout if base is not None else None,
            # The key password is sent, never saved; a saved proxy stays as it was.
            network=SavedNetwork(
                replace(form.tls, key_password=""), base.network.proxy if base else None
            ),
            assertions=form.assertions,
            captures=form.captures,
            command=form.command.strip(),
        )

    def build_request(self, form: Form) -> A2ARequest:
        """The request ``form`` describes, credential and extension headers folded in
        (:func:`app.protocol.compose.compose`); ``{{variables}}`` resolved when used.

        Raises:
            UsageError: the credential cannot be encoded (API key without a name, …).
        """
        if self.variables is not None:
            saved = self.to_saved(form)
            if uses_variables(saved):
                request = to_a2a_request(saved, self.variables).request
                tls = replace(request.network.tls, key_password=form.tls.key_password)
                return replace(request, network=replace(request.network, tls=tls))
        return compose(
            RequestInputs(
                form.method,
                endpoint=form.endpoint.strip(),
                version=form.version,
                binding=form.binding,
                body=form.body,  # the draft, sent as typed
                headers=form.headers,
                tenant=form.tenant.strip(),
                network=NetworkOptions(form.tls),
                auth=form.auth,
                extensions=tuple(form.extensions),
                command=form.command.strip(),
            )
        )


def uses_variables(saved: SavedRequest) -> bool:
    """Whether any field that is sent holds a ``{{variable}}``."""
    texts = [saved.endpoint, saved.body, saved.tenant, saved.command]
    texts += [v for _, v in saved.headers]
    texts += [v for _, v in saved.auth.params]
    texts += [
        saved.network.tls.ca_cert,
        saved.network.tls.client_cert,
        saved.network.tls.client_key,
    ]
    return any("{{" in t for t in texts)


def first_text(body: str) -> str | None:
    """The first ``"text"`` string in a request body (the message text), if any."""
    try:
        value: Any = json.loads(body)
    except (ValueError, RecursionError):
        return None
    stack = [value]
    while stack:
        item = stack.pop(0)
        if isinstance(item, dict):
            if isinstance(item.get("text"), str):
                return str(item["text"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None
