// A stand-in kube-apiserver started inside the test process: real HTTPS with its own CA, bearer
// token authentication, a route registry, per-endpoint call counts and fault injection, so the real
// @kubernetes/client-node can be exercised end to end without a cluster.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import type { Authorizer } from '../../src/ports/authorizer.ts';
import { generateCertificates } from '../../src/tls/generate.ts';
import { CallLog } from './call-log.ts';
import { type Fault, type FaultOptions, FaultTable } from './faults.ts';
import { kubeconfigYaml } from './kubeconfig.ts';
import { ObjectStore, type ResourceType } from './object-store.ts';
import { resourceRoutes } from './resource-routes.ts';
import { type EventStream, matchRoute, type Route, type RouteResponder } from './routes.ts';
import {
  type ApiStatus,
  badRequest,
  methodNotAllowed,
  pathNotFound,
  serverError,
  statusForCode,
  tooManyRequests,
  unauthorized,
} from './status.ts';
import { subjectAccessReviewRoute } from './subject-access-review.ts';
import { writeRoutes } from './write-routes.ts';

export interface StandInOptions {
  /**
   * Answers SubjectAccessReviews; without one the endpoint is not served. A function is given the
   * stand-in's object store (storeRbacAuthorizer: RBAC over the objects the stand-in serves).
   */
  authorizer?: Authorizer | ((store: ObjectStore) => Authorizer);
  /** Resource types to serve GET/LIST/WATCH for from the object store. */
  resources?: ResourceType[];
  /** Resource types also written through the API: create, update, patch and delete (write-routes.ts). */
  writableResources?: ResourceType[];
  /** Extra routes, matched before the built-in ones. */
  routes?: Route[];
}

export interface StandInApiServer {
  url: string;
  kubeConfig: KubeConfig;
  kubeconfigYaml: string;
  /** The bearer token the kubeconfig carries; other tokens get 401. */
  token: string;
  caCert: string;
  calls: CallLog;
  /** TLS connections accepted so far (to see whether clients reuse connections). */
  readonly connectionCount: number;
  store: ObjectStore;
  /** Injects a fault into the endpoint named route; returns a function that lifts it. */
  inject(route: string, fault: Fault, options?: FaultOptions): () => void;
  clearFaults(route?: string): void;
  addRoute(route: Route): void;
  close(): Promise<void>;
}

const maxBodyBytes = 3 * 1024 * 1024;

export async function startStandInApiServer(options: StandInOptions = {}): Promise<StandInApiServer> {
  const certs = await generateCertificates({ commonName: 'localhost', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  const token = randomBytes(24).toString('hex');
  const calls = new CallLog();
  const faults = new FaultTable();
  const store = new ObjectStore();
  const routes: Route[] = [...(options.routes ?? [])];
  if (options.authorizer !== undefined)
    routes.push(subjectAccessReviewRoute(typeof options.authorizer === 'function' ? options.authorizer(store) : options.authorizer));
  for (const type of options.resources ?? []) routes.push(...resourceRoutes(store, type));
  for (const type of options.writableResources ?? []) routes.push(...resourceRoutes(store, type), ...writeRoutes(store, type));

  const sockets = new Set<Socket>();
  let connectionCount = 0;
  const closing = new AbortController();
  const server: Server = createServer({ cert: certs.cert, key: certs.key }, (req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendStatus(res, serverError(500, String(error)));
      else res.destroy();
    });
  });
  // Like kube-apiserver (Go, IdleTimeout 90 s): no Keep-Alive hint in answers and idle connections
  // kept open; Node's default would hint timeout=5 and close them after 5 s. The client decides.
  server.keepAliveTimeout = 0;
  server.on('secureConnection', () => {
    connectionCount += 1;
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://stand-in');
    const method = req.method ?? 'GET';
    const raw = await readBody(req);
    if (req.headers.authorization !== `Bearer ${token}`) return sendStatus(res, unauthorized());
    const match = matchRoute(routes, method, url.pathname, url.searchParams);
    if (match === undefined) return sendStatus(res, pathNotFound());
    if (match === 'method-not-allowed') return sendStatus(res, methodNotAllowed());
    let body: unknown;
    if (raw === 'too-large') return sendStatus(res, badRequest('request entity too large'));
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch (error) {
        return sendStatus(res, badRequest(`the object provided is unrecognized: ${(error as Error).message}`));
      }
    }
    const name = match.route.name;
    calls.record(name, { method, path: url.pathname, query: url.search, headers: req.headers, body });

    const requestGone = new AbortController();
    res.once('close', () => requestGone.abort(new Error('request closed')));
    const signal = AbortSignal.any([requestGone.signal, closing.signal]);

    const fault = faults.take(name);
    if (fault !== undefined) {
      switch (fault.kind) {
        case 'latency':
          await delay(fault.ms, signal);
          if (signal.aborted) return;
          break;
        case 'too-many-requests': {
          const seconds = fault.retryAfterSeconds ?? 1;
          return sendStatus(res, tooManyRequests(seconds), seconds > 0 ? { 'Retry-After': String(seconds) } : {});
        }
        case 'status':
          return sendStatus(res, statusForCode(fault.code, fault.message ?? 'injected failure'));
        case 'server-error':
          return sendStatus(res, serverError(fault.code ?? 500, fault.message ?? 'injected failure'));
        case 'drop-connection':
          req.socket.destroy();
          return;
        case 'hang':
          // Held open on purpose; close() destroys the socket.
          return;
      }
    }
    await match.route.handle(
      { method, path: url.pathname, params: match.params, query: url.searchParams, headers: req.headers, body, signal },
      responder(res),
    );
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('stand-in API server has no TCP address');
  const url = `https://127.0.0.1:${address.port}`;
  const yaml = kubeconfigYaml({ server: url, caCert: certs.caCert, token });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(yaml);

  let closed: Promise<void> | undefined;
  return {
    url,
    kubeConfig,
    kubeconfigYaml: yaml,
    token,
    caCert: certs.caCert,
    calls,
    get connectionCount() {
      return connectionCount;
    },
    store,
    inject: (route, fault, faultOptions) => faults.add(route, fault, faultOptions),
    clearFaults: (route) => faults.clear(route),
    addRoute: (route) => routes.unshift(route),
    close() {
      closed ??= new Promise<void>((resolve) => {
        closing.abort(new Error('stand-in API server closing'));
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

function responder(res: ServerResponse): RouteResponder {
  return {
    json: (code, body, headers) => sendJson(res, code, body, headers),
    status: (status, headers) => sendStatus(res, status, headers),
    stream(): EventStream {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
      res.flushHeaders();
      return {
        send: (value) => {
          if (!res.writableEnded && !res.destroyed) res.write(`${JSON.stringify(value)}\n`);
        },
        end: () => {
          if (!res.writableEnded && !res.destroyed) res.end();
        },
        get closed() {
          return res.writableEnded || res.destroyed;
        },
      };
    },
  };
}

function sendJson(res: ServerResponse, code: number, body: unknown, headers: Record<string, string | string[]> = {}): void {
  if (res.destroyed || res.writableEnded) return;
  const payload = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload), ...headers });
  res.end(payload);
}

function sendStatus(res: ServerResponse, status: ApiStatus, headers?: Record<string, string>): void {
  sendJson(res, status.code, status, headers);
}

async function readBody(req: IncomingMessage): Promise<string | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBodyBytes) return 'too-large';
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
