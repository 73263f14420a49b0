// The stand-in's route registry: each endpoint has a stable name (what tests count calls and inject
// faults by), a method, and a path pattern whose `:param` segments are captured.
import type { IncomingHttpHeaders } from 'node:http';
import type { ApiStatus } from './status.ts';

export interface RouteRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or undefined when there was none. */
  body: unknown;
  /** Aborts when the client goes away or the server closes. */
  signal: AbortSignal;
}

/** A long-lived chunked response (watch): one JSON document per line. */
export interface EventStream {
  send(value: unknown): void;
  end(): void;
  readonly closed: boolean;
}

export interface RouteResponder {
  json(code: number, body: unknown, headers?: Record<string, string | string[]>): void;
  status(status: ApiStatus, headers?: Record<string, string>): void;
  stream(): EventStream;
}

export interface Route {
  /** Stable endpoint name, e.g. "create subjectaccessreviews". */
  name: string;
  method: string;
  /** Path pattern: "/api/v1/namespaces/:namespace/serviceaccounts/:name". */
  pattern: string;
  /** Extra predicate, e.g. "?watch=true" routes. */
  when?: (query: URLSearchParams) => boolean;
  handle(request: RouteRequest, respond: RouteResponder): void | Promise<void>;
}

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

export function matchRoute(
  routes: readonly Route[],
  method: string,
  path: string,
  query: URLSearchParams,
): RouteMatch | 'method-not-allowed' | undefined {
  const segments = path.split('/').filter((s) => s !== '');
  let pathMatched = false;
  for (const route of routes) {
    const params = matchPattern(route.pattern, segments);
    if (params === undefined) continue;
    if (route.when !== undefined && !route.when(query)) continue;
    pathMatched = true;
    if (route.method === method) return { route, params };
  }
  return pathMatched ? 'method-not-allowed' : undefined;
}

function matchPattern(pattern: string, segments: string[]): Record<string, string> | undefined {
  const parts = pattern.split('/').filter((s) => s !== '');
  if (parts.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const segment = decodeURIComponent(segments[i]!);
    if (part.startsWith(':')) params[part.slice(1)] = segment;
    else if (part !== segment) return undefined;
  }
  return params;
}
