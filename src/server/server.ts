// Runs the HTTPS webhook and the plain-HTTP health/metrics listener, follows certificate files,
// and drains on shutdown: readiness goes false, in-flight requests finish, then the sockets close.
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { AdmissionChain } from '../admission/chain.ts';
import { defaultMaxConnections } from '../config/serve-config.ts';
import type { AdmissionMetrics } from '../observability/metrics.ts';
import type { Logger } from '../ports/logger.ts';
import { createHealthApp } from './health-app.ts';
import { CertificateWatcher, type KeyPair, readKeyPair, servingTlsOptions } from './tls.ts';
import { createWebhookApp, type WebhookAppOptions } from './webhook-app.ts';

export interface ServerOptions {
  host?: string;
  port: number;
  metricsPort: number;
  certFile: string;
  keyFile: string;
  /**
   * CA bundle (PEM) that callers' client certificates must chain to; when set, a caller without
   * one is refused at the TLS handshake. Re-read with the serving certificate.
   */
  clientCaFile?: string | undefined;
  chain: AdmissionChain;
  logger: Logger;
  metrics: AdmissionMetrics;
  requestTimeoutMs: number;
  /** Reasons the backend (caches, discovery) is not ready yet; [] when ready. */
  backendNotReady: () => string[];
  /** How long readiness stays false before we stop accepting, so endpoints drop us first. */
  shutdownDelayMs: number;
  /** The longest we wait for in-flight requests once we stop accepting. */
  drainTimeoutMs: number;
  certificatePollIntervalMs?: number;
  /** Whether answers wait for the loop's check phase (webhook-app.ts); Node's own loop accounting by default. */
  loopLoad?: WebhookAppOptions['loopLoad'];
  /** Bodies larger than this are refused (webhook-app.ts). */
  maxBodyBytes?: number;
  /** The estimated heap all requests in flight may hold together (webhook-app.ts). */
  maxInFlightBytes?: number;
  /** A full garbage collection for the in-flight budget (webhook-app.ts); V8's own by default. */
  collectGarbage?: () => void;
  /** Connections beyond this many are closed as they arrive (default 500). */
  maxConnections?: number;
  /** A connection must send a request's headers within this time of opening, or of its last answer's keep-alive ending (default 10 s). */
  headersTimeoutMs?: number;
}

export interface RunningServer {
  readonly port: number;
  readonly metricsPort: number;
  readonly draining: boolean;
  notReadyReasons(): string[];
  /** Stops gracefully: readiness false, wait, finish in-flight requests, close. */
  shutdown(): Promise<void>;
}

// kube-apiserver keeps idle webhook connections for about 90 s; closing ours sooner makes it
// reuse a dead socket and report EOF errors.
const keepAliveTimeoutMs = 120_000;
// A connection must finish its TLS handshake, and then send a request's headers, within 10 s:
// kube-apiserver does both at once, and a connection that sends nothing only holds memory
// (about 48 KiB each). Node checks these every second rather than every 30.
const handshakeTimeoutMs = 10_000;
const headersTimeoutMs = 10_000;
const connectionsCheckingIntervalMs = 1_000;

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const { logger, metrics } = options;
  const pair = await readKeyPair(options.certFile, options.keyFile, options.clientCaFile);
  metrics.certificateExpiry.set(pair.notAfter / 1000);
  let draining = false;

  const notReadyReasons = (): string[] => {
    const reasons = draining ? ['shutting down'] : [];
    return [...reasons, ...options.backendNotReady()];
  };

  const webhookApp = createWebhookApp({
    chain: options.chain,
    logger,
    metrics,
    requestTimeoutMs: options.requestTimeoutMs,
    isDraining: () => draining,
    ...(options.loopLoad ? { loopLoad: options.loopLoad } : {}),
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
    ...(options.maxInFlightBytes !== undefined ? { maxInFlightBytes: options.maxInFlightBytes } : {}),
    ...(options.collectGarbage !== undefined ? { collectGarbage: options.collectGarbage } : {}),
  });
  const clientAuth = options.clientCaFile !== undefined;
  const https: HttpsServer = createHttpsServer(
    {
      ...servingTlsOptions(pair),
      // Only a caller with a certificate from the client CA gets past the handshake.
      requestCert: clientAuth,
      rejectUnauthorized: clientAuth,
      handshakeTimeout: handshakeTimeoutMs,
      connectionsCheckingInterval: connectionsCheckingIntervalMs,
      headersTimeout: options.headersTimeoutMs ?? headersTimeoutMs,
      // The whole request, body included, within the deadline and a margin (past the deadline
      // nobody waits for the answer anyway).
      requestTimeout: options.requestTimeoutMs + (options.headersTimeoutMs ?? headersTimeoutMs),
      keepAliveTimeout: keepAliveTimeoutMs,
    },
    webhookApp,
  );
  https.maxConnections = options.maxConnections ?? defaultMaxConnections;
  closeSilentConnections(https, options.headersTimeoutMs ?? headersTimeoutMs);
  https.on('drop', () => metrics.droppedConnections.inc());
  https.on('tlsClientError', () => metrics.tlsHandshakeFailures.inc());

  const watcher = new CertificateWatcher({
    certFile: options.certFile,
    keyFile: options.keyFile,
    logger,
    pollIntervalMs: options.certificatePollIntervalMs ?? 10_000,
    ...(options.clientCaFile !== undefined ? { clientCaFile: options.clientCaFile } : {}),
    onReload: (next: KeyPair) => {
      https.setSecureContext(servingTlsOptions(next));
      metrics.certificateExpiry.set(next.notAfter / 1000);
      metrics.certificateReloads.inc({ result: 'success' });
    },
    onError: () => metrics.certificateReloads.inc({ result: 'error' }),
  });

  const health: HttpServer = createHttpServer(createHealthApp({ readiness: { reasons: notReadyReasons }, registry: metrics.registry }));
  health.keepAliveTimeout = 65_000;

  await listen(https, options.port, options.host);
  try {
    await listen(health, options.metricsPort, options.host);
  } catch (error) {
    https.close();
    throw error;
  }
  // After start-up a server error (e.g. accept failing with EMFILE) is logged, never left to crash.
  for (const [name, server] of [
    ['webhook', https],
    ['health', health],
  ] as const) {
    server.on('error', (error: Error) => logger.error({ err: error.message, server: name }, 'server error'));
  }
  watcher.start(pair);
  const port = (https.address() as AddressInfo).port;
  const metricsPort = (health.address() as AddressInfo).port;
  logger.info({ port, metricsPort, plugins: options.chain.entries.map((e) => `${e.plugin.name}:${e.mode}`) }, 'admission-chain serving');

  let shutdownPromise: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    shutdownPromise ??= (async () => {
      draining = true;
      logger.info({ delayMs: options.shutdownDelayMs }, 'draining: readiness is now false');
      if (options.shutdownDelayMs > 0) await new Promise((r) => setTimeout(r, options.shutdownDelayMs));
      watcher.stop();
      const closed = new Promise<void>((resolve) => https.close(() => resolve()));
      https.closeIdleConnections();
      const forced = setTimeout(() => {
        logger.warn('drain timeout reached; closing remaining connections');
        https.closeAllConnections();
      }, options.drainTimeoutMs);
      await closed;
      clearTimeout(forced);
      await new Promise<void>((resolve) => {
        health.close(() => resolve());
        health.closeAllConnections();
      });
      logger.info('drained; bye');
    })();
    return shutdownPromise;
  };

  return {
    port,
    metricsPort,
    get draining() {
      return draining;
    },
    notReadyReasons,
    shutdown,
  };
}

/**
 * Node's headersTimeout starts with a request's first byte, so a connection that completes its
 * handshake and then sends nothing would stay open for good. It gets the same time for its first
 * request; after that, keep-alive (kube-apiserver reuses connections) governs the gaps.
 */
function closeSilentConnections(server: HttpsServer, timeoutMs: number): void {
  const waitingForFirst = new WeakSet<object>();
  server.on('secureConnection', (socket) => {
    waitingForFirst.add(socket);
    socket.setTimeout(timeoutMs);
  });
  server.on('request', (req) => {
    if (!waitingForFirst.delete(req.socket)) return;
    req.socket.setTimeout(0);
  });
}

function listen(server: HttpServer | HttpsServer, port: number, host: string | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(new Error(`cannot listen on ${host ?? '*'}:${port}: ${error.message}`));
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}
