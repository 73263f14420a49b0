// Shared plumbing for calls to kube-apiserver through @kubernetes/client-node: a deadline per call
// (the caller's AbortSignal carried into undici), one reused connection pool per TLS identity
// (client-node builds a fresh undici Agent, so a fresh TLS handshake, for every request), a
// lighter transport than client-node's fetch (undiciRequests), and errors described the way
// client-go prints them.
import { statSync } from 'node:fs';
import type { AgentOptions, RequestOptions } from 'node:https';
import { Readable } from 'node:stream';
import {
  ApiException,
  type ConfigurationOptions,
  type HttpLibrary,
  type KubeConfig,
  Observable,
  type ObservableMiddleware,
  type RequestContext,
  type ResponseBody,
  ResponseContext,
} from '@kubernetes/client-node';
import { Agent, request, type Dispatcher as UndiciDispatcher } from 'undici';

type Dispatcher = NonNullable<ReturnType<RequestContext['getDispatcher']>>;

/**
 * How long an idle connection to the API server is kept. undici's default is 4 s, so answers
 * refreshed every few seconds (SubjectAccessReview TTLs are 10 s) each paid a new TLS handshake on
 * both sides. client-go keeps idle connections 90 s and kube-apiserver closes them after 90 s; we
 * stay below that so the server never closes a connection we are about to use.
 */
export const idleConnectionMs = 60_000;

export interface KubeRequests {
  /** Per-call client-node options: the call aborts with signal, reuses the shared pool, and is sent by undiciRequests. */
  options(signal?: AbortSignal): ConfigurationOptions<ObservableMiddleware>;
  /** Closes the shared connection pool (in-flight calls finish first). */
  close(): Promise<void>;
}

/** Why client-node's per-request dispatcher is destroyed unused (never thrown or shown to anyone). */
const unusedDispatcher = Object.freeze(new Error('replaced by the shared connection pool before use'));

export function createKubeRequests(kubeConfig: KubeConfig): KubeRequests {
  let shared: { fingerprint: string; dispatcher: Promise<Dispatcher> } | undefined;

  // Runs after client-node applied authentication (which built this request's own dispatcher):
  // one pool per TLS identity serves every request, and a changed identity (rotated client
  // certificate, edited kubeconfig) replaces it.
  async function reuseConnections(context: RequestContext): Promise<void> {
    const built = context.getDispatcher();
    if (built === undefined) return;
    const fingerprint = tlsFingerprint(kubeConfig);
    if (shared?.fingerprint !== fingerprint) {
      const previous = shared;
      shared = {
        fingerprint,
        dispatcher: ownPool(kubeConfig).then(
          (own) => own ?? built,
          () => built,
        ),
      };
      if (previous !== undefined) void previous.dispatcher.then((d) => d.close()).catch(() => {});
    }
    const dispatcher = await shared.dispatcher;
    context.setDispatcher(dispatcher);
    // The per-request dispatcher never connected, so there is nothing to drain: destroy it with one
    // shared reason. close() would build undici's ClientDestroyedError, stack trace included, for
    // every request (measured at about 3 % of the CPU of a burst of uncached SubjectAccessReviews).
    if (dispatcher !== built) void built.destroy(unusedDispatcher).catch(() => {});
  }

  return {
    options(signal) {
      const middleware: ObservableMiddleware = {
        pre(context: RequestContext) {
          return new Observable(
            reuseConnections(context).then(() => {
              if (signal !== undefined) context.setSignal(signal);
              return context;
            }),
          );
        },
        post(response: ResponseContext) {
          return new Observable(Promise.resolve(response));
        },
      };
      return { middleware: [middleware], middlewareMergeStrategy: 'append', httpApi: undiciRequests };
    },
    async close() {
      const current = shared;
      shared = undefined;
      await current?.dispatcher.then((d) => d.close()).catch(() => {});
    },
  };
}

/**
 * client-node's transport, sent with undici's request() instead of its fetch(). client-node's
 * default library sends every call through fetch: WHATWG Request, Headers, Response and body
 * streams per call, about 0.33 ms of our CPU for one SubjectAccessReview on loopback and most of
 * the garbage of a burst of uncached ones. This one gives client-node the same ResponseContext —
 * status, headers (lower-case names, repeated values joined as fetch joins them) and the body as
 * text, bytes or a stream — over the dispatcher the middleware chose, with the call's signal.
 * Two differences from fetch: redirects are not followed (the API server answers API calls
 * itself), and no Accept-Encoding is offered, so the informers' large lists arrive uncompressed
 * (client-go asks for gzip): more bytes on the wire, no decompression here.
 */
export const undiciRequests: HttpLibrary = {
  send(context: RequestContext) {
    return new Observable(sendWithUndici(context));
  },
};

async function sendWithUndici(context: RequestContext): Promise<ResponseContext> {
  const body = context.getBody();
  // Every call we make sends JSON or nothing; a form would need fetch's encoding and content type.
  if (body !== undefined && typeof body !== 'string') throw new Error('undiciRequests sends JSON text bodies only, not forms');
  const response = await request(context.getUrl(), {
    method: context.getHttpMethod() as UndiciDispatcher.HttpMethod,
    headers: context.getHeaders(),
    body,
    signal: context.getSignal(),
    dispatcher: context.getDispatcher() as UndiciDispatcher | undefined,
  });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const received = response.body;
  return new ResponseContext(response.statusCode, headers, {
    text: () => received.text(),
    binary: async () => Buffer.from(await received.arrayBuffer()),
    stream: () => Readable.toWeb(received) as unknown as ReturnType<ResponseBody['stream']>,
  });
}

/**
 * A pool with client-node's own TLS settings for the current context (client-node's public
 * applyToHTTPSOptions and createDispatcherOptions, so certificates from exec plugins are included)
 * that keeps idle connections for idleConnectionMs. Proxied clusters keep client-node's dispatcher.
 */
async function ownPool(kubeConfig: KubeConfig): Promise<Dispatcher | undefined> {
  const https: RequestOptions = {};
  await kubeConfig.applyToHTTPSOptions(https);
  const options = kubeConfig.createDispatcherOptions(kubeConfig.getCurrentCluster(), https as AgentOptions);
  if (options.type !== 'agent') return undefined;
  return new Agent({
    connect: options.connect,
    keepAliveTimeout: idleConnectionMs,
    keepAliveMaxTimeout: idleConnectionMs,
  }) as unknown as Dispatcher;
}

/** What determines the TLS connection: server, CA, client certificate (file contents by mtime). */
function tlsFingerprint(kubeConfig: KubeConfig): string {
  const cluster = kubeConfig.getCurrentCluster();
  const user = kubeConfig.getCurrentUser();
  const fileVersion = (path: string | undefined) => {
    if (path === undefined) return undefined;
    try {
      return `${path}@${statSync(path).mtimeMs}`;
    } catch {
      return path;
    }
  };
  return JSON.stringify([
    cluster?.server,
    cluster?.caData,
    fileVersion(cluster?.caFile),
    cluster?.skipTLSVerify,
    cluster?.tlsServerName,
    cluster?.proxyUrl,
    user?.name,
    user?.certData,
    fileVersion(user?.certFile),
    user?.keyData,
    fileVersion(user?.keyFile),
  ]);
}

export { raceWithSignal } from '../../../util/signals.ts';

export function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

interface StatusBody {
  kind?: string;
  message?: string;
  reason?: string;
  details?: { retryAfterSeconds?: number };
}

/** The metav1.Status in an ApiException's body, if the server sent one. */
export function statusOf(error: ApiException<unknown>): StatusBody | undefined {
  let body = error.body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  if (typeof body === 'object' && body !== null && (body as StatusBody).kind === 'Status') return body as StatusBody;
  return undefined;
}

/** The lowest-level error code under a fetch failure (undici wraps the socket error in `cause`). */
function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  let code: string | undefined;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const own = (current as { code?: unknown }).code;
    if (typeof own === 'string') code = own;
    current = current.cause;
  }
  return code;
}

function innermostMessage(error: unknown): string {
  let current: unknown = error;
  let message = String(error);
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    message = current.message;
    current = current.cause;
  }
  return message;
}

/**
 * client-go's text for a failed call: the Status message for an API error, otherwise Go's
 * url.Error form, `Post "<url>": context deadline exceeded`.
 */
export function describeKubeError(error: unknown, method: string, url: string): string {
  if (error instanceof ApiException) {
    const status = statusOf(error);
    if (status?.message) return status.message;
    return `the server responded with the status code ${error.code} but did not return more information`;
  }
  if (isAbort(error)) return `${method} ${JSON.stringify(url)}: ${isTimeout(error) ? 'context deadline exceeded' : 'context canceled'}`;
  return `${method} ${JSON.stringify(url)}: ${innermostMessage(error)}`;
}

/** A short, bounded label for metrics: the HTTP code, or "timeout", "canceled", "network". */
export function errorCode(error: unknown): string {
  if (error instanceof ApiException) return String(error.code);
  if (isAbort(error)) return isTimeout(error) ? 'timeout' : 'canceled';
  return 'network';
}

const connectionResetCodes = new Set(['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE']);

/**
 * Whether a failed call is worth retrying, as upstream's webhook helper decides
 * (apiserver pkg/util/webhook DefaultShouldRetry): a reset connection, an InternalError (500),
 * a Timeout (504), TooManyRequests (429), or any answer suggesting a delay (Retry-After or
 * details.retryAfterSeconds). afterMs is the suggested delay (0 when none).
 */
export function retryHint(error: unknown): { retry: false } | { retry: true; afterMs: number } {
  if (error instanceof ApiException) {
    const status = statusOf(error);
    const headerSeconds = Number(error.headers?.['retry-after']);
    const suggestedSeconds =
      Number.isFinite(headerSeconds) && headerSeconds > 0 ? headerSeconds : (status?.details?.retryAfterSeconds ?? 0);
    const reason = status?.reason;
    const transient =
      error.code === 429 ||
      reason === 'TooManyRequests' ||
      reason === 'InternalError' ||
      reason === 'Timeout' ||
      (status === undefined && (error.code === 500 || error.code === 504));
    if (transient || suggestedSeconds > 0) return { retry: true, afterMs: suggestedSeconds * 1000 };
    return { retry: false };
  }
  if (isAbort(error)) return { retry: false };
  const code = causeCode(error);
  return code !== undefined && connectionResetCodes.has(code) ? { retry: true, afterMs: 0 } : { retry: false };
}
