"""The save-to-spec pipeline without Qt: target choice, secrets, validation, writing."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml
from openapi_spec_validator import validate

from app.protocol.methods.catalog import TemplateContext, find_method
from app.protocol.request import render_body
from app.protocol.types import Binding, ProtocolVersion
from app.shipped import example_spec
from app.spec import save
from app.spec.document import SpecDocument, load
from app.spec.environments import X_ENVIRONMENTS, Environment, Variable
from app.spec.save import for_target, same_file, save_request, save_target
from app.spec.variables import SecretStore
from app.spec.xa2a import SavedAuth, SavedRequest

EXAMPLE = example_spec()


class MemoryStore(SecretStore):
    """Keeps secrets in a dict (no keyring, no file)."""

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[str, str] = {}

    def put(self, name: str, value: str, label: str = "") -> str:
        self.values[name] = value
        return f"{{{{{name}}}}} kept in memory"


def _request(text: str = "hello", token: str = "") -> SavedRequest:
    spec = find_method(ProtocolVersion.V1_0, "SendMessage")
    assert spec is not None
    auth = SavedAuth("bearer", (("token", token),)) if token else SavedAuth()
    return SavedRequest(
        name="Say hello",
        version=ProtocolVersion.V1_0,
        binding=Binding.JSONRPC,
        endpoint="http://127.0.0.1:9/",
        method="SendMessage",
        body=render_body(spec, Binding.JSONRPC, TemplateContext(text=text)),
        auth=auth,
    )


def test_save_writes_a_valid_document_and_moves_secrets_to_the_store(tmp_path: Path) -> None:
    store = MemoryStore()
    target = tmp_path / "mine.a2a.yaml"
    result = save_request(_request(token="very-secret"), target, current=None, store=store)
    assert result.doc is not None and result.errors == []
    raw = target.read_bytes()
    assert b"very-secret" not in raw
    validate(yaml.safe_load(raw))
    assert list(store.values.values()) == ["very-secret"]
    assert result.notes == [f"{{{{{name}}}}} kept in memory" for name in store.values]
    assert result.saved.operation_id and "{{" in result.saved.auth.get("token")


def test_saving_again_updates_the_same_operation(tmp_path: Path) -> None:
    store = MemoryStore()
    target = tmp_path / "mine.a2a.yaml"
    first = save_request(_request(), target, current=None, store=store)
    again = dataclasses.replace(_request("bye"), operation_id=first.saved.operation_id)
    second = save_request(again, target, current=first.doc, store=store)
    assert second.saved.operation_id == first.saved.operation_id
    operations = load(target).operations()
    assert len(operations) == 1 and "bye" in operations[0].request.body
    assert first.doc is not None and len(first.doc.operations()) == 1  # not changed


def test_invalid_operations_are_not_written_unless_forced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(save, "validate_operation", lambda _doc, _op_id: ["bad path item"])
    store = MemoryStore()
    target = tmp_path / "bad.a2a.yaml"
    result = save_request(_request(token="tok"), target, current=None, store=store)
    assert result.doc is None and result.errors == ["bad path item"]
    assert not target.exists() and store.values == {}  # nothing written, nothing stored
    forced = save_request(_request(token="tok"), target, current=None, store=store, force=True)
    assert forced.doc is not None and forced.errors == [] and target.exists()
    assert list(store.values.values()) == ["tok"]


def test_a_read_only_document_is_written_as_an_editable_one(tmp_path: Path) -> None:
    target = tmp_path / "imported.a2a.yaml"
    target.write_text(EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    opened = load(target)
    opened.read_only = True  # as an OpenAPI 3.0/3.1 import is
    before = len(opened.operations())
    result = save_request(_request(), target, current=opened, store=MemoryStore())
    assert result.doc is not None and not result.doc.read_only
    assert result.doc.data["openapi"] == "3.2.0"
    assert len(load(target).operations()) == before + 1
    assert len(opened.operations()) == before  # the open document is copied, not changed


def test_save_target_and_operation_ids(tmp_path: Path) -> None:
    own = tmp_path / "own.yaml"
    opened = SpecDocument.new(path=tmp_path / "open.yaml")
    assert save_target(own, opened, EXAMPLE) == own
    assert save_target(None, opened, EXAMPLE) == tmp_path / "open.yaml"
    assert save_target(None, None, EXAMPLE) is None
    assert save_target(EXAMPLE, None, EXAMPLE) is None  # the bundled example is never written
    saved = dataclasses.replace(_request(), operation_id="sayHello")
    assert for_target(saved, own, own).operation_id == "sayHello"
    assert for_target(saved, own, tmp_path / "other.yaml").operation_id == ""
    assert same_file(own, tmp_path / "." / "own.yaml")


def test_save_document_writes_a_whole_collection_under_a_new_name(tmp_path: Path) -> None:
    from app.spec.environments import Environment, Variable

    store = MemoryStore()
    unsaved = SpecDocument.new(title="Imported from curl")
    unsaved.upsert(_request())
    unsaved.notice = "Imported from curl; not saved yet"
    staging = Environment(
        "staging",
        [Variable("baseUrl", "https://staging.example.com"), Variable("token", "s3", secret=True)],
    )
    target = tmp_path / "imported.a2a.yaml"
    target.write_text("replaced: entirely\n", encoding="utf-8")  # Save as… over a file
    written, notes = save.save_document(unsaved, target, environments=[staging], store=store)
    assert written.path == target and written.notice == "" and unsaved.path is None
    raw = target.read_bytes()
    assert b"replaced" not in raw and b"s3" not in raw and list(store.values.values()) == ["s3"]
    assert len(notes) == 1
    validate(yaml.safe_load(raw))
    reread = load(target)
    assert [o.request.name for o in reread.operations()] == ["Say hello"]
    assert reread.data["x-a2a-environments"]["staging"]["baseUrl"] == "https://staging.example.com"
    # A read-only document (the example, an OpenAPI 3.0 import) goes out as an editable one.
    example = load(EXAMPLE)
    example.read_only = True
    copy, _ = save.save_document(example, tmp_path / "mine.json", environments=[], store=store)
    assert not copy.read_only and copy.fmt == "json"
    assert len(load(tmp_path / "mine.json").operations()) == len(example.operations())


def test_a_new_file_is_titled_after_its_name(tmp_path: Path) -> None:
    result = save_request(
        _request(), tmp_path / "my-agent.a2a.yaml", current=None, store=MemoryStore()
    )
    assert result.doc is not None and result.doc.data["info"]["title"] == "my-agent"
    assert save.title_for(Path("x/.a2a.json")) == "A2A requests"


def test_a_new_file_gets_the_carried_environments_an_existing_one_keeps_its_own(
    tmp_path: Path,
) -> None:
    """Newcomer point 1: a request saved with {{baseUrl}} into a new file carries the
    environment the value came from, so ``run FILE --env demo`` can replay it."""
    carried = [Environment("demo", [Variable("baseUrl", "http://127.0.0.1:8000")])]
    request = dataclasses.replace(_request(), endpoint="{{baseUrl}}/")
    target = tmp_path / "new.a2a.yaml"
    store = MemoryStore()
    first = save_request(request, target, current=None, store=store, carried=carried)
    assert first.doc is not None
    assert load(target).data[X_ENVIRONMENTS] == {"demo": {"baseUrl": "http://127.0.0.1:8000"}}

    other = [Environment("elsewhere", [Variable("baseUrl", "http://127.0.0.1:9")])]
    save_request(request, target, current=first.doc, store=store, carried=other)
    assert list(load(target).data[X_ENVIRONMENTS]) == ["demo"]  # not a new file: as it was
