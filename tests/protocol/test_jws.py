"""Agent Card signature verification against cards signed by real signers."""

from __future__ import annotations

import base64
import copy
import json
from typing import Any

import pytest
import rfc8785
from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from a2a.types import a2a_pb2
from a2a.utils.signing import _canonicalize_agent_card, create_agent_card_signer
from google.protobuf import json_format
from jwcrypto import jwk
from jwcrypto import jws as jwcrypto_jws

from app.protocol.card.canonical import Profile
from app.protocol.card.jwks import parse_jwks
from app.protocol.card.jws_verify import (
    TRUST_NOTE,
    CardStatus,
    InvalidReason,
    ProfileMode,
    Verdict,
    verify_card,
)

CARD: dict[str, Any] = {
    "name": "Signed demo",
    "description": "An agent with a signed card",
    "version": "1.0.0",
    "supportedInterfaces": [
        {"url": "http://127.0.0.1:8000/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": "http://127.0.0.1:8000/", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
    ],
    "capabilities": {"streaming": True},
    "securitySchemes": {"bearerAuth": {"httpAuthSecurityScheme": {"scheme": "bearer"}}},
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "echo", "name": "Echo", "description": "Echoes", "tags": ["demo"]}],
}


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _key(alg: str) -> jwk.JWK:
    if alg.startswith("HS"):
        return jwk.JWK(kty="oct", k=_b64(b"0123456789abcdef0123456789abcdef"), kid="k1")
    if alg.startswith("RS"):
        return jwk.JWK.generate(kty="RSA", size=2048, kid="k1")
    if alg == "EdDSA":
        return jwk.JWK.generate(kty="OKP", crv="Ed25519", kid="k1")
    return jwk.JWK.generate(kty="EC", crv="P-256", kid="k1")


def _public_jwks(key: jwk.JWK, **extra: Any) -> str:
    if key.get("kty") == "oct":
        member = json.loads(key.export())
    else:
        member = json.loads(key.export_public())
    member.update(extra)
    return json.dumps({"keys": [member]})


def _sdk_sign(card: dict[str, Any], key: jwk.JWK, alg: str, **header: Any) -> dict[str, Any]:
    """Sign with a2a-sdk's own signer and serve it as a2a-sdk 1.3.0 does (hybrid JSON)."""
    if key.get("kty") == "oct":
        signing_key: Any = base64.urlsafe_b64decode(key["k"] + "==")
    else:
        signing_key = key.export_to_pem(private_key=True, password=None)
    signer = create_agent_card_signer(
        signing_key, {"alg": alg, "kid": "k1", "typ": "JOSE", "jku": None}, header or None
    )
    proto = signer(json_format.ParseDict(card, a2a_pb2.AgentCard()))
    return agent_card_to_dict(proto)


SDK_ALGS = ["ES256", "RS256", "EdDSA", "HS256"]


@pytest.mark.parametrize("alg", SDK_ALGS)
def test_sdk_signed_card_verifies(alg: str) -> None:
    key = _key(alg)
    served = _sdk_sign(CARD, key, alg)
    result = verify_card(served, parse_jwks(_public_jwks(key)))
    assert result.status is CardStatus.VALID
    (sig,) = result.signatures
    assert sig.verdict is Verdict.VALID and sig.label == "valid"
    assert (sig.kid, sig.alg, sig.profile) == ("k1", alg, Profile.SDK)
    assert TRUST_NOTE in result.notes
    # The payload the verifier computed is byte-identical to the SDK's own canonical form.
    proto = json_format.ParseDict(CARD, a2a_pb2.AgentCard())
    sdk_payload = result.payload(Profile.SDK)
    assert sdk_payload is not None
    assert sdk_payload.payload == _canonicalize_agent_card(proto).encode()


@pytest.mark.parametrize("alg", SDK_ALGS)
@pytest.mark.parametrize(
    "tamper",
    [
        lambda c: c.__setitem__("name", "Evil demo"),
        lambda c: c["supportedInterfaces"][0].__setitem__("url", "http://evil.example/"),
        lambda c: c["skills"][0].__setitem__("description", "Steals"),
        lambda c: c["skills"].append({"id": "x", "name": "x", "description": "x", "tags": ["x"]}),
    ],
    ids=["name", "interface-url", "skill-description", "extra-skill"],
)
def test_single_field_tamper_fails(alg: str, tamper: Any) -> None:
    key = _key(alg)
    served = _sdk_sign(CARD, key, alg)
    tamper(served)
    result = verify_card(served, parse_jwks(_public_jwks(key)))
    assert result.status is CardStatus.INVALID
    assert result.signatures[0].reason is InvalidReason.SIGNATURE_MISMATCH


def test_mirror_fields_are_not_covered() -> None:
    key = _key("ES256")
    served = _sdk_sign(CARD, key, "ES256", note="unprotected")
    served["url"] = "http://evil.example/"  # 0.3 mirror: unsigned (docs/PROTOCOL.md §7.4)
    served["surprise"] = 1
    result = verify_card(served, parse_jwks(_public_jwks(key)))
    assert result.status is CardStatus.VALID
    uncovered = {u.path: u.reason for u in result.uncovered}
    assert "0.3 mirror" in uncovered["url"]
    assert "0.3 mirror" in uncovered["preferredTransport"]
    assert "unknown" in uncovered["surprise"]
    assert "securitySchemes.bearerAuth.type" in uncovered
    assert "unprotected" in uncovered["signatures[0].header"]
    assert any("unprotected" in n for n in result.signatures[0].notes)


def _spec_signer(card: dict[str, Any], key: jwk.JWK, alg: str) -> dict[str, Any]:
    """A standards-following signer: JCS (RFC 8785) of the card as written minus signatures."""
    payload = rfc8785.dumps({k: v for k, v in card.items() if k != "signatures"})
    token = jwcrypto_jws.JWS(payload)
    token.add_signature(key, None, json.dumps({"alg": alg, "kid": "k1", "typ": "JOSE"}))
    compact = token.serialize(compact=True)
    protected, _, signature = compact.split(".")
    return {**card, "signatures": [{"protected": protected, "signature": signature}]}


TRICKY: dict[str, Any] = {
    **CARD,
    "name": "Agent Zoë — 東京 🚀",
    "description": "",
    "capabilities": {
        "streaming": True,
        "extensions": [
            {"uri": "https://ext.example/x", "params": {"timeout": 30.0, "epsilon": 1e-7}}
        ],
    },
}


@pytest.mark.parametrize("alg", ["ES256", "RS256"])
def test_standards_signer_with_tricky_values_verifies(alg: str) -> None:
    key = _key(alg)
    signed = _spec_signer(TRICKY, key, alg)
    result = verify_card(signed, parse_jwks(_public_jwks(key)))
    (sig,) = result.signatures
    assert sig.verdict is Verdict.VALID, sig.message
    assert sig.profile is Profile.SPEC and sig.label == "valid"
    spec = result.payload(Profile.SPEC)
    assert spec is not None and spec.payload is not None
    assert b'"epsilon":1e-7' in spec.payload and b'"timeout":30' in spec.payload
    assert '"Agent Zoë — 東京 🚀"'.encode() in spec.payload
    # Strict mode accepts the spec-literal form too.
    strict = verify_card(signed, parse_jwks(_public_jwks(key)), mode=ProfileMode.SPEC)
    assert strict.status is CardStatus.VALID


def test_sdk_signature_with_empty_required_field_is_sdk_only() -> None:
    key = _key("ES256")
    served = _sdk_sign(TRICKY, key, "ES256")
    jwks = parse_jwks(_public_jwks(key))
    result = verify_card(served, jwks)
    (sig,) = result.signatures
    assert sig.verdict is Verdict.VALID
    assert sig.label == "valid (SDK canonicalisation)" and sig.sdk_canonicalisation_only
    assert Profile.SPEC not in sig.matched_profiles
    strict = verify_card(served, jwks, mode=ProfileMode.SPEC)
    assert strict.status is CardStatus.INVALID
    assert strict.signatures[0].matched_profiles == (Profile.SDK,)
    # Legacy Python serialisation differs here (ASCII escapes, 30.0), so it does not match.
    assert Profile.LEGACY_SDK not in sig.matched_profiles


def test_legacy_sdk_profile_matches_json_dumps_signer() -> None:
    from a2a.utils.signing import _clean_empty

    key = _key("ES256")
    proto = json_format.ParseDict(TRICKY, a2a_pb2.AgentCard())
    as_dict = json_format.MessageToDict(proto)
    # a2a-sdk 1.0.0–1.1.3: json.dumps(sort_keys=True) of the cleaned proto dict.
    payload = json.dumps(_clean_empty(as_dict), separators=(",", ":"), sort_keys=True).encode()
    token = jwcrypto_jws.JWS(payload)
    token.add_signature(key, None, json.dumps({"alg": "ES256", "kid": "k1", "typ": "JOSE"}))
    protected, _, signature = token.serialize(compact=True).split(".")
    card = {**TRICKY, "signatures": [{"protected": protected, "signature": signature}]}
    (sig,) = verify_card(card, parse_jwks(_public_jwks(key))).signatures
    assert sig.verdict is Verdict.VALID and sig.profile is Profile.LEGACY_SDK


def test_03_sdk_profile_matches_pydantic_signer() -> None:
    from a2a.compat.v0_3.types import AgentCard as AgentCard03

    card03: dict[str, Any] = {
        "name": "Old agent",
        "description": "0.3",
        "url": "http://127.0.0.1:9000/",
        "version": "0.1",
        "capabilities": {"streaming": False},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "S", "description": "d", "tags": ["t"]}],
        "securitySchemes": {"k": {"type": "apiKey", "in": "header", "name": "X-Key"}},
    }
    dumped = AgentCard03.model_validate(card03).model_dump(
        exclude={"signatures"}, exclude_defaults=True, exclude_none=True, by_alias=True
    )

    def clean(d: Any) -> Any:  # a2a-sdk 0.3.2x signing.clean_empty
        if isinstance(d, dict):
            c = {k: clean(v) for k, v in d.items()}
            return {k: v for k, v in c.items() if v}
        if isinstance(d, list):
            return [v for v in (clean(v) for v in d) if v]
        return d if d not in ["", [], {}] else None

    payload = json.dumps(clean(dumped), separators=(",", ":"), sort_keys=True).encode()
    key = _key("RS256")
    token = jwcrypto_jws.JWS(payload)
    token.add_signature(key, None, json.dumps({"alg": "RS256", "kid": "k1", "typ": "JOSE"}))
    protected, _, signature = token.serialize(compact=True).split(".")
    card = {**card03, "signatures": [{"protected": protected, "signature": signature}]}
    (sig,) = verify_card(card, parse_jwks(_public_jwks(key))).signatures
    assert sig.verdict is Verdict.VALID and sig.profile is Profile.SDK_0_3


def _with_header(card: dict[str, Any], header: dict[str, Any], signature: str = "AAAA") -> Any:
    protected = _b64(json.dumps(header).encode())
    return {**card, "signatures": [{"protected": protected, "signature": signature}]}


@pytest.mark.parametrize(
    ("header", "needle"),
    [
        ({"alg": "none", "kid": "k1"}, "none"),
        ({"alg": "ES256", "kid": "k1", "crit": ["exp"], "exp": 1}, "crit"),
        ({"alg": "ES256", "kid": "k1", "b64": False, "crit": ["b64"]}, "crit"),
        ({"alg": "ES256", "kid": "k1", "b64": False}, "b64"),
        ({"alg": "XS999", "kid": "k1"}, "not supported"),
    ],
)
def test_refused_headers_are_unsupported(header: dict[str, Any], needle: str) -> None:
    result = verify_card(_with_header(CARD, header), parse_jwks(_public_jwks(_key("ES256"))))
    (sig,) = result.signatures
    assert sig.verdict is Verdict.UNSUPPORTED and needle in sig.message
    assert result.status is CardStatus.INVALID


def test_hmac_with_rsa_public_key_is_refused() -> None:
    rsa = _key("RS256")
    # The classic confusion: HMAC keyed with the RSA public key's PEM text.
    pem = rsa.export_to_pem(private_key=False)
    forged_key = jwk.JWK(kty="oct", k=_b64(pem))
    signed = _spec_signer(CARD, forged_key, "HS256")
    result = verify_card(signed, parse_jwks(_public_jwks(rsa)))
    (sig,) = result.signatures
    assert sig.verdict is Verdict.INVALID
    assert sig.reason is InvalidReason.KEY_TYPE_MISMATCH
    assert "never used as an HMAC secret" in sig.message


def test_key_ops_sign_only_is_reported() -> None:
    key = _key("RS256")
    served = _sdk_sign(CARD, key, "RS256")
    result = verify_card(served, parse_jwks(_public_jwks(key, key_ops=["sign"])))
    (sig,) = result.signatures
    assert sig.reason is InvalidReason.KEY_OPS_NO_VERIFY
    assert "without 'verify'" in sig.message and "would verify under sdk" in sig.message


def test_unknown_kid_and_wrong_curve() -> None:
    key = _key("ES256")
    served = _sdk_sign(CARD, key, "ES256")
    other = jwk.JWK.generate(kty="EC", crv="P-256", kid="other")
    (sig,) = verify_card(served, parse_jwks(_public_jwks(other))).signatures
    assert sig.reason is InvalidReason.NO_KEY_FOR_KID
    p384 = jwk.JWK.generate(kty="EC", crv="P-384", kid="k1")
    (sig,) = verify_card(served, parse_jwks(_public_jwks(p384))).signatures
    assert sig.reason is InvalidReason.KEY_TYPE_MISMATCH


def test_wrong_key_same_kid_is_mismatch() -> None:
    served = _sdk_sign(CARD, _key("ES256"), "ES256")
    impostor = jwk.JWK.generate(kty="EC", crv="P-256", kid="k1")
    (sig,) = verify_card(served, parse_jwks(_public_jwks(impostor))).signatures
    assert sig.reason is InvalidReason.SIGNATURE_MISMATCH


def test_jku_is_shown_never_fetched() -> None:
    key = _key("ES256")
    signer = create_agent_card_signer(
        key.export_to_pem(private_key=True, password=None),
        {"alg": "ES256", "kid": "k1", "typ": "JOSE", "jku": "http://127.0.0.1:9/jwks.json"},
    )
    served = agent_card_to_dict(signer(json_format.ParseDict(CARD, a2a_pb2.AgentCard())))
    (sig,) = verify_card(served, parse_jwks(_public_jwks(key))).signatures
    assert sig.verdict is Verdict.VALID
    assert sig.jku == "http://127.0.0.1:9/jwks.json"
    assert any("not fetched" in n for n in sig.notes)


def test_unsigned_card() -> None:
    jwks = parse_jwks(_public_jwks(_key("ES256")))
    assert verify_card(CARD, jwks).status is CardStatus.UNSIGNED
    assert verify_card({**CARD, "signatures": []}, jwks).status is CardStatus.UNSIGNED


@pytest.mark.parametrize(
    "entry",
    [
        "x",
        {"protected": 5, "signature": "AA"},
        {"protected": "!!!", "signature": "AA"},
        {"protected": _b64(b"[1]"), "signature": "AA"},
        {"protected": _b64(b'{"kid":"k1"}'), "signature": "AA"},
        {"protected": _b64(b'{"alg":"ES256","kid":"k1"}'), "signature": "not base64!"},
    ],
)
def test_malformed_entries(entry: Any) -> None:
    card = {**copy.deepcopy(CARD), "signatures": [entry]}
    result = verify_card(card, parse_jwks(_public_jwks(_key("ES256"))))
    assert result.signatures[0].malformed
    assert result.any_malformed


@pytest.mark.parametrize("junk", [None, [], "x", {"signatures": "x"}, {"signatures": [None]}])
def test_never_crashes_on_junk(junk: Any) -> None:
    verify_card(junk, parse_jwks(_public_jwks(_key("ES256"))))


def test_parse_jwks_errors() -> None:
    from app.protocol.card.jwks import JwksError

    for text in ("", "[]", '{"keys": 3}', '{"keys": []}', "{"):
        with pytest.raises(JwksError):
            parse_jwks(text)
    single = parse_jwks(_public_jwks(_key("ES256")).replace('{"keys": [', "").rstrip("]}") + "}")
    assert len(single.keys) == 1
    private = parse_jwks(json.dumps({"keys": [json.loads(_key("ES256").export_private())]}))
    assert any("private key material" in n for n in private.notes)
