"""Stream lint against the task lifecycle."""

from __future__ import annotations

from typing import Any

from app.protocol.stream.lifecycle import StreamEnding, StreamLinter
from app.protocol.stream.stream_items import classify_json
from app.protocol.types import ProtocolVersion

V1 = ProtocolVersion.V1_0
V03 = ProtocolVersion.V0_3


def task(state: str, tid: str = "t", cid: str = "c", **extra: Any) -> dict[str, Any]:
    return {"task": {"id": tid, "contextId": cid, "status": {"state": state}, **extra}}


def status(state: str, tid: str = "t", cid: str = "c") -> dict[str, Any]:
    return {"statusUpdate": {"taskId": tid, "contextId": cid, "status": {"state": state}}}


def v03_status(state: str, final: bool) -> dict[str, Any]:
    return {"kind": "status-update", "taskId": "t", "contextId": "c", "final": final,
            "status": {"state": state}}  # fmt: skip


def artifact(aid: str, append: bool) -> dict[str, Any]:
    return {"artifactUpdate": {"taskId": "t", "contextId": "c", "append": append,
                               "artifact": {"artifactId": aid}}}  # fmt: skip


def lint(version: ProtocolVersion, *values: dict[str, Any]) -> tuple[list[list[str]], StreamLinter]:
    linter = StreamLinter(version)
    return [[f.rule for f in linter.feed(classify_json(v))] for v in values], linter


def test_a_clean_1_0_stream_has_no_findings() -> None:
    rows, linter = lint(V1, task("TASK_STATE_SUBMITTED"), status("TASK_STATE_WORKING"),
                        artifact("a", False), status("TASK_STATE_COMPLETED"))  # fmt: skip
    assert rows == [[], [], [], []]
    ending = linter.ending()
    assert ending is StreamEnding.TERMINAL and linter.finish(ending) == []


def test_a_resent_final_snapshot_is_allowed() -> None:
    rows, _ = lint(V1, status("TASK_STATE_COMPLETED"), task("TASK_STATE_COMPLETED"))
    assert rows == [[], []]


def test_events_after_a_terminal_state() -> None:
    rows, _ = lint(V1, status("TASK_STATE_CANCELED"), artifact("a", False))
    assert rows == [[], ["after-terminal"]]


def test_transition_out_of_a_terminal_state() -> None:
    rows, _ = lint(V1, status("TASK_STATE_COMPLETED"), status("TASK_STATE_WORKING"))
    assert rows == [[], ["leaves-terminal"]]


def test_0_3_stream_without_final() -> None:
    _, linter = lint(V03, v03_status("working", False), v03_status("completed", False))
    assert [f.rule for f in linter.finish(linter.ending())] == ["no-final"]
    _, linter = lint(V03, v03_status("completed", True))
    assert linter.finish(linter.ending()) == []


def test_0_3_event_after_final() -> None:
    rows, _ = lint(V03, v03_status("input-required", True), v03_status("working", False))
    assert rows == [[], ["after-terminal"]]


def test_1_0_stream_closed_while_active() -> None:
    _, linter = lint(V1, task("TASK_STATE_SUBMITTED"), status("TASK_STATE_WORKING"))
    ending = linter.ending()
    assert ending is StreamEnding.ACTIVE
    assert [f.rule for f in linter.finish(ending)] == ["closed-while-active"]
    # Stopping locally is not the server's fault.
    assert linter.finish(linter.ending(stopped=True)) == []


def test_interrupted_is_a_normal_end() -> None:
    _, linter = lint(V1, task("TASK_STATE_SUBMITTED"), status("TASK_STATE_INPUT_REQUIRED"))
    assert linter.ending() is StreamEnding.INTERRUPTED
    assert linter.finish(linter.ending()) == []


def test_ids_changing_mid_stream() -> None:
    rows, _ = lint(V1, task("TASK_STATE_SUBMITTED"), status("TASK_STATE_WORKING", tid="u"),
                   status("TASK_STATE_WORKING", cid="d"))  # fmt: skip
    assert rows == [[], ["id-changed"], ["id-changed"]]


def test_artifact_append_without_an_earlier_chunk() -> None:
    rows, _ = lint(V1, artifact("a", True), artifact("b", False), artifact("b", True))
    assert rows == [["append-without-chunk"], [], []]
    snapshot = task("TASK_STATE_WORKING", artifacts=[{"artifactId": "z"}])
    rows, _ = lint(V1, snapshot, artifact("z", True))
    assert rows == [[], []]


def test_message_only_stream() -> None:
    linter = StreamLinter(V03)
    linter.feed(classify_json({"kind": "message", "role": "agent", "messageId": "m"}))
    assert linter.ending() is StreamEnding.MESSAGE
    assert linter.finish(linter.ending()) == []
