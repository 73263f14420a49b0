// One webhook's route: the request's headers checked before its body is read, the body read within
// the in-flight budgets and the deadline, weighed and parsed, decoded as an AdmissionReview, handed
// to the typed handler, and the answer written. Every refusal is a one-line metav1.Status.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Phase } from '../admission/chain.ts';
import type { Deadline } from '../admission/deadline.ts';
import type { AdmissionHandler } from '../admission/handler.ts';
import { BadReviewError, decodeReview, responseReview } from '../admission/review.ts';
import type { AdmissionMetrics } from '../observability/metrics.ts';
import type { Logger } from '../ports/logger.ts';
import type { Budget, Release } from '../util/budget.ts';
import { maxNestingDepth } from '../util/go-json-syntax.ts';
import { isPromiseLike } from '../util/maybe-async.ts';
import { callerTimeoutMs, requestDeadline } from './deadline.ts';
import { jsonShape, requestWeight } from './json-weight.ts';
import type { LoopLoad } from './loop-load.ts';
import type { Webhook } from './observed-handler.ts';
import { bodyText, discardBody, readBody } from './read-body.ts';
import { refuseBody, refuseWaiting } from './refusals.ts';
import { sendReview, sendStatus } from './respond.ts';

/** What the requests in flight may hold, and what waits for room. */
export interface Limits {
  readonly maxBodyBytes: number;
  /** Bodies being read and not yet decoded, by the buffer each is read into; holds at least maxBodyBytes, so every body's share fits. */
  readonly reading: Budget;
  /** Requests at work, by the heap their bodies will take (json-weight.ts); a heavy one's until its heap is collected. */
  readonly working: Budget;
}

export interface ReviewRouteOptions {
  webhook: Webhook;
  phase: Phase;
  handler: AdmissionHandler;
  limits: Limits;
  requestTimeoutMs: number;
  metrics: AdmissionMetrics;
  logger: Logger;
  loopLoad: Pick<LoopLoad, 'busy'>;
  /** True once shutdown has begun: an answer written then closes its connection, even if the request came before. */
  isDraining?: () => boolean;
}

/**
 * From this estimated heap on (a body of a few hundred KiB), a request yields between its steps, and
 * its share of the in-flight budget is held until the heap it took is collected: objects that live
 * that long reach V8's old generation, which only a full collection frees.
 */
const heavyRequestBytes = 8 * 1024 * 1024;

export function reviewRoute(options: ReviewRouteOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { webhook, limits, metrics, logger } = options;
  return (req, res) => {
    // The content type is checked before the body is read.
    const type = contentType(req);
    if (type !== 'application/json') {
      sendStatus(res, 400, 'BadRequest', `content type must be application/json, got ${JSON.stringify(req.headers['content-type'] ?? '')}`);
      return;
    }
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
      metrics.badRequests.inc({ webhook, reason: 'unreadable' });
      sendStatus(res, 400, 'BadRequest', `cannot read request body: unsupported content encoding ${JSON.stringify(encoding)}`);
      return;
    }
    // The deadline runs from arrival: time spent waiting for room counts, as it does for the caller.
    const deadline = requestDeadline(res, Math.min(options.requestTimeoutMs, callerTimeoutMs(req.url)));
    const declared = declaredLength(req);
    if (declared !== undefined && declared > limits.maxBodyBytes) {
      refuseBody(req, res, Object.assign(new Error('too large'), { type: 'entity.too.large' }), options);
      return;
    }
    // A body of unknown length may be as large as the limit allows.
    const reading = limits.reading.acquire(declared ?? limits.maxBodyBytes, deadline.signal);
    const read = (releaseBody: Release) => {
      // A body that has not arrived by the deadline never will in time: stop reading, close.
      const stopReading = () => req.destroy();
      deadline.signal.addEventListener('abort', stopReading, { once: true });
      return readBody(req, limits.maxBodyBytes, declared).then(
        (body) => {
          deadline.signal.removeEventListener('abort', stopReading);
          return review(res, body, deadline, releaseBody, req);
        },
        (error: unknown) => {
          deadline.signal.removeEventListener('abort', stopReading);
          releaseBody();
          refuseBody(req, res, error, options);
        },
      );
    };
    (isPromiseLike(reading) ? reading.then(read, (reason: unknown) => refuseWaiting(req, res, reason, options)) : read(reading)).catch(
      (error: unknown) => {
        logger.error({ err: error, path: req.url }, 'unexpected error outside admission');
        if (!res.headersSent) sendStatus(res, 500, 'InternalError', 'internal error while reading the request');
        else res.destroy();
      },
    );
  };

  /** The body read: weighed, given room to work, parsed, decoded, handled and answered. */
  async function review(res: ServerResponse, body: Buffer, deadline: Deadline, releaseBody: Release, req: IncomingMessage): Promise<void> {
    let releaseWork: Release = () => {};
    try {
      // One pass over the bytes, before JSON.parse allocates anything.
      const shape = jsonShape(body);
      if (shape.depth > maxNestingDepth) {
        metrics.badRequests.inc({ webhook, reason: 'too_deep' });
        sendStatus(res, 400, 'BadRequest', `request body is nested deeper than ${maxNestingDepth} levels`);
        return;
      }
      const weight = requestWeight(shape, options.phase);
      if (weight > limits.working.capacity) {
        metrics.badRequests.inc({ webhook, reason: 'too_heavy' });
        sendStatus(
          res,
          413,
          'RequestEntityTooLarge',
          `request body would take about ${mebibytes(weight)} MiB to handle, more than the ${mebibytes(limits.working.capacity)} MiB all requests in flight may hold`,
        );
        return;
      }
      const heavy = weight >= heavyRequestBytes;
      try {
        const granted = limits.working.acquire(weight, deadline.signal, { untilCollected: heavy });
        releaseWork = isPromiseLike(granted) ? await granted : granted;
      } catch (reason) {
        refuseWaiting(req, res, reason, options);
        return;
      }
      // A heavy request's synchronous steps (parse, the chain, the answer) each take their own turn
      // of the event loop, so probes, scrapes and small requests get in between them, and between
      // one heavy request and the next (a grant after a release would otherwise run at once).
      if (heavy) await nextLoopTurn();
      let parsed: unknown;
      try {
        // The bytes are freed as their text is made, before parsing: the next body may come in.
        const text = bodyText(body);
        releaseBody();
        parsed = JSON.parse(text);
      } catch (error) {
        metrics.badRequests.inc({ webhook, reason: 'not_json' });
        sendStatus(res, 400, 'BadRequest', `request body is not valid JSON: ${(error as Error).message}`);
        return;
      }
      let decoded: ReturnType<typeof decodeReview>;
      try {
        decoded = decodeReview(parsed);
      } catch (error) {
        if (!(error instanceof BadReviewError)) throw error;
        metrics.badRequests.inc({ webhook, reason: 'bad_review' });
        sendStatus(res, 400, 'BadRequest', `invalid AdmissionReview: ${error.message}`);
        return;
      }
      if (heavy) await nextLoopTurn();
      const { response } = await options.handler(decoded.request, deadline);
      // On a busy loop the answer is written from the event loop's check phase, once every request
      // that arrived with this one has been read and handled: the answers of one loop turn then
      // leave together instead of one write (and one wake-up of the caller) per read, about 20 %
      // more throughput at saturation on loopback. A loop with idle time answers at once: holding
      // the answer there only makes it wait for the requests that happened to arrive with it, which
      // lengthens the tail at a steady 1,000 req/s.
      if (heavy || options.loopLoad.busy()) await nextLoopTurn();
      // A request that arrived before shutdown began is answered after it: its connection must
      // close too, or the listener waits for it until the drain timeout.
      if (options.isDraining?.()) res.setHeader('Connection', 'close');
      sendReview(res, responseReview(decoded.apiVersion, response));
    } finally {
      discardBody(body);
      releaseBody();
      releaseWork();
    }
  }
}

/** The Content-Length the caller declared, when it declared one that is a number. */
function declaredLength(req: IncomingMessage): number | undefined {
  const header = req.headers['content-length'];
  if (header === undefined || !/^\d+$/.test(header)) return undefined;
  return Number(header);
}

function contentType(req: IncomingMessage): string {
  const header = req.headers['content-type'] ?? '';
  // kube-apiserver sends exactly this; anything else takes the general path.
  if (header === 'application/json') return header;
  return header.split(';')[0]!.trim().toLowerCase();
}

function mebibytes(bytes: number): string {
  return (bytes / 1048576).toFixed(1);
}

function nextLoopTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
