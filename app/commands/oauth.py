"""The OAuth 2 options of ``send`` and ``run``: flags to an :class:`OAuthConfig`, then a token.

    --oauth2 client-credentials|device-code|authorization-code
    --token-url URL --client-id ID [--client-secret SECRET|@FILE|env:NAME] [--scope S]...
    [--device-authorization-url URL] [--authorization-url URL]
    [--oauth2-from-card CARD_URL[#SCHEME]]

The device code flow prints the user code and verification URI to stderr and polls; the
authorization code flow opens the system browser. The token is sent as
``Authorization: Bearer`` to the request's endpoint only.
"""

from __future__ import annotations

import argparse
import webbrowser
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from app.commands.cli import CliUsageError, say
from app.commands.printer import Printer
from app.commands.secret_args import secret_value
from app.protocol.events import ErrorKind, ExchangeEnd, ExchangeError, Outcome
from app.protocol.net.auth import AuthConfig, apply_auth
from app.protocol.net.network import NetworkOptions
from app.protocol.oauth import (
    DeviceAuthorization,
    OAuthConfig,
    OAuthError,
    OAuthFlow,
    Token,
    TokenCache,
    UserAgent,
    obtain_token,
)
from app.protocol.oauth.challenge import invalid_token
from app.protocol.oauth.from_card import card_options, choose, merged
from app.protocol.request import A2ARequest


def add_oauth_options(p: argparse.ArgumentParser, auth: argparse._MutuallyExclusiveGroup) -> None:
    """Add ``--oauth2`` to the credential group ``auth`` and its settings to ``p``."""
    auth.add_argument(
        "--oauth2",
        metavar="FLOW",
        choices=[f.cli_name for f in OAuthFlow],
        help="get an OAuth 2 access token first: client-credentials, device-code or "
        "authorization-code",
    )
    g = p.add_argument_group("OAuth 2 (with --oauth2 or --oauth2-from-card)")
    g.add_argument("--token-url", default="", metavar="URL", help="the token endpoint")
    g.add_argument("--client-id", default="", metavar="ID")
    g.add_argument(
        "--client-secret",
        default="",
        metavar="SECRET|@FILE|env:NAME",
        help="a confidential client's secret",
    )
    g.add_argument("--scope", action="append", default=[], metavar="SCOPE", help="repeatable")
    g.add_argument("--device-authorization-url", default="", metavar="URL")
    g.add_argument("--authorization-url", default="", metavar="URL")
    g.add_argument(
        "--oauth2-from-card",
        default="",
        metavar="CARD_URL[#SCHEME]",
        help="read token URL, device/authorization URL and scopes from the card's scheme",
    )


@dataclass
class CliOAuth:
    """The OAuth settings of one command run, and its token cache."""

    config: OAuthConfig
    card_url: str = ""
    scheme: str = ""
    flow_given: bool = True
    cache: TokenCache = field(default_factory=TokenCache)
    network: NetworkOptions | None = None
    """The command's CA bundle and proxy, which also reach the authorization server."""
    _resolved: OAuthConfig | None = None

    async def token(self, *, force: bool = False) -> Token:
        """A token (a new one when ``force``).

        Raises:
            OAuthError: the card, the provider or the user refused (one-line message).
        """
        config = self._resolved or await self._from_card()
        token, self._resolved = await obtain_token(
            config,
            self.cache,
            UserAgent(open_browser=webbrowser.open, show_device_code=print_device_code),
            force=force,
            network=self.network,
        )
        return token

    def can_renew(self) -> bool:
        """Whether a new token can be had without the user: a refresh token or a secret."""
        config = self._resolved or self.config
        cached = self.cache.get(config)
        return bool(cached and cached.refresh_token) or (
            config.flow is OAuthFlow.CLIENT_CREDENTIALS
        )

    async def _from_card(self) -> OAuthConfig:
        if not self.card_url:
            return self.config
        option = choose(
            await card_options(self.card_url, self.network),
            self.scheme,
            self.config.flow if self.flow_given else None,
        )
        return merged(option.config, self.config)


SendOnce = Callable[[A2ARequest, list[object]], Awaitable[Outcome]]
"""Sends one request, printing its events and appending them to the list given."""


async def with_oauth(
    oauth: CliOAuth, request: A2ARequest, printer: Printer, send: SendOnce
) -> Outcome:
    """Get a token, send ``request`` with it; after a 401 ``invalid_token``, renew once.

    The token is renewed (refresh token, or the client credentials again) only when that
    needs no user; otherwise the refusal stands. A token that cannot be had ends the run
    with one ``error`` event (nothing is sent to the agent).
    """
    try:
        token = await oauth.token()
    except OAuthError as exc:
        return _failed(printer, exc)
    seen: list[object] = []
    outcome = await send(apply_auth(request, AuthConfig.bearer(token.access_token)), seen)
    refusal = invalid_token(seen)
    if not refusal or not oauth.can_renew():
        return outcome
    say(f"oauth2: the agent refused the token ({refusal}); getting a new one")
    try:
        token = await oauth.token(force=True)
    except OAuthError as exc:
        return _failed(printer, exc)
    return await send(apply_auth(request, AuthConfig.bearer(token.access_token)), [])


def _failed(printer: Printer, exc: OAuthError) -> Outcome:
    say(f"oauth2: {exc}")
    message = f"OAuth 2 token not obtained: {exc}"
    printer.emit(ExchangeError(0.0, ErrorKind.TRANSPORT, message, code=exc.error or None))
    printer.emit(ExchangeEnd(0.0, Outcome.TRANSPORT_ERROR))
    return Outcome.TRANSPORT_ERROR


async def with_token(request: A2ARequest, config: OAuthConfig, cache: TokenCache) -> A2ARequest:
    """``request`` carrying a token for ``config`` (``run``: x-a2a ``auth: {type: oauth2}``),
    fetched through the request's CA bundle and proxy.

    Raises:
        OAuthError: no token could be had.
    """
    token = await CliOAuth(config, cache=cache, network=request.network).token()
    return apply_auth(request, AuthConfig.bearer(token.access_token))


def oauth_from_args(args: argparse.Namespace) -> CliOAuth | None:
    """The OAuth settings the flags describe, None without ``--oauth2``/``--oauth2-from-card``.

    Raises:
        CliUsageError: ``--oauth2-from-card`` beside another credential flag, an
            unreadable ``--client-secret @FILE`` or unset ``env:NAME``, or a setting the
            flow needs that no card can supply.
    """
    if not args.oauth2 and not args.oauth2_from_card:
        return None
    if args.oauth2_from_card and (args.bearer or args.basic or args.api_key):
        raise CliUsageError("--oauth2-from-card cannot be combined with another credential")
    card_url, _, scheme = args.oauth2_from_card.partition("#")
    flow = OAuthFlow.from_cli(args.oauth2) if args.oauth2 else OAuthFlow.CLIENT_CREDENTIALS
    config = OAuthConfig(
        flow,
        token_url=args.token_url,
        client_id=args.client_id,
        client_secret=secret_value(args.client_secret, "--client-secret"),
        scopes=tuple(dict.fromkeys(args.scope)),
        device_authorization_url=args.device_authorization_url,
        authorization_url=args.authorization_url,
    )
    missing = "" if card_url or config.discovery_url else config.missing()
    if missing:  # nothing can fill it in later: the command line is incomplete
        flag = _FLAG_OF.get(missing, "")
        raise CliUsageError(f"OAuth 2 {flow.label.lower()} needs {missing} ({flag})")
    return CliOAuth(config, card_url, scheme, flow_given=bool(args.oauth2))


_FLAG_OF = {
    "a client id": "--client-id",
    "a token URL": "--token-url",
    "a device authorization URL": "--device-authorization-url",
    "an authorization URL": "--authorization-url",
    "a client secret": "--client-secret",
}


def print_device_code(authorization: DeviceAuthorization) -> None:
    """The RFC 8628 §3.3 user interaction, on stderr."""
    # The URI and the code are the authorization server's text: shown, never obeyed.
    say(
        f"oauth2: to sign in, open {authorization.verification_uri} and enter the code "
        f"{authorization.user_code}"
    )
    if authorization.verification_uri_complete:
        say(f"oauth2: or open {authorization.verification_uri_complete}")
    say(
        f"oauth2: waiting up to {authorization.expires_in:g} s "
        f"(polling every {authorization.interval:g} s)",
        flush=True,
    )
