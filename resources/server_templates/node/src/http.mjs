// The HTTP side: the public card (and JWKS), then JSON-RPC and HTTP+JSON behind the token.
//
// Order matters: CORS first (a preflight carries no token), the public documents next,
// then the bearer check, the request media type, the body limit (which parses the JSON),
// the JSON-RPC envelope, then the SDK's handlers.
//
// Errors keep the SDK's forms, the A2A v1.0.1 §5.4 table (README "Protocol details").

import crypto from 'node:crypto';

import express from 'express';

import { AGENT_CARD_PATH, AgentCard } from '@a2a-js/sdk';
import { agentCardHandler, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';

const ALLOWED_HEADERS = 'Authorization, Content-Type, A2A-Version, A2A-Extensions, X-A2A-Extensions';
const JSON_TYPES = ['application/json', 'application/a2a+json'];
const CARD_CACHE_CONTROL = 'public, max-age=300'; // the card changes only on restart
const A2A_JSON = /^application\/a2a\+json/i;

function errorInfo(reason) {
  return { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' };
}

// HTTP+JSON takes JSON bodies only: another media type is refused with 415 Unsupported Media
// Type (RFC 9110 §15.5.16) before the body is read. A POST without a body (a bare :cancel)
// needs no Content-Type.
function jsonBodiesOnly(req, res, next) {
  const type = (req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
  const hasBody = Boolean(req.header('transfer-encoding')) || Number(req.header('content-length') ?? 0) > 0;
  if (req.method !== 'POST' || (type ? JSON_TYPES.includes(type) : !hasBody)) return next();
  const message = `Unsupported Content-Type ${JSON.stringify(req.header('content-type') ?? '')}; send application/json or application/a2a+json`;
  res.status(415).json({ error: { code: 415, status: 'INVALID_ARGUMENT', message, details: [errorInfo('CONTENT_TYPE_NOT_SUPPORTED')] } });
}

// HTTP+JSON answers are application/json (spec §11.1); the SDK writes application/a2a+json.
function plainJsonReplies(_req, res, next) {
  const setHeader = res.setHeader.bind(res);
  res.setHeader = (name, value) =>
    setHeader(name, String(name).toLowerCase() === 'content-type' && A2A_JSON.test(String(value)) ? String(value).replace(A2A_JSON, 'application/json') : value);
  next();
}

// A body that is JSON but no JSON-RPC 2.0 request object is -32600 Invalid Request (the SDK
// answers -32602 for some). A batch (an array) is left to the SDK.
function jsonRpcEnvelope(req, res, next) {
  const body = req.body;
  // undefined: not parsed (another media type), which the SDK answers itself.
  if (req.method !== 'POST' || body === undefined || Array.isArray(body)) return next();
  const object = body !== null && typeof body === 'object';
  const idOk = (id) => id === undefined || id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
  const problem = !object
    ? 'the body is not a JSON object'
    : body.jsonrpc !== '2.0'
      ? 'jsonrpc must be "2.0"'
      : typeof body.method !== 'string'
        ? 'method must be a string'
        : !idOk(body.id)
          ? 'id must be a string, a number or null'
          : body.params !== undefined && (body.params === null || typeof body.params !== 'object')
            ? 'params must be an object or an array'
            : null;
  if (!problem) return next();
  const id = object && idOk(body.id) && body.id !== undefined ? body.id : null;
  res.status(200).json({ jsonrpc: '2.0', id, error: { code: -32600, message: `Invalid Request: ${problem}`, data: [errorInfo('INVALID_REQUEST')] } });
}

export function bearerOk(value, token) {
  if (typeof value !== 'string') return false;
  const match = /^Bearer\s+(.+)$/i.exec(value.trim());
  if (!match) return false;
  // Compare digests: equal length for timingSafeEqual, and no early exit on a prefix.
  const a = crypto.createHash('sha256').update(match[1]).digest();
  const b = crypto.createHash('sha256').update(token).digest();
  return crypto.timingSafeEqual(a, b);
}

// Only the listed origins get CORS headers; anything else is answered as if CORS did
// not exist, so a browser page from elsewhere cannot read the responses.
function cors(origins) {
  return (req, res, next) => {
    const origin = req.header('origin');
    if (!origin || !origins.has(origin)) return next();
    res.vary('Origin');
    res.set('Access-Control-Allow-Origin', origin);
    if (req.method === 'OPTIONS' && req.header('access-control-request-method')) {
      res.set('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
      res.set('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.set('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    res.set('Access-Control-Expose-Headers', 'A2A-Version, A2A-Extensions');
    next();
  };
}

function requireBearer(token) {
  return (req, res, next) => {
    if (bearerOk(req.header('authorization'), token)) return next();
    res
      .status(401)
      .set('WWW-Authenticate', 'Bearer')
      .json({ error: 'unauthorized', message: 'Missing or invalid bearer token' });
  };
}

// Parses JSON bodies up to maxBodyBytes (the SDK's own parser then leaves them alone);
// a bigger body is refused with 413 before it is read.
function bodyLimit(maxBodyBytes, { jsonRpc }) {
  const parse = express.json({ limit: maxBodyBytes, type: JSON_TYPES, strict: false });
  return (req, res, next) =>
    parse(req, res, (err) => {
      if (!err) return next();
      if (err.type === 'entity.too.large') {
        res.status(413).json({ error: 'payload_too_large', message: `The request body is over ${maxBodyBytes} bytes (MAX_BODY_BYTES)` });
        return;
      }
      if (err.type === 'entity.parse.failed' && jsonRpc) {
        res.status(200).json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not JSON' } });
        return;
      }
      res.status(err.status ?? 400).json({ error: 'bad_request', message: err.type === 'entity.parse.failed' ? 'The body is not JSON' : err.message });
    });
}

export function buildHttpApp({ config, requestHandler, served, legacy, jwks }) {
  const app = express();
  app.disable('x-powered-by');
  app.use(cors(config.corsOrigins));

  const legacyCompat = { enabled: legacy };
  const cardPath = `/${AGENT_CARD_PATH}`;
  const lastModified = new Date().toUTCString(); // the card is built at start
  // The 1.0 card in its JSON form (the SDK's own card route serializes its in-memory
  // objects as they are, which 1.0 clients cannot read for oneof fields such as the
  // security scheme). A 0.3 request (the SDK's rule: no A2A-Version, or 0.3) goes on to
  // the SDK's route, which converts the card to 0.3.
  app.get(cardPath, async (req, res, next) => {
    const version = req.header('a2a-version') ?? '';
    if (legacy && (version === '' || version.startsWith('0.3'))) return next();
    try {
      const card = AgentCard.toJSON(await requestHandler.getAgentCard());
      // Express adds a weak ETag and answers a matching If-None-Match with 304.
      res
        .set({ 'Cache-Control': CARD_CACHE_CONTROL, 'Last-Modified': lastModified })
        .vary('A2A-Version')
        .type('application/json')
        .send(JSON.stringify(card));
    } catch (err) {
      next(err);
    }
  });
  if (legacy) app.use(cardPath, agentCardHandler({ agentCardProvider: requestHandler, legacyCompat }));
  if (jwks) {
    app.get(config.jwksPath, (_req, res) => res.type('application/jwk-set+json').send(JSON.stringify(jwks)));
  }

  const limit = (jsonRpc) => bodyLimit(config.maxBodyBytes, { jsonRpc });
  const bearer = requireBearer(config.token);
  const userBuilder = async () => ({ isAuthenticated: true, userName: 'bearer' });
  const restPath = served.get('HTTP+JSON');
  if (restPath !== undefined) {
    app.use(restPath, bearer, jsonBodiesOnly, limit(false), plainJsonReplies, restHandler({ requestHandler, userBuilder, legacyCompat }));
  }
  const rpcPath = served.get('JSONRPC');
  if (rpcPath !== undefined) {
    // A body in another media type is left unparsed: the SDK answers -32005.
    app.all(rpcPath, bearer, limit(true), jsonRpcEnvelope, jsonRpcHandler({ requestHandler, userBuilder, legacyCompat }));
  }
  return app;
}
