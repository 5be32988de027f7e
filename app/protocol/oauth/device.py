"""The device authorization grant (RFC 8628): the user code, then polling the token endpoint."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import httpx

from app.protocol.oauth.config import OAuthConfig
from app.protocol.oauth.oauth_errors import OAuthError, error_from_json, not_json
from app.protocol.oauth.tokens import Token, json_object, post_form, request_token

GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code"
DEFAULT_INTERVAL_S = 5.0  # RFC 8628 §3.2: when the server names none
SLOW_DOWN_STEP_S = 5.0  # RFC 8628 §3.5: each slow_down adds 5 seconds

Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class DeviceAuthorization:
    """The device authorization response (RFC 8628 §3.2) and when it was received.

    Attributes:
        user_code: what the user types at ``verification_uri``.
        verification_uri: where the user goes.
        verification_uri_complete: the same with the code filled in ("" when not sent).
        expires_in: seconds the device code lives.
        interval: seconds between polls.
        received_at: ``time.monotonic()`` when the response arrived.
    """

    device_code: str = field(repr=False)
    user_code: str
    verification_uri: str
    verification_uri_complete: str
    expires_in: float
    interval: float
    received_at: float

    @property
    def browser_uri(self) -> str:
        """The URI to open for the user: the complete one when the server sent it."""
        return self.verification_uri_complete or self.verification_uri

    def remaining(self, now: float | None = None) -> float:
        """Seconds left before the device code expires (never negative)."""
        left = self.received_at + self.expires_in - (time.monotonic() if now is None else now)
        return max(0.0, left)


async def start_device_authorization(
    client: httpx.AsyncClient, config: OAuthConfig
) -> DeviceAuthorization:
    """Ask the device authorization endpoint for a user code (RFC 8628 §3.1).

    Raises:
        OAuthError: an error answer, not JSON, or a response without the required members.
    """
    url = config.device_authorization_url
    form = {"scope": " ".join(config.scopes)} if config.scopes else {}
    response = await post_form(client, "device authorization endpoint", url, config, form)
    body = json_object(response)
    if body is None:
        raise not_json("device authorization endpoint", url, response)
    if "error" in body:
        raise error_from_json("device authorization endpoint", url, body)
    members = ("device_code", "user_code", "verification_uri")
    if response.status_code != 200 or not all(isinstance(body.get(k), str) for k in members):
        raise OAuthError(
            f"device authorization endpoint {url} answered HTTP {response.status_code} "
            "without device_code, user_code and verification_uri"
        )
    return DeviceAuthorization(
        device_code=body["device_code"],
        user_code=body["user_code"],
        verification_uri=body["verification_uri"],
        verification_uri_complete=str(body.get("verification_uri_complete") or ""),
        expires_in=_seconds(body.get("expires_in"), 600.0),
        interval=_seconds(body.get("interval"), DEFAULT_INTERVAL_S),
        received_at=time.monotonic(),
    )


async def poll_device_token(
    client: httpx.AsyncClient,
    config: OAuthConfig,
    authorization: DeviceAuthorization,
    *,
    sleep: Sleep = asyncio.sleep,
) -> Token:
    """Poll the token endpoint until the user approves (RFC 8628 §3.4, §3.5).

    Waits ``interval`` seconds before each poll; ``slow_down`` adds 5 s to it for good.

    Raises:
        OAuthError: ``access_denied``, ``expired_token`` (from the server, or once the
            device code's ``expires_in`` has passed here), or any other error answer.
    """
    interval = authorization.interval
    form = {"grant_type": GRANT_TYPE, "device_code": authorization.device_code}
    while True:
        if authorization.remaining() <= 0:
            raise _expired(authorization)
        await sleep(min(interval, authorization.remaining()) if interval > 0 else 0)
        try:
            return await request_token(client, config, form)
        except OAuthError as exc:
            if exc.error == "authorization_pending":
                continue
            if exc.error == "slow_down":
                interval += SLOW_DOWN_STEP_S
                continue
            if exc.error == "expired_token":
                raise _expired(authorization) from exc
            if exc.error == "access_denied":
                raise OAuthError(
                    "access_denied: the user denied the device authorization", error=exc.error
                ) from exc
            raise


def _expired(authorization: DeviceAuthorization) -> OAuthError:
    return OAuthError(
        f"expired_token: the device code expired after {authorization.expires_in:g} s "
        "before the user approved it; get a new code",
        error="expired_token",
    )


def _seconds(value: object, default: float) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return default
