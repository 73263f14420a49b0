// What reached each endpoint: counts and the requests themselves (bodies included), so tests can
// assert what a client actually put on the wire.
import type { IncomingHttpHeaders } from 'node:http';

export interface RecordedRequest {
  method: string;
  path: string;
  query: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export class CallLog {
  readonly #byRoute = new Map<string, RecordedRequest[]>();

  record(route: string, request: RecordedRequest): void {
    const list = this.#byRoute.get(route) ?? [];
    list.push(request);
    this.#byRoute.set(route, list);
  }

  /** Calls that arrived at route, faulted ones included. */
  count(route: string): number {
    return this.#byRoute.get(route)?.length ?? 0;
  }

  requests(route: string): readonly RecordedRequest[] {
    return this.#byRoute.get(route) ?? [];
  }

  bodies(route: string): unknown[] {
    return this.requests(route).map((r) => r.body);
  }

  /** Calls per route, for a quick look in a failing assertion. */
  counts(): Record<string, number> {
    return Object.fromEntries([...this.#byRoute].map(([route, list]) => [route, list.length]));
  }

  reset(): void {
    this.#byRoute.clear();
  }
}
