// The HTTPS webhook: POST /mutate and POST /validate on an express app set up for the job (no ETag,
// no X-Powered-By, no query parser, the body read once by the route within its budgets). Three thin
// layers, as controller-runtime has them: the route decodes (review-route.ts), the typed handler
// decides (admission/handler.ts) inside its metrics and log (observed-handler.ts), and respond.ts
// writes the answer; every refusal is answered and counted by the one error handler
// (refusal-handler.ts).
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { AdmissionChain, Phase } from '../admission/chain.ts';
import { admissionHandler } from '../admission/handler.ts';
import { defaultMaxInFlightBytes, defaultMaxRequestBodyBytes } from '../config/serve-config.ts';
import type { AdmissionMetrics } from '../observability/metrics.ts';
import type { Logger } from '../ports/logger.ts';
import { Budget } from '../util/budget.ts';
import { garbageCollector } from './garbage-collector.ts';
import { LoopLoad } from './loop-load.ts';
import { observedHandler, type Webhook } from './observed-handler.ts';
import { notFound } from './refusal.ts';
import { refusalHandler } from './refusal-handler.ts';
import { webhookAnswer } from './respond.ts';
import { type Limits, reviewRoute } from './review-route.ts';

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
  /**
   * A full garbage collection, run when what finished heavy requests left on the heap is all that
   * keeps the next one waiting (util/budget.ts); V8's own gc() by default.
   */
  collectGarbage?: () => void;
  /** True once shutdown has begun: answers then close their connection, so keep-alive ends. */
  isDraining?: () => boolean;
  /** Whether the event loop is busy enough for answers to wait for the check phase; one per app by default. */
  loopLoad?: Pick<LoopLoad, 'busy'>;
}

const webhooks: ReadonlyArray<readonly [Webhook, Phase]> = [
  ['mutate', 'admit'],
  ['validate', 'validate'],
];

export function createWebhookApp(options: WebhookAppOptions): Express {
  const loopLoad = options.loopLoad ?? new LoopLoad();
  const maxBodyBytes = options.maxBodyBytes ?? defaultMaxRequestBodyBytes;
  // A heavy request's share stays counted after it ends, until the collector has freed its heap.
  const working = new Budget(options.maxInFlightBytes ?? defaultMaxInFlightBytes, {
    collect: options.collectGarbage ?? garbageCollector(),
  });
  // Separate budgets, so a request holding its body while it waits to work never blocks one at work.
  // A body's bytes are freed as it is decoded (read-body.ts), so its share needs no collector.
  const limits: Limits = { maxBodyBytes, reading: new Budget(Math.max(2 * maxBodyBytes, working.capacity / 4)), working };
  options.metrics.load.source = {
    inFlightBytes: () => working.used - working.uncollected,
    waiting: () => working.waiting + limits.reading.waiting,
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', false);
  // "/MUTATE" is not "/mutate"; one trailing slash is allowed, as kube-apiserver may send it.
  app.set('case sensitive routing', true);
  const answer = webhookAnswer(options.isDraining ?? (() => false));
  for (const [webhook, phase] of webhooks) {
    const handler = observedHandler(admissionHandler(options.chain, phase), {
      webhook,
      phase,
      metrics: options.metrics,
      logger: options.logger,
    });
    const route = reviewRoute({ webhook, phase, handler, limits, requestTimeoutMs: options.requestTimeoutMs, loopLoad, answer });
    app.post(`/${webhook}`, route);
  }
  // Anything else, other methods on the two paths included: the routes take POST alone, and a
  // request that reaches this answers 404 before the router could answer OPTIONS by itself.
  app.use((_req: Request, _res: Response, next: NextFunction) => next(notFound()));
  app.use(refusalHandler({ metrics: options.metrics, logger: options.logger, answer }));
  return app;
}
