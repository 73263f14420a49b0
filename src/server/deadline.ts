// A request's deadline runs from its arrival: time spent waiting for room counts, as it does for
// the caller. It is the shorter of --request-timeout and what kube-apiserver asks for.
import type { ServerResponse } from 'node:http';
import type { Deadline } from '../admission/deadline.ts';
import { parseDuration } from '../config/duration.ts';

/**
 * The request's deadline, its signal also aborted when the caller goes away. A plain timer cleared
 * when the response is done: AbortSignal.timeout would keep every answered request's signal alive
 * for the whole deadline.
 */
export function requestDeadline(res: ServerResponse, timeoutMs: number): Deadline {
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

/**
 * How long kube-apiserver waits for us: it calls with ?timeout=<the webhook's timeoutSeconds>.
 * Nine tenths of it, so the answer leaves before the caller gives up; no limit without one.
 */
export function callerTimeoutMs(url: string | undefined): number {
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
