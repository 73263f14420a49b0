// A request's deadline, one object from where the request arrives (the HTTP route, the CLI) through
// the handler and the chain to every plugin call: decorators pass it on, never rebuild it.

/**
 * A signal for waiting, and the time it expires on performance.now()'s clock for synchronous work
 * to check (the signal's own timer fires only between turns of the event loop).
 */
export interface Deadline {
  /** Aborted when the deadline passes or the caller goes away; every external call honours it. */
  readonly signal: AbortSignal;
  /** Infinity when only the signal knows when it passes. */
  readonly expiresAt: number;
}
