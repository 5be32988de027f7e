#!/usr/bin/env node
// Entry point: `npm start` (configuration from the environment; see README.md).
//
// Prints one "ready" line on stdout once every binding listens; logs go to stderr.
// SIGTERM / SIGINT: running tasks fail with "the server is shutting down", streams and
// the gRPC server close, and the process exits 0 within a few seconds.

import process from 'node:process';

import { ConfigError, loadConfig } from './config.mjs';
import { startServer } from './server.mjs';

const log = (line) => process.stderr.write(`${line}\n`);
// The SDK logs through console.log; keep stdout for the ready line.
console.log = (...parts) => log(parts.map(String).join(' '));
console.info = console.log;

async function main() {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    log(`configuration error: ${err.message}`);
    process.exit(2);
  }
  let server;
  try {
    server = await startServer(config, { log });
  } catch (err) {
    log(`could not start: ${err instanceof ConfigError ? err.message : (err.code ?? err.message)}`);
    process.exit(1);
  }
  const { urls } = server;
  process.stdout.write(`${JSON.stringify({ event: 'ready', ...urls, pid: process.pid })}\n`);
  log(`A2A server ready: card ${urls.cardUrl}${urls.grpcTarget ? `, gRPC ${urls.grpcTarget}` : ''}`);

  const stop = async (signal) => {
    log(`${signal}: shutting down`);
    await server.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((err) => {
  log(err?.stack ?? String(err));
  process.exit(1);
});
