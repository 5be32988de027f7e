// The gRPC side: the SDK's A2A service, every call checked for the bearer token
// (metadata "authorization: Bearer <token>").

import * as grpc from '@grpc/grpc-js';

import { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';
import { LegacyA2AService, legacyGrpcService } from '@a2a-js/sdk/compat/v0_3/server/grpc';

import { bearerOk } from './http.mjs';

function unauthenticated() {
  return { code: grpc.status.UNAUTHENTICATED, details: 'Missing or invalid bearer token', metadata: new grpc.Metadata() };
}

function guard(definition, impl, token) {
  const guarded = {};
  for (const [name, handler] of Object.entries(impl)) {
    const method = definition[name];
    if (typeof handler !== 'function' || !method) {
      guarded[name] = handler;
      continue;
    }
    const ok = (call) => bearerOk(call.metadata.get('authorization')[0], token);
    guarded[name] = method.responseStream
      ? (call) => (ok(call) ? handler(call) : call.emit('error', unauthenticated()))
      : (call, callback) => (ok(call) ? handler(call, callback) : callback(unauthenticated()));
  }
  return guarded;
}

export function buildGrpcServer({ config, requestHandler, legacy }) {
  const server = new grpc.Server({
    'grpc.max_receive_message_length': config.maxBodyBytes,
  });
  const userBuilder = async () => ({ isAuthenticated: true, userName: 'bearer' });
  server.addService(A2AService, guard(A2AService, grpcService({ requestHandler, userBuilder }), config.token));
  if (legacy) {
    server.addService(
      LegacyA2AService,
      guard(LegacyA2AService, legacyGrpcService({ requestHandler, userBuilder }), config.token),
    );
  }
  return server;
}

export function bindGrpc(server, host, port) {
  return new Promise((resolve, reject) => {
    server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(err) : resolve(bound),
    );
  });
}
