"""Attached parts in the three dialects, and artifacts read back from the demo agent."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path
from typing import Any

import httpx
import pytest
from a2a.compat.v0_3 import a2a_v0_3_pb2
from a2a.compat.v0_3.types import Part as V03Part
from a2a.types import a2a_pb2
from google.protobuf import json_format
from hypothesis import given
from hypothesis import strategies as st

from app.errors import UsageError
from app.protocol.methods.catalog import TemplateContext, find_method
from app.protocol.methods.parts import (
    Attachment,
    Dialect,
    PartKind,
    accepts,
    data_attachment,
    detect_media_type,
    dialect_of,
    file_attachment,
    size_warning,
    to_part,
    uri_attachment,
)
from app.protocol.request import render_body
from app.protocol.stream.artifacts import (
    DATA,
    FILE,
    TEXT,
    ArtifactView,
    artifacts_in,
    may_carry_artifacts,
    merge,
    read_part,
    suggested_name,
)
from app.protocol.types import Binding, ProtocolVersion


def tiny_png(width: int = 2, height: int = 2) -> bytes:
    """A valid RGB PNG with a colour gradient, built here so no binary fixture is needed."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(
        b"\x00" + b"".join(bytes((255 * x // width, 255 * y // height, 160)) for x in range(width))
        for y in range(height)
    )
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


PAYLOAD = bytes(range(256)) * 3  # every byte value: base64 must round-trip them all


@pytest.fixture
def attachments(tmp_path: Path) -> tuple[Attachment, ...]:
    png = tmp_path / "pixel.png"
    png.write_bytes(tiny_png())
    blob = tmp_path / "blob.bin"
    blob.write_bytes(PAYLOAD)
    return (
        file_attachment(png),
        file_attachment(blob),
        uri_attachment("https://example.invalid/files/report.pdf"),
        data_attachment('{"answer": 42, "tags": ["a", "b"]}'),
    )


def test_media_types_from_content_then_extension(tmp_path: Path) -> None:
    assert detect_media_type("x.txt", tiny_png()[:16]) == "image/png"  # content wins
    assert detect_media_type("notes.txt") == "text/plain"
    assert detect_media_type("report.pdf") == "application/pdf"
    assert detect_media_type("no-extension") == "application/octet-stream"
    assert uri_attachment("https://h/a/b.json?x=1").media_type == "application/json"


def test_inline_files_are_bounded(tmp_path: Path) -> None:
    big = tmp_path / "big.bin"
    big.write_bytes(b"\0" * 2048)
    with pytest.raises(UsageError, match="by URI"):
        file_attachment(big, limit=1024)
    large = Attachment(PartKind.FILE, "big.bin", raw=b"\0" * (1024 * 1024))
    assert "1.0 MiB" in size_warning(large) and "base64" in size_warning(large)
    assert size_warning(file_attachment(big)) == ""


def test_data_part_must_be_an_object() -> None:
    with pytest.raises(UsageError, match="line 1"):
        data_attachment("{nope")
    with pytest.raises(UsageError, match="object"):
        data_attachment("[1, 2]")


def test_input_modes_with_wildcards() -> None:
    assert accepts("image/png", ("text/plain", "image/*"))
    assert accepts("text/plain; charset=utf-8", ("text/plain",))
    assert accepts("application/pdf", ())  # nothing stated: nothing to warn about
    assert not accepts("application/pdf", ("text/plain", "image/*"))
    assert accepts("application/pdf", ("*/*",))


def test_1_0_parts_parse_as_the_proto_part(attachments: tuple[Attachment, ...]) -> None:
    for attachment in attachments:
        part = to_part(attachment, Dialect.V1)
        message = json_format.ParseDict(part, a2a_pb2.Part())
        assert json_format.MessageToDict(message) == part
    png = to_part(attachments[0], Dialect.V1)
    assert png["mediaType"] == "image/png" and png["filename"] == "pixel.png"
    assert base64.b64decode(png["raw"]) == tiny_png()
    assert to_part(attachments[2], Dialect.V1)["url"].endswith("report.pdf")


def test_0_3_parts_in_both_0_3_shapes(attachments: tuple[Attachment, ...]) -> None:
    for attachment in attachments:
        part = to_part(attachment, Dialect.V03_JSONRPC)
        assert V03Part.model_validate(part).model_dump(mode="json", exclude_none=True) == part
        proto = to_part(attachment, Dialect.V03_PROTO)
        message = json_format.ParseDict(proto, a2a_v0_3_pb2.Part())
        assert json_format.MessageToDict(message) == proto
    assert to_part(attachments[0], Dialect.V03_JSONRPC)["file"]["mimeType"] == "image/png"
    assert dialect_of(ProtocolVersion.V0_3, Binding.GRPC) is Dialect.V03_PROTO


def test_parts_read_back_from_every_shape(attachments: tuple[Attachment, ...]) -> None:
    for dialect in Dialect:
        views = [read_part(to_part(a, dialect)) for a in attachments]
        assert [v.kind for v in views] == [FILE, FILE, FILE, DATA]
        assert views[1].raw == PAYLOAD and views[0].is_image
        assert views[2].uri.endswith("report.pdf") and views[2].raw is None
        assert views[3].data == {"answer": 42, "tags": ["a", "b"]}
    assert read_part({"kind": "text", "text": "hi"}).kind == TEXT
    assert read_part({"raw": "%%%"}).problem.startswith("the bytes are not valid base64")
    assert suggested_name(read_part({"raw": "", "filename": "../../etc/passwd"}), 1) == "passwd"


async def _send(url: str, body: str, headers: dict[str, str]) -> Any:
    async with httpx.AsyncClient(timeout=15) as client:
        resp = await client.post(url, content=body.encode(), headers=headers)
    resp.raise_for_status()
    return resp.json()


def url_of(peer: dict[str, Any], version: ProtocolVersion, binding: Binding) -> str:
    if binding is Binding.JSONRPC:
        return str(peer["jsonrpc_url"])
    prefix = "/message:send" if version is ProtocolVersion.V1_0 else "/v1/message:send"
    return str(peer["rest_url"]) + prefix


async def _check_uri_and_data(url: str, spec: Any, attachments: tuple[Attachment, ...]) -> None:
    ctx = TemplateContext(text="echo parts", attachments=attachments[2:])
    body = render_body(spec, Binding.HTTP_JSON, ctx)
    answer = await _send(url, body, {"Content-Type": "application/json"})
    (artifact,) = artifacts_in(answer)
    pdf, data = artifact.parts
    assert pdf.uri == "https://example.invalid/files/report.pdf"
    assert pdf.media_type == "application/pdf" and pdf.name == "report.pdf"
    assert data.data == {"answer": 42, "tags": ["a", "b"]}


@pytest.mark.parametrize(
    ("version", "binding", "method"),
    [
        (ProtocolVersion.V1_0, Binding.JSONRPC, "SendMessage"),
        (ProtocolVersion.V0_3, Binding.JSONRPC, "message/send"),
        (ProtocolVersion.V1_0, Binding.HTTP_JSON, "SendMessage"),
        (ProtocolVersion.V0_3, Binding.HTTP_JSON, "message/send"),
    ],
)
async def test_the_demo_agent_echoes_the_attached_parts(
    sdk_peer: dict[str, Any],
    attachments: tuple[Attachment, ...],
    version: ProtocolVersion,
    binding: Binding,
    method: str,
) -> None:
    spec = find_method(version, method)
    assert spec is not None
    if (version, binding) == (ProtocolVersion.V0_3, Binding.HTTP_JSON):
        # a2a-sdk's 0.3 proto compat layer reads ``fileWithBytes`` as UTF-8 base64 *text*
        # inside the bytes field (base64 twice on the wire): a binary file is answered 500.
        # The part follows the 0.3 proto; only the by-reference and data parts go there.
        await _check_uri_and_data(url_of(sdk_peer, version, binding), spec, attachments)
        return
    ctx = TemplateContext(text="echo parts", attachments=attachments)
    body = render_body(spec, binding, ctx, request_id=1)
    headers = {"Content-Type": "application/json"}
    if version is ProtocolVersion.V1_0:
        headers["A2A-Version"] = "1.0"
    answer = await _send(url_of(sdk_peer, version, binding), body, headers)
    assert "error" not in answer, json.dumps(answer)[:500]

    (artifact,) = artifacts_in(answer)
    assert artifact.name == "echo"
    png, blob, pdf, data = artifact.parts
    assert png.raw == tiny_png() and png.media_type == "image/png" and png.name == "pixel.png"
    assert blob.raw == PAYLOAD and blob.name == "blob.bin"
    assert pdf.uri == "https://example.invalid/files/report.pdf" and pdf.raw is None
    assert data.data == {"answer": 42, "tags": ["a", "b"]}  # Struct numbers: 42.0 == 42


def test_appended_chunks_join_their_artifact_and_snapshots_replace() -> None:
    known: list[ArtifactView] = []

    def update(item: dict[str, Any], source: str) -> list[tuple[int, bool]]:
        return [merge(known, a) for a in artifacts_in(item, source)]

    def chunk(text: str, *, append: bool) -> dict[str, Any]:
        artifact = {"artifactId": "a1", "name": "story", "parts": [{"text": text}]}
        event = {"taskId": "t", "contextId": "c", "artifact": artifact, "append": append}
        return {"jsonrpc": "2.0", "id": 1, "result": {"artifactUpdate": event}}

    assert update(chunk("Once ", append=False), "stream item 1") == [(0, True)]
    assert update(chunk("upon a time", append=True), "stream item 2") == [(0, False)]
    (story,) = known
    assert [p.text for p in story.parts] == ["Once ", "upon a time"] and story.append
    # 0.3 JSON-RPC artifact-update and a later Task snapshot of the same artifact.
    other = {"kind": "artifact-update", "taskId": "t", "artifact": {"artifactId": "b"}}
    assert update(other, "stream item 3") == [(1, True)]
    snapshot = {"kind": "task", "id": "t", "artifacts": [
        {"artifactId": "a1", "name": "story", "parts": [{"kind": "text", "text": "whole"}]},
    ]}  # fmt: skip
    assert update(snapshot, "stream item 4") == [(0, False)]
    assert [p.text for p in known[0].parts] == ["whole"] and not known[0].append


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(
        st.sampled_from(
            ["statusUpdate", "status_update", "artifact", "artifacts", "taskId", "kind",
             "task", "message", "parts", "messageId", "result", "jsonrpc", "tasks", "x"]
        ),
        children,
        max_size=4,
    ),
    max_leaves=12,
)  # fmt: skip


@given(_JSON)
def test_what_may_carry_no_artifacts_has_none(value: Any) -> None:
    # The stream path skips the artifact reader on what this rules out: it must never
    # rule out a value the reader would find something in.
    if not may_carry_artifacts(value):
        assert artifacts_in(value) == []


def test_status_updates_are_ruled_out_and_tasks_are_not() -> None:
    update = {"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_WORKING"}}}
    assert not may_carry_artifacts(update)
    assert not may_carry_artifacts({"jsonrpc": "2.0", "id": 1, "result": update})
    assert may_carry_artifacts({"task": {"id": "t", "artifacts": []}})
