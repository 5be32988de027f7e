// The server's own checks: `npm test`. Each test starts it on free ports.

import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import * as grpc from '@grpc/grpc-js';
import { CancelTaskRequest, GetTaskRequest, ListTasksRequest, SendMessageRequest, verifyAgentCardSignature } from '@a2a-js/sdk';
import { A2AService } from '@a2a-js/sdk/server/grpc';

import { tokenProblem } from '../src/config.mjs';
import { TOKEN, jsonRpc, refusedStart, sseResults, startHandler, startServer, userMessage } from './helpers.mjs';

const ALLOWED = 'https://app.example.com';

describe('with the echo handler', () => {
  let server;
  before(async () => {
    server = await startServer({ CORS_ORIGINS: ALLOWED, MAX_BODY_BYTES: '20000', MAX_PARTS: '3' });
  });
  after(async () => {
    assert.equal(await server.stop(), 0);
  });

  test('the card is public and names the bound endpoints', async () => {
    const response = await fetch(server.cardUrl, { headers: { 'a2a-version': '1.0' } });
    assert.equal(response.status, 200);
    const card = await response.json();
    const urls = card.supportedInterfaces.map((entry) => entry.url);
    assert.ok(urls.some((url) => url.startsWith(server.baseUrl)));
    assert.ok(card.securitySchemes.bearerAuth.httpAuthSecurityScheme);
  });

  test('JSON-RPC: a message becomes a completed task with the answer', async () => {
    const response = await jsonRpc(server.baseUrl, 'SendMessage', { message: userMessage('hello') });
    assert.equal(response.status, 200);
    const { result } = await response.json();
    assert.equal(result.task.status.state, 'TASK_STATE_COMPLETED');
    assert.deepEqual(result.task.artifacts[0].parts, [{ text: 'hello' }]);
  });

  test('JSON-RPC streaming: submitted, working, artifact, completed', async () => {
    const response = await jsonRpc(server.baseUrl, 'SendStreamingMessage', { message: userMessage('stream me') });
    assert.match(response.headers.get('content-type'), /text\/event-stream/);
    const results = await sseResults(response);
    assert.equal(results[0].task.status.state, 'TASK_STATE_SUBMITTED');
    assert.ok(results.some((r) => r.artifactUpdate?.artifact.parts[0].text === 'stream me'));
    assert.equal(results.at(-1).statusUpdate.status.state, 'TASK_STATE_COMPLETED');
  });

  test('HTTP+JSON: message:send', async () => {
    const response = await fetch(`${server.baseUrl}/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ message: userMessage('over rest') }),
    });
    assert.equal(response.status, 200);
    const body = await response.json();
    assert.equal(body.task.status.state, 'TASK_STATE_COMPLETED');
  });

  test('gRPC: SendMessage with the token, UNAUTHENTICATED without', async () => {
    const Client = grpc.makeGenericClientConstructor(A2AService, 'A2AService');
    const client = new Client(server.grpcTarget, grpc.credentials.createInsecure());
    const request = SendMessageRequest.fromJSON({ message: userMessage('over grpc') });
    const call = (metadata) =>
      metadata.set('a2a-version', '1.0') ??
      new Promise((resolve, reject) => client.sendMessage(request, metadata, (err, reply) => (err ? reject(err) : resolve(reply))));
    try {
      const good = new grpc.Metadata();
      good.set('authorization', `Bearer ${TOKEN}`);
      const reply = await call(good);
      assert.equal(reply.payload.$case, 'task');
      await assert.rejects(call(new grpc.Metadata()), (err) => err.code === grpc.status.UNAUTHENTICATED);
    } finally {
      client.close();
    }
  });

  test('a missing or wrong token is refused (401)', async () => {
    for (const token of [null, 'x'.repeat(40)]) {
      const response = await jsonRpc(server.baseUrl, 'SendMessage', { message: userMessage('hi') }, { token });
      assert.equal(response.status, 401);
      assert.equal(response.headers.get('www-authenticate'), 'Bearer');
    }
  });

  test('CORS: the listed origin gets a preflight answer, another origin gets no CORS headers', async () => {
    const preflight = (origin) =>
      fetch(`${server.baseUrl}/`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
      });
    const allowed = await preflight(ALLOWED);
    assert.equal(allowed.status, 204);
    assert.equal(allowed.headers.get('access-control-allow-origin'), ALLOWED);
    const other = await preflight('https://evil.example');
    assert.equal(other.headers.get('access-control-allow-origin'), null);
    assert.equal(other.headers.get('access-control-allow-methods'), null);
  });

  test('a body over MAX_BODY_BYTES is refused with 413', async () => {
    const response = await jsonRpc(server.baseUrl, 'SendMessage', { message: userMessage('x'.repeat(30000)) });
    assert.equal(response.status, 413);
  });

  test('more parts than MAX_PARTS fail the task', async () => {
    const extra = [{ text: 'b' }, { text: 'c' }, { text: 'd' }];
    const response = await jsonRpc(server.baseUrl, 'SendMessage', { message: userMessage('a', extra) });
    const { result } = await response.json();
    assert.equal(result.task.status.state, 'TASK_STATE_FAILED');
    assert.match(result.task.status.message.parts[0].text, /MAX_PARTS/);
  });
});

describe('with an HTTP handler', () => {
  test('the handler answers: its parts are the task artifact', async () => {
    const handler = await startHandler((body) => [200, { role: 'ROLE_AGENT', parts: [{ text: `got ${body.message.parts[0].text}` }] }]);
    const server = await startServer({ HANDLER_URL: handler.url });
    try {
      const response = await jsonRpc(server.baseUrl, 'SendMessage', { message: userMessage('ping') });
      const { result } = await response.json();
      assert.deepEqual(result.task.artifacts[0].parts, [{ text: 'got ping' }]);
      assert.ok(handler.received[0].contextId);
    } finally {
      await server.stop();
      await handler.close();
    }
  });

  test('a slow handler hits HANDLER_TIMEOUT_S: the task fails saying so', async () => {
    const handler = await startHandler(() => new Promise((resolve) => setTimeout(() => resolve([200, { parts: [{ text: 'late' }] }]), 5000)));
    const server = await startServer({ HANDLER_URL: handler.url, HANDLER_TIMEOUT_S: '0.5' });
    try {
      const started = Date.now();
      const response = await jsonRpc(server.baseUrl, 'SendMessage', { message: userMessage('slow') });
      const { result } = await response.json();
      assert.equal(result.task.status.state, 'TASK_STATE_FAILED');
      assert.match(result.task.status.message.parts[0].text, /did not answer within 0.5 s/);
      assert.ok(Date.now() - started < 4000);
    } finally {
      await server.stop();
      await handler.close();
    }
  });

  test('a handler answer without parts fails the task', async () => {
    const handler = await startHandler(() => [200, { parts: [] }]);
    const server = await startServer({ HANDLER_URL: handler.url });
    try {
      const { result } = await (await jsonRpc(server.baseUrl, 'SendMessage', { message: userMessage('x') })).json();
      assert.equal(result.task.status.state, 'TASK_STATE_FAILED');
      assert.match(result.task.status.message.parts[0].text, /without parts/);
    } finally {
      await server.stop();
      await handler.close();
    }
  });

  test('MAX_CONCURRENT_TASKS: a task beyond the limit fails at once, saying the server is busy', async () => {
    const handler = await startHandler(() => new Promise(() => {}));
    const server = await startServer({ HANDLER_URL: handler.url, MAX_CONCURRENT_TASKS: '1' });
    try {
      const first = await jsonRpc(server.baseUrl, 'SendStreamingMessage', { message: userMessage('hold') });
      const reader = first.body.getReader();
      await reader.read(); // the first task is running
      const { result } = await (await jsonRpc(server.baseUrl, 'SendMessage', { message: userMessage('next') })).json();
      assert.equal(result.task.status.state, 'TASK_STATE_FAILED');
      assert.match(result.task.status.message.parts[0].text, /busy.*MAX_CONCURRENT_TASKS/);
      reader.cancel().catch(() => {});
    } finally {
      await server.stop();
      await handler.close();
    }
  });

  test('MAX_HANDLER_RESPONSE_BYTES: a bigger answer fails the task', async () => {
    const handler = await startHandler(() => [200, { parts: [{ text: 'y'.repeat(5000) }] }]);
    const server = await startServer({ HANDLER_URL: handler.url, MAX_HANDLER_RESPONSE_BYTES: '1000' });
    try {
      const { result } = await (await jsonRpc(server.baseUrl, 'SendMessage', { message: userMessage('big') })).json();
      assert.equal(result.task.status.state, 'TASK_STATE_FAILED');
      assert.match(result.task.status.message.parts[0].text, /over 1000 bytes/);
    } finally {
      await server.stop();
      await handler.close();
    }
  });

  test('SIGTERM with a stream open: the stream ends and the process exits 0 quickly', async () => {
    const handler = await startHandler(() => new Promise(() => {}));
    const server = await startServer({ HANDLER_URL: handler.url });
    try {
      const response = await jsonRpc(server.baseUrl, 'SendStreamingMessage', { message: userMessage('wait') });
      const reader = response.body.getReader();
      await reader.read(); // the task is announced: the stream is open
      const started = Date.now();
      assert.equal(await server.stop(), 0);
      assert.ok(Date.now() - started < 5000);
      reader.cancel().catch(() => {});
    } finally {
      await handler.close();
    }
  });
});

// README "Protocol details": what the server adds around the SDK, and the error table it follows.
describe('protocol details', () => {
  let server;
  let client;
  before(async () => {
    server = await startServer();
    const Client = grpc.makeGenericClientConstructor(A2AService, 'A2AService');
    client = new Client(server.grpcTarget, grpc.credentials.createInsecure());
  });
  after(async () => {
    client.close();
    assert.equal(await server.stop(), 0);
  });

  const auth = () => ({ authorization: `Bearer ${TOKEN}`, 'a2a-version': '1.0' });
  const rest = (suffix, init = {}) => fetch(`${server.baseUrl}/rest${suffix}`, { ...init, headers: { ...auth(), ...init.headers } });
  const reason = (body) => body.error.details?.[0]?.reason;
  const rpcCall = (method, request, version = '1.0') => {
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${TOKEN}`);
    metadata.set('a2a-version', version);
    return new Promise((resolve) => client[method](request, metadata, (err, reply) => resolve(err ?? reply)));
  };
  const completedTask = async () => {
    const response = await jsonRpc(server.baseUrl, 'SendMessage', { message: userMessage('done') });
    return (await response.json()).result.task.id;
  };

  test('the card: Cache-Control with max-age, ETag, Last-Modified, 304 when unchanged', async () => {
    const first = await fetch(server.cardUrl, { headers: { 'a2a-version': '1.0' } });
    assert.equal(first.status, 200);
    assert.match(first.headers.get('cache-control'), /max-age=\d+/);
    assert.match(first.headers.get('last-modified'), /GMT$/);
    const etag = first.headers.get('etag');
    assert.ok(etag);
    // fetch adds Cache-Control: no-cache to a conditional request unless one is given.
    const again = await fetch(server.cardUrl, {
      headers: { 'a2a-version': '1.0', 'if-none-match': etag, 'cache-control': 'max-age=0' },
    });
    assert.equal(again.status, 304);
  });

  test('the card names gRPC by an absolute URL', async () => {
    const card = await (await fetch(server.cardUrl, { headers: { 'a2a-version': '1.0' } })).json();
    assert.equal(card.supportedInterfaces.find((i) => i.protocolBinding === 'GRPC').url, `http://${server.grpcTarget}`);
  });

  test('HTTP+JSON answers and errors are application/json', async () => {
    const id = await completedTask();
    const found = await rest(`/tasks/${id}`);
    assert.equal(found.status, 200);
    assert.match(found.headers.get('content-type'), /^application\/json/);
    const missing = await rest('/tasks/nope');
    assert.equal(missing.status, 404);
    assert.match(missing.headers.get('content-type'), /^application\/json/);
    assert.equal(reason(await missing.json()), 'TASK_NOT_FOUND');
  });

  test('HTTP+JSON refuses a body that is not JSON with 415, takes application/a2a+json', async () => {
    const body = JSON.stringify({ message: userMessage('typed') });
    for (const type of ['text/plain', 'application/xml']) {
      const refused = await rest('/message:send', { method: 'POST', body, headers: { 'content-type': type } });
      assert.equal(refused.status, 415, type);
      assert.match(refused.headers.get('content-type'), /^application\/json/);
      assert.equal(reason(await refused.json()), 'CONTENT_TYPE_NOT_SUPPORTED');
    }
    const taken = await rest('/message:send', { method: 'POST', body, headers: { 'content-type': 'application/a2a+json' } });
    assert.equal(taken.status, 200);
  });

  test('JSON-RPC: another media type is -32005, a request object without a method -32600', async () => {
    const typed = await jsonRpc(server.baseUrl, 'GetTask', { id: 'x' }, { headers: { 'content-type': 'text/plain' } });
    assert.equal((await typed.json()).error.code, -32005);
    for (const body of [{ jsonrpc: '2.0', id: 3, params: {} }, { id: 3, method: 'GetTask', params: { id: 'x' } }, 'text']) {
      const response = await fetch(`${server.baseUrl}/`, {
        method: 'POST',
        headers: { ...auth(), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const reply = await response.json();
      assert.equal(reply.error.code, -32600, JSON.stringify(body));
      assert.equal(reply.id, typeof body === 'object' ? 3 : null);
    }
  });

  test('ListTasks refuses a status that is no task state, on every binding', async () => {
    for (const status of ['TASK_STATE_BOGUS', 99]) {
      const reply = await (await jsonRpc(server.baseUrl, 'ListTasks', { status })).json();
      assert.equal(reply.error?.code, -32602, String(status));
    }
    const refused = await rest('/tasks?status=TASK_STATE_BOGUS');
    assert.equal(refused.status, 400);
    assert.equal(reason(await refused.json()), 'INVALID_PARAMS');
    const error = await rpcCall('listTasks', ListTasksRequest.fromJSON({ status: 99 }));
    assert.equal(error.code, grpc.status.INVALID_ARGUMENT);
    const known = await (await jsonRpc(server.baseUrl, 'ListTasks', { status: 'TASK_STATE_WORKING' })).json();
    assert.deepEqual(known.result.tasks, []);
  });

  test('the error table is A2A v1.0.1: TaskNotCancelable and VersionNotSupported', async () => {
    const id = await completedTask();
    const viaRpc = await (await jsonRpc(server.baseUrl, 'CancelTask', { id })).json();
    assert.equal(viaRpc.error.code, -32002);
    const viaRest = await rest(`/tasks/${id}:cancel`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    assert.equal(viaRest.status, 400);
    assert.equal(reason(await viaRest.json()), 'TASK_NOT_CANCELABLE');
    const viaGrpc = await rpcCall('cancelTask', CancelTaskRequest.fromJSON({ id }));
    assert.equal(viaGrpc.code, grpc.status.FAILED_PRECONDITION);
    const version = await rpcCall('getTask', GetTaskRequest.fromJSON({ id }), '99.0');
    assert.equal(version.code, grpc.status.FAILED_PRECONDITION);
    const restVersion = await rest(`/tasks/${id}`, { headers: { 'a2a-version': '99.0' } });
    assert.equal(restVersion.status, 400);
    assert.equal(reason(await restVersion.json()), 'VERSION_NOT_SUPPORTED');
  });
});

describe('start-up checks', () => {
  test('PUBLIC_URL and PUBLIC_GRPC_TARGET: the card names the public addresses', async () => {
    const server = await startServer({ PUBLIC_URL: 'https://agent.example.com/a2a', PUBLIC_GRPC_TARGET: 'grpc.example.com:443' });
    try {
      const response = await fetch(`${server.listening.baseUrl}/.well-known/agent-card.json`, {
        headers: { 'a2a-version': '1.0' },
      });
      const urls = (await response.json()).supportedInterfaces.map((entry) => entry.url);
      assert.deepEqual(urls, ['https://agent.example.com/a2a/', 'https://agent.example.com/a2a/rest', 'https://grpc.example.com:443']);
    } finally {
      await server.stop();
    }
  });

  test('PUBLIC_GRPC_TARGET may be an absolute URL; a path or another scheme stops the server', async () => {
    const server = await startServer({ PUBLIC_GRPC_TARGET: 'grpc://10.0.0.5:7000' });
    try {
      const card = await (await fetch(server.cardUrl, { headers: { 'a2a-version': '1.0' } })).json();
      assert.equal(card.supportedInterfaces.find((i) => i.protocolBinding === 'GRPC').url, 'grpc://10.0.0.5:7000');
      assert.equal(server.grpcTarget, '10.0.0.5:7000');
    } finally {
      await server.stop();
    }
    for (const value of ['https://grpc.example.com/a2a', 'ftp://h:1', 'no-port']) {
      const { code, stderr } = await refusedStart({ A2A_TOKEN: TOKEN, PUBLIC_GRPC_TARGET: value });
      assert.equal(code, 2, value);
      assert.match(stderr, /PUBLIC_GRPC_TARGET/);
    }
  });

  test('a short or non-random token stops the server', async () => {
    for (const token of ['', 'short', 'a'.repeat(40), 'abcdefghijklmnopqrstuvwxyzabcdefgh', '0123456789'.repeat(4)]) {
      const { code, stderr } = await refusedStart({ A2A_TOKEN: token });
      assert.equal(code, 2, token);
      assert.match(stderr, /A2A_TOKEN/);
    }
    assert.equal(tokenProblem(TOKEN), null);
  });

  for (const [alg, type, options] of [
    ['ES256', 'ec', { namedCurve: 'P-256' }],
    ['RS256', 'rsa', { modulusLength: 2048 }],
    ['EdDSA', 'ed25519', {}],
  ]) {
    test(`SIGNING_JWK_FILE (${alg}): the card is signed and the public JWKS is published`, async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'a2a-signing-'));
      const file = path.join(dir, 'key.jwk.json');
      const { privateKey } = crypto.generateKeyPairSync(type, options);
      fs.writeFileSync(file, JSON.stringify({ ...privateKey.export({ format: 'jwk' }), kid: 'test-key' }), { mode: 0o600 });
      const server = await startServer({ SIGNING_JWK_FILE: file });
      try {
        const card = await (await fetch(server.cardUrl, { headers: { 'a2a-version': '1.0' } })).json();
        assert.equal(card.signatures.length, 1);
        const header = JSON.parse(Buffer.from(card.signatures[0].protected, 'base64url').toString('utf8'));
        assert.deepEqual(header, { alg, kid: 'test-key', typ: 'JOSE', jku: server.jwksUrl });
        const jwks = await (await fetch(server.jwksUrl)).json();
        assert.equal(jwks.keys[0].kid, 'test-key');
        assert.equal(jwks.keys[0].d, undefined);
        const verify = verifyAgentCardSignature(async () => crypto.createPublicKey({ key: jwks.keys[0], format: 'jwk' }));
        await verify(card); // the JSON card: what a client receives
      } finally {
        await server.stop();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
