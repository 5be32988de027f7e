"""Literal secrets beside ``{{variables}}`` (issue 29, kind 3): a value that holds a variable
is no longer saved verbatim — each literal secret in it gets a variable of its own, in every
place a secret is extracted (headers, a ``Cookie`` pair by pair, ``query``, the endpoint's
query and user info, the auth fields), in the spec file, the session file and *Copy as curl*;
``run`` sends back exactly what was typed."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from app.session import Session, TabState, dumps, strip_secrets
from app.spec.document import SpecDocument, load
from app.spec.requests import to_a2a_request
from app.spec.secret_literals import claim_literals
from app.spec.variables import Resolver
from app.spec.xa2a import SavedAuth, extract_secrets, variable_name_for
from app.ui.request.request_snippet import copy_command
from tests.spec.test_secrets import request

SCOPE = "127.0.0.1-18777"
CSRF = "csrf-7f3a9c1e5b"


def _claim(base: str, value: str) -> str:
    return f"{base}.s"


@pytest.mark.parametrize(
    ("value", "header", "expected"),
    [
        (
            "session={{sid}}; csrftoken=abc123",
            "Cookie",
            "session={{sid}}; csrftoken={{csrftoken.s}}",
        ),
        ("a={{x}};b=longvalue;c=", "cookie", "a={{x}};b={{b.s}};c="),
        ("a={{x}}; b={{y}}", "Cookie", "a={{x}}; b={{y}}"),
        ("a={{x}}; flag", "Cookie", "a={{x}}; flag"),
        ("Bearer {{token}}", "Authorization", "Bearer {{token}}"),
        ("Basic {{u}}:longpassword", "Authorization", "Basic {{u}}:{{h.s}}"),
        ("{{tenant}}:s3cr3tvalue", "X-Auth-Token", "{{tenant}}:{{h.s}}"),
        ("secretvalue {{x}}", "X-Auth-Token", "{{h.s}} {{x}}"),
        ("{{key}}-v2", "X-Api-Key", "{{key}}-v2"),  # shorter than a secret
    ],
)
def test_claim_literals(value: str, header: str, expected: str) -> None:
    assert claim_literals(value, "h", _claim, header=header, name_for=variable_name_for) == (
        expected
    )


MIXED = request(
    "http://alice:{{pw}}-url-literal@127.0.0.1:18777/?access_token={{t}}-query-literal&page=2",
    headers=(
        ("Cookie", f"session={{{{sid}}}}; csrftoken={CSRF}; theme=dark-mode"),
        ("X-Auth-Token", "{{tenant}}:header-literal"),
        ("Authorization", "Bearer {{tok}}"),
    ),
    query=(("api_key", "{{k}}.query-entry-literal"),),
    auth=SavedAuth("api_key", (("in", "query"), ("name", "key"), ("value", "{{p}}auth-literal"))),
)
LITERALS = [CSRF, "dark-mode", "url-literal", "query-literal", "header-literal",
            "query-entry-literal", "auth-literal"]  # fmt: skip


def test_every_literal_beside_a_variable_is_extracted_and_run_gets_it_back(
    tmp_path: Path,
) -> None:
    cleaned, secrets = extract_secrets(MIXED)
    doc = SpecDocument.new(path=tmp_path / "s.yaml")
    doc.upsert(cleaned)
    raw = doc.save().read_text()
    for literal in LITERALS:
        assert literal not in raw, literal
    assert sorted(secrets.values()) == sorted(LITERALS)
    assert f"csrftoken={{{{csrftoken.{SCOPE}}}}}" in raw and "session={{sid}}" in raw
    assert "Bearer {{tok}}" in raw
    # What run resolves is exactly what was typed.
    (op,) = load(tmp_path / "s.yaml").operations()
    given = {"sid": "S1D", "pw": "P", "t": "T", "tenant": "ten", "tok": "tk", "k": "K", "p": "P"}
    resolved = to_a2a_request(op.request, Resolver({**given, **secrets}, environ={})).request
    typed = to_a2a_request(MIXED, Resolver(given, environ={})).request
    assert resolved.endpoint == typed.endpoint
    assert resolved.headers == typed.headers and resolved.query == typed.query
    assert dict(resolved.headers)["Cookie"] == f"session=S1D; csrftoken={CSRF}; theme=dark-mode"
    # Saving the saved form again extracts nothing more.
    assert extract_secrets(op.request)[1] == {}


def test_the_session_file_holds_no_literal_beside_a_variable() -> None:
    text = dumps(Session(tabs=[TabState(MIXED, dirty=True)]))
    for literal in LITERALS:
        assert literal not in text, literal
    draft = json.loads(text)["tabs"][0]
    assert "header Cookie" in draft["dropped"]


def test_a_saved_reference_form_is_kept_in_the_session() -> None:
    cleaned, _ = extract_secrets(MIXED)
    stripped, dropped = strip_secrets(MIXED, cleaned)
    assert dict(stripped.headers)["Cookie"] == dict(cleaned.headers)["Cookie"]
    assert "header Cookie" not in dropped
    assert CSRF not in repr(stripped)


def test_copy_as_curl_holds_no_literal_beside_a_variable() -> None:
    command = copy_command(replace(MIXED, auth=SavedAuth()), Resolver({}, environ={}))
    for literal in (CSRF, "dark-mode", "header-literal", "query-literal"):
        assert literal not in command, literal
    assert 'csrftoken=\'"${A2A_WB_CSRFTOKEN_127_0_0_1_18777}"' in command
