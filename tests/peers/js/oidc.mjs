#!/usr/bin/env node
// OAuth 2 / OpenID Connect authorization server for the tests, built from `oidc-provider`.
//
//   node oidc.mjs [--host 127.0.0.1] [--port N]
//
// Prints exactly one JSON "ready" line on stdout once it listens:
//   {"event": "ready", "issuer": "http://127.0.0.1:P", "discovery_url": ".../.well-known/openid-configuration",
//    "token_url", "device_authorization_url", "authorization_url", "introspection_url", "revocation_url", "pid"}
// Logs go to stderr. SIGTERM/SIGINT -> exit 0.
//
// Clients (ids = secrets' owners; the tests import the same names from tests/peers/oidc_fixtures.py):
//   cc-client / cc-secret      client_credentials (confidential, client_secret_basic or _post)
//   device-client              device_code + refresh_token (public)
//   device-slow                as device-client; its first pending poll answers `slow_down`
//   device-short               as device-client; device codes expire after 2 s
//   pkce-client                authorization_code + PKCE S256 + refresh_token (public, native:
//                              redirect http://127.0.0.1/ on any port, RFC 8252 §7.3)
//   a2a-agent / agent-secret   the agent's own credentials for token introspection (RFC 7662)
//
// devInteractions serve the login and consent pages (any login/password is accepted).
// The device authorization response carries `interval: 1` so polling tests stay short.

import http from 'node:http';
import process from 'node:process';
import { parseArgs } from 'node:util';

import Provider from 'oidc-provider';

const { values: args } = parseArgs({
  options: {
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '0' },
  },
  strict: true,
});

console.log = (...a) => process.stderr.write(`${a.map(String).join(' ')}\n`);
console.info = console.log;
console.warn = console.log;

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const publicClient = (id, grants, extra = {}) => ({
  client_id: id,
  token_endpoint_auth_method: 'none',
  grant_types: grants,
  response_types: [],
  redirect_uris: [],
  scope: 'openid offline_access a2a',
  ...extra,
});

const clients = [
  {
    client_id: 'cc-client',
    client_secret: 'cc-secret',
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    scope: 'a2a',
  },
  publicClient('device-client', [DEVICE_GRANT, 'refresh_token']),
  publicClient('device-slow', [DEVICE_GRANT, 'refresh_token']),
  publicClient('device-short', [DEVICE_GRANT, 'refresh_token']),
  publicClient('pkce-client', ['authorization_code', 'refresh_token'], {
    application_type: 'native',
    response_types: ['code'],
    redirect_uris: ['http://127.0.0.1/'],
  }),
  {
    client_id: 'a2a-agent',
    client_secret: 'agent-secret',
    grant_types: [],
    response_types: [],
    redirect_uris: [],
  },
];

const server = http.createServer();
server.listen(Number(args.port), args.host, () => {
  const { port } = server.address();
  const issuer = `http://${args.host}:${port}`;
  const provider = new Provider(issuer, {
    clients,
    cookies: { keys: ['a2a-workbench-test-cookie-key'] },
    scopes: ['openid', 'offline_access', 'a2a'],
    features: {
      devInteractions: { enabled: true },
      clientCredentials: { enabled: true },
      deviceFlow: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
    },
    ttl: {
      AccessToken: 3600,
      ClientCredentials: 3600,
      DeviceCode: (ctx, code, client) => (client.clientId === 'device-short' ? 2 : 600),
      Grant: 3600,
      IdToken: 3600,
      Interaction: 600,
      RefreshToken: 86400,
      Session: 3600,
    },
    // Refresh tokens whenever the client may use them (offline_access is not required here).
    issueRefreshToken: async (ctx, client) => client.grantTypeAllowed('refresh_token'),
    loadExistingGrant: undefined,
  });

  const slowed = new Set();
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.path === '/device/auth' && ctx.status === 200 && ctx.body && typeof ctx.body === 'object') {
      ctx.body = { ...ctx.body, interval: 1 };
    }
    if (ctx.path === '/token' && ctx.body?.error === 'authorization_pending') {
      const code = ctx.oidc?.params?.device_code;
      if (ctx.oidc?.client?.clientId === 'device-slow' && code && !slowed.has(code)) {
        slowed.add(code);
        ctx.body = { error: 'slow_down', error_description: 'you are polling too quickly' };
      }
    }
  });
  provider.on('server_error', (ctx, err) => process.stderr.write(`oidc: server_error ${err.stack}\n`));

  server.on('request', provider.callback());
  const ready = {
    event: 'ready',
    issuer,
    discovery_url: `${issuer}/.well-known/openid-configuration`,
    token_url: `${issuer}/token`,
    device_authorization_url: `${issuer}/device/auth`,
    authorization_url: `${issuer}/auth`,
    introspection_url: `${issuer}/token/introspection`,
    revocation_url: `${issuer}/token/revocation`,
    pid: process.pid,
  };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
});

const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
