"""OAuth 2 and OpenID Connect clients for the workbench (no Qt).

Flows: client credentials (RFC 6749 §4.4), device authorization (RFC 8628), authorization
code with PKCE (RFC 7636) through a loopback redirect (RFC 8252). :func:`obtain_token`
runs the configured flow, caches the token per (token URL, client id, scopes) in memory
and refreshes it when the server issued a refresh token. The token is then sent as an
ordinary bearer credential (``app.protocol.net.auth``) to the request's endpoint only.
"""

from app.protocol.oauth.card_schemes import CardOAuthOption, card_oauth_options, pick_option
from app.protocol.oauth.config import OAuthConfig, OAuthFlow, split_scopes
from app.protocol.oauth.device import DeviceAuthorization
from app.protocol.oauth.grant import UserAgent, obtain_token
from app.protocol.oauth.oauth_errors import OAuthError
from app.protocol.oauth.tokens import Token, TokenCache

__all__ = [
    "CardOAuthOption",
    "DeviceAuthorization",
    "OAuthConfig",
    "OAuthError",
    "OAuthFlow",
    "Token",
    "TokenCache",
    "UserAgent",
    "card_oauth_options",
    "obtain_token",
    "pick_option",
    "split_scopes",
]
