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
import { LoopLoad } from './loop-load.ts';
import { send } from './send.ts';

export const maxBodyBytes = 7 * 1024 * 1024;
const json = 'application/json; charset=utf-8';

export interface WebhookAppOptions {
  chain: AdmissionChain;
  logger: Logger;
  metrics: AdmissionMetrics;
  requestTimeoutMs: number;
  /** True once shutdown has begun: answers then close their connection, so keep-alive ends. */
  isDraining?: () => boolean;
  /** Whether the event loop is busy enough for answers to wait for the check phase; one per app by default. */
  loopLoad?: Pick<LoopLoad, 'busy'>;
}

type Webhook = 'mutate' | 'validate';
type ReviewHandler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => Promise<void>;

export function createWebhookApp(options: WebhookAppOptions): RequestListener {
  const loopLoad = options.loopLoad ?? new LoopLoad();
  const handlers: Record<Webhook, ReviewHandler> = {
    mutate: reviewHandler('admit', options, loopLoad),
    validate: reviewHandler('validate', options, loopLoad),
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
    getRawBody(req, { limit: maxBodyBytes, length: req.headers['content-length'] })
      .then(
        (body) => handlers[webhook](req, res, body),
        (error: unknown) => refuseBody(req, res, webhook, error, options),
      )
      .catch((error: unknown) => {
        options.logger.error({ err: error, path: req.url }, 'unexpected error outside admission');
        if (!res.headersSent) sendStatus(res, 500, 'InternalError', 'internal error while reading the request');
        else res.destroy();
      });
  };
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
function refuseBody(req: IncomingMessage, res: ServerResponse, webhook: Webhook, error: unknown, options: WebhookAppOptions): void {
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

function reviewHandler(phase: Phase, options: WebhookAppOptions, loopLoad: Pick<LoopLoad, 'busy'>): ReviewHandler {
  const webhook = phase === 'admit' ? 'mutate' : 'validate';
  return async (req, res, body) => {
    const started = performance.now();
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch (error) {
      options.metrics.badRequests.inc({ webhook, reason: 'not_json' });
      sendStatus(res, 400, 'BadRequest', `request body is not valid JSON: ${(error as Error).message}`);
      return;
    }
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
    const signal = requestSignal(res, options.requestTimeoutMs);
    options.metrics.inFlight[webhook]! += 1;
    try {
      const handled = await handleAdmission(options.chain, phase, request, signal);
      const { response } = handled;
      // On a busy loop the answer is written from the event loop's check phase, once every request
      // that arrived with this one has been read and handled: the answers of one loop turn then
      // leave together instead of one write (and one wake-up of the caller) per read, about 20 %
      // more throughput at saturation on loopback. A loop with idle time answers at once: holding
      // the answer there only makes it wait for the requests that happened to arrive with it,
      // which lengthened the tail at a steady 1,000 req/s (docs/benchmark.md, items 6 and 34).
      if (loopLoad.busy()) await nextLoopTurn();
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
      if (internal) logger.error({ ...fields, reason: response.status?.message }, 'admission failed');
      else if (!response.allowed) logger.info({ ...fields, reason: response.status?.message }, 'admission denied');
      else if (notEnforced !== undefined) logger.info(fields, 'admission allowed; a rejection was not enforced');
      else logger.debug(fields, 'admission allowed');
    } finally {
      options.metrics.inFlight[webhook]! -= 1;
    }
  };
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
 * The request's deadline, also aborted when the caller goes away. A plain timer cleared when the
 * response is done: AbortSignal.timeout would keep every answered request's signal alive for the
 * whole deadline.
 */
function requestSignal(res: ServerResponse, timeoutMs: number): AbortSignal {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('admission request deadline exceeded', 'TimeoutError')), timeoutMs);
  const onClose = () => {
    clearTimeout(timer);
    if (!res.writableFinished) controller.abort(new Error('client closed the connection'));
  };
  res.once('close', onClose);
  return controller.signal;
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
