// Assembles the server: card, agent, HTTP and gRPC listeners, and a clean stop.

import http from 'node:http';

import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';

import { loadSigner, publishedCard, readCardJson, servedBindings, servesLegacy, urlsFor } from './card.mjs';
import { ForwardingExecutor } from './executor.mjs';
import { bindGrpc, buildGrpcServer } from './grpc.mjs';
import { makeHandler } from './handler.mjs';
import { buildHttpApp } from './http.mjs';

const SHUTDOWN_GRACE_MS = 3000;

function listen(server, host, port) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address().port);
    });
  });
}

// Starts listening; resolves to { card, urls, close() } once every binding accepts calls.
export async function startServer(config, { log = (line) => process.stderr.write(`${line}\n`), cardJson = readCardJson() } = {}) {
  const served = servedBindings(cardJson);
  const legacy = servesLegacy(cardJson);
  const httpServer = http.createServer();
  const httpPort = await listen(httpServer, config.host, config.port);

  const executor = new ForwardingExecutor(config, makeHandler(config), log);
  // The card names the bound ports, known only after binding; the request handler keeps
  // a reference to the card, so it is completed in place once gRPC is bound.
  let urls = urlsFor(config, httpPort, config.grpcPort);
  const card = publishedCard(cardJson, urls);
  let grpcServer = null;
  let grpcPort = config.grpcPort;
  let signing = null;
  try {
    if (config.signingJwkFile) {
      signing = loadSigner(config.signingJwkFile, `${urls.baseUrl}${config.jwksPath}`);
    }
    const requestHandler = new DefaultRequestHandler(
      card,
      new InMemoryTaskStore(),
      executor,
      undefined, // default event bus manager
      undefined, // no push notification store: the card does not offer push
      undefined,
      undefined, // no extended card
      signing?.signer,
    );
    if (served.has('GRPC')) {
      grpcServer = buildGrpcServer({ config, requestHandler, legacy });
      grpcPort = await bindGrpc(grpcServer, config.host, config.grpcPort);
      urls = urlsFor(config, httpPort, grpcPort);
      Object.assign(card, publishedCard(cardJson, urls));
    }
    httpServer.on('request', buildHttpApp({ config, requestHandler, served, legacy, jwks: signing?.jwks }));
  } catch (err) {
    httpServer.close();
    grpcServer?.forceShutdown();
    throw err;
  }

  let closing = null;
  const close = (reason = 'the server is shutting down') => {
    closing ??= new Promise((resolve) => {
      executor.abortAll(reason);
      let pending = grpcServer ? 2 : 1;
      const done = () => {
        pending -= 1;
        if (pending === 0) {
          clearTimeout(force);
          clearInterval(idle);
          resolve();
        }
      };
      // A keep-alive connection whose stream has just ended is closed as soon as it is
      // idle; streams still open after the grace period are cut.
      const idle = setInterval(() => httpServer.closeIdleConnections(), 50);
      const force = setTimeout(() => {
        httpServer.closeAllConnections();
        grpcServer?.forceShutdown();
      }, SHUTDOWN_GRACE_MS);
      force.unref();
      httpServer.close(done);
      grpcServer?.tryShutdown(done);
    });
    return closing;
  };

  return {
    card,
    urls: {
      ...urls,
      cardUrl: `${urls.baseUrl}/.well-known/agent-card.json`,
      // Where this process listens (differs from the card's URLs behind a proxy).
      listening: urlsFor({ ...config, publicUrl: null, publicGrpc: null }, httpPort, grpcPort),
      jwksUrl: signing ? `${urls.baseUrl}${config.jwksPath}` : null,
      grpcTarget: grpcServer ? urls.grpcTarget : null,
    },
    signing: signing ? { alg: signing.alg, kid: signing.kid } : null,
    close,
  };
}
