// The HTTPS webhook endpoints: POST /mutate and POST /validate. Three thin layers
// (controller-runtime's shape): bounded body decoding here, the typed handler in
// admission/handler.ts, and one place that writes the response.
import express, { type NextFunction, type Request, type Response } from 'express';
import type { AdmissionChain, Phase } from '../admission/chain.ts';
import { handleAdmission } from '../admission/handler.ts';
import { BadReviewError, decodeReview, responseReview, type AdmissionRequest, type AdmissionReview } from '../admission/review.ts';
import type { AdmissionMetrics } from '../observability/metrics.ts';
import type { Logger } from '../ports/logger.ts';

export const maxBodyBytes = 7 * 1024 * 1024;

export interface WebhookAppOptions {
  chain: AdmissionChain;
  logger: Logger;
  metrics: AdmissionMetrics;
  requestTimeoutMs: number;
  /** True once shutdown has begun: answers then close their connection, so keep-alive ends. */
  isDraining?: () => boolean;
}

export function createWebhookApp(options: WebhookAppOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const rawBody = express.raw({ type: () => true, limit: maxBodyBytes });
  // The content type is checked before the body is read: one middleware, not one router layer each.
  const readJsonBody = (req: Request, res: Response, next: NextFunction): void => {
    // kube-apiserver would otherwise keep sending on a pooled connection until it is cut mid-request.
    if (options.isDraining?.()) res.setHeader('Connection', 'close');
    const type = contentType(req);
    if (type !== 'application/json') {
      sendStatus(res, 400, 'BadRequest', `content type must be application/json, got ${JSON.stringify(req.headers['content-type'] ?? '')}`);
      return;
    }
    rawBody(req, res, next);
  };
  app.post('/mutate', readJsonBody, reviewHandler('admit', options));
  app.post('/validate', readJsonBody, reviewHandler('validate', options));
  app.use((_req: Request, res: Response) => {
    if (options.isDraining?.()) res.setHeader('Connection', 'close');
    sendStatus(res, 404, 'NotFound', 'not found: the webhook serves POST /mutate and POST /validate');
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const webhook = webhookName(req.path);
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') {
      options.metrics.badRequests.inc({ webhook, reason: 'too_large' });
      return sendStatus(res, 413, 'RequestEntityTooLarge', `request body is larger than ${maxBodyBytes} bytes`);
    }
    if (type === 'request.aborted' || type === 'request.size.invalid' || type === 'encoding.unsupported' || type === 'charset.unsupported') {
      options.metrics.badRequests.inc({ webhook, reason: 'unreadable' });
      return sendStatus(res, 400, 'BadRequest', `cannot read request body: ${(error as Error).message}`);
    }
    options.logger.error({ err: error, path: req.path }, 'unexpected error outside admission');
    sendStatus(res, 500, 'InternalError', 'internal error while reading the request');
  });
  return app;
}

function contentType(req: Request): string {
  const header = req.headers['content-type'] ?? '';
  // kube-apiserver sends exactly this; anything else takes the general path.
  if (header === 'application/json') return header;
  return header.split(';')[0]!.trim().toLowerCase();
}

function reviewHandler(phase: Phase, options: WebhookAppOptions) {
  const webhook = phase === 'admit' ? 'mutate' : 'validate';
  return async (req: Request, res: Response): Promise<void> => {
    const started = process.hrtime.bigint();
    let parsed: unknown;
    try {
      parsed = JSON.parse((req.body as Buffer).toString('utf8'));
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
    const signal = requestSignal(req, res, options.requestTimeoutMs);
    options.metrics.inFlight[webhook]! += 1;
    try {
      const handled = await handleAdmission(options.chain, phase, request, signal);
      const { response } = handled;
      // The answer is written from the event loop's check phase, once every request that arrived
      // with this one has been read and handled: under load the answers of one loop turn then
      // leave together instead of one write (and one wake-up of the caller) per read. Measured on
      // loopback at saturation: about 20 % more throughput (docs/benchmark.md); an idle loop
      // reaches the check phase at once, so a lone request waits no longer.
      await nextLoopTurn();
      // Answer first; metrics and the log line follow without holding the caller up.
      sendReview(res, responseReview(decoded.apiVersion, response));
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
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
      const log = requestLogger(options.logger, webhook, request);
      const fields = {
        decision: response.allowed ? 'allowed' : 'denied',
        code,
        patched: response.patch !== undefined,
        rejectedBy: handled.rejectedBy,
        warnings: response.warnings?.length,
        notEnforced,
        durationMs: Math.round(seconds * 1e6) / 1e3,
      };
      if (internal) log.error({ ...fields, reason: response.status?.message }, 'admission failed');
      else if (!response.allowed) log.info({ ...fields, reason: response.status?.message }, 'admission denied');
      else if (notEnforced !== undefined) log.info(fields, 'admission allowed; a rejection was not enforced');
      else log.debug(fields, 'admission allowed');
    } finally {
      options.metrics.inFlight[webhook]! -= 1;
    }
  };
}

/** The request's own logger: who asked what (never the object, which may carry secrets). */
function requestLogger(logger: Logger, webhook: string, request: AdmissionRequest): Logger {
  return logger.child({
    uid: request.uid,
    webhook,
    kind: request.kind.kind,
    resource: request.resource.resource,
    subresource: request.subResource,
    namespace: request.namespace,
    name: request.name,
    operation: request.operation,
    user: request.userInfo?.username,
  });
}

/**
 * The request's deadline, also aborted when the caller goes away. A plain timer cleared when the
 * response is done: AbortSignal.timeout would keep every answered request's signal alive for the
 * whole deadline.
 */
function requestSignal(req: Request, res: Response, timeoutMs: number): AbortSignal {
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

function sendReview(res: Response, review: AdmissionReview): void {
  res.status(200).type('application/json').send(JSON.stringify(review));
}

function sendStatus(res: Response, code: number, reason: string, message: string): void {
  res
    .status(code)
    .type('application/json')
    .send(JSON.stringify({ apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', code, reason, message }));
}

function webhookName(path: string): string {
  return path === '/mutate' ? 'mutate' : path === '/validate' ? 'validate' : 'other';
}
