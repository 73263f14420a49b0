// The webhook's one express error handler: every refusal a step of the route throws (refusal.ts),
// the 404 and anything unexpected is counted once, under its label, and answered with a one-line
// metav1.Status — never express's HTML page, never a stack trace.
import type { ErrorRequestHandler, Request, Response } from 'express';
import { failureStatus } from '../admission/response.ts';
import type { AdmissionMetrics } from '../observability/metrics.ts';
import type { Logger } from '../ports/logger.ts';
import { internal, Refusal } from './refusal.ts';
import type { Answer } from './respond.ts';

/** Of a refused body, at most this much is read off before answering (as Go's net/http does). */
export const maxDrainBytes = 256 * 1024;
/** And for at most this long: a body that trickles in is not waited for. */
export const maxDrainMs = 500;

export interface RefusalHandlerOptions {
  readonly metrics: AdmissionMetrics;
  readonly logger: Logger;
  readonly answer: Answer;
}

/** What the route sets on res.locals, so a refusal is counted under its webhook. */
export interface RouteLocals {
  webhook?: string;
}

export function refusalHandler(options: RefusalHandlerOptions): ErrorRequestHandler {
  const { metrics, logger } = options;
  return (error: unknown, req: Request, res: Response, _next) => {
    const refusal = error instanceof Refusal ? error : internal();
    if (refusal !== error) logger.error({ err: error, path: req.url }, 'unexpected error outside admission');
    // A path that is neither webhook's is counted apart from both.
    const webhook = (res.locals as RouteLocals).webhook ?? 'none';
    if (refusal.metric === 'internal_errors') metrics.internalErrors.inc({ webhook });
    else if (refusal.metric === 'unavailable_requests') metrics.unavailableRequests.inc({ webhook, reason: refusal.label });
    else metrics.badRequests.inc({ webhook, reason: refusal.label });
    if (refusal.status === 503) {
      logger.warn({ path: req.url }, 'request waited for room past its deadline');
      res.setHeader('Retry-After', '1');
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const body = JSON.stringify(failureStatus(refusal.status, refusal.reason, refusal.message));
    if (refusal.readOff) readOffThenAnswer(req, res, (close) => options.answer(res, refusal.status, body, close));
    else {
      // Its body was never read: the connection closes after the answer rather than read it all off.
      options.answer(res, refusal.status, body, !req.complete);
      req.resume();
    }
  };
}

/**
 * The rest of the request is read off first, so the caller gets the answer rather than a reset
 * connection — up to maxDrainBytes or maxDrainMs: past either the answer goes at once and the
 * connection closes after it, so nobody keeps a connection busy sending a body that will never be read.
 */
function readOffThenAnswer(req: Request, res: Response, answer: (close: boolean) => void): void {
  const send = (close: boolean) => {
    clearTimeout(timer);
    req.off('data', drain);
    if (res.headersSent || res.destroyed) return;
    answer(close);
  };
  let drained = 0;
  const drain = (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > maxDrainBytes) send(true);
  };
  const timer = setTimeout(() => send(true), maxDrainMs);
  if (req.complete || req.destroyed) {
    send(false);
  } else {
    req.on('data', drain);
    req.once('end', () => send(false));
    req.once('close', () => send(false));
  }
  // readBody pauses the request when it gives up, and a data listener does not restart a paused
  // stream: without this nothing more is read, and neither the drain bound nor the end ever comes.
  req.resume();
}
