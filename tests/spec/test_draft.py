"""The request draft without Qt: unsaved marker, saved form, spec file, the request sent."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from app.protocol.net.auth import AuthConfig
from app.protocol.types import Binding, ProtocolVersion
from app.spec.draft import Form, RequestDraft, first_text, uses_variables
from app.spec.variables import Resolver

V1 = ProtocolVersion.V1_0


def _form(**changes: object) -> Form:
    values: dict[str, object] = {
        "version": V1,
        "binding": Binding.JSONRPC,
        "method": "SendMessage",
        "endpoint": " http://127.0.0.1:9/ ",
        "body": '{"params": {"message": {"parts": [{"text": "12 30"}]}}}',
        "headers": (("X-Trace", "on"),),
        "auth": AuthConfig.bearer("tok"),
    }
    values.update(changes)
    return Form(**values)  # type: ignore[arg-type]


def test_dirty_follows_the_clean_state_and_the_title_says_so() -> None:
    draft = RequestDraft()
    draft.mark_saved(None, _form())
    assert not draft.dirty and draft.title("SendMessage") == "SendMessage"
    assert draft.update(_form(body="{}")) and draft.dirty
    assert draft.title("SendMessage") == "SendMessage *"
    assert not draft.update(_form(body="{ }"))  # still dirty: no change of the marker
    assert draft.update(_form()) and not draft.dirty  # back to the clean state


def test_saved_request_keeps_the_base_metadata() -> None:
    draft = RequestDraft()
    draft.mark_saved(None, _form())
    first = draft.to_saved(_form())
    assert first.endpoint == "http://127.0.0.1:9/" and first.name == "SendMessage"
    assert first.auth.get("token") == "tok" and first.headers == (("X-Trace", "on"),)
    base = dataclasses.replace(first, name="Sum", operation_id="sum")
    draft.mark_saved(base, _form())
    again = draft.to_saved(_form(body="{}"))
    assert (again.name, again.operation_id, again.body) == ("Sum", "sum", "{}")
    assert draft.saved_base is base


def test_restored_draft_keeps_the_clean_state_under_it() -> None:
    draft = RequestDraft()
    draft.mark_saved(None, _form())
    clean = draft.clean_state
    draft.mark_saved(None, _form(body="{}"))
    draft.set_clean_state(clean, _form(body="{}"))
    assert draft.dirty
    draft.spec_path = Path("/tmp/x.yaml")
    assert draft.spec_path == Path("/tmp/x.yaml")


def test_build_request_folds_in_auth_and_resolves_variables() -> None:
    draft = RequestDraft()
    request = draft.build_request(_form())
    assert request.endpoint == "http://127.0.0.1:9/"
    assert ("Authorization", "Bearer tok") in request.headers
    assert ("X-Trace", "on") in request.headers
    draft.variables = Resolver({"baseUrl": "http://127.0.0.1:7"})
    resolved = draft.build_request(_form(endpoint="{{baseUrl}}/"))
    assert resolved.endpoint == "http://127.0.0.1:7/"
    assert uses_variables(draft.to_saved(_form(endpoint="{{baseUrl}}/")))
    assert not uses_variables(draft.to_saved(_form()))


def test_first_text() -> None:
    assert first_text('{"params": {"message": {"parts": [{"text": "12 30"}]}}}') == "12 30"
    assert first_text("not json") is None and first_text("{}") is None
