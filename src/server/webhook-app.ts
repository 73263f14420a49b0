// The HTTPS webhook endpoints: POST /mutate and POST /validate. Three thin layers
// (controller-runtime's shape): bounded body decoding here, the typed handler in
// admission/handler.ts, and one place that writes the response.
//
// A plain node:https request listener with raw-body (the body reader express itself uses), not an
// express app: two fixed routes need no router, and on loopback express's routing and response
// helpers cost about a third of a bare handler's throughput (docs/benchmark.md).
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import getRawBody from 'raw-body';
import type { AdmissionChain, Phase } from '../admission/chain.ts';
import { handleAdmission } from '../admission/handler.ts';
import { BadReviewError, decodeReview, responseReview, type AdmissionRequest, type AdmissionReview } from '../admission/review.ts';
import type { AdmissionMetrics } from '../observability/metrics.ts';
import type { Logger } from '../ports/logger.ts';
import { parseDuration } from '../config/duration.ts';
import { Budget, type Release } from '../util/budget.ts';
import { isPromiseLike } from '../util/maybe-async.ts';
import { jsonShape, maxNestingDepth, parsedBytes, type JsonShape } from './json-weight.ts';
import { LoopLoad } from './loop-load.ts';
import { send } from './send.ts';

/**
 * controller-runtime's limit, for the same reason: an UPDATE's review carries the object and the
 * old object, each up to kube-apiserver's 3 MiB request limit, and the envelope around them.
 */
export const defaultMaxBodyBytes = 7 * 1024 * 1024;
/** Heap the requests at work may hold together, as estimated from their bodies (json-weight.ts). */
export const defaultMaxInFlightBytes = 160 * 1024 * 1024;
/** Every request holds at least this much: the answer, the log line, its promises. */
const minimumRequestBytes = 64 * 1024;
/** From this estimated heap on (a body of a few hundred KiB), a request yields between its steps. */
const heavyRequestBytes = 8 * 1024 * 1024;
const json = 'application/json; charset=utf-8';

export interface WebhookAppOptions {
  chain: AdmissionChain;
  logger: Logger;
  metrics: AdmissionMetrics;
  requestTimeoutMs: number;
  /** Larger bodies are refused with 413 before they are read (default 7 MiB). */
  maxBodyBytes?: number;
  /**
   * The estimated heap of all requests being handled at once (default 160 MiB). A request that
   * does not fit waits, in arrival order, until it does or its deadline passes; one that would not
   * fit even alone is refused with 413. Bodies being read hold their size from a quarter of it
   * (at least two of the largest bodies), so reading is bounded too.
   */
  maxInFlightBytes?: number;
  /** True once shutdown has begun: answers then close their connection, so keep-alive ends. */
  isDraining?: () => boolean;
  /** Whether the event loop is busy enough for answers to wait for the check phase; one per app by default. */
  loopLoad?: Pick<LoopLoad, 'busy'>;
}

type Webhook = 'mutate' | 'validate';
type ReviewHandler = (req: IncomingMessage, res: ServerResponse, body: Buffer, deadline: Deadline, releaseBody: Release) => Promise<void>;

/** The request's deadline: a signal for waiting, a time (performance.now()) for synchronous work. */
interface Deadline {
  readonly signal: AbortSignal;
  readonly expiresAt: number;
}

/** What the requests in flight may hold, and what waits for room. */
interface Limits {
  readonly maxBodyBytes: number;
  /** Bodies being read and not yet parsed, by their size. */
  readonly reading: Budget;
  /** Requests at work, by the heap their bodies will take (json-weight.ts). */
  readonly working: Budget;
}

export function createWebhookApp(options: WebhookAppOptions): RequestListener {
  const loopLoad = options.loopLoad ?? new LoopLoad();
  const maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes;
  const working = new Budget(options.maxInFlightBytes ?? defaultMaxInFlightBytes);
  // Separate budgets, so a request holding its body while it waits to work never blocks one at work.
  const limits: Limits = { maxBodyBytes, reading: new Budget(Math.max(2 * maxBodyBytes, working.capacity / 4)), working };
  options.metrics.load.source = { inFlightBytes: () => working.used, waiting: () => working.waiting + limits.reading.waiting };
  const handlers: Record<Webhook, ReviewHandler> = {
    mutate: reviewHandler('admit', options, loopLoad, limits),
    validate: reviewHandler('validate', options, loopLoad, limits),
  };
  return (req, res) => {
    // kube-apiserver would otherwise keep sending on a pooled connection until it is cut mid-request.
    if (options.isDraining?.()) res.setHeader('Connection', 'close');
    const webhook = req.method === 'POST' ? webhookOf(req.url) : undefined;
    if (webhook === undefined) {
      sendStatus(res, 404, 'NotFound', 'not found: the webhook serves POST /mutate and POST /validate');
      return;
    }
    // The content type is checked before the body is read.
    const type = contentType(req);
    if (type !== 'application/json') {
      sendStatus(res, 400, 'BadRequest', `content type must be application/json, got ${JSON.stringify(req.headers['content-type'] ?? '')}`);
      return;
    }
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
      options.metrics.badRequests.inc({ webhook, reason: 'unreadable' });
      sendStatus(res, 400, 'BadRequest', `cannot read request body: unsupported content encoding ${JSON.stringify(encoding)}`);
      return;
    }
    // The deadline runs from arrival: time spent waiting for room counts, as it does for the caller.
    const deadline = requestDeadline(res, Math.min(options.requestTimeoutMs, callerTimeoutMs(req.url)));
    const declared = declaredLength(req);
    if (declared !== undefined && declared > maxBodyBytes) {
      refuseBody(req, res, webhook, Object.assign(new Error('too large'), { type: 'entity.too.large' }), options, maxBodyBytes);
      return;
    }
    // A body of unknown length may be as large as the limit allows.
    const reading = acquire(limits.reading, declared ?? maxBodyBytes, deadline.signal);
    const read = (releaseBody: Release) => {
      // A body that has not arrived by the deadline never will in time: stop reading, close.
      const stopReading = () => req.destroy();
      deadline.signal.addEventListener('abort', stopReading, { once: true });
      return getRawBody(req, { limit: maxBodyBytes, length: req.headers['content-length'] }).then(
        (body) => {
          deadline.signal.removeEventListener('abort', stopReading);
          return handlers[webhook](req, res, body, deadline, releaseBody);
        },
        (error: unknown) => {
          deadline.signal.removeEventListener('abort', stopReading);
          releaseBody();
          refuseBody(req, res, webhook, error, options, maxBodyBytes);
        },
      );
    };
    (isPromiseLike(reading) ? reading.then(read, (reason: unknown) => refuseWaiting(req, res, webhook, reason, options)) : read(reading)).catch((error: unknown) => {
      options.logger.error({ err: error, path: req.url }, 'unexpected error outside admission');
      if (!res.headersSent) sendStatus(res, 500, 'InternalError', 'internal error while reading the request');
      else res.destroy();
    });
  };
}

function acquire(budget: Budget, amount: number, signal: AbortSignal): Release | Promise<Release> {
  try {
    return budget.acquire(amount, signal);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * How long kube-apiserver waits for us: it calls with ?timeout=<the webhook's timeoutSeconds>.
 * Nine tenths of it, so the answer leaves before the caller gives up; no limit without one.
 */
function callerTimeoutMs(url: string | undefined): number {
  const query = url?.indexOf('?') ?? -1;
  if (query < 0) return Number.POSITIVE_INFINITY;
  const timeout = new URLSearchParams(url!.slice(query + 1)).get('timeout');
  if (timeout === null) return Number.POSITIVE_INFINITY;
  try {
    return Math.max(1, Math.floor(parseDuration(timeout) * 0.9));
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** The Content-Length the caller declared, when it declared one that is a number. */
function declaredLength(req: IncomingMessage): number | undefined {
  const header = req.headers['content-length'];
  if (header === undefined || !/^\d+$/.test(header)) return undefined;
  return Number(header);
}

/**
 * A request whose deadline passed (or whose caller left) while it waited for room. kube-apiserver
 * counts an HTTP error as the webhook failing, as it would count a timeout, and applies the
 * webhook's failurePolicy; the answer only says why sooner.
 */
function refuseWaiting(req: IncomingMessage, res: ServerResponse, webhook: Webhook, reason: unknown, options: WebhookAppOptions): void {
  if (res.destroyed || res.headersSent) return;
  options.metrics.badRequests.inc({ webhook, reason: 'overloaded' });
  options.logger.warn({ path: req.url, err: reason instanceof Error ? reason.message : String(reason) }, 'request waited for room past its deadline');
  res.setHeader('Retry-After', '1');
  sendStatus(res, 503, 'ServiceUnavailable', 'admission-chain is at its in-flight limit: no room for this request before its deadline');
  req.resume();
}

/** The webhook a request URL names (the query, e.g. kube-apiserver's ?timeout=10s, ignored). */
function webhookOf(url: string | undefined): Webhook | undefined {
  if (url === undefined) return undefined;
  const query = url.indexOf('?');
  let path = query < 0 ? url : url.slice(0, query);
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return path === '/mutate' ? 'mutate' : path === '/validate' ? 'validate' : undefined;
}

/**
 * A body that could not be read: too large, cut short, or of a declared length it did not have.
 * The rest of the request is read off first (as express does), so the caller gets the answer
 * rather than a reset connection.
 */
function refuseBody(req: IncomingMessage, res: ServerResponse, webhook: Webhook, error: unknown, options: WebhookAppOptions, maxBodyBytes: number): void {
  const type = (error as { type?: string }).type;
  let answer: [code: number, reason: string, message: string];
  if (type === 'entity.too.large') {
    options.metrics.badRequests.inc({ webhook, reason: 'too_large' });
    answer = [413, 'RequestEntityTooLarge', `request body is larger than ${maxBodyBytes} bytes`];
  } else if (type === 'request.aborted' || type === 'request.size.invalid') {
    options.metrics.badRequests.inc({ webhook, reason: 'unreadable' });
    answer = [400, 'BadRequest', `cannot read request body: ${(error as Error).message}`];
  } else {
    options.logger.error({ err: error, path: req.url }, 'unexpected error outside admission');
    answer = [500, 'InternalError', 'internal error while reading the request'];
  }
  const send = () => {
    if (!res.headersSent && !res.destroyed) sendStatus(res, ...answer);
  };
  if (req.complete || req.destroyed) {
    send();
    return;
  }
  req.once('end', send);
  req.once('close', send);
  req.resume();
}

function contentType(req: IncomingMessage): string {
  const header = req.headers['content-type'] ?? '';
  // kube-apiserver sends exactly this; anything else takes the general path.
  if (header === 'application/json') return header;
  return header.split(';')[0]!.trim().toLowerCase();
}

function reviewHandler(phase: Phase, options: WebhookAppOptions, loopLoad: Pick<LoopLoad, 'busy'>, limits: Limits): ReviewHandler {
  const webhook = phase === 'admit' ? 'mutate' : 'validate';
  return async (req, res, body, deadline, releaseBody) => {
    let releaseWork: Release = () => {};
    try {
      // One pass over the bytes, before JSON.parse allocates anything.
      const shape = jsonShape(body);
      if (shape.depth > maxNestingDepth) {
        options.metrics.badRequests.inc({ webhook, reason: 'too_deep' });
        sendStatus(res, 400, 'BadRequest', `request body is nested deeper than ${maxNestingDepth} levels`);
        return;
      }
      const weight = requestWeight(shape, phase);
      if (weight > limits.working.capacity) {
        options.metrics.badRequests.inc({ webhook, reason: 'too_heavy' });
        sendStatus(res, 413, 'RequestEntityTooLarge', `request body would take about ${mebibytes(weight)} MiB to handle, more than the ${mebibytes(limits.working.capacity)} MiB all requests in flight may hold`);
        return;
      }
      try {
        const granted = limits.working.acquire(weight, deadline.signal);
        releaseWork = isPromiseLike(granted) ? await granted : granted;
      } catch (reason) {
        refuseWaiting(req, res, webhook, reason, options);
        return;
      }
      await handleBody(res, body, deadline, releaseBody, weight >= heavyRequestBytes);
    } finally {
      releaseBody();
      releaseWork();
    }
  };

  async function handleBody(res: ServerResponse, body: Buffer, deadline: Deadline, releaseBody: Release, heavy: boolean): Promise<void> {
    // A heavy request's synchronous steps (parse, the chain, the answer) each take their own turn of
    // the event loop, so probes, scrapes and small requests get in between them, and between one
    // heavy request and the next (a grant after a release would otherwise run at once).
    if (heavy) await nextLoopTurn();
    const started = performance.now();
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch (error) {
      options.metrics.badRequests.inc({ webhook, reason: 'not_json' });
      sendStatus(res, 400, 'BadRequest', `request body is not valid JSON: ${(error as Error).message}`);
      return;
    }
    // The bytes are no longer needed: let the next body in.
    releaseBody();
    let decoded;
    try {
      decoded = decodeReview(parsed);
    } catch (error) {
      if (!(error instanceof BadReviewError)) throw error;
      options.metrics.badRequests.inc({ webhook, reason: 'bad_review' });
      sendStatus(res, 400, 'BadRequest', `invalid AdmissionReview: ${error.message}`);
      return;
    }
    const { request } = decoded;
    options.metrics.inFlight[webhook]! += 1;
    try {
      if (heavy) await nextLoopTurn();
      const handled = await handleAdmission(options.chain, phase, request, deadline.signal, deadline.expiresAt);
      const { response } = handled;
      // On a busy loop the answer is written from the event loop's check phase, once every request
      // that arrived with this one has been read and handled: the answers of one loop turn then
      // leave together instead of one write (and one wake-up of the caller) per read, about 20 %
      // more throughput at saturation on loopback. A loop with idle time answers at once: holding
      // the answer there only makes it wait for the requests that happened to arrive with it,
      // which lengthened the tail at a steady 1,000 req/s (docs/benchmark.md, items 6 and 34).
      if (heavy || loopLoad.busy()) await nextLoopTurn();
      // Answer first; metrics and the log line follow without holding the caller up.
      sendReview(res, responseReview(decoded.apiVersion, response));
      const seconds = (performance.now() - started) / 1000;
      const code = response.status?.code ?? 200;
      options.metrics.stepDuration.observe({ type: phase, operation: request.operation, rejected: String(!response.allowed) }, seconds);
      options.metrics.requests.inc({ webhook, operation: request.operation, allowed: String(response.allowed), code: String(code) });
      for (const { plugin, mode } of handled.outcome.nonEnforced ?? []) options.metrics.nonEnforcedRejections.inc({ name: plugin, mode });
      const internal = response.status?.reason === 'InternalError';
      if (internal) options.metrics.internalErrors.inc({ webhook });
      // Failures at error, denials at info, allowed requests at debug (what Gatekeeper and
      // controller-runtime do): at thousands of requests a second, a line for every allowed one
      // costs a tenth of the throughput and floods the log pipeline; the metrics count them all.
      // A request admitted only because a plugin runs in warn or audit mode is logged at info: it
      // is what a rollout in warn mode is watched for.
      const notEnforced = handled.outcome.nonEnforced?.map(({ plugin, mode }) => `${plugin}:${mode}`);
      const level = internal ? 'error' : !response.allowed || notEnforced !== undefined ? 'info' : 'debug';
      if (!options.logger.isLevelEnabled(level)) return;
      // The request's fields lead the line (as a child logger's bindings would, without building one).
      const fields = {
        ...requestFields(webhook, request),
        decision: response.allowed ? 'allowed' : 'denied',
        code,
        patched: response.patch !== undefined,
        rejectedBy: handled.rejectedBy,
        warnings: response.warnings?.length,
        notEnforced,
        durationMs: Math.round(seconds * 1e6) / 1e3,
      };
      const { logger } = options;
      // A rejection's explanation (the Role and binding that would grant it, as YAML) rides along.
      const explanation = handled.outcome.explanations?.map((e) => e.explained.text).join('---\n');
      if (internal) logger.error({ ...fields, reason: loggedReason(response.status?.message) }, 'admission failed');
      else if (!response.allowed) logger.info({ ...fields, reason: loggedReason(response.status?.message), explanation }, 'admission denied');
      else if (notEnforced !== undefined) logger.info({ ...fields, explanation }, 'admission allowed; a rejection was not enforced');
      else logger.debug(fields, 'admission allowed');
    } finally {
      options.metrics.inFlight[webhook]! -= 1;
    }
  }
}

/** Longer denial messages are cut in the log (the answer keeps them whole). */
export const maxLoggedReasonLength = 2048;

/**
 * A denial's message for the log line: a pod with 50,000 containers is denied with a 7 MB message,
 * which the caller gets whole but a log pipeline should not, once per attempt.
 */
function loggedReason(message: string | undefined): string | undefined {
  if (message === undefined || message.length <= maxLoggedReasonLength) return message;
  return `${message.slice(0, maxLoggedReasonLength)}… (${message.length} characters in all)`;
}

/** Who asked what, for the request's log line (never the object, which may carry secrets). */
function requestFields(webhook: string, request: AdmissionRequest): Record<string, unknown> {
  return {
    uid: request.uid,
    webhook,
    kind: request.kind.kind,
    resource: request.resource.resource,
    subresource: request.subResource,
    namespace: request.namespace,
    name: request.name,
    operation: request.operation,
    user: request.userInfo?.username,
  };
}

/**
 * The request's deadline, its signal also aborted when the caller goes away. A plain timer cleared
 * when the response is done: AbortSignal.timeout would keep every answered request's signal alive
 * for the whole deadline.
 */
function requestDeadline(res: ServerResponse, timeoutMs: number): Deadline {
  const expiresAt = performance.now() + timeoutMs;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('admission request deadline exceeded', 'TimeoutError')), timeoutMs);
  const onClose = () => {
    clearTimeout(timer);
    if (!res.writableFinished) controller.abort(new Error('client closed the connection'));
  };
  res.once('close', onClose);
  return { signal: controller.signal, expiresAt };
}

/** The heap a request is expected to hold: its bytes, their string, the parsed value and, to mutate, the copy. */
function requestWeight(shape: JsonShape, phase: Phase): number {
  const parsed = parsedBytes(shape);
  return Math.max(minimumRequestBytes, 3 * shape.bytes + (phase === 'admit' ? 2 * parsed : parsed));
}

function mebibytes(bytes: number): string {
  return (bytes / 1048576).toFixed(1);
}

function nextLoopTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function sendReview(res: ServerResponse, review: AdmissionReview): void {
  send(res, 200, json, JSON.stringify(review));
}

function sendStatus(res: ServerResponse, code: number, reason: string, message: string): void {
  send(res, code, json, JSON.stringify({ apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', code, reason, message }));
}
