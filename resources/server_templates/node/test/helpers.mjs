// Starts the server as `npm start` does (a child process) on free ports.

import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import http from 'node:http';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../src/main.mjs', import.meta.url));

export const TOKEN = crypto.randomBytes(32).toString('base64url');

export async function startServer(env = {}) {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, A2A_TOKEN: TOKEN, HOST: '127.0.0.1', PORT: '0', GRPC_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const ready = await new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const line = stdout.split('\n').find((l) => l.includes('"ready"'));
      if (line) resolve(JSON.parse(line));
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  });
  return {
    ...ready,
    child,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      return code;
    },
  };
}

// Runs the server expecting it to refuse to start; resolves to { code, stderr }.
export async function refusedStart(env) {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, PORT: '0', GRPC_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const [code] = await once(child, 'exit');
  return { code, stderr };
}

// A stand-in for your HTTP handler: `answer(body)` returns [status, json] or a promise.
export async function startHandler(answer) {
  const received = [];
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    received.push(body);
    const [status, json] = await answer(body, req);
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

export function userMessage(text, extraParts = []) {
  return {
    messageId: crypto.randomUUID(),
    role: 'ROLE_USER',
    parts: [{ text }, ...extraParts],
  };
}

export async function jsonRpc(baseUrl, method, params, { token = TOKEN, headers = {} } = {}) {
  const response = await fetch(`${baseUrl}/`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'a2a-version': '1.0',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return response;
}

// Reads an SSE response into the list of its JSON-RPC results.
export async function sseResults(response) {
  const text = await response.text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice(5)).result);
}
