// A request's deadline, one object from where the request arrives (the HTTP route, the CLI) through
// the handler and the chain to every plugin call: decorators pass it on, never rebuild it. Every
// request has one (the HTTP route's --request-timeout or kube-apiserver's shorter timeout, the
// CLI's --timeout), so nothing stands in for a missing deadline.

/**
 * A signal for waiting, and the time it expires on performance.now()'s clock for synchronous work
 * to check (the signal's own timer fires only between turns of the event loop).
 */
export interface Deadline {
  /** Aborted when the deadline passes or the caller goes away; every external call honours it. */
  readonly signal: AbortSignal;
  /** When the deadline passes, on performance.now()'s clock. */
  readonly expiresAt: number;
}
