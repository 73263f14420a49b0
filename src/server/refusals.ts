// The answers to a request the webhook will not handle: no room before its deadline (503), or a
// body it could not read (413, 400). Each is a one-line metav1.Status, counted by reason.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AdmissionMetrics } from '../observability/metrics.ts';
import type { Logger } from '../ports/logger.ts';
import type { Webhook } from './observed-handler.ts';
import { sendStatus } from './respond.ts';

/** What a refusal needs to know: the webhook, where to count and log, and the body limit. */
export interface Refusing {
  readonly webhook: Webhook;
  readonly metrics: AdmissionMetrics;
  readonly logger: Logger;
  readonly limits: { readonly maxBodyBytes: number };
}

/**
 * A request whose deadline passed (or whose caller left) while it waited for room. kube-apiserver
 * counts an HTTP error as the webhook failing, as it would count a timeout, and applies the
 * webhook's failurePolicy; the answer only says why sooner.
 */
export function refuseWaiting(req: IncomingMessage, res: ServerResponse, reason: unknown, refusing: Refusing): void {
  if (res.destroyed || res.headersSent) return;
  refusing.metrics.badRequests.inc({ webhook: refusing.webhook, reason: 'overloaded' });
  refusing.logger.warn(
    { path: req.url, err: reason instanceof Error ? reason.message : String(reason) },
    'request waited for room past its deadline',
  );
  res.setHeader('Retry-After', '1');
  // Its body was never read: the connection closes after the answer rather than read it all off.
  if (!req.complete) res.setHeader('Connection', 'close');
  sendStatus(res, 503, 'ServiceUnavailable', 'admission-chain is at its in-flight limit: no room for this request before its deadline');
  req.resume();
}

/** Of a refused body, at most this much is read off before answering (as Go's net/http does). */
export const maxDrainBytes = 256 * 1024;
/** And for at most this long: a body that trickles in is not waited for. */
export const maxDrainMs = 500;

/**
 * A body that could not be read: too large, cut short, or of a declared length it did not have.
 * The rest of the request is read off first, so the caller gets the answer rather than a reset
 * connection — up to maxDrainBytes or maxDrainMs: past either the answer goes at once and the
 * connection closes after it, so nobody keeps a connection busy sending a body that will never be read.
 */
export function refuseBody(req: IncomingMessage, res: ServerResponse, error: unknown, refusing: Refusing): void {
  const [code, reason, message] = refusalOf(req, error, refusing);
  const send = (close: boolean) => {
    clearTimeout(timer);
    req.off('data', drain);
    if (res.headersSent || res.destroyed) return;
    if (close) res.setHeader('Connection', 'close');
    sendStatus(res, code, reason, message);
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

/** The answer to a body that could not be read, counted (or logged) by why. */
function refusalOf(req: IncomingMessage, error: unknown, refusing: Refusing): [code: number, reason: string, message: string] {
  const { metrics, webhook } = refusing;
  const type = (error as { type?: string }).type;
  if (type === 'entity.too.large') {
    metrics.badRequests.inc({ webhook, reason: 'too_large' });
    return [413, 'RequestEntityTooLarge', `request body is larger than ${refusing.limits.maxBodyBytes} bytes`];
  }
  if (type === 'request.aborted' || type === 'request.size.invalid') {
    metrics.badRequests.inc({ webhook, reason: 'unreadable' });
    return [400, 'BadRequest', `cannot read request body: ${(error as Error).message}`];
  }
  refusing.logger.error({ err: error, path: req.url }, 'unexpected error outside admission');
  return [500, 'InternalError', 'internal error while reading the request'];
}
