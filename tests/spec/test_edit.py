"""Qt-free edits of saved requests: rename, duplicate, delete and restore, move; names and
tags that follow the request's method, version and binding."""

from __future__ import annotations

from pathlib import Path

import pytest
from openapi_spec_validator import validate

from app.protocol.types import Binding, ProtocolVersion
from app.spec import edit
from app.spec.document import SpecDocument, SpecError, load
from app.spec.labels import follow
from app.spec.save import save_edit, save_request
from app.spec.variables import SecretStore
from app.spec.xa2a import SavedRequest


def request(name: str, method: str = "SendMessage") -> SavedRequest:
    return SavedRequest(name=name, version=ProtocolVersion.V1_0, binding=Binding.JSONRPC,
                        endpoint="http://127.0.0.1:9/", method=method, body="{}")  # fmt: skip


def document(tmp_path: Path, *names: str) -> SpecDocument:
    doc = SpecDocument.new(path=tmp_path / "d.a2a.yaml")
    for name in names:
        doc.upsert(request(name))
    doc.save()
    return doc


def name_of(doc: SpecDocument, operation_id: str) -> str:
    found = doc.find(operation_id)
    assert found is not None, operation_id
    return found.request.name


def ids(doc: SpecDocument) -> list[str]:
    return [op.request.operation_id for op in doc.operations()]


def test_edits_keep_foreign_keys_order_and_validity(tmp_path: Path) -> None:
    doc = document(tmp_path, "One", "Two")
    doc.data["paths"]["/a2a/one"]["post"]["x-owner"] = "kept"
    copy_id = edit.duplicate(doc, "one")
    assert copy_id == "one-copy" and ids(doc) == ["one", "one-copy", "two"]
    assert doc.data["paths"]["/a2a/one-copy"]["post"]["x-owner"] == "kept"
    assert edit.rename(doc, "one-copy", " Renamed ") == "One copy"
    assert name_of(doc, "one-copy") == "Renamed"
    assert edit.move(doc, "two", "Drafts") == ["SendMessage"]
    assert {"name": "Drafts"} in doc.data["tags"]
    assert edit.tags_in_use(doc) == ["SendMessage", "Drafts"]
    removed = edit.delete(doc, "one")
    assert ids(doc) == ["one-copy", "two"] and "/a2a/one" not in doc.data["paths"]
    edit.restore(doc, removed)
    assert ids(doc) == ["one", "one-copy", "two"]
    validate(doc.data)
    with pytest.raises(SpecError):
        edit.rename(doc, "missing", "x")
    with pytest.raises(SpecError):
        edit.rename(doc, "one", "  ")


def test_save_edit_writes_a_copy_and_leaves_the_open_document_alone(tmp_path: Path) -> None:
    doc = document(tmp_path, "One")
    written, old = save_edit(doc, lambda d: edit.rename(d, "one", "New"))
    path = tmp_path / "d.a2a.yaml"
    assert written.path == path
    assert old == "One" and name_of(doc, "one") == "One"
    assert name_of(load(path), "one") == "New"
    with pytest.raises(SpecError):
        save_edit(doc, lambda d: edit.delete(d, "missing"))
    assert name_of(load(path), "one") == "New"


def test_names_and_tags_follow_what_changed_and_keep_the_users_words() -> None:
    base = SavedRequest(name="Sum numbers (1.0 JSON-RPC)", version=ProtocolVersion.V1_0,
                        binding=Binding.JSONRPC, endpoint="", method="SendMessage", body="",
                        tags=("A2A 1.0", "mine"))  # fmt: skip
    v10, v03 = ProtocolVersion.V1_0, ProtocolVersion.V0_3
    assert follow(base, v10, Binding.JSONRPC, "SendMessage") == (base.name, base.tags)
    assert follow(base, v10, Binding.GRPC, "SendMessage") == (
        "Sum numbers (1.0 gRPC)", ("A2A 1.0", "mine"))  # fmt: skip
    assert follow(base, v03, Binding.HTTP_JSON, "message/send") == (
        "Sum numbers (0.3 HTTP+JSON)", ("A2A 0.3", "mine"))  # fmt: skip
    named = SavedRequest(name="SendMessage", version=v10, binding=Binding.JSONRPC,
                         endpoint="", method="SendMessage", body="",
                         tags=("SendMessage",))  # fmt: skip
    assert follow(named, v10, Binding.JSONRPC, "GetTask") == ("GetTask", ("GetTask",))
    assert follow(named, v10, Binding.JSONRPC, "SendStreamingMessage")[0] == "SendStreamingMessage"
    custom = SavedRequest(name="SendMessageStream check", version=v10, binding=Binding.JSONRPC,
                          endpoint="", method="SendMessage", body="")  # fmt: skip
    assert follow(custom, v10, Binding.JSONRPC, "GetTask")[0] == "SendMessageStream check"


def test_saving_a_request_whose_operation_was_removed_says_it_adds_it_again(
    tmp_path: Path,
) -> None:
    path = tmp_path / "d.a2a.yaml"
    store = SecretStore(tmp_path / "secrets.json")
    first = save_request(request("One"), path, current=None, store=store)
    assert first.doc is not None and first.notes == []
    again = save_request(first.saved, path, current=first.doc, store=store)
    assert again.notes == [] and ids(load(path)) == ["one"]  # saving twice: one operation
    removed, _ = save_edit(load(path), lambda d: edit.delete(d, "one"))
    third = save_request(first.saved, path, current=removed, store=store)
    assert third.notes == ["one was no longer in the file: added as a new request"]
    assert ids(load(path)) == ["one"]
