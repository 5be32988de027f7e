#!/usr/bin/env node
// An @a2a-js/sdk client for the replay tests: resolves the card at BASE_URL, picks the
// interface of BINDING (JSONRPC, HTTP+JSON or GRPC), sends TEXT and prints every result
// as one JSON line (sendMessage, or each event of sendMessageStream with --stream).
//
//   node replay_client.mjs BASE_URL BINDING TEXT [--stream]
//
// A failure prints {"error": message} and exits 1.

import crypto from 'node:crypto';
import process from 'node:process';

import { Role } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';

// @a2a-js/sdk 1.3.0 dials the card's gRPC url as is; grpc-js takes host:port, not the
// absolute URL (http://host:port) the 1.0 proto asks cards for.
class HostPortGrpcTransportFactory extends GrpcTransportFactory {
  create(url, agentCard) {
    return super.create(url.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\//, '').replace(/\/$/, ''), agentCard);
  }
}

const [baseUrl, binding, text, ...flags] = process.argv.slice(2);
const factory = new ClientFactory(
  ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new HostPortGrpcTransportFactory()],
    preferredTransports: [binding],
  }),
);
const params = {
  message: {
    messageId: crypto.randomUUID(), contextId: '', taskId: '', role: Role.ROLE_USER,
    extensions: [], referenceTaskIds: [], metadata: undefined,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }] },
};
const show = (value) =>
  JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? v.toString() : v));
try {
  const client = await factory.createFromUrl(baseUrl);
  if (flags.includes('--stream')) {
    for await (const event of client.sendMessageStream(params)) console.log(show(event));
  } else {
    console.log(show(await client.sendMessage(params)));
  }
} catch (err) {
  console.log(show({ error: String(err?.message ?? err) }));
  process.exitCode = 1;
}
