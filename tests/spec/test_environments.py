"""Named environments (``x-a2a-environments``): reading, writing, secrets, resolution order."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.errors import UsageError
from app.protocol.types import Binding, ProtocolVersion
from app.shipped import example_spec
from app.spec import environments as envs
from app.spec import variables
from app.spec.document import SpecDocument, load
from app.spec.environments import SECRET_MARKER, Environment, Variable
from app.spec.requests import to_a2a_request
from app.spec.save import save_environments, save_request
from app.spec.variables import SecretStore, environment_secret_key
from app.spec.xa2a import SavedRequest

SECRET = "s3cr3t-environment-value"


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SecretStore:
    """The fallback file only (as on a machine without a keyring backend)."""

    def no_keyring(*_args: str) -> None:
        raise variables.NoKeyring("no keyring in this test")

    monkeypatch.setattr(variables, "keyring_set", no_keyring)
    monkeypatch.setattr(variables, "keyring_get", no_keyring)
    monkeypatch.setattr(envs, "keyring_get", no_keyring)
    return SecretStore(tmp_path / "secrets.json")


def request(**changes: object) -> SavedRequest:
    fields: dict[str, object] = {
        "name": "Send", "version": ProtocolVersion.V1_0, "binding": Binding.JSONRPC,
        "endpoint": "{{baseUrl}}/", "method": "SendMessage", "body": "{}",
    }  # fmt: skip
    return SavedRequest(**{**fields, **changes})  # type: ignore[arg-type]


def staging() -> Environment:
    return Environment(
        "staging",
        [Variable("baseUrl", "https://staging.example.com"), Variable("token", SECRET, True)],
    )


def test_the_example_defines_the_demo_environment() -> None:
    found, problems = envs.read(load(example_spec()).data)
    assert problems == []
    assert [e.name for e in found] == [envs.DEMO_ENVIRONMENT]
    assert {v.name for v in found[0].variables} == {"baseUrl", "grpcTarget"}


def test_secrets_are_written_as_a_marker_and_read_back_unloaded() -> None:
    data: dict[str, object] = {"openapi": "3.2.0"}
    envs.write(data, [staging()], replace=True)
    assert data[envs.X_ENVIRONMENTS] == {
        "staging": {"baseUrl": "https://staging.example.com", "token": SECRET_MARKER}
    }
    found, _ = envs.read(data)
    token = found[0].get("token")
    assert token == Variable("token", "", True, loaded=False)


def test_bad_entries_are_reported_and_skipped() -> None:
    data = {envs.X_ENVIRONMENTS: {"ok": {"a": 1, "b": [1], "c.d": "x"}, "bad": "x", "": {}}}
    found, problems = envs.read(data)
    assert [e.name for e in found] == ["ok"]
    assert found[0].variables == [Variable("a", "1")]
    assert len(problems) == 4 and all(p.startswith(envs.X_ENVIRONMENTS) for p in problems)


def test_writing_into_another_file_keeps_its_own_environments() -> None:
    data = {envs.X_ENVIRONMENTS: {"staging": {"baseUrl": "https://mine"}}}
    envs.write(data, [staging(), Environment("local", [Variable("x", "1")])], replace=False)
    assert data[envs.X_ENVIRONMENTS] == {
        "staging": {"baseUrl": "https://mine"},
        "local": {"x": "1"},
    }
    envs.write(data, [], replace=True)
    assert envs.X_ENVIRONMENTS not in data
    plain: dict[str, object] = {}
    envs.write(plain, [], replace=False)
    assert plain == {}  # a document without environments gets no key


def test_resolution_order_var_then_environment_then_defaults_then_process_environment(
    store: SecretStore,
) -> None:
    env = Environment("local", [Variable("a", "from-env"), Variable("b", "from-env")])
    resolver = envs.resolver_for(
        [env], "local", values={"a": "from-var"}, defaults={"b": "demo", "c": "demo"}, store=store
    )
    resolver.environ = {"A2A_WB_B": "process", "A2A_WB_C": "process", "A2A_WB_D": "process"}
    assert [resolver.lookup(n) for n in "abcd"] == ["from-var", "from-env", "demo", "process"]
    assert resolver.origin("a").source == "--var"
    assert resolver.origin("b").source == "environment local"
    assert resolver.origin("c").source == "the demo agent"
    assert resolver.origin("d").source == "A2A_WB_D"
    none = envs.resolver_for([env], "", defaults={"b": "demo"})
    assert none.lookup("b") == "demo" and none.environment == ""


def test_secret_values_go_to_the_store_never_the_file(tmp_path: Path, store: SecretStore) -> None:
    target = tmp_path / "mine.a2a.yaml"
    SpecDocument.new(path=target).save(target)
    doc, notes = save_environments(target, [staging()], current=load(target), store=store)
    raw = target.read_bytes()
    assert SECRET.encode() not in raw and SECRET_MARKER.encode() in raw
    assert store.get(environment_secret_key("staging", "token")) == SECRET
    assert notes and "token" in notes[0] and SECRET not in notes[0]
    found, _ = envs.read(load(target).data)
    assert envs.load_secrets(found, store, use_keyring=False) == ""
    assert found[0].get("token") == Variable("token", SECRET, True)
    # The resolver reads an unloaded secret from the store, and marks it secret.
    reread, _ = envs.read(doc.data)
    resolver = envs.resolver_for(reread, "staging", store=store)
    resolver.use_keyring = False
    assert resolver.lookup("token") == SECRET and resolver.is_secret("token")


def test_an_environment_secret_is_masked_wherever_it_is_used(store: SecretStore) -> None:
    resolver = envs.resolver_for([staging()], "staging", store=store)
    resolver.environ = {}
    saved = request(headers=(("X-Plain", "{{token}}"),), body='{"note": "{{token}}"}')
    sendable = to_a2a_request(saved, resolver)
    assert sendable.request.endpoint == "https://staging.example.com/"
    assert "X-Plain" in sendable.secret_headers
    assert SECRET in sendable.request.body
    assert SECRET in sendable.request.secret_values


def test_the_gui_hint_replaces_the_command_line_advice() -> None:
    cli = envs.resolver_for([], "")
    cli.environ, cli.use_keyring = {}, False
    with pytest.raises(UsageError, match=r"\{\{nope\}\}.*--var nope=VALUE"):
        cli.substitute("{{nope}}", "endpoint")
    gui = envs.resolver_for([staging()], "staging", gui_hint="set it in Environments (staging)")
    gui.environ, gui.use_keyring = {}, False
    with pytest.raises(UsageError) as info:
        gui.substitute("{{nope}}", "endpoint")
    assert str(info.value) == (
        "Variable {{nope}} (used in endpoint) has no value: set it in Environments (staging)"
    )


@pytest.mark.parametrize(
    ("endpoint", "origin"),
    [
        ("http://127.0.0.1:8000/rest", "http://127.0.0.1:8000"),
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000"),
        ("127.0.0.1:50051", "127.0.0.1:50051"),
        ("{{baseUrl}}/", ""),
        ("http://u:p@127.0.0.1:8000/", ""),
        ("/relative", ""),
    ],
)
def test_origin_of(endpoint: str, origin: str) -> None:
    assert envs.origin_of(endpoint) == origin


def test_the_variable_for_an_origin_prefers_the_active_environment() -> None:
    demo = Environment("demo", [Variable("baseUrl", "http://127.0.0.1:8000/")])
    other = Environment("other", [Variable("agentUrl", "http://127.0.0.1:8000")])
    hidden = Environment("hidden", [Variable("s", "http://127.0.0.1:9000", True)])
    found = [demo, other, hidden]
    assert envs.variable_for_origin(found, "other", "http://127.0.0.1:8000/rest") == "agentUrl"
    assert envs.variable_for_origin(found, "", "http://127.0.0.1:8000/rest") == "baseUrl"
    assert envs.variable_for_origin(found, "hidden", "http://127.0.0.1:9000/") is None
    assert envs.with_variable("http://127.0.0.1:8000/rest", "baseUrl") == "{{baseUrl}}/rest"
    assert envs.with_variable("127.0.0.1:50051", "grpcTarget") == "{{grpcTarget}}"


def test_saving_a_request_writes_the_environments_of_the_open_document(
    tmp_path: Path, store: SecretStore
) -> None:
    example = load(example_spec())
    found, _ = envs.read(example.data)
    found.append(staging())
    target = tmp_path / "new.a2a.yaml"
    result = save_request(
        request(), target, current=example, store=store,
        environments=found,
    )  # fmt: skip
    assert result.doc is not None
    raw = target.read_bytes()
    assert SECRET.encode() not in raw
    reread, _ = envs.read(load(target).data)
    assert [e.name for e in reread] == ["demo", "staging"]
    assert any("environment staging" in n for n in result.notes)
