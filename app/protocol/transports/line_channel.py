"""Reading the line framing of stdio and Unix socket carriers: one reply per line, bounded.

``asyncio.StreamReader.readline`` fails on a line longer than its buffer; a reply may be
as long as the request's response cap, so a line is read in pieces up to that cap, and a
longer one is reported as what it is rather than as a crash — at once, since a hostile peer's
line may never end; the rest of it is skipped before the next line is read.
"""

from __future__ import annotations

import asyncio

from app.protocol.wire.carrier_frames import CarrierReply, line_reply, oversize_reply

BUFFER = 1024 * 1024
"""asyncio's buffer per read: a longer line is read in pieces."""


class LineReader:
    """The replies of one line-framed stream.

    Args:
        reader: the stream (a socket, a process's stdout), made with ``limit=BUFFER``.
        cap: the longest line accepted, in bytes; its owner may change it between reads
            (a stdio agent's reader serves requests with caps of their own).
    """

    def __init__(self, reader: asyncio.StreamReader, cap: int) -> None:
        self._reader = reader
        self.cap = cap
        self._skipping = False

    async def next_reply(self) -> CarrierReply | None:
        """The next line as a reply; None at EOF. A line over the cap is a reply that is
        not JSON and says so, returned as soon as the cap is passed (the rest of the line
        is skipped by the next call)."""
        if self._skipping:
            self._skipping = False
            if not await self._skip_line():
                return None
        pieces: list[bytes] = []
        size = 0
        while True:
            try:
                piece = await self._reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as exc:  # EOF
                if not exc.partial and not pieces:
                    return None
                piece = exc.partial
            except asyncio.LimitOverrunError as exc:
                piece = await self._reader.readexactly(exc.consumed)
                size += len(piece)
                if size > self.cap:
                    self._skipping = True
                    return oversize_reply(b"".join(pieces) or piece, self.cap, "line")
                pieces.append(piece)
                continue
            if size + len(piece.rstrip(b"\r\n")) > self.cap:
                return oversize_reply(b"".join(pieces) or piece, self.cap, "line")
            pieces.append(piece)
            return line_reply(b"".join(pieces))

    async def _skip_line(self) -> bool:
        """Read to the end of the current line; False at EOF."""
        while True:
            try:
                await self._reader.readuntil(b"\n")
                return True
            except asyncio.LimitOverrunError as exc:
                await self._reader.readexactly(exc.consumed)
            except asyncio.IncompleteReadError:
                return False
