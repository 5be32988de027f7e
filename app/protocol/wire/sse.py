"""A sans-IO Server-Sent Events decoder (HTML Living Standard, "Parsing an event stream").

Bytes in, :class:`SseEvent` s out; no sockets, no httpx (testable without a network)::

    decoder = SseDecoder()
    for chunk in chunks:
        for event in decoder.feed(chunk):
            ...
    events = decoder.close()  # a last frame the server did not end with a blank line

What follows the standard:

- lines end with CRLF, LF or a bare CR, also when the CR and LF arrive in different chunks
  (a CR ends the line at once; an LF that starts the next chunk is swallowed with it);
- a leading UTF-8 BOM is skipped; lines are decoded as UTF-8 with replacement characters;
- ``field: value`` with one optional space after the colon; a line without a colon is a field
  with an empty value; unknown fields are ignored;
- ``data`` lines are joined with ``\\n``; ``event`` sets the type; ``id`` sets the last event
  id unless it contains NUL; ``retry`` is kept only when it is all ASCII digits.

Where a debugger needs to see more than a browser would:

- every frame keeps its exact bytes (``raw``): all bytes since the previous frame up to and
  including the blank line that ended it, so joining every ``raw`` gives back the stream;
- frames the standard does not dispatch are still returned: a comment-only frame (a
  keep-alive such as ``: ping``) has ``data is None`` and its ``comments``; a frame with
  ``event:``/``id:``/``retry:`` but no ``data`` also has ``data is None``;
- :meth:`SseDecoder.close` returns a last frame that lacks its blank line, marked
  ``complete=False`` (the standard discards it; a debugger shows it).
"""

from __future__ import annotations

import re
from typing import NamedTuple

_LINE_END = re.compile(rb"\r\n|\r|\n")
_BOM = b"\xef\xbb\xbf"


class SseEvent(NamedTuple):
    """One frame of an event stream (a named tuple: one is made per frame of a fast stream,
    at a third of a frozen dataclass's cost).

    Attributes:
        raw: the frame's bytes as received (including the blank line that ended it).
        data: the joined ``data`` lines, or None when the frame had no ``data`` field.
        event: the ``event`` field; ``""`` means the default type ``message``.
        id: the ``id`` field of this frame, or None when it had none (or one with NUL).
        last_event_id: the stream's last event id after this frame (ids persist).
        retry: the ``retry`` field in milliseconds, when valid.
        comments: the text of comment lines (after the ``:``, one leading space removed).
        complete: False when the stream ended before the frame's blank line.
    """

    raw: bytes
    data: str | None
    event: str = ""
    id: str | None = None
    last_event_id: str = ""
    retry: int | None = None
    comments: tuple[str, ...] = ()
    complete: bool = True

    @property
    def is_comment(self) -> bool:
        """True for a frame with comments and no fields (a keep-alive)."""
        return self.data is None and bool(self.comments) and self.event == "" and self.id is None


def _first_frame_end(chunk: bytes) -> int | None:
    """Where the first blank line of ``chunk`` ends, if an LF or CRLF one ends there
    (another kind of line end may end a frame sooner: cutting after an LF is safe anyway)."""
    ends = [at + len(blank) for blank in (b"\n\n", b"\r\n\r\n") if (at := chunk.find(blank)) >= 0]
    return min(ends) if ends else None


class SseDecoder:
    """Incremental event-stream parser; feed it bytes as they arrive."""

    __slots__ = (
        "_buf",
        "_comments",
        "_data",
        "_event",
        "_has_lines",
        "_id",
        "_last_id",
        "_raw",
        "_retry",
        "_skip_lf",
        "_started",
    )

    def __init__(self) -> None:
        self._buf = bytearray()  # the current, unterminated line
        self._raw = bytearray()  # bytes of the current frame so far (terminated lines)
        self._skip_lf = False  # the last chunk ended in CR: an LF next belongs to it
        self._started = False  # BOM check done
        self._last_id = ""
        self._reset_frame()

    def _reset_frame(self) -> None:
        self._data: list[str] | None = None
        self._event = ""
        self._id: str | None = None
        self._retry: int | None = None
        self._comments: list[str] = []
        self._has_lines = False

    @property
    def pending_bytes(self) -> int:
        """Bytes held for a frame not yet complete (to cap runaway frames)."""
        return len(self._buf) + len(self._raw)

    def feed(self, chunk: bytes) -> list[SseEvent]:
        """Consume ``chunk``; return the frames it completed, in order."""
        if not chunk:
            return []
        if type(chunk) is not bytes:
            chunk = bytes(chunk)  # frames are sliced out of it: they must be bytes
        if not self._started:
            pending = bytes(self._buf) + chunk
            if len(pending) < len(_BOM) and _BOM.startswith(pending):
                self._buf = bytearray(pending)
                return []
            self._started = True
            self._buf.clear()
            if pending.startswith(_BOM):
                self._raw += _BOM
                pending = pending[len(_BOM) :]
            chunk = pending
        if not chunk:
            return []  # only a BOM so far
        out: list[SseEvent] = []
        if self._skip_lf or self._buf or self._raw or self._has_lines:
            # Inside a frame (the last chunk ended in it): line by line up to its end.
            cut = _first_frame_end(chunk)
            if cut is None or cut == len(chunk):
                return self._lines(chunk)
            out = self._lines(chunk[:cut])
            chunk = chunk[cut:]
            if self._skip_lf or self._buf or self._raw or self._has_lines:
                return out + self._lines(chunk)
        # At a frame boundary: the usual frames (one data line each) in one go, the rest
        # from the first other frame on line by line.
        frames, taken = self._simple_frames(chunk)
        out += frames
        if taken < len(chunk):
            out += self._lines(chunk[taken:] if taken else chunk)
        return out

    def _lines(self, chunk: bytes) -> list[SseEvent]:
        """:meth:`feed` line by line: any frame, any line ends, any cut between chunks."""
        out: list[SseEvent] = []
        raw = self._raw  # the current frame's bytes that come before chunk[seg]
        seg = 0
        pos = 0
        if self._skip_lf:
            self._skip_lf = False
            if chunk[:1] == b"\n":
                pos = 1  # the LF of a CRLF split across chunks: part of the last line end
        # The lines of this chunk and where each one's line end ends.
        lines: list[tuple[bytes, int]] = []
        if chunk.count(b"\r") == chunk.count(b"\r\n") and chunk[-1] != 13:
            # Only LF and CRLF line ends (the usual case): split in C.
            end = pos
            for part in (chunk[pos:] if pos else chunk).split(b"\n")[:-1]:
                end += len(part) + 1
                lines.append((part[:-1] if part[-1:] == b"\r" else part, end))
        else:
            begin = pos
            for match in _LINE_END.finditer(chunk, pos):
                start, end = match.span()
                lines.append((chunk[begin:start], end))
                begin = end
        # A frame that lies within this chunk is sliced out of it in one piece
        # (chunk[seg:end]); bytes are copied into `raw` only for frames that span chunks.
        for line, end in lines:
            if self._buf:
                line = bytes(self._buf) + line
                raw += self._buf
                self._buf.clear()
            pos = end
            if line:
                self._line(line)
            elif self._has_lines:
                if raw:
                    raw += chunk[seg:end]
                    frame = bytes(raw)
                    raw.clear()
                else:
                    frame = chunk[seg:end]
                seg = end
                out.append(self._dispatch(frame, complete=True))
            # else: extra blank lines, kept in raw of the next frame
        size = len(chunk)
        if pos == size and size and chunk[-1] == 13:
            self._skip_lf = True  # ended in CR: an LF next belongs to this line end
        if seg < pos:
            raw += chunk[seg:pos]
        if pos < size:
            self._buf += chunk[pos:]
        return out

    def _simple_frames(self, chunk: bytes) -> tuple[list[SseEvent], int]:
        """The frames at the start of ``chunk`` that are one ``data`` line each, and how many
        bytes they take: what a fast stream is made of, decoded without a pass per line.

        The chunk's line ends must all be LF, or all CRLF; the first other frame (a blank
        line before it, a second line, another field) and what follows it are left to
        :meth:`feed`'s line-by-line decoding, which would give these frames the same way.
        """
        if b"\r" in chunk:
            if chunk.count(b"\r") != chunk.count(b"\r\n"):
                return [], 0
            end = b"\r\n\r\n"
        else:
            end = b"\n\n"
        pieces = chunk.split(end)
        pieces.pop()  # after the last blank line: not a whole frame
        out: list[SseEvent] = []
        taken = 0
        last_id = self._last_id
        for piece in pieces:
            if piece[:5] != b"data:" or b"\n" in piece:
                break
            data = piece[6:] if piece[5:6] == b" " else piece[5:]
            out.append(SseEvent(piece + end, data.decode("utf-8", "replace"), "", None, last_id))
            taken += len(piece) + len(end)
        return out, taken

    def close(self) -> list[SseEvent]:
        """End of stream: a frame still open (no blank line yet) is returned incomplete."""
        if not self._started and self._buf:
            self._started = True
        if self._buf:
            line = bytes(self._buf)
            self._buf.clear()
            self._raw += line
            self._line(line)
        if not self._has_lines:
            return []
        event = self._dispatch(bytes(self._raw), complete=False)
        self._raw.clear()
        return [event]

    def _line(self, line: bytes) -> None:
        """One non-empty line of the current frame."""
        self._has_lines = True
        if line[:5] == b"data:":
            # The usual line, without decoding the field name (ASCII: the same text).
            data = (line[6:] if line[5:6] == b" " else line[5:]).decode("utf-8", "replace")
            if self._data is None:
                self._data = [data]
            else:
                self._data.append(data)
            return
        text = line.decode("utf-8", "replace")
        if text[0] == ":":
            comment = text[1:]
            self._comments.append(comment[1:] if comment.startswith(" ") else comment)
            return
        name, colon, value = text.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            if self._data is None:
                self._data = [value]
            else:
                self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._id = value
                self._last_id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self._retry = int(value)

    def _dispatch(self, raw: bytes, *, complete: bool) -> SseEvent:
        data = self._data
        event = SseEvent(
            raw,
            None if data is None else data[0] if len(data) == 1 else "\n".join(data),
            self._event,
            self._id,
            self._last_id,
            self._retry,
            tuple(self._comments) if self._comments else (),
            complete,
        )
        self._reset_frame()
        return event
