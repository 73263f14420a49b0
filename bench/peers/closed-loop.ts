// Saturation through the API server: `connections` callers, each sending its next request as soon as
// its last one is answered, for a fixed time. autocannon cannot present a client certificate, which
// kube-apiserver needs to know who is asking; this is the same loop over node:https.
import { Agent, request } from 'node:https';
import { type LoadResult, percentile } from '../load.ts';

export interface ClosedLoopOptions {
  url: string;
  body: string;
  connections: number;
  seconds: number;
  ca: string;
  cert: string;
  key: string;
}

export async function closedLoop(options: ClosedLoopOptions): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections, ca: options.ca, cert: options.cert, key: options.key });
  const target = new URL(options.url);
  const body = Buffer.from(options.body);
  const latencies: number[] = [];
  let failures = 0;
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  const one = () =>
    new Promise<void>((resolve) => {
      const at = performance.now();
      const req = request(
        {
          hostname: target.hostname,
          port: target.port,
          path: `${target.pathname}${target.search}`,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode === undefined || res.statusCode < 200 || res.statusCode >= 300) failures += 1;
            else latencies.push(performance.now() - at);
            resolve();
          });
        },
      );
      req.setTimeout(15_000, () => req.destroy(new Error('timeout')));
      req.on('error', () => {
        failures += 1;
        resolve();
      });
      req.end(body);
    });
  const caller = async () => {
    while (performance.now() < deadline) await one();
  };
  try {
    await Promise.all(Array.from({ length: options.connections }, caller));
  } finally {
    agent.destroy();
  }
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: latencies.length / elapsed,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    failures,
    requests: latencies.length + failures,
  };
}
