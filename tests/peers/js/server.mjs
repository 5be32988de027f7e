#!/usr/bin/env node
// A2A test peer built only from @a2a-js/sdk pieces (protocol 1.0 + 0.3 compat).
//
//   node server.mjs [--host 127.0.0.1] [--port N] [--grpc-port N] [--token T]
//                   [--sign-alg HS256|RS256|ES256] [--jwks-out PATH] [--log-user-agents]
//
// --log-user-agents: one stderr line per HTTP request and gRPC call, `user-agent <where>
// <value>`, so a test can read what a client said it was.
//
// Prints exactly one JSON "ready" line on stdout once HTTP and gRPC listen;
// everything else goes to stderr. SIGTERM/SIGINT -> graceful stop, exit 0.

import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { parseArgs } from 'node:util';

import express from 'express';
import * as grpc from '@grpc/grpc-js';

import {
  AGENT_CARD_PATH,
  A2A_PROTOCOL_VERSION,
  Role,
  TaskState,
  generateAgentCardSignature,
} from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';
import { createLegacyAwarePushNotificationSender } from '@a2a-js/sdk/compat/v0_3/server';
import { LegacyA2AService, legacyGrpcService } from '@a2a-js/sdk/compat/v0_3/server/grpc';

// ---------------------------------------------------------------- CLI

function fail(message) {
  process.stderr.write(`js-peer: ${message}\n`);
  process.exit(1);
}

let args;
try {
  ({ values: args } = parseArgs({
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '0' },
      'grpc-port': { type: 'string', default: '0' },
      token: { type: 'string' },
      'sign-alg': { type: 'string' },
      'jwks-out': { type: 'string' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      'tls-client-ca': { type: 'string' },
      'log-user-agents': { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  }));
} catch (err) {
  fail(err.message);
}

const HOST = args.host;
const HTTP_PORT = Number(args.port);
const GRPC_PORT = Number(args['grpc-port']);
const TOKEN = args.token ?? null;
const SIGN_ALG = args['sign-alg'] ? args['sign-alg'].toUpperCase() : null;
if (!Number.isInteger(HTTP_PORT) || HTTP_PORT < 0 || HTTP_PORT > 65535) fail(`bad --port ${args.port}`);
if (!Number.isInteger(GRPC_PORT) || GRPC_PORT < 0 || GRPC_PORT > 65535)
  fail(`bad --grpc-port ${args['grpc-port']}`);
if (SIGN_ALG && !['HS256', 'RS256', 'ES256'].includes(SIGN_ALG)) fail(`unsupported --sign-alg ${SIGN_ALG}`);
if (TOKEN === '') fail('--token must not be empty');

const log = (...parts) => process.stderr.write(`js-peer: ${parts.join(' ')}\n`);
// Keep stdout for the single ready line: route console.log/info to stderr.
console.log = (...a) => process.stderr.write(`${a.map(String).join(' ')}\n`);
console.info = console.log;

// ---------------------------------------------------------------- helpers

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => new Date().toISOString();

function textPart(text) {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function dataPart(value) {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

function agentMessage(parts, { taskId = '', contextId = '' } = {}) {
  return {
    messageId: crypto.randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function firstText(message) {
  for (const part of message?.parts ?? []) {
    if (part?.content?.$case === 'text') return String(part.content.value ?? '').trim();
  }
  return '';
}

const NUMBER_RE = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function parseNumbers(text) {
  const tokens = text.split(/[\s,]+/).filter((t) => t.length > 0);
  if (tokens.length === 0 || !tokens.every((t) => NUMBER_RE.test(t))) return null;
  return tokens.map(Number);
}

// ---------------------------------------------------------------- executor

class DemoExecutor {
  constructor() {
    this.cancelled = new Set();
    this.contextOf = new Map(); // cancelTask() only receives the task id
  }

  statusUpdate(ctx, state, message) {
    return AgentEvent.statusUpdate({
      taskId: ctx.taskId,
      contextId: ctx.contextId,
      status: { state, message, timestamp: now() },
      metadata: undefined,
    });
  }

  newTask(ctx) {
    return AgentEvent.task({
      id: ctx.taskId,
      contextId: ctx.contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
      artifacts: [],
      history: [ctx.userMessage],
      metadata: undefined,
    });
  }

  async execute(ctx, bus) {
    this.contextOf.set(ctx.taskId, ctx.contextId);
    const text = firstText(ctx.userMessage);
    const ids = { taskId: ctx.taskId, contextId: ctx.contextId };

    // Follow-up turn on a task that is waiting for input ("ask").
    if (ctx.task) {
      if (ctx.task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
        bus.publish(AgentEvent.task(ctx.task));
        bus.publish(
          this.statusUpdate(ctx, TaskState.TASK_STATE_COMPLETED, agentMessage([textPart(`Hello, ${text}!`)], ids)),
        );
        return;
      }
      bus.publish(AgentEvent.message(agentMessage([textPart(`Echo: ${text}`)], ids)));
      return;
    }

    const numbers = parseNumbers(text);
    if (numbers) {
      const total = numbers.reduce((a, b) => a + b, 0);
      bus.publish(
        AgentEvent.message(
          agentMessage([textPart(`Sum: ${total}`), dataPart({ total })], { contextId: ctx.contextId }),
        ),
      );
      return;
    }

    const stream = /^stream(?:\s+(\d+))?(?:\s+(\d+))?$/i.exec(text);
    if (stream) {
      const steps = stream[1] !== undefined ? Number(stream[1]) : 5;
      const interval = stream[2] !== undefined ? Number(stream[2]) : 200;
      bus.publish(this.newTask(ctx));
      for (let i = 1; i <= steps; i++) {
        await sleep(interval);
        if (this.cancelled.has(ctx.taskId)) return;
        bus.publish(
          this.statusUpdate(ctx, TaskState.TASK_STATE_WORKING, agentMessage([textPart(`progress ${i}/${steps}`)], ids)),
        );
      }
      await sleep(Math.min(interval, 50));
      if (this.cancelled.has(ctx.taskId)) return;
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId: ctx.taskId,
          contextId: ctx.contextId,
          artifact: {
            artifactId: crypto.randomUUID(),
            name: 'result',
            description: '',
            parts: [textPart(`done after ${steps} steps`)],
            metadata: undefined,
            extensions: [],
          },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      bus.publish(this.statusUpdate(ctx, TaskState.TASK_STATE_COMPLETED, undefined));
      return;
    }

    if (text.toLowerCase() === 'ask') {
      bus.publish(this.newTask(ctx));
      bus.publish(
        this.statusUpdate(ctx, TaskState.TASK_STATE_INPUT_REQUIRED, agentMessage([textPart('What is your name?')], ids)),
      );
      return;
    }

    if (text.toLowerCase() === 'fail') {
      bus.publish(this.newTask(ctx));
      bus.publish(this.statusUpdate(ctx, TaskState.TASK_STATE_WORKING, undefined));
      bus.publish(
        this.statusUpdate(ctx, TaskState.TASK_STATE_FAILED, agentMessage([textPart('Failed on purpose')], ids)),
      );
      return;
    }

    bus.publish(AgentEvent.message(agentMessage([textPart(`Echo: ${text}`)], { contextId: ctx.contextId })));
  }

  async cancelTask(taskId, bus) {
    this.cancelled.add(taskId);
    const contextId = this.contextOf.get(taskId) ?? '';
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: {
          state: TaskState.TASK_STATE_CANCELED,
          message: agentMessage([textPart('Canceled')], { taskId, contextId }),
          timestamp: now(),
        },
        metadata: undefined,
      }),
    );
  }
}

// ---------------------------------------------------------------- auth

class BearerUser {
  get isAuthenticated() {
    return true;
  }

  get userName() {
    return 'bearer-user';
  }
}

class AnonymousUser {
  get isAuthenticated() {
    return false;
  }

  get userName() {
    return '';
  }
}

const bearerOk = (value) => {
  if (!TOKEN) return true;
  if (typeof value !== 'string') return false;
  const m = /^Bearer\s+(.+)$/i.exec(value.trim());
  if (!m) return false;
  const a = Buffer.from(m[1]);
  const b = Buffer.from(TOKEN);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
};

const httpUserBuilder = async () => (TOKEN ? new BearerUser() : new AnonymousUser());
const grpcUserBuilder = async () => (TOKEN ? new BearerUser() : new AnonymousUser());

function requireBearer(req, res, next) {
  if (bearerOk(req.header('authorization'))) return next();
  res
    .status(401)
    .set('WWW-Authenticate', 'Bearer')
    .type('application/json')
    .send(JSON.stringify({ error: 'unauthorized', message: 'Missing or invalid bearer token' }));
}

function logUserAgents(impl) {
  if (!args['log-user-agents']) return impl;
  const logged = {};
  for (const [name, handler] of Object.entries(impl)) {
    logged[name] =
      typeof handler !== 'function'
        ? handler
        : (call, ...rest) => {
            log(`user-agent grpc:${name} ${call.metadata.get('user-agent')[0] ?? '-'}`);
            return handler(call, ...rest);
          };
  }
  return logged;
}

function guardGrpc(definition, impl) {
  if (!TOKEN) return impl;
  const guarded = {};
  for (const [name, handler] of Object.entries(impl)) {
    const def = definition[name];
    if (typeof handler !== 'function' || !def) {
      guarded[name] = handler;
      continue;
    }
    const unauth = () => ({
      code: grpc.status.UNAUTHENTICATED,
      details: 'Missing or invalid bearer token',
      metadata: new grpc.Metadata(),
    });
    const ok = (call) => bearerOk(call.metadata.get('authorization')[0]);
    if (def.responseStream) {
      guarded[name] = (call) => (ok(call) ? handler(call) : call.emit('error', unauth()));
    } else {
      guarded[name] = (call, callback) => (ok(call) ? handler(call, callback) : callback(unauth()));
    }
  }
  return guarded;
}

// ---------------------------------------------------------------- signing

function makeSigner(alg, baseUrl) {
  const kid = `js-peer-${alg.toLowerCase()}-${crypto.randomBytes(4).toString('hex')}`;
  let privateKey;
  let jwk;
  if (alg === 'HS256') {
    privateKey = crypto.createSecretKey(crypto.randomBytes(32));
    jwk = privateKey.export({ format: 'jwk' });
  } else if (alg === 'RS256') {
    const pair = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    privateKey = pair.privateKey;
    jwk = pair.publicKey.export({ format: 'jwk' });
  } else {
    const pair = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
    privateKey = pair.privateKey;
    jwk = pair.publicKey.export({ format: 'jwk' });
  }
  delete jwk.key_ops;
  const publicJwks = { keys: [{ ...jwk, kid, alg, use: 'sig' }] };
  const protectedHeader = { alg, kid, typ: 'JOSE' };
  // A shared HMAC secret is never published: no jku for HS256.
  const jwksUrl = alg === 'HS256' ? null : `${baseUrl}/.well-known/jwks.json`;
  if (jwksUrl) protectedHeader.jku = jwksUrl;
  return { signer: generateAgentCardSignature(privateKey, protectedHeader), jwks: publicJwks, jwksUrl, kid };
}

// ---------------------------------------------------------------- card

function v1Interfaces(baseUrl, grpcTarget) {
  const v1 = [
    { url: `${baseUrl}/`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
    { url: `${baseUrl}/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
    { url: grpcTarget, protocolBinding: 'GRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
  ];
  // Adds a protocolVersion "0.3" twin of each entry (same url), which the
  // legacyCompat layers require.
  return duplicateInterfacesForLegacy(v1, ['JSONRPC', 'HTTP+JSON', 'GRPC']);
}

const SKILL = {
  id: 'demo',
  name: 'Demo',
  description: 'Sums numbers, streams progress (stream N [MS]), asks (ask), fails (fail) or echoes.',
  tags: ['demo', 'test'],
  examples: ['12 30', 'stream 3 100', 'ask', 'fail', 'hello'],
  inputModes: ['text/plain'],
  outputModes: ['text/plain', 'application/json'],
  securityRequirements: [],
};

function buildCard(baseUrl, grpcTarget) {
  const card = {
    name: 'A2A Workbench JS peer',
    description: 'Test peer built from @a2a-js/sdk; serves A2A 1.0 and 0.3 over JSON-RPC, HTTP+JSON and gRPC.',
    supportedInterfaces: v1Interfaces(baseUrl, grpcTarget),
    provider: { organization: 'A2A Workbench tests', url: 'https://example.invalid/a2a-workbench' },
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: true },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [SKILL],
    signatures: [],
  };
  if (TOKEN) {
    // The SDK serves this TS oneof object as-is to 1.0 clients ($case/value): docs/PEERS.md Q11.
    card.securitySchemes = {
      bearerAuth: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: { description: 'Static bearer token', scheme: 'Bearer', bearerFormat: '' },
        },
      },
    };
    card.securityRequirements = [{ schemes: { bearerAuth: { list: [] } } }];
  }
  return card;
}

function extendedCardOf(card) {
  return {
    ...structuredClone(card),
    description: `${card.description} (extended card)`,
    skills: [
      SKILL,
      {
        id: 'extended',
        name: 'Extended skill',
        description: 'Only listed on the extended agent card.',
        tags: ['extended'],
        examples: [],
        inputModes: ['text/plain'],
        outputModes: ['text/plain'],
        securityRequirements: [],
      },
    ],
  };
}

// ---------------------------------------------------------------- main

const app = express();
app.disable('x-powered-by');
if (args['log-user-agents']) {
  app.use((req, _res, next) => {
    log(`user-agent ${req.method}:${req.path} ${req.header('user-agent') ?? '-'}`);
    next();
  });
}
// --tls-cert/--tls-key: HTTPS and gRPC over TLS; --tls-client-ca: client certificates
// issued by that CA are required on both.
const TLS = args['tls-cert']
  ? {
      cert: fs.readFileSync(args['tls-cert']),
      key: fs.readFileSync(args['tls-key'] ?? args['tls-cert']),
      ca: args['tls-client-ca'] ? fs.readFileSync(args['tls-client-ca']) : undefined,
    }
  : null;
const httpServer = TLS
  ? https.createServer({ ...TLS, requestCert: Boolean(TLS.ca), rejectUnauthorized: Boolean(TLS.ca) }, app)
  : http.createServer(app);
const grpcServer = new grpc.Server();
let shuttingDown = false;

function listenHttp() {
  return new Promise((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(HTTP_PORT, HOST, () => {
      httpServer.off('error', reject);
      resolve(httpServer.address().port);
    });
  });
}

function bindGrpc() {
  return new Promise((resolve, reject) => {
    const credentials = TLS
      ? grpc.ServerCredentials.createSsl(TLS.ca ?? null, [{ private_key: TLS.key, cert_chain: TLS.cert }], Boolean(TLS.ca))
      : grpc.ServerCredentials.createInsecure();
    grpcServer.bindAsync(`${HOST}:${GRPC_PORT}`, credentials, (err, port) =>
      err ? reject(err) : resolve(port),
    );
  });
}

async function main() {
  const hostForUrl = HOST.includes(':') ? `[${HOST}]` : HOST;

  let httpPort;
  try {
    httpPort = await listenHttp();
  } catch (err) {
    fail(`HTTP listen on ${HOST}:${HTTP_PORT} failed: ${err.code ?? err.message}`);
  }
  const baseUrl = `${TLS ? 'https' : 'http'}://${hostForUrl}:${httpPort}`;

  let signing = null;
  let jwksPath = null;
  if (SIGN_ALG) {
    signing = makeSigner(SIGN_ALG, baseUrl);
    jwksPath = path.resolve(
      args['jwks-out'] ?? path.join(os.tmpdir(), `a2a-js-peer-${process.pid}-${SIGN_ALG.toLowerCase()}.jwks.json`),
    );
    fs.writeFileSync(jwksPath, `${JSON.stringify(signing.jwks, null, 2)}\n`, { mode: 0o600 });
  }

  // The gRPC URL in the card is only known after binding; the handler keeps a
  // reference to this object, so it is completed in place below.
  const card = buildCard(baseUrl, `${hostForUrl}:0`);
  const pushStore = new InMemoryPushNotificationStore();
  const pushSender = createLegacyAwarePushNotificationSender(pushStore, {
    timeout: 5000,
    tokenHeaderName: 'X-A2A-Notification-Token',
  });
  const requestHandler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    new DemoExecutor(),
    undefined, // default event bus manager
    pushStore,
    pushSender,
    async () => extendedCardOf(card), // a function: returned to every caller (docs/PEERS.md Q16)
    signing?.signer,
  );

  grpcServer.addService(
    A2AService,
    guardGrpc(A2AService, logUserAgents(grpcService({ requestHandler, userBuilder: grpcUserBuilder }))),
  );
  grpcServer.addService(
    LegacyA2AService,
    guardGrpc(
      LegacyA2AService,
      logUserAgents(legacyGrpcService({ requestHandler, userBuilder: grpcUserBuilder })),
    ),
  );
  let grpcPort;
  try {
    grpcPort = await bindGrpc();
  } catch (err) {
    httpServer.close();
    fail(`gRPC bind on ${HOST}:${GRPC_PORT} failed: ${String(err.message).split('\n')[0]}`);
  }
  const grpcTarget = `${hostForUrl}:${grpcPort}`;
  card.supportedInterfaces = v1Interfaces(baseUrl, grpcTarget);

  // Card and JWKS are public.
  app.use(
    `/${AGENT_CARD_PATH}`,
    agentCardHandler({ agentCardProvider: requestHandler, legacyCompat: { enabled: true } }),
  );
  if (signing?.jwksUrl) {
    app.get('/.well-known/jwks.json', (_req, res) => {
      res.type('application/json').send(JSON.stringify(signing.jwks));
    });
  }

  if (TOKEN) {
    app.use('/rest', requireBearer);
    app.all('/', requireBearer);
  }
  app.use('/rest', restHandler({ requestHandler, userBuilder: httpUserBuilder, legacyCompat: { enabled: true } }));
  app.all('/', jsonRpcHandler({ requestHandler, userBuilder: httpUserBuilder, legacyCompat: { enabled: true } }));

  const info = {
    event: 'ready',
    base_url: baseUrl,
    card_url: `${baseUrl}/${AGENT_CARD_PATH}`,
    jsonrpc_url: `${baseUrl}/`,
    rest_url: `${baseUrl}/rest`,
    grpc_target: grpcTarget,
    jwks_path: jwksPath,
    pid: process.pid,
  };
  process.stdout.write(`${JSON.stringify(info)}\n`);
  log(`ready: http ${baseUrl} grpc ${grpcTarget}${TOKEN ? ' (bearer auth)' : ''}${SIGN_ALG ? ` (signed ${SIGN_ALG})` : ''}`);
}

function shutdown(signal) {
  if (shuttingDown) return;
  shuttingDown = true;
  log(`${signal}: shutting down`);
  const force = setTimeout(() => {
    grpcServer.forceShutdown();
    process.exit(0);
  }, 2000);
  force.unref();
  httpServer.close();
  httpServer.closeAllConnections();
  grpcServer.tryShutdown(() => process.exit(0));
}

process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));

main().catch((err) => fail(err?.stack ?? String(err)));
