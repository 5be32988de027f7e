"""The loopback redirect receiver of a native app (RFC 8252 §7.3): ``http://127.0.0.1:<port>/``.

A tiny asyncio HTTP server on an ephemeral port that waits for the one redirect carrying
``code`` and ``state`` (or ``error``), answers the browser with a short page, and checks
``state`` against the one sent (RFC 6749 §10.12).
"""

from __future__ import annotations

import asyncio
import contextlib
from types import TracebackType
from urllib.parse import parse_qsl, urlsplit

from app.protocol.oauth.oauth_errors import OAuthError

_PAGE = (
    "<!doctype html><meta charset=utf-8><title>A2A Workbench</title>"
    "<p>{}</p><p>You can close this window and return to A2A Workbench.</p>"
)
_MAX_REQUEST_BYTES = 16_384


class LoopbackReceiver:
    """``async with LoopbackReceiver(state) as receiver:`` listens until the block ends."""

    def __init__(self, state: str, host: str = "127.0.0.1") -> None:
        """``state`` is the value the redirect must carry back."""
        self._state = state
        self._host = host
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[dict[str, str]] | None = None

    @property
    def redirect_uri(self) -> str:
        """``http://127.0.0.1:<port>/`` once listening."""
        assert self._server is not None, "not listening"
        port = self._server.sockets[0].getsockname()[1]
        return f"http://{self._host}:{port}/"

    async def __aenter__(self) -> LoopbackReceiver:
        self._result = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._serve, self._host, 0)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
        if self._result is not None and not self._result.done():
            self._result.cancel()

    async def wait_for_code(self, timeout: float) -> str:
        """The authorization code, once the browser has been redirected here.

        Raises:
            OAuthError: the redirect carried ``error`` (``access_denied`` when the user
                declined), a wrong ``state``, no ``code``, or nothing came within ``timeout``.
        """
        assert self._result is not None, "not listening"
        try:
            params = await asyncio.wait_for(asyncio.shield(self._result), timeout)
        except TimeoutError:
            raise OAuthError(
                f"no redirect reached {self.redirect_uri} within {timeout:g} s "
                "(was the login finished in the browser?)"
            ) from None
        if "error" in params:
            code = params["error"]
            description = params.get("error_description", "").strip()
            text = f"{code}: {description}" if description else code
            raise OAuthError(f"{text} (authorization endpoint)", error=code)
        if params.get("state") != self._state:
            raise OAuthError("the redirect's state does not match the one sent; code refused")
        code = params.get("code", "")
        if not code:
            raise OAuthError("the redirect carried neither code nor error")
        return code

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10.0)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            writer.close()
            return
        target = head[:_MAX_REQUEST_BYTES].split(b"\r\n", 1)[0].decode("latin-1").split(" ")
        parts = urlsplit(target[1] if len(target) > 1 else "")
        params = dict(parse_qsl(parts.query))
        wanted = parts.path == "/" and ("code" in params or "error" in params)
        if wanted and self._result is not None and not self._result.done():
            self._result.set_result(params)
            status, text = (
                "200 OK",
                "Authorization received."
                if "code" in params
                else (f"Authorization failed: {params.get('error', '')}"),
            )
        else:
            status, text = "404 Not Found", "Not the redirect this app waits for."
        body = _PAGE.format(text).encode()
        writer.write(
            f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
            + body
        )
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        writer.close()
