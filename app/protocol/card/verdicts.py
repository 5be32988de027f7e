"""What a signature check concludes: the verdict records of one signature and of a card.

:mod:`app.protocol.card.jws_verify` makes them (and re-exports them); the card panel, the
signature dialog, ``verify`` and ``check`` read them. ``card_status`` sums a card's
signatures up; ``ambiguous`` is a signature's verdict on a card that writes a member name
twice (another parser reads another card).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, replace

from app.protocol.card.canonical import Profile, ProfilePayload, UncoveredMember
from app.protocol.wire.json_duplicates import DuplicateMember

__all__ = [
    "TRUST_NOTE",
    "CardStatus",
    "CardVerification",
    "InvalidReason",
    "ProfileMode",
    "SignatureResult",
    "Verdict",
    "ambiguous",
    "card_status",
]

TRUST_NOTE = (
    "A valid signature only proves the card was signed with a key from the JWKS you "
    "supplied. It does not tell you who owns that key: check where the JWKS came from."
)


class ProfileMode(enum.Enum):
    """Which profiles may make a signature valid (CLI ``--profile``)."""

    ANY = "any"
    SDK = "sdk"
    SPEC = "spec"

    @property
    def profiles(self) -> tuple[Profile, ...]:
        """Profiles accepted in this mode, in trial order."""
        if self is ProfileMode.SPEC:
            return (Profile.SPEC,)
        if self is ProfileMode.SDK:
            return (Profile.SDK, Profile.LEGACY_SDK, Profile.SDK_0_3)
        return tuple(Profile)


class Verdict(enum.Enum):
    """Outcome for one signature."""

    VALID = "valid"
    INVALID = "invalid"
    UNSUPPORTED = "unsupported"
    UNTRUSTED = "no trusted key"
    """The JWKS has no key with the signature's ``kid``: nothing says it is wrong, only
    that it cannot be checked against what the user trusts."""


class InvalidReason(enum.Enum):
    """Why a signature is invalid."""

    MALFORMED_HEADER = "malformed header"
    NO_KEY_FOR_KID = "no key with that kid"
    KEY_TYPE_MISMATCH = "key type does not fit alg"
    KEY_OPS_NO_VERIFY = "key_ops does not allow verify"
    SIGNATURE_MISMATCH = "signature mismatch under every profile"
    NO_PAYLOAD = "card has no canonical form under any accepted profile"
    AMBIGUOUS_CARD = "the card writes a member name twice"


class CardStatus(enum.Enum):
    """Outcome for the whole card."""

    UNSIGNED = "unsigned"
    VALID = "valid"
    INVALID = "invalid"
    NO_TRUSTED_KEY = "no trusted key"
    """No signature could be checked: none names a key of the JWKS (by ``kid``), and none
    is invalid or refused. Not a tampered card: the keys given are not the signer's."""
    NOT_A_CARD = "not a card"


@dataclass(frozen=True, slots=True)
class SignatureResult:
    """Verdict for one ``signatures[]`` entry.

    Attributes:
        index: position in ``signatures``.
        verdict: VALID, INVALID, UNSUPPORTED or UNTRUSTED.
        reason: set when INVALID (and UNTRUSTED: ``NO_KEY_FOR_KID``).
        message: one-line explanation.
        kid, alg, typ: protected header members (``None`` when absent).
        jku, x5u: URL members as text — never fetched.
        protected_header: decoded protected header JSON text ("" if undecodable).
        unprotected_header: the entry's ``header`` as JSON text ("" when absent); not signed.
        profile: first matching profile accepted by the mode (``None`` unless VALID).
        matched_profiles: every profile whose payload verifies with the key, in trial order
            (may be non-empty for an INVALID result in strict mode).
        key_index: index of the JWKS key that verified (or was rejected for key_ops).
        notes: extra findings (missing ``typ``, ``jku`` present, key_ops, …).
    """

    index: int
    verdict: Verdict
    reason: InvalidReason | None = None
    message: str = ""
    kid: str | None = None
    alg: str | None = None
    typ: str | None = None
    jku: str | None = None
    x5u: str | None = None
    protected_header: str = ""
    unprotected_header: str = ""
    profile: Profile | None = None
    matched_profiles: tuple[Profile, ...] = ()
    key_index: int | None = None
    notes: tuple[str, ...] = ()

    @property
    def malformed(self) -> bool:
        """The entry could not be read as a JWS at all."""
        return self.reason is InvalidReason.MALFORMED_HEADER

    @property
    def sdk_canonicalisation_only(self) -> bool:
        """Valid, but only under an SDK profile, not the spec-literal form."""
        return self.verdict is Verdict.VALID and Profile.SPEC not in self.matched_profiles

    @property
    def label(self) -> str:
        """Short verdict text: ``valid``, ``valid (SDK canonicalisation)``, ``invalid``, …"""
        if self.verdict is Verdict.VALID and self.sdk_canonicalisation_only:
            return "valid (SDK canonicalisation)"
        return self.verdict.value


@dataclass(frozen=True, slots=True)
class CardVerification:
    """Verification of all signatures of one card.

    Attributes:
        status: UNSIGNED, VALID (≥1 valid signature), INVALID, NO_TRUSTED_KEY (every
            signature names a key the JWKS does not hold) or NOT_A_CARD.
        mode: which profiles were accepted.
        signatures: one result per ``signatures[]`` entry.
        payloads: canonical payload per profile (all four, whatever the mode).
        uncovered: served members the signature does not cover, measured against the
            matched profile (else the ``sdk`` profile).
        uncovered_profile: the profile ``uncovered`` was measured against.
        notes: card-level notes, always including ``TRUST_NOTE`` for signed cards.
    """

    status: CardStatus
    mode: ProfileMode
    signatures: tuple[SignatureResult, ...] = ()
    payloads: tuple[ProfilePayload, ...] = ()
    uncovered: tuple[UncoveredMember, ...] = ()
    uncovered_profile: Profile | None = None
    notes: tuple[str, ...] = ()

    @property
    def any_valid(self) -> bool:
        """At least one signature is valid."""
        return any(r.verdict is Verdict.VALID for r in self.signatures)

    @property
    def any_malformed(self) -> bool:
        """At least one signature entry is malformed."""
        return any(r.malformed for r in self.signatures)

    def payload(self, profile: Profile) -> ProfilePayload | None:
        """The payload computed for ``profile``."""
        return next((p for p in self.payloads if p.profile is profile), None)


def card_status(results: Sequence[SignatureResult]) -> CardStatus:
    """The card's status from its signatures' verdicts: valid when one is; invalid when
    one is invalid or refused (tampered, or a header no verifier should accept); no trusted
    key when every one names a key the JWKS does not hold."""
    verdicts = {r.verdict for r in results}
    if Verdict.VALID in verdicts:
        return CardStatus.VALID
    if verdicts and verdicts <= {Verdict.UNTRUSTED}:
        return CardStatus.NO_TRUSTED_KEY
    return CardStatus.INVALID


def ambiguous(result: SignatureResult, duplicate: DuplicateMember) -> SignatureResult:
    """``result`` as it stands on a card that writes a member name twice: a signature that
    matched is invalid, naming the first duplicate (RFC 7493 §2.3)."""
    if result.verdict is not Verdict.VALID:
        return result
    return replace(
        result,
        verdict=Verdict.INVALID,
        reason=InvalidReason.AMBIGUOUS_CARD,
        message=(
            f"the signature matches one reading of the card, but {duplicate.path} is written "
            f"more than once ({duplicate.where()}): another parser reads another card, so "
            "the signature is not valid"
        ),
        profile=None,
    )
