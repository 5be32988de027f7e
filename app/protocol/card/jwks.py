"""The user's JWKS (RFC 7517): parsed key by key, and which key may verify which ``alg``.

The JWKS is the only trust root of signature verification; nothing here fetches anything.
Keys that do not import are kept (with the reason), so the user sees every key they pasted.
HMAC algorithms fit only ``oct`` keys: an asymmetric key is never used as an HMAC secret
(the classic RS256→HS256 confusion).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jwcrypto import jwk
from jwcrypto.common import JWException

from app.errors import UsageError
from app.protocol.wire import jsonparse

__all__ = ["SUPPORTED_ALGS", "JwkEntry", "Jwks", "JwksError", "key_fit", "parse_jwks"]

SUPPORTED_ALGS: dict[str, tuple[str, frozenset[str]]] = {
    # alg: (kty, allowed curves or empty = any)
    "HS256": ("oct", frozenset()),
    "HS384": ("oct", frozenset()),
    "HS512": ("oct", frozenset()),
    "RS256": ("RSA", frozenset()),
    "RS384": ("RSA", frozenset()),
    "RS512": ("RSA", frozenset()),
    "PS256": ("RSA", frozenset()),
    "PS384": ("RSA", frozenset()),
    "PS512": ("RSA", frozenset()),
    "ES256": ("EC", frozenset({"P-256"})),
    "ES384": ("EC", frozenset({"P-384"})),
    "ES512": ("EC", frozenset({"P-521"})),
    "ES256K": ("EC", frozenset({"secp256k1"})),
    "EdDSA": ("OKP", frozenset({"Ed25519", "Ed448"})),
    "Ed25519": ("OKP", frozenset({"Ed25519"})),
    "Ed448": ("OKP", frozenset({"Ed448"})),
}
"""JWS algorithms verified (RFC 7518 §3.1, RFC 8037, RFC 8812) and the key each needs."""


class JwksError(UsageError, ValueError):
    """The JWKS text is not a JWKS (or a single JWK); a usage error, not a verdict.

    Raised by :func:`parse_jwks`. Caught by ``app.commands.verify`` (exit 3) and by the
    signature dialog (shown under the JWKS field). Still a ``ValueError`` for older callers.
    """


@dataclass(frozen=True, slots=True)
class JwkEntry:
    """One key of the user's JWKS.

    Attributes:
        index: position in ``keys``.
        kid, kty, alg, use, crv: the members as given ("" when absent).
        key_ops: the ``key_ops`` member, or ``None`` when absent (RFC 7517 §4.3).
        has_private: the JWK carries private material (``d``, or ``k`` for oct).
        key: the imported jwcrypto key, ``None`` when import failed.
        error: why import failed, else "".
    """

    index: int
    kid: str
    kty: str
    alg: str = ""
    use: str = ""
    crv: str = ""
    key_ops: tuple[str, ...] | None = None
    has_private: bool = False
    key: jwk.JWK | None = field(default=None, repr=False, compare=False)
    error: str = ""


@dataclass(frozen=True, slots=True)
class Jwks:
    """A parsed JWKS (RFC 7517 §5); ``notes`` lists per-key import problems and warnings."""

    keys: tuple[JwkEntry, ...]
    notes: tuple[str, ...] = ()


def parse_jwks(text: str | bytes) -> Jwks:
    """Parse a JWKS (``{"keys": [...]}``) or a single JWK object.

    Keys that do not import are kept with ``error`` set, so the user sees them.

    Args:
        text: JSON text.

    Returns:
        The keys, with notes for import failures and private material.

    Raises:
        JwksError: not JSON, not an object, or no ``keys`` array / no key at all.
    """
    try:
        data = jsonparse.loads(text)
    except (ValueError, RecursionError) as exc:
        raise JwksError(f"JWKS is not JSON: {exc}") from exc
    if isinstance(data, dict) and "keys" in data:
        raw_keys = data["keys"]
        if not isinstance(raw_keys, list):
            raise JwksError("JWKS 'keys' is not an array")
    elif isinstance(data, dict) and "kty" in data:
        raw_keys = [data]
    else:
        raise JwksError('not a JWKS: expected {"keys": [...]} or a single JWK object')
    if not raw_keys:
        raise JwksError("JWKS has no keys")
    entries: list[JwkEntry] = []
    notes: list[str] = []
    for index, raw in enumerate(raw_keys):
        if not isinstance(raw, dict):
            entries.append(JwkEntry(index, "", "", error="not a JSON object"))
            notes.append(f"keys[{index}]: not a JSON object")
            continue
        key_ops = raw.get("key_ops")
        ops = tuple(str(o) for o in key_ops) if isinstance(key_ops, list) else None
        kty = str(raw.get("kty", ""))
        has_private = "d" in raw or kty == "oct"
        imported: jwk.JWK | None = None
        error = ""
        try:
            imported = jwk.JWK(**raw)
        except (JWException, ValueError, TypeError, KeyError) as exc:
            error = f"{type(exc).__name__}: {exc}"
            notes.append(f"keys[{index}]: cannot import: {error}")
        entry = JwkEntry(
            index=index,
            kid=str(raw.get("kid", "")),
            kty=kty,
            alg=str(raw.get("alg", "")),
            use=str(raw.get("use", "")),
            crv=str(raw.get("crv", "")),
            key_ops=ops,
            has_private=has_private,
            key=imported,
            error=error,
        )
        entries.append(entry)
        if has_private and kty != "oct":
            notes.append(
                f"keys[{index}] (kid {entry.kid!r}) contains private key material; a "
                "verifier needs only the public key"
            )
    return Jwks(tuple(entries), tuple(notes))


def key_fit(alg: str, entry: JwkEntry) -> str:
    """``""`` when ``entry`` may verify ``alg`` (a ``SUPPORTED_ALGS`` key), else why not."""
    kty, curves = SUPPORTED_ALGS[alg]
    if entry.key is None:
        return f"key {entry.index} did not import ({entry.error})"
    if entry.kty != kty:
        if kty == "oct":
            return (
                f"{alg} is HMAC and needs a shared-secret (oct) key; a {entry.kty} key is "
                "never used as an HMAC secret"
            )
        return f"{alg} needs a {kty} key, key {entry.index} is {entry.kty or 'untyped'}"
    if curves and entry.crv not in curves:
        return f"{alg} needs curve {'/'.join(sorted(curves))}, key {entry.index} is {entry.crv}"
    if entry.alg and entry.alg != alg:
        return f"key {entry.index} is restricted to alg {entry.alg}"
    if entry.use and entry.use != "sig":
        return f"key {entry.index} has use {entry.use!r}, not 'sig'"
    return ""
