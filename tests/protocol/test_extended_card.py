"""The public-vs-extended card diff (Qt-free) and the extended-card request builder."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.protocol.card.diff import (
    CardDiffEntry,
    DiffKind,
    diff_cards,
    diff_public_extended,
    diff_summary,
)

PUBLIC: dict[str, Any] = {
    "name": "Agent",
    "version": "1.0.0",
    "capabilities": {"streaming": True},
    "skills": [
        {"id": "sum", "name": "Sum", "tags": ["demo"]},
        {"id": "echo", "name": "Echo", "tags": ["demo"]},
    ],
    "signatures": [{"protected": "a", "signature": "b"}],
}


def test_an_extra_skill_is_one_added_entry_matched_by_id() -> None:
    extended = json.loads(json.dumps(PUBLIC))
    extended["skills"].insert(0, {"id": "extended", "name": "Extended-card marker"})
    extended["signatures"] = [{"protected": "c", "signature": "d"}]

    entries = diff_cards(PUBLIC, extended)

    assert entries == (
        CardDiffEntry(
            "skills[id=extended]",
            DiffKind.ADDED,
            "",
            '{"id":"extended","name":"Extended-card marker"}',
        ),
    )
    assert diff_summary(entries) == "1 added, 0 removed, 0 changed"


def test_changed_removed_and_added_members_have_paths() -> None:
    extended = json.loads(json.dumps(PUBLIC))
    extended["version"] = "1.0.1"
    del extended["capabilities"]["streaming"]
    extended["capabilities"]["pushNotifications"] = True
    extended["skills"][1]["tags"].append("secret")

    entries = {(e.path, e.kind) for e in diff_cards(PUBLIC, extended)}

    assert entries == {
        ("version", DiffKind.CHANGED),
        ("capabilities.streaming", DiffKind.REMOVED),
        ("capabilities.pushNotifications", DiffKind.ADDED),
        ("skills[id=echo].tags[1]", DiffKind.ADDED),
    }


def test_equal_cards_and_signatures_only_differences_are_no_differences() -> None:
    other = {**PUBLIC, "signatures": []}
    assert diff_cards(PUBLIC, other) == ()
    assert diff_summary(()) == "no differences"
    assert diff_cards(PUBLIC, other, ignore=()) != ()


def test_json_types_are_compared_as_json() -> None:
    assert diff_cards({"a": True}, {"a": 1}) == (CardDiffEntry("a", DiffKind.CHANGED, "true", "1"),)
    assert diff_cards({"a": 1}, {"a": 1.0}) == ()
    assert diff_cards({"a": {"b": True}}, {"a": {"b": 1}})[0].path == "a.b"


@pytest.mark.parametrize(
    ("public", "extended"),
    [
        (None, {}),
        ([], [1, 2]),
        ("card", {"name": "x"}),
        ({"skills": [{"id": "a"}, {"id": "a"}]}, {"skills": [{"id": "a"}]}),
        ({"skills": [1, {"id": "a"}]}, {"skills": "none"}),
    ],
)
def test_any_json_pair_diffs_without_raising(public: Any, extended: Any) -> None:
    assert diff_cards(public, extended)


def test_very_deep_documents_are_compared_without_recursion_errors() -> None:
    deep: Any = 1
    for _ in range(5000):
        deep = [deep]
    entries = diff_cards({"x": deep}, {"x": [deep]})
    assert len(entries) == 1


def test_mirror_fields_of_a_hybrid_public_card_are_left_out_against_a_1_0_answer() -> None:
    public = {"supportedInterfaces": [], "url": "http://h/", "protocolVersion": "0.3"}
    extended = {"supportedInterfaces": [], "skills": [{"id": "x"}]}
    entries, note = diff_public_extended(public, extended)
    assert [(e.path, e.kind) for e in entries] == [("skills", DiffKind.ADDED)]
    assert "url, preferredTransport" in note and "pure 1.0" in note
    entries, note = diff_public_extended(public, {**public, "name": "n"})
    assert note == "" and [e.path for e in entries] == ["name"]


def test_1_0_only_members_of_a_hybrid_card_are_left_out_against_a_0_3_answer() -> None:
    public = {"supportedInterfaces": [], "url": "http://h/", "capabilities": {
        "extendedAgentCard": True}, "supportsAuthenticatedExtendedCard": True}  # fmt: skip
    extended = {"url": "http://h/", "capabilities": {}, "supportsAuthenticatedExtendedCard": True,
                "protocolVersion": "0.3.0", "skills": []}  # fmt: skip
    entries, note = diff_public_extended(public, extended)
    assert [(e.path, e.kind) for e in entries] == [
        ("protocolVersion", DiffKind.ADDED),
        ("skills", DiffKind.ADDED),
    ]
    assert "pure 0.3" in note


def test_nested_paths_can_be_ignored() -> None:
    entries = diff_cards({"a": {"b": 1, "c": 1}}, {"a": {"b": 2, "c": 2}}, ignore=["a.b"])
    assert [e.path for e in entries] == ["a.c"]
