"""OAuth 2 settings read from an Agent Card URL (public discovery, no credentials sent)."""

from __future__ import annotations

import dataclasses

from app.protocol.card.fetch import fetch_card
from app.protocol.net.network import NetworkOptions
from app.protocol.oauth.card_schemes import CardOAuthOption, card_oauth_options, pick_option
from app.protocol.oauth.config import OAuthConfig, OAuthFlow
from app.protocol.oauth.oauth_errors import OAuthError


async def card_options(
    card_url: str, network: NetworkOptions | None = None
) -> tuple[CardOAuthOption, ...]:
    """The OAuth options of the card at ``card_url``, fetched without credentials through
    the request's ``network`` (its CA bundle, client certificate and proxy, as the ``card``
    command fetches it).

    Raises:
        OAuthError: the card cannot be fetched or declares no OAuth 2 / OpenID Connect scheme.
    """
    result = await fetch_card(card_url, network=network)
    if not result.ok:
        detail = result.error or f"HTTP {result.status}"
        raise OAuthError(f"Agent Card {result.card_url} could not be read: {detail}")
    options = card_oauth_options(result.json)
    if not options:
        raise OAuthError(f"Agent Card {result.card_url} declares no oauth2 or openIdConnect scheme")
    return options


def choose(
    options: tuple[CardOAuthOption, ...], scheme: str, flow: OAuthFlow | None
) -> CardOAuthOption:
    """The option for ``scheme`` ("" for any) and ``flow`` (None for the card's first).

    Raises:
        OAuthError: nothing matches; the message lists what the card offers.
    """
    option = pick_option(options, scheme, flow)
    if option is None:
        offered = ", ".join(sorted({o.scheme for o in options}))
        wanted = " ".join(x for x in (scheme, flow.value if flow else "") if x)
        raise OAuthError(f"the card offers no {wanted} OAuth option (its schemes: {offered})")
    return option


def merged(card: OAuthConfig, given: OAuthConfig) -> OAuthConfig:
    """The card's endpoints and scopes, overridden by whatever ``given`` sets."""
    return dataclasses.replace(
        card,
        client_id=given.client_id,
        client_secret=given.client_secret,
        token_url=given.token_url or card.token_url,
        scopes=given.scopes or card.scopes,
        device_authorization_url=given.device_authorization_url or card.device_authorization_url,
        authorization_url=given.authorization_url or card.authorization_url,
        discovery_url=given.discovery_url or card.discovery_url,
    )
