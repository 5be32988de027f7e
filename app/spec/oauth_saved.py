"""OAuth 2 settings in a saved request (``x-a2a.auth`` of ``type: oauth2``) and back.

The file keeps the flow, the endpoints, the client id and the scopes; the client secret is a
``{{variable}}`` reference (its value lives in the keyring), and tokens are never saved in
it. A refresh token is kept in the keyring (or its fallback file) like other secrets, so a
later session can refresh instead of asking the user again.
"""

from __future__ import annotations

from app.protocol.oauth import OAuthConfig, OAuthFlow, Token, TokenCache, split_scopes
from app.protocol.wire.a2a_errors import UsageError
from app.spec.variables import NoKeyring, Resolver, SecretStore, keyring_get
from app.spec.xa2a import secret_scope, variable_name_for
from app.spec.xa2a_auth import SECRET_AUTH_FIELDS, SavedAuth

_FIELDS = (
    ("flow", "flow"),
    ("tokenUrl", "token_url"),
    ("deviceAuthorizationUrl", "device_authorization_url"),
    ("authorizationUrl", "authorization_url"),
    ("discoveryUrl", "discovery_url"),
    ("clientId", "client_id"),
    ("clientSecret", "client_secret"),
)


def oauth_to_saved(config: OAuthConfig) -> SavedAuth:
    """The file form of ``config`` (the secret still as typed: see ``extract_secrets``)."""
    params = [(key, str(getattr(config, attr))) for key, attr in _FIELDS]
    params.insert(5, ("scopes", " ".join(config.scopes)))
    return SavedAuth("oauth2", tuple((k, v) for k, v in params if v))


def saved_to_oauth(saved: SavedAuth, substitute: Resolver | None = None) -> OAuthConfig | None:
    """The :class:`OAuthConfig` of an ``oauth2`` auth, None for any other kind.

    Raises:
        UsageError: an unknown ``flow``, or an unresolvable ``{{variable}}``.
    """
    if saved.kind != "oauth2":
        return None

    def value(key: str) -> str:
        text = saved.get(key)
        if substitute is None:
            return text
        secret = key in SECRET_AUTH_FIELDS["oauth2"]  # its advice names the keyring
        return substitute.substitute(text, f"x-a2a.auth.{key}", credential=secret)

    try:
        flow = OAuthFlow(saved.get("flow", OAuthFlow.CLIENT_CREDENTIALS.value))
    except ValueError as exc:
        names = ", ".join(f.value for f in OAuthFlow)
        raise UsageError(f"x-a2a.auth.flow: {saved.get('flow')!r} is not one of {names}") from exc
    return OAuthConfig(
        flow,
        token_url=value("tokenUrl"),
        client_id=value("clientId"),
        client_secret=value("clientSecret"),
        scopes=split_scopes(saved.get("scopes")),
        device_authorization_url=value("deviceAuthorizationUrl"),
        authorization_url=value("authorizationUrl"),
        discovery_url=value("discoveryUrl"),
    )


def refresh_token_name(config: OAuthConfig) -> str:
    """The keyring name of the refresh token for ``config``: one per token host and client,
    e.g. ``oauthRefreshToken.idp.example.com.myClient``."""
    scope = secret_scope(config.token_url) or "default"
    return f"oauthRefreshToken.{scope}.{variable_name_for(config.client_id)}"


def load_refresh_token(config: OAuthConfig, store: SecretStore) -> str:
    """The stored refresh token for ``config`` ("" when none): keyring, then the fallback
    file (blocking; call it off the GUI thread)."""
    name = refresh_token_name(config)
    try:
        value = keyring_get(name)
    except NoKeyring:
        value = None
    return value or store.get(name) or ""


def save_refresh_token(config: OAuthConfig, token: Token, store: SecretStore) -> None:
    """Keep ``token`` 's refresh token where other secrets live (blocking), never in a spec."""
    if token.refresh_token:
        store.put(refresh_token_name(config), token.refresh_token)


def seed_refresh_token(config: OAuthConfig, cache: TokenCache, refresh_token: str) -> None:
    """Put a stored refresh token in an empty cache, so the next grant refreshes first."""
    if refresh_token and cache.get(config) is None:
        cache.put(config, Token("", expires_at=0.0, refresh_token=refresh_token))
