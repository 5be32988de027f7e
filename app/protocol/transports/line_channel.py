"""Reading the line framing of stdio and Unix socket carriers: one reply per line, bounded.

``asyncio.StreamReader.readline`` fails on a line longer than its buffer; a reply may be
as long as the request's response cap, so a line is read in pieces up to that cap, and a
longer one is reported as what it is rather than as a crash.
"""

from __future__ import annotations

import asyncio

from app.protocol.events import NOT_JSON
from app.protocol.wire.carrier_frames import CarrierReply, line_reply

BUFFER = 1024 * 1024
"""asyncio's buffer per read: a longer line is read in pieces."""


class LineReader:
    """The replies of one line-framed stream.

    Args:
        reader: the stream (a socket, a process's stdout), made with ``limit=BUFFER``.
        cap: the longest line accepted, in bytes.
    """

    def __init__(self, reader: asyncio.StreamReader, cap: int) -> None:
        self._reader = reader
        self._cap = cap

    async def next_reply(self) -> CarrierReply | None:
        """The next line as a reply; None at EOF. A line over the cap is a reply that is
        not JSON and says so (the rest of it is skipped)."""
        pieces: list[bytes] = []
        size = 0
        while True:
            try:
                piece = await self._reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as exc:  # EOF
                if not exc.partial and not pieces:
                    return None
                pieces.append(exc.partial)
                break
            except asyncio.LimitOverrunError as exc:
                piece = await self._reader.readexactly(exc.consumed)
                size += len(piece)
                if size > self._cap:
                    await self._skip_line()
                    why = f"a line over the size limit ({self._cap} bytes), not read"
                    return CarrierReply(b"".join(pieces)[:1024], NOT_JSON, why, True, False)
                pieces.append(piece)
                continue
            pieces.append(piece)
            break
        return line_reply(b"".join(pieces))

    async def _skip_line(self) -> None:
        while True:
            try:
                await self._reader.readuntil(b"\n")
                return
            except asyncio.LimitOverrunError as exc:
                await self._reader.readexactly(exc.consumed)
            except asyncio.IncompleteReadError:
                return
