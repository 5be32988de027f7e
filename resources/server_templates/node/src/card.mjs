// The Agent Card this server publishes (agent-card.json) and its signature.
//
// agent-card.json is the card as designed; at start-up its interface URLs are pointed at
// where the server is reached (PUBLIC_URL / PUBLIC_GRPC_TARGET, else HOST and the bound
// ports), keeping
// each interface's path, so the card always names reachable endpoints.

import crypto from 'node:crypto';
import fs from 'node:fs';

import { AgentCard, generateAgentCardSignature } from '@a2a-js/sdk';

import { ConfigError } from './config.mjs';

export const CARD_FILE = new URL('../agent-card.json', import.meta.url);
export const HTTP_BINDINGS = new Set(['JSONRPC', 'HTTP+JSON']);
const BEARER = 'bearerAuth';

export function readCardJson(file = CARD_FILE) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

// Which bindings the card lists, each with the path (HTTP) it is served at.
export function servedBindings(cardJson) {
  const served = new Map();
  for (const entry of cardJson.supportedInterfaces ?? []) {
    const binding = entry.protocolBinding;
    if (HTTP_BINDINGS.has(binding)) {
      served.set(binding, new URL(entry.url).pathname.replace(/(.)\/$/, '$1'));
    } else if (binding === 'GRPC') {
      served.set(binding, null);
    }
  }
  return served;
}

export function servesLegacy(cardJson) {
  return (cardJson.supportedInterfaces ?? []).some((entry) => entry.protocolVersion === '0.3');
}

function hostForUrl(host) {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

// The card as served: interfaces on the bound addresses and a declared bearer scheme
// (every binding requires the token, so the card says so).
export function publishedCard(cardJson, { baseUrl, grpcUrl }) {
  const card = structuredClone(cardJson);
  card.supportedInterfaces = (card.supportedInterfaces ?? []).map((entry) => {
    if (entry.protocolBinding === 'GRPC') return { ...entry, url: grpcUrl };
    const path = new URL(entry.url).pathname;
    return { ...entry, url: `${baseUrl}${path}` };
  });
  card.securitySchemes = { ...(card.securitySchemes ?? {}) };
  if (!card.securitySchemes[BEARER]) {
    card.securitySchemes[BEARER] = { httpAuthSecurityScheme: { scheme: 'bearer' } };
  }
  if (!(card.securityRequirements ?? []).length) {
    card.securityRequirements = [{ schemes: { [BEARER]: { list: [] } } }];
  }
  delete card.signatures;
  return AgentCard.fromJSON(card);
}

// grpcTarget is what a gRPC client dials (host:port); grpcUrl what the card names: an
// absolute URL, as the 1.0 proto asks (http: the server itself speaks plaintext).
export function urlsFor(config, httpPort, grpcPort) {
  const host = hostForUrl(config.host);
  return {
    baseUrl: config.publicUrl ?? `http://${host}:${httpPort}`,
    grpcTarget: config.publicGrpc?.target ?? `${host}:${grpcPort}`,
    grpcUrl: config.publicGrpc?.url ?? `http://${host}:${grpcPort}`,
  };
}

// RFC 7638 thumbprint: a stable key id when the JWK names none.
function thumbprint(jwk) {
  const members = { EC: ['crv', 'kty', 'x', 'y'], RSA: ['e', 'kty', 'n'], OKP: ['crv', 'kty', 'x'] }[jwk.kty];
  const canonical = JSON.stringify(Object.fromEntries(members.map((name) => [name, jwk[name]])));
  return crypto.createHash('sha256').update(canonical).digest('base64url');
}

function algorithmOf(jwk) {
  const natural =
    jwk.kty === 'EC' && jwk.crv === 'P-256'
      ? 'ES256'
      : jwk.kty === 'RSA'
        ? 'RS256'
        : jwk.kty === 'OKP' && jwk.crv === 'Ed25519'
          ? 'EdDSA'
          : null;
  if (!natural) {
    throw new ConfigError('SIGNING_JWK_FILE: use an EC P-256 (ES256), RSA (RS256) or Ed25519 (EdDSA) private key');
  }
  if (jwk.alg && jwk.alg !== natural) {
    throw new ConfigError(`SIGNING_JWK_FILE: the key is for ${natural}, but its "alg" says ${jwk.alg}`);
  }
  return natural;
}

// From SIGNING_JWK_FILE (a private JWK): the SDK's card signer and the public JWKS to publish.
export function loadSigner(file, jwksUrl) {
  let jwk;
  try {
    jwk = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`SIGNING_JWK_FILE ${file}: ${err.code ?? err.message}`);
  }
  if (Array.isArray(jwk?.keys)) {
    if (jwk.keys.length !== 1) throw new ConfigError('SIGNING_JWK_FILE: give one private JWK (or a JWKS holding exactly one)');
    [jwk] = jwk.keys;
  }
  if (!jwk || typeof jwk !== 'object' || !jwk.d) {
    throw new ConfigError('SIGNING_JWK_FILE must hold a private JWK (with its "d" member)');
  }
  const alg = algorithmOf(jwk);
  let privateKey;
  try {
    privateKey = crypto.createPrivateKey({ key: jwk, format: 'jwk' });
  } catch (err) {
    throw new ConfigError(`SIGNING_JWK_FILE: not a usable private key: ${err.message}`);
  }
  const kid = jwk.kid || thumbprint(jwk);
  const publicJwk = crypto.createPublicKey(privateKey).export({ format: 'jwk' });
  const jwks = { keys: [{ ...publicJwk, kid, alg, use: 'sig' }] };
  const sign = generateAgentCardSignature(privateKey, { alg, kid, typ: 'JOSE', jku: jwksUrl });
  // The SDK hands its signer the in-memory card, whose oneof fields (the security scheme)
  // its canonicalization cannot read, so the signature would not cover them. Signing the
  // card's JSON form covers the card exactly as it is served.
  const signer = async (card) => ({ ...card, signatures: (await sign(AgentCard.toJSON(card))).signatures });
  return { signer, jwks, alg, kid };
}
