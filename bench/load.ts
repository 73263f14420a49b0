// One saturating autocannon run over HTTPS on loopback: a fixed body, or a fresh body per request.
// (Fixed-rate runs use bench/paced.ts: autocannon's rate option sends in bursts.)
import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  /** One body for every request, or a function giving the next body. */
  body: string | (() => string);
  connections: number;
  durationSeconds: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Non-2xx answers plus socket errors and timeouts: any of them spoils the run. */
  failures: number;
  /** Requests answered in the run. */
  requests: number;
}

/** A saturating run's figures, and every 2xx response time (ms), ascending, for pooling runs. */
export interface SaturatingLoadResult extends LoadResult {
  latencies: readonly number[];
  /** How long the run took (autocannon ends a run on its next whole-second sample). */
  seconds: number;
}

export async function runLoad(options: LoadOptions): Promise<SaturatingLoadResult> {
  const headers = { 'content-type': 'application/json' };
  const { body } = options;
  // autocannon's own histogram keeps whole milliseconds; loopback latencies are sub-millisecond,
  // so every 2xx response time (a float, in ms) is kept here and ranked exactly.
  const latencies: number[] = [];
  const run = autocannon({
    url: options.url,
    method: 'POST',
    headers,
    connections: options.connections,
    pipelining: 1,
    duration: options.durationSeconds,
    timeout: 10,
    ...(typeof body === 'string'
      ? { body }
      : { requests: [{ method: 'POST', headers, setupRequest: (request) => ({ ...request, body: body() }) }] }),
  });
  run.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTimeMs);
  });
  const result = await run;
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    failures: result.non2xx + result.errors + result.timeouts,
    requests: result.requests.total,
    latencies,
    seconds: result.duration,
  };
}

/** The q-quantile of ascending latencies: the smallest value at or above that share of them. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}
