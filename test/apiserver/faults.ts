// Faults a test can inject per endpoint, to see how a client behaves when the API server is slow,
// overloaded, failing, or unreachable mid-request.

export type Fault =
  /** Answer normally, but only after ms milliseconds. */
  | { kind: 'latency'; ms: number }
  /** 429 TooManyRequests with a Retry-After header (seconds; 0 sends none). */
  | { kind: 'too-many-requests'; retryAfterSeconds?: number }
  /** Any failure Status by code (401, 403, 404, 409, 500, 503, 504...), worded as upstream. */
  | { kind: 'status'; code: number; message?: string }
  /** A 5xx Status (500 InternalError by default). */
  | { kind: 'server-error'; code?: number; message?: string }
  /** Destroy the socket without answering: the client sees a reset connection. */
  | { kind: 'drop-connection' }
  /** Never answer; the request stays open until the client gives up or the server closes. */
  | { kind: 'hang' };

export interface FaultOptions {
  /** Apply to this many calls, then stop; unlimited when absent. */
  times?: number;
}

interface ActiveFault {
  fault: Fault;
  remaining: number;
}

/** Per-route queues of faults; the first active one applies to each arriving call. */
export class FaultTable {
  readonly #byRoute = new Map<string, ActiveFault[]>();

  add(route: string, fault: Fault, options: FaultOptions = {}): () => void {
    const entry: ActiveFault = { fault, remaining: options.times ?? Number.POSITIVE_INFINITY };
    const queue = this.#byRoute.get(route) ?? [];
    queue.push(entry);
    this.#byRoute.set(route, queue);
    return () => {
      entry.remaining = 0;
    };
  }

  /** Takes the fault for one call to route, consuming one use of it. */
  take(route: string): Fault | undefined {
    const queue = this.#byRoute.get(route);
    if (queue === undefined) return undefined;
    while (queue.length > 0 && queue[0]!.remaining <= 0) queue.shift();
    const head = queue[0];
    if (head === undefined) return undefined;
    head.remaining -= 1;
    return head.fault;
  }

  clear(route?: string): void {
    if (route === undefined) this.#byRoute.clear();
    else this.#byRoute.delete(route);
  }
}
