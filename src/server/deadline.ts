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
 * How long the request may take: --request-timeout, or less when kube-apiserver asks for less. It
 * calls with ?timeout=<the webhook's timeoutSeconds>; nine tenths of that, so the answer leaves
 * before the caller gives up.
 */
export function requestTimeoutMs(flagMs: number, url: string | undefined): number {
  const caller = callerTimeoutMs(url);
  return caller === undefined ? flagMs : Math.min(flagMs, caller);
}

/** What kube-apiserver's ?timeout= asks for, when the URL carries one that parses. */
function callerTimeoutMs(url: string | undefined): number | undefined {
  const query = url?.indexOf('?') ?? -1;
  if (query < 0) return undefined;
  const timeout = new URLSearchParams(url!.slice(query + 1)).get('timeout');
  if (timeout === null) return undefined;
  try {
    return Math.max(1, Math.floor(parseDuration(timeout) * 0.9));
  } catch {
    return undefined;
  }
}
