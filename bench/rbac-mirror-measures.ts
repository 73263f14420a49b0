// What scenario 6 measures on each side: SubjectAccessReviews per request (from the server's own
// /metrics), the latency of requests from identities the server has never seen, and p50/p99 at a
// fixed rate with the sides taking turns in one-second slices (as run.ts does for two sides).
import { benchUsers, deploymentOwnerUpdate } from './bodies.ts';
import { percentile } from './load.ts';
import { PacedLoad } from './paced.ts';
import { post } from './processes.ts';

export type BenchUser = keyof typeof benchUsers;

/** The owner-reference update of scenario 3 from one identity of the kind (the same one every call). */
export function sameIdentityBody(user: BenchUser, refs: number): string {
  return JSON.stringify(deploymentOwnerUpdate(refs, benchUsers[user]));
}

/**
 * A new identity each call, with the kind's permissions: wildcard users through the group
 * platform-admins, narrow ones through the group bench-narrow-team (bench/rbac-mirror-cluster.ts).
 */
export function newIdentityBodies(user: BenchUser, refs: number, tag: string): () => string {
  let n = 0;
  return () => {
    n += 1;
    const username = `${benchUsers[user].username}-${tag}-${n}`;
    const groups = user === 'wildcard' ? ['platform-admins', 'system:authenticated'] : ['bench-narrow-team', 'system:authenticated'];
    return JSON.stringify(deploymentOwnerUpdate(refs, { username, uid: `${username}-uid`, groups }));
  };
}

/** The sum over every series of one metric in a Prometheus exposition. */
export async function metricSum(metricsUrl: string, name: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const pattern = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm');
  return [...text.matchAll(pattern)].reduce((sum, m) => sum + Number(m[1]), 0);
}

const sarMetric = 'admission_chain_delegated_authz_request_total';

/** Requests one at a time; each must be allowed. Returns the SubjectAccessReviews they caused, per request, and their latencies. */
export async function oneAtATime(
  url: string,
  metricsUrl: string | undefined,
  body: () => string,
  count: number,
  ca: string,
): Promise<{ sarPerRequest: number | undefined; p50Ms: number; p99Ms: number }> {
  const before = metricsUrl === undefined ? 0 : await metricSum(metricsUrl, sarMetric);
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const payload = body();
    const started = performance.now();
    const answer = await post(url, payload, ca);
    latencies.push(performance.now() - started);
    if (answer.status !== 200 || !answer.text.includes('"allowed":true'))
      throw new Error(`${url}: expected an allowed review, got ${answer.status} ${answer.text.slice(0, 300)}`);
  }
  const sarPerRequest = metricsUrl === undefined ? undefined : ((await metricSum(metricsUrl, sarMetric)) - before) / count;
  latencies.sort((a, b) => a - b);
  return { sarPerRequest, p50Ms: percentile(latencies, 0.5), p99Ms: percentile(latencies, 0.99) };
}

export interface Fixed {
  p50Ms: number;
  p99Ms: number;
  failures: number;
  slices: readonly (readonly number[])[];
}

/** Every order of the sides, so each takes each place in a turn equally often. */
function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((first, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [first, ...rest]));
}

/** p50/p99 at `rate` req/s, evenly paced; each counted one-second slice follows a short uncounted lead-in on its side. */
export async function fixedRateTurns<S extends string>(
  urls: Record<S, string>,
  body: string,
  options: { rate: number; seconds: number; connections: number; ca: string; leadInSeconds: number },
): Promise<Record<S, Fixed>> {
  const sides = Object.keys(urls) as S[];
  const loads = Object.fromEntries(
    sides.map((side) => [
      side,
      new PacedLoad({ url: urls[side], body, connections: options.connections, rate: options.rate, ca: options.ca }),
    ]),
  ) as Record<S, PacedLoad>;
  const turns = permutations(sides);
  try {
    for (const side of sides) await loads[side].run(1, false);
    for (let slice = 0; slice < options.seconds; slice++) {
      for (const side of turns[slice % turns.length]!) {
        await loads[side].run(options.leadInSeconds, false);
        await loads[side].run(1);
      }
    }
    return Object.fromEntries(sides.map((side) => [side, { ...loads[side].result(), slices: loads[side].slices() }])) as unknown as Record<
      S,
      Fixed
    >;
  } finally {
    for (const side of sides) loads[side].close();
  }
}
