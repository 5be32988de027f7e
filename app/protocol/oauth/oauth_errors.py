"""The one exception of the OAuth 2 client, and how a token endpoint's answer becomes it."""

from __future__ import annotations

import httpx

from app.errors import WorkbenchError


class OAuthError(WorkbenchError):
    """The authorization server refused a request or could not be used.

    The message is one line for a status bar or stderr, e.g. ``invalid_client: client
    authentication failed (token endpoint http://…/token)``. ``error`` is the RFC 6749 §5.2
    error code when the server sent one (``invalid_client``, ``access_denied``,
    ``expired_token``…), else ``""``.
    """

    def __init__(self, message: str, *, error: str = "") -> None:
        super().__init__(message)
        self.error = error


def unreachable(what: str, url: str, exc: httpx.HTTPError) -> OAuthError:
    """The error for a transport failure talking to ``what`` at ``url``."""
    reason = str(exc).strip() or type(exc).__name__
    return OAuthError(f"{what} {url} unreachable: {reason}")


def error_from_json(what: str, url: str, body: dict[str, object]) -> OAuthError:
    """The error for an RFC 6749 §5.2 error object (``error``, ``error_description``)."""
    code = str(body.get("error", ""))
    description = str(body.get("error_description", "") or "").strip()
    text = f"{code}: {description}" if description else code
    return OAuthError(f"{text} ({what} {url})", error=code)


def not_json(what: str, url: str, response: httpx.Response) -> OAuthError:
    """The error for an answer that is not a JSON object (an HTML login page, a proxy page)."""
    ctype = response.headers.get("content-type", "").split(";")[0].strip() or "no content type"
    return OAuthError(
        f"{what} {url} answered HTTP {response.status_code} with {ctype}, not a JSON "
        "object: is this the right URL?"
    )
