// Configuration from the environment (see README.md and .env.example).
//
// Every value is checked once at start-up: a bad value stops the server with a message
// naming the variable, rather than failing later on the first request.

export const DEFAULTS = Object.freeze({
  HOST: '__DEFAULT_HOST__',
  PORT: '__DEFAULT_PORT__',
  GRPC_PORT: '__DEFAULT_GRPC_PORT__',
  JWKS_PATH: '/.well-known/jwks.json',
  MAX_BODY_BYTES: '1048576',
  MAX_PARTS: '32',
  MAX_CONCURRENT_TASKS: '16',
  MAX_HANDLER_RESPONSE_BYTES: '1048576',
  HANDLER_TIMEOUT_S: '60',
});

export const MIN_TOKEN_LENGTH = 32;

export class ConfigError extends Error {}

// Why a token is refused, or null when it is fit. A token guards every binding, so it
// must be long and look random: a repeated character, a handful of distinct characters,
// a short repeated pattern or a run like "abcd..." / "1234..." is guessable.
export function tokenProblem(token) {
  if (!token) return 'A2A_TOKEN is not set';
  if (token.length < MIN_TOKEN_LENGTH) {
    return `A2A_TOKEN has ${token.length} characters; at least ${MIN_TOKEN_LENGTH} random characters are required`;
  }
  const distinct = new Set(token).size;
  if (distinct === 1) return 'A2A_TOKEN is one repeated character';
  if (distinct < 8) return `A2A_TOKEN uses only ${distinct} distinct characters; it does not look random`;
  for (let period = 2; period <= 16; period++) {
    if (token.length >= 2 * period && token === token.slice(0, period).repeat(Math.ceil(token.length / period)).slice(0, token.length)) {
      return `A2A_TOKEN repeats a ${period}-character pattern; it does not look random`;
    }
  }
  let steps = 0;
  for (let i = 1; i < token.length; i++) {
    const diff = token.charCodeAt(i) - token.charCodeAt(i - 1);
    if (diff === 1 || diff === -1) steps++;
  }
  if (steps > (token.length - 1) / 2) return 'A2A_TOKEN is mostly a simple sequence (like abcd or 1234); it does not look random';
  return null;
}

function integer(env, name, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}) {
  const raw = String(env[name] ?? DEFAULTS[name]).trim();
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number in ${min}..${max}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

function seconds(env, name) {
  const raw = String(env[name] ?? DEFAULTS[name]).trim();
  const value = Number(raw);
  if (raw === '' || !Number.isFinite(value) || value <= 0) {
    throw new ConfigError(`${name} must be a positive number of seconds, got ${JSON.stringify(raw)}`);
  }
  return value;
}

function httpUrl(env, name) {
  const raw = (env[name] ?? '').trim();
  if (!raw) return null;
  let url;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a URL: ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an http(s) URL, got ${JSON.stringify(raw)}`);
  }
  return url;
}

function origins(env) {
  const list = (env.CORS_ORIGINS ?? '').split(/[\s,]+/).filter(Boolean);
  for (const origin of list) {
    let url;
    try {
      url = new URL(origin);
    } catch {
      throw new ConfigError(`CORS_ORIGINS: ${JSON.stringify(origin)} is not an origin like https://app.example.com`);
    }
    if (origin === '*' || url.origin !== origin.replace(/\/$/, '')) {
      throw new ConfigError(`CORS_ORIGINS: ${JSON.stringify(origin)} is not an origin (scheme://host[:port], no path)`);
    }
  }
  return new Set(list.map((origin) => origin.replace(/\/$/, '')));
}

const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;
const GRPC_SCHEMES = { 'http:': 80, 'grpc:': 80, 'https:': 443, 'grpcs:': 443 };

// PUBLIC_GRPC_TARGET: an absolute URL (http, https, grpc, grpcs; no path) or host:port,
// published as https://host:port (a public gRPC endpoint sits behind TLS). Returns the URL
// the card names and the host:port a gRPC client dials, or null when unset.
function grpcAddress(value) {
  if (!value) return null;
  const refuse = () => {
    throw new ConfigError(
      `PUBLIC_GRPC_TARGET must be host:port or an http(s)/grpc(s) URL without a path, got ${JSON.stringify(value)}`,
    );
  };
  if (HOST_PORT.test(value)) return { url: `https://${value}`, target: value };
  const match = /^([A-Za-z][A-Za-z0-9+.-]*:)\/\/([^/?#]+)\/?$/.exec(value);
  if (!match || !(match[1].toLowerCase() in GRPC_SCHEMES)) return refuse();
  const hostPort = HOST_PORT.test(match[2]) ? match[2] : `${match[2]}:${GRPC_SCHEMES[match[1].toLowerCase()]}`;
  if (!HOST_PORT.test(hostPort)) return refuse();
  return { url: value.replace(/\/$/, ''), target: hostPort };
}

export function loadConfig(env = process.env) {
  const token = env.A2A_TOKEN ?? '';
  const problem = tokenProblem(token);
  if (problem) {
    throw new ConfigError(`${problem}. Generate one with: openssl rand -base64 32`);
  }
  const jwksPath = (env.JWKS_PATH ?? DEFAULTS.JWKS_PATH).trim();
  if (!jwksPath.startsWith('/')) throw new ConfigError(`JWKS_PATH must start with "/", got ${JSON.stringify(jwksPath)}`);
  const publicUrl = httpUrl(env, 'PUBLIC_URL');
  const publicGrpc = grpcAddress((env.PUBLIC_GRPC_TARGET ?? '').trim());
  return {
    token,
    host: (env.HOST ?? DEFAULTS.HOST).trim() || DEFAULTS.HOST,
    port: integer(env, 'PORT', { max: 65535 }),
    grpcPort: integer(env, 'GRPC_PORT', { max: 65535 }),
    publicUrl: publicUrl ? publicUrl.href.replace(/\/$/, '') : null,
    publicGrpc,
    handlerUrl: httpUrl(env, 'HANDLER_URL'),
    signingJwkFile: (env.SIGNING_JWK_FILE ?? '').trim() || null,
    jwksPath,
    corsOrigins: origins(env),
    maxBodyBytes: integer(env, 'MAX_BODY_BYTES', { min: 1 }),
    maxParts: integer(env, 'MAX_PARTS', { min: 1 }),
    maxConcurrentTasks: integer(env, 'MAX_CONCURRENT_TASKS', { min: 1 }),
    maxHandlerResponseBytes: integer(env, 'MAX_HANDLER_RESPONSE_BYTES', { min: 1 }),
    handlerTimeoutS: seconds(env, 'HANDLER_TIMEOUT_S'),
  };
}
