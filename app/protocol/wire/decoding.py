"""Content decoding with bounded steps: ``Content-Encoding`` undone as the bytes arrive.

httpx's ``aiter_bytes`` decodes each received chunk in one ``zlib`` call, so 10 KiB of
``gzip, gzip`` expands into gigabytes in one step, before any size cap can look. Here every
layer decompresses at most :data:`STEP_BYTES` per call (``decompressobj.decompress`` with
``max_length``) and hands its output on lazily, so a reader that counts decoded bytes stops
a bomb after at most one step past its cap.

The encodings are httpx's built-in ones (``gzip``, ``x-gzip``, ``deflate``, ``identity``);
the client advertises only those (:data:`ACCEPT_ENCODING`). Unknown codings pass through
undecoded, as with httpx.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Iterator

import httpx

STEP_BYTES = 64 * 1024
"""Most decoded bytes one decompression step produces."""

ACCEPT_ENCODING = "gzip, deflate"
"""What the client advertises: the codings :func:`decoded_chunks` undoes."""


class _Layer:
    """One zlib coding (gzip or deflate, raw deflate tried when the zlib header is absent)."""

    def __init__(self, coding: str) -> None:
        self._coding = coding
        self._gzip = coding in ("gzip", "x-gzip")
        self._first = True
        self._inflate = zlib.decompressobj(zlib.MAX_WBITS | 16 if self._gzip else zlib.MAX_WBITS)

    def feed(self, data: bytes) -> Iterator[bytes]:
        more = bool(data)
        while more:
            try:
                out = self._inflate.decompress(data, STEP_BYTES)
            except zlib.error as exc:
                if self._first and not self._gzip:
                    # Servers send raw deflate under "deflate" too (httpx accepts both).
                    self._first = False
                    self._inflate = zlib.decompressobj(-zlib.MAX_WBITS)
                    continue
                raise httpx.DecodingError(f"the {self._coding} body is corrupt ({exc})") from exc
            self._first = False
            data = self._inflate.unconsumed_tail
            if self._gzip and self._inflate.eof and self._inflate.unused_data:
                # Concatenated gzip members are one body (RFC 1952 §2.2).
                data = self._inflate.unused_data + data
                self._inflate = zlib.decompressobj(zlib.MAX_WBITS | 16)
            if out:
                yield out
            # A full step may leave output inside zlib even when all input was taken.
            more = bool(data) or len(out) == STEP_BYTES

    def flush(self) -> Iterator[bytes]:
        out = self._inflate.flush()
        if out:
            yield out


def _layers(response: httpx.Response) -> list[_Layer]:
    codings = [c.strip().lower() for c in response.headers.get_list("content-encoding", True)]
    # Applied in the order listed, so undone from the last one (RFC 9110 §8.4).
    return [_Layer(c) for c in reversed(codings) if c in ("gzip", "x-gzip", "deflate")]


def _through(layers: list[_Layer], data: bytes) -> Iterator[bytes]:
    if not layers:
        if data:
            yield data
        return
    first, rest = layers[0], layers[1:]
    for piece in first.feed(data):
        yield from _through(rest, piece)


def _flush(layers: list[_Layer]) -> Iterator[bytes]:
    for index, layer in enumerate(layers):
        for piece in layer.flush():
            yield from _through(layers[index + 1 :], piece)


async def decoded_chunks(response: httpx.Response) -> AsyncIterator[bytes]:
    """The decoded body of a streamed ``response``, in pieces of at most
    :data:`STEP_BYTES` per compression layer step.

    Raises:
        httpx.DecodingError: a compressed layer is corrupt.
        httpx.HTTPError: the connection failed while reading.
    """
    try:
        content = response.content  # read already (a test transport): httpx decoded it
    except httpx.ResponseNotRead:
        pass
    else:
        for start in range(0, len(content), STEP_BYTES):
            yield content[start : start + STEP_BYTES]
        return
    layers = _layers(response)
    async for raw in response.aiter_raw():
        for piece in _through(layers, raw):
            yield piece
    for piece in _flush(layers):
        yield piece
