// A paced, open-loop load: one request every 1/rate seconds, sent on time whether or not earlier
// ones have been answered, over keep-alive HTTPS connections. autocannon's rate option does not do
// this: each connection sends its whole per-second quota back to back at the top of every second,
// so "1,000 req/s" there is a 1,000-request burst once a second, and its tail is the tail of a
// burst after a second of idling. The fixed-rate figures are measured here instead.
import { Agent, request } from 'node:https';
import { type LoadResult, percentile } from './load.ts';

export interface PacedOptions {
  url: string;
  body: string;
  /** Requests per second, evenly spaced. */
  rate: number;
  /** Most connections kept open; a request waits for a free one when all are busy (that wait counts). */
  connections: number;
  ca: string;
  /** A client certificate and key (PEM), for servers that authenticate callers by certificate. */
  cert?: string;
  key?: string;
}

/**
 * One server's paced load, run a stretch at a time: its connections stay open between stretches,
 * and the latencies of every counted stretch are pooled, so two servers can take turns in short
 * slices and each be ranked over all of its own.
 */
export class PacedLoad {
  readonly #options: PacedOptions;
  readonly #agent: Agent;
  readonly #target: URL;
  readonly #body: Buffer;
  /** Each counted stretch's latencies, in the order they ran. */
  readonly #slices: number[][] = [];
  #failures = 0;
  #countedSeconds = 0;

  constructor(options: PacedOptions) {
    this.#options = options;
    this.#agent = new Agent({
      keepAlive: true,
      maxSockets: options.connections,
      ca: options.ca,
      ...(options.cert !== undefined && { cert: options.cert, key: options.key }),
    });
    this.#target = new URL(options.url);
    this.#body = Buffer.from(options.body);
  }

  /** Sends `seconds` of paced requests and waits for every answer; `counted: false` only warms up. */
  async run(seconds: number, counted = true): Promise<void> {
    const total = Math.round(this.#options.rate * seconds);
    const intervalMs = 1000 / this.#options.rate;
    let sent = 0;
    let settled = 0;
    const latencies: number[] = [];
    const started = performance.now();
    await new Promise<void>((resolve) => {
      const settle = () => {
        settled += 1;
        if (settled === total) resolve();
      };
      const fire = () => {
        const at = performance.now();
        const req = request(
          {
            hostname: this.#target.hostname,
            port: this.#target.port,
            path: `${this.#target.pathname}${this.#target.search}`,
            method: 'POST',
            agent: this.#agent,
            headers: { 'content-type': 'application/json', 'content-length': this.#body.length },
          },
          (res) => {
            res.resume();
            res.on('end', () => {
              if (res.statusCode === undefined || res.statusCode < 200 || res.statusCode >= 300) this.#failures += 1;
              else if (counted) latencies.push(performance.now() - at);
              settle();
            });
          },
        );
        req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
        req.on('error', () => {
          this.#failures += 1;
          settle();
        });
        req.end(this.#body);
      };
      // Timers fire at millisecond granularity at best: each turn sends every request that is due.
      const tick = () => {
        const due = Math.min(total, Math.floor((performance.now() - started) / intervalMs) + 1);
        while (sent < due) {
          sent += 1;
          fire();
        }
        if (sent < total) setTimeout(tick, Math.max(0, started + sent * intervalMs - performance.now()));
      };
      if (total === 0) resolve();
      else tick();
    });
    if (counted) {
      this.#countedSeconds += (performance.now() - started) / 1000;
      this.#slices.push(latencies);
    }
  }

  /** Every counted stretch's latencies, one array per run() (the unit a ratio's interval resamples). */
  slices(): readonly (readonly number[])[] {
    return this.#slices;
  }

  /** Percentiles over every counted answer so far. */
  result(): LoadResult {
    const latencies = this.#slices.flat().sort((a, b) => a - b);
    return {
      requestsPerSecond: latencies.length / this.#countedSeconds,
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      failures: this.#failures,
      requests: latencies.length,
    };
  }

  close(): void {
    this.#agent.destroy();
  }
}
