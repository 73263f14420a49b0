// A paced, open-loop load: one request every 1/rate seconds, sent on time whether or not earlier
// ones have been answered, over keep-alive HTTPS connections. autocannon's rate option does not do
// this: each connection sends its whole per-second quota back to back at the top of every second,
// so "1,000 req/s" there is a 1,000-request burst once a second, and its tail is the tail of a
// burst after a second of idling. The fixed-rate figures are measured here instead.
import { Agent, request } from 'node:https';
import type { LoadResult } from './load.ts';

export interface PacedOptions {
  url: string;
  body: string;
  /** Requests per second, evenly spaced. */
  rate: number;
  durationSeconds: number;
  /** Most connections kept open; a request waits for a free one when all are busy (that wait counts). */
  connections: number;
  /** Paced like the rest but not counted: opens the connections (default 1 s). */
  warmupSeconds?: number;
  ca: string;
}

export async function runPaced(options: PacedOptions): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections, ca: options.ca });
  const target = new URL(options.url);
  const body = Buffer.from(options.body);
  const warmup = Math.round(options.rate * (options.warmupSeconds ?? 1));
  const total = warmup + Math.round(options.rate * options.durationSeconds);
  const intervalMs = 1000 / options.rate;
  const latencies: number[] = [];
  let failures = 0;
  let sent = 0;
  let settled = 0;
  const started = performance.now();

  await new Promise<void>((resolve) => {
    const settle = () => {
      settled += 1;
      if (settled === total) resolve();
    };
    const fire = (counted: boolean) => {
      const at = performance.now();
      const req = request(
        { hostname: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': body.length } },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode === undefined || res.statusCode < 200 || res.statusCode >= 300) failures += 1;
            else if (counted) latencies.push(performance.now() - at);
            settle();
          });
        },
      );
      req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
      req.on('error', () => {
        failures += 1;
        settle();
      });
      req.end(body);
    };
    // Timers fire at millisecond granularity at best: each turn sends every request that is due.
    const tick = () => {
      const due = Math.min(total, Math.floor((performance.now() - started) / intervalMs) + 1);
      while (sent < due) {
        sent += 1;
        fire(sent > warmup);
      }
      if (sent < total) setTimeout(tick, Math.max(0, started + sent * intervalMs - performance.now()));
    };
    tick();
  });
  agent.destroy();
  const elapsedSeconds = (performance.now() - started) / 1000 - (options.warmupSeconds ?? 1);
  latencies.sort((a, b) => a - b);
  const percentile = (q: number) => (latencies.length === 0 ? Number.NaN : latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)]!);
  return { requestsPerSecond: latencies.length / elapsedSeconds, p50Ms: percentile(0.5), p99Ms: percentile(0.99), failures };
}
