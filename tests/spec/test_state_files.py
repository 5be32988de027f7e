"""Data is never lost: damaged state files are set aside, temp files of killed saves go."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from app import fileio, session
from app.protocol.types import Binding, ProtocolVersion
from app.session import Session, TabState
from app.spec.document import SpecDocument
from app.spec.xa2a import SavedRequest


def tab(name: str) -> TabState:
    return TabState(
        SavedRequest(
            name,
            ProtocolVersion.V1_0,
            Binding.JSONRPC,
            "http://127.0.0.1:1/",
            "GetTask",
            '{"jsonrpc": "2.0"}',
        ),
        dirty=True,
    )


def write_session(path: Path, *names: str) -> dict[str, object]:
    session.save(path, Session([tab(n) for n in names]))
    data: dict[str, object] = json.loads(path.read_text())
    return data


def asides(path: Path) -> list[Path]:
    return sorted(p for p in path.parent.iterdir() if p.name.startswith(path.name + ".bad-"))


@pytest.mark.parametrize(
    "damage",
    [
        b"\xff\xfe not utf-8 \x80",  # not UTF-8
        b'{"schema_version": 1, "tabs": [',  # not JSON
        b"[1, 2, 3]",  # JSON, not a session
        b'{"schema_version": 99}',  # a future version
        b'{"schema_version": 1, "tabs": {"a": 1}}',  # tabs not a list
    ],
)
def test_a_damaged_session_is_set_aside_never_overwritten(tmp_path: Path, damage: bytes) -> None:
    path = tmp_path / "session.json"
    path.write_bytes(damage)
    loaded, problems = session.load(path)
    assert loaded.tabs == []
    (problem,) = problems
    (aside,) = asides(path)
    assert str(aside) in problem and "damaged" in problem
    assert aside.read_bytes() == damage
    assert not path.exists()
    session.save(path, loaded)  # the next save writes a fresh file; the copy stays
    assert aside.read_bytes() == damage


def test_one_unreadable_tab_keeps_the_others_and_the_file_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    data = write_session(path, "one", "two", "three")
    tabs = data["tabs"]
    assert isinstance(tabs, list)
    tabs[1]["draft"]["version"] = "9.9"  # one tab this version cannot read
    original = json.dumps(data)
    path.write_text(original)
    loaded, problems = session.load(path)
    assert [t.title for t in loaded.tabs] == ["one", "three"]
    (problem,) = problems
    assert "tabs[1]" in problem
    (aside,) = asides(path)
    assert aside.read_text() == original  # the unreadable draft can still be recovered
    session.save(path, loaded)
    assert aside.read_text() == original


def test_a_good_session_is_read_and_left_in_place(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    write_session(path, "one")
    loaded, problems = session.load(path)
    assert problems == [] and [t.title for t in loaded.tabs] == ["one"]
    assert asides(path) == [] and path.exists()
    assert (path.stat().st_mode & 0o777) == 0o600


def test_setting_aside_twice_in_a_second_keeps_both_copies(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    kept = []
    for n in range(3):
        path.write_text(f"broken {n}")
        kept.append(fileio.set_aside(path))
    assert len(set(kept)) == 3
    assert sorted(p.read_text() for p in kept) == ["broken 0", "broken 1", "broken 2"]


def _leftovers(path: Path) -> list[Path]:
    names = [
        f".{path.name}.0123456789ab.tmp",  # ours
        f".{path.name}.k3j_x9z0.tmp",  # tempfile.mkstemp, earlier versions
    ]
    out = []
    for name in names:
        p = path.with_name(name)
        p.write_text("half a save")
        out.append(p)
    return out


@pytest.mark.parametrize("writer", ["spec", "session", "fileio"])
def test_stale_temp_files_of_killed_saves_are_removed(tmp_path: Path, writer: str) -> None:
    name = {"spec": "doc.yaml", "session": "session.json", "fileio": "x.txt"}[writer]
    path = tmp_path / name
    old = _leftovers(path)
    fresh = path.with_name(f".{name}.fedcba987654.tmp")  # a save running right now
    fresh.write_text("in progress")
    others = [tmp_path / f".{name}.notours.tmp", tmp_path / f"{name}.tmp", tmp_path / "a.tmp"]
    for p in others:
        p.write_text("not ours")
    an_hour_ago = time.time() - 2 * fileio.STALE_TEMP_AGE_S
    for p in [*old, *others]:
        os.utime(p, (an_hour_ago, an_hour_ago))
    if writer == "spec":
        SpecDocument.new(path=path).save()
    elif writer == "session":
        session.save(path, Session())
    else:
        fileio.atomic_write(path, "text")
    assert not any(p.exists() for p in old)
    assert fresh.exists() and all(p.exists() for p in others)
    assert path.exists()


def test_atomic_write_failure_leaves_old_file_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "f.txt"
    path.write_text("old")

    def broken(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fileio.os, "replace", broken)
    with pytest.raises(OSError):
        fileio.atomic_write(path, "new")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


@pytest.mark.parametrize("damage", [b"\xff\xfe", b"{not json", b"[1, 2]"])
def test_a_damaged_secrets_file_is_set_aside_before_a_new_secret_is_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: bytes
) -> None:
    from app.spec import variables

    def no_keyring(name: str, value: str) -> None:
        raise variables.NoKeyring("none")

    monkeypatch.setattr(variables, "keyring_set", no_keyring)
    path = tmp_path / "secrets.json"
    path.write_bytes(damage)
    store = variables.SecretStore(path)
    message = store.put("token.h", "one")
    (aside,) = asides(path)
    assert aside.read_bytes() == damage and str(aside) in message
    assert json.loads(path.read_text()) == {"token.h": "one"}


def test_a_session_path_that_cannot_be_read_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    path.mkdir()
    (path / "inside").write_text("kept")
    loaded, (problem,) = session.load(path)
    assert loaded.tabs == [] and "cannot be read" in problem
    (aside,) = asides(path)
    assert (aside / "inside").read_text() == "kept"
    session.save(path, loaded)
    assert path.is_file()


def test_the_spec_dock_collections_round_trip_and_an_older_file_has_none(tmp_path: Path) -> None:
    from app.session import CollectionState

    path = tmp_path / "session.json"
    kept = [
        CollectionState("/specs/one.a2a.yaml", "staging", ("", "A2A 0.3")),
        CollectionState("(bundled example)"),
    ]
    session.save(path, Session([tab("one")], collections=kept))
    assert json.loads(path.read_text())["collections"][0] == {
        "path": "/specs/one.a2a.yaml", "environment": "staging", "collapsed": ["", "A2A 0.3"],
    }  # fmt: skip
    loaded, problems = session.load(path)
    assert problems == [] and loaded.collections == kept
    # No collection open is not "none kept": the next start opens nothing, not the example.
    session.save(path, Session(collections=[]))
    assert session.load(path)[0].collections == []
    # A file from before collections were kept: None, so the app opens the example.
    data = json.loads(path.read_text())
    del data["collections"]
    path.write_text(json.dumps(data))
    assert session.load(path) == (Session(), [])
    # A collection this version cannot read is reported, the file set aside, the rest kept.
    data["collections"] = [{"path": "/a.yaml"}, {"environment": "x"}]
    path.write_text(json.dumps(data))
    loaded, problems = session.load(path)
    assert loaded.collections == [CollectionState("/a.yaml")]
    assert len(problems) == 1 and "collections[1]" in problems[0]
