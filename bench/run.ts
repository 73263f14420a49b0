// `npm run bench`: admission-chain against the bare-webhook ceiling, side by side in one run.
// Every scenario starts a fresh baseline (bench/baseline.ts) and a fresh admission-chain, each in
// its own process pinned to one core, and drives both with the same certificates and bodies from
// this process on another core. Not a test: nothing here asserts, and CI never runs it.
//
// Knobs (environment): BENCH_DURATION seconds per run (default 10), BENCH_CONNECTIONS (default
// 10), BENCH_SCENARIOS e.g. "1,2" (default 1–6; "peers" for bench/peers/scenario.ts, "audit" for bench/audit.ts), BENCH_CPU_PROF=1 writes admission-chain CPU
// profiles to bench/profiles/ (and the express baseline's to bench/profiles/baseline/), BENCH_NODE_OPTIONS passes flags to admission-chain's node (e.g.
// "--max-semi-space-size=2"), and
// BENCH_LOG_LEVEL sets its --log-level (default info: a line per denial, none per allowed request),
// BENCH_FIXED_SECONDS the counted seconds a side of the fixed-rate run (default 30), BENCH_MEMORY_LIMIT
// the MiB of the memory cgroup each server runs in (default: the chart's container limit; 0: none),
// BENCH_CONTROL=1 adds a second baseline process to the fixed-rate turns, to show how far apart
// the method puts two identical servers on this machine.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { bundle } from '../build/bundle.ts';
import { generateCertificates } from '../src/tls/generate.ts';
import { runAuditScenario } from './audit.ts';
import { benchUsers, deploymentOwnerUpdate, largePodCreate, podCreate } from './bodies.ts';
import { runHostileScenario } from './hostile.ts';
import { ratioInterval } from './interval.ts';
import { type LoadResult, percentile, runLoad, type SaturatingLoadResult } from './load.ts';
import { chartMemoryLimitMiB, createMemoryCgroup, type MemoryCgroup } from './memory-cgroup.ts';
import { PacedLoad } from './paced.ts';
import { runPeersScenario } from './peers/scenario.ts';
import {
  freePort,
  imageRuntime,
  loadCore,
  pinning,
  pinSelf,
  post,
  type ServerProcess,
  startNode,
  waitForLine,
  waitForWebhook,
} from './processes.ts';
import { runRbacMirrorScenario } from './rbac-mirror.ts';
import { printTable, type Row } from './table.ts';

const durationSeconds = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const scenarios = new Set((process.env.BENCH_SCENARIOS ?? '1,2,3,4,5,6').split(','));
const profileDir = process.env.BENCH_CPU_PROF === '1' ? join(import.meta.dirname, 'profiles') : undefined;
const fixedRate = 1000;
const fixedSeconds = Number(process.env.BENCH_FIXED_SECONDS ?? 30);
if (!Number.isInteger(fixedSeconds) || fixedSeconds < 1) {
  process.stderr.write(
    `bench: BENCH_FIXED_SECONDS must be a whole number of seconds, at least 1, got ${JSON.stringify(process.env.BENCH_FIXED_SECONDS)}\n`,
  );
  process.exit(2);
}
const controlRun = (process.env.BENCH_CONTROL ?? '0') === '1';
if (!['0', '1'].includes(process.env.BENCH_CONTROL ?? '0')) {
  process.stderr.write(`bench: BENCH_CONTROL must be 0 or 1, got ${JSON.stringify(process.env.BENCH_CONTROL)}\n`);
  process.exit(2);
}
const logLevelArgs = process.env.BENCH_LOG_LEVEL ? ['--log-level', process.env.BENCH_LOG_LEVEL] : [];
const extraNodeOptions = (process.env.BENCH_NODE_OPTIONS ?? '').split(' ').filter(Boolean);
const root = join(import.meta.dirname, '..');
const { nodeFlags: imageNodeFlags, env: imageEnv } = imageRuntime();

/**
 * Each server runs in its own memory cgroup limited as the chart limits the pod (Node sizes its heap
 * from that limit, and V8 collects sooner in a smaller heap), so its memory is measured as it ships.
 */
const memoryLimitMiB =
  process.env.BENCH_MEMORY_LIMIT === undefined
    ? chartMemoryLimitMiB(readFileSync(join(root, 'charts/admission-chain/values.yaml'), 'utf8'))
    : Number(process.env.BENCH_MEMORY_LIMIT);
if (!Number.isInteger(memoryLimitMiB) || memoryLimitMiB < 0) {
  process.stderr.write(
    `bench: BENCH_MEMORY_LIMIT must be a whole number of MiB (0: no limit), got ${JSON.stringify(process.env.BENCH_MEMORY_LIMIT)}\n`,
  );
  process.exit(2);
}
let cgroups: Partial<Record<'baseline' | 'plain' | 'control' | 'ours', MemoryCgroup>> = {};
let memoryLimitNote = 'servers not in a memory cgroup (BENCH_MEMORY_LIMIT=0)';
if (memoryLimitMiB > 0) {
  memoryLimitNote = `each server in its own memory cgroup limited to ${memoryLimitMiB} MiB (the chart's container limit), so Node sizes its heap as in the pod`;
  for (const side of ['baseline', 'plain', ...(controlRun ? (['control'] as const) : []), 'ours'] as const) {
    const made = createMemoryCgroup(memoryLimitMiB, `admission-chain-bench-${process.pid}-${side}`);
    if ('unavailable' in made) {
      // All sides or none: a limit on one side only would skew every ratio.
      for (const cgroup of Object.values(cgroups)) cgroup.remove();
      cgroups = {};
      memoryLimitNote = `servers not in a memory cgroup (${made.unavailable}): Node sizes its heap from this machine's memory, not from the chart's ${memoryLimitMiB} MiB limit`;
      break;
    }
    cgroups[side] = made;
  }
}
process.on('exit', () => {
  for (const cgroup of Object.values(cgroups)) cgroup.remove();
});

pinSelf();
// Measure what ships: the container image runs the bundle in dist/, not the TypeScript sources.
await bundle(join(root, 'dist'));
const dir = mkdtempSync(join(tmpdir(), 'admission-chain-bench-'));
const certs = await generateCertificates({ commonName: 'localhost', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
const certFile = join(dir, 'tls.crt');
const keyFile = join(dir, 'tls.key');
writeFileSync(certFile, certs.cert);
writeFileSync(keyFile, certs.key, { mode: 0o600 });
if (profileDir !== undefined) mkdirSync(profileDir, { recursive: true });

interface Running {
  base: string;
  metricsUrl?: string;
  process: ServerProcess;
}

type Side = 'baseline' | 'ours';

async function startBaseline(plain = false, control = false): Promise<Running> {
  const port = await freePort();
  const cgroup = cgroups[plain ? 'plain' : control ? 'control' : 'baseline']?.path;
  const { child, process } = startNode([join(root, 'bench/baseline.ts'), String(port), certFile, keyFile, ...(plain ? ['--plain'] : [])], {
    stdout: 'pipe',
    // Profiled beside ours, in the same rounds, so the two profiles compare request for request.
    ...(profileDir !== undefined &&
      !plain &&
      !control && { nodeOptions: ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, 'baseline')}`] }),
    ...(cgroup && { cgroup }),
  });
  await waitForLine(child, 'ready');
  return { base: `https://127.0.0.1:${port}`, process };
}

async function startOurs(kubeconfig?: string): Promise<Running> {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const nodeOptions = [
    ...imageNodeFlags,
    ...extraNodeOptions,
    ...(profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]),
  ];
  // The bundled build, as the container image runs it (built once at the start of the run).
  const backend = kubeconfig === undefined ? ['--cluster-state', join(root, 'bench/cluster-state.yaml')] : ['--kubeconfig', kubeconfig];
  const args = [
    join(root, 'dist/cli/run.js'),
    'serve',
    ...backend,
    '--bind-address',
    '127.0.0.1',
    '--port',
    String(port),
    '--metrics-port',
    String(metricsPort),
    '--tls-cert-file',
    certFile,
    '--tls-private-key-file',
    keyFile,
    '--shutdown-delay',
    '0s',
    ...logLevelArgs,
  ];
  const cgroup = cgroups.ours?.path;
  const { process } = startNode(args, { nodeOptions, env: imageEnv, ...(cgroup && { cgroup }) });
  return { base: `https://127.0.0.1:${port}`, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`, process };
}

async function start(side: Side, readyBody: string, path: string, kubeconfig?: string): Promise<Running> {
  const running = side === 'baseline' ? await startBaseline() : await startOurs(kubeconfig);
  await waitForWebhook(`${running.base}${path}`, readyBody, certs.caCert);
  return running;
}

interface Measured {
  throughput: Saturated;
  /** The bare node:https handler's saturating run (baseline side only). */
  plain?: Saturated;
  /** Peak RSS before the cold-cache runs (scenarios that have them). */
  warmPeakRssMiB?: number;
  cold?: LoadResult;
  fixed?: Fixed;
  peakRssMiB: number;
}

/** A saturating run, and the server's CPU time per request it answered in it. */
interface Saturated extends LoadResult {
  cpuMicrosPerRequest: number;
  /** CPU per request in each round of saturatingRounds, in round order. */
  roundCpuMicros?: readonly number[];
}

/**
 * Warm-up and a saturating run. The CPU time is the server's own (user and system, every thread):
 * other work on a shared machine slows the run's wall-clock figures, much less what each request costs.
 */
async function measure(running: Running, path: string, body: string): Promise<Saturated> {
  const url = `${running.base}${path}`;
  await runLoad({ url, body, connections, durationSeconds: Math.min(3, durationSeconds) });
  const cpuBefore = running.process.cpuMs();
  const result = await runLoad({ url, body, connections, durationSeconds });
  return { ...result, cpuMicrosPerRequest: ((running.process.cpuMs() - cpuBefore) * 1000) / result.requests };
}

/**
 * Saturating runs that take turns: after a warm-up each, the sides run at full load one at a time
 * in rounds of whole seconds (autocannon ends a run on a whole second), every side in every place
 * of the turn equally often (every order of the sides, once), about durationSeconds a side in all.
 * A shared machine's speed drifts over seconds; in short alternating rounds a stretch of load falls
 * on every side rather than on one side's single run. Each counted round follows a second uncounted
 * on the same side: while a server sits out the others' rounds, V8's memory reducer shrinks its
 * young generation, and a round counted straight after the idle gap would measure that regrowth,
 * which steady traffic never pays. Throughput is the requests over the time, latencies are pooled
 * over the rounds, and CPU per request is the server's CPU over its requests in all rounds; each
 * round's CPU per request is kept, for the ratio's range over the rounds.
 */
async function saturatingRounds<S extends string>(running: Record<S, Running>, path: string, body: string): Promise<Record<S, Saturated>> {
  const sides = Object.keys(running) as S[];
  const url = (side: S) => `${running[side].base}${path}`;
  for (const side of sides) await runLoad({ url: url(side), body, connections, durationSeconds: Math.min(3, durationSeconds) });
  const turns = permutations(sides);
  const roundSeconds = Math.max(1, Math.round(durationSeconds / turns.length));
  const runs = Object.fromEntries(sides.map((side) => [side, [] as Array<{ result: SaturatingLoadResult; cpuMs: number }>])) as Record<
    S,
    Array<{ result: SaturatingLoadResult; cpuMs: number }>
  >;
  for (const turn of turns) {
    for (const side of turn) {
      await runLoad({ url: url(side), body, connections, durationSeconds: 1 });
      const cpuBefore = running[side].process.cpuMs();
      const result = await runLoad({ url: url(side), body, connections, durationSeconds: roundSeconds });
      runs[side].push({ result, cpuMs: running[side].process.cpuMs() - cpuBefore });
    }
  }
  const pooled = (side: S): Saturated => {
    const requests = runs[side].reduce((sum, run) => sum + run.result.requests, 0);
    const cpuMs = runs[side].reduce((sum, run) => sum + run.cpuMs, 0);
    const latencies = runs[side].flatMap((run) => run.result.latencies).sort((a, b) => a - b);
    return {
      requestsPerSecond: requests / runs[side].reduce((sum, run) => sum + run.result.seconds, 0),
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      failures: runs[side].reduce((sum, run) => sum + run.result.failures, 0),
      requests,
      cpuMicrosPerRequest: (cpuMs * 1000) / requests,
      roundCpuMicros: runs[side].map((run) => (run.cpuMs * 1000) / run.result.requests),
    };
  };
  return Object.fromEntries(sides.map((side) => [side, pooled(side)])) as Record<S, Saturated>;
}

/** The lowest and highest of the rounds' CPU-per-request ratios, ours over the baseline's, as a Row's interval. */
function roundRange(baseline: Saturated, ours: Saturated): { interval?: [number, number] } {
  const [b, o] = [baseline.roundCpuMicros, ours.roundCpuMicros];
  if (b === undefined || o === undefined || b.length !== o.length) return {};
  const ratios = o.map((micros, i) => micros / b[i]!);
  return { interval: [Math.min(...ratios), Math.max(...ratios)] };
}

/** One side's fixed-rate figures, and its latencies slice by slice (for the ratio's interval). */
interface Fixed extends LoadResult {
  slices: readonly (readonly number[])[];
}

/**
 * Uncounted requests at the fixed rate that open each counted slice. Between two of its slices a
 * side sits idle for up to two other slices (four with the control, whose three sides take every
 * order in turn), long enough for cached authorization answers to expire unused, which a steady
 * stream never lets happen (it renews them ahead of expiry); the lead-in pays for that renewal, so
 * each counted second starts in the state a steady 1,000 req/s keeps. Every side gets the same lead-in. A cold cache is measured on its own, by scenario 3's
 * SubjectAccessReview rows.
 */
const leadInSeconds = 0.2;

/**
 * p50 and p99 at a fixed rate (requests evenly paced, bench/paced.ts). The sides take turns in
 * one-second slices, each side in each place of the turn equally often (baseline-ours,
 * ours-baseline, and so on), and each side's latencies are pooled over all of its slices. A shared
 * virtual machine's speed drifts over seconds (the load generator's own CPU time for the same
 * 7,000 requests ranged from 590 to 1,040 ms across the 6-second rounds this replaced), so short
 * alternating slices give both sides the same machine. Each slice follows its side's lead-in.
 */
async function fixedRateSlices<S extends string>(running: Record<S, Running>, path: string, body: string): Promise<Record<S, Fixed>> {
  const sides = Object.keys(running) as S[];
  const loads = Object.fromEntries(
    sides.map((side) => [
      side,
      new PacedLoad({ url: `${running[side].base}${path}`, body, connections, rate: fixedRate, ca: certs.caCert }),
    ]),
  ) as Record<S, PacedLoad>;
  const turns = permutations(sides);
  try {
    // The first second opens each side's connections and is not counted.
    for (const side of sides) await loads[side].run(1, false);
    for (let slice = 0; slice < fixedSeconds; slice++) {
      for (const side of turns[slice % turns.length]!) {
        await loads[side].run(leadInSeconds, false);
        await loads[side].run(1);
      }
    }
    return Object.fromEntries(sides.map((side) => [side, { ...loads[side].result(), slices: loads[side].slices() }])) as Record<S, Fixed>;
  } finally {
    for (const side of sides) loads[side].close();
  }
}

/** Every order of the items, so a cycle of them puts each item in each place equally often (two sides: as given, then reversed). */
function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((first, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [first, ...rest]));
}

/** The p99 ratio's 95 % interval over the slices, as the ratio column shows it. */
function p99Interval(baseline: Fixed, other: Fixed): [number, number] {
  return ratioInterval(baseline.slices, other.slices, { quantile: 0.99 });
}

async function sideBySide(
  title: string,
  path: string,
  body: string,
  options: {
    kubeconfig?: string;
    cold?: () => string;
    fixed?: boolean;
    extra?: (running: Running) => Promise<Row[]>;
    notes?: string[];
  } = {},
): Promise<void> {
  const results: Partial<Record<Side, Measured>> = {};
  let controlFixed: Fixed | undefined;
  let extraRows: Row[] = [];
  const running: Partial<Record<Side, Running>> = {};
  try {
    for (const side of ['baseline', 'ours'] as const) {
      const started = await start(side, body, path, options.kubeconfig);
      running[side] = started;
      if (side === 'ours' && options.extra !== undefined) extraRows = await options.extra(started);
    }
    // For reference, the baseline without express takes the same saturating turns.
    const plainRunning = await startBaseline(true);
    let saturated: Record<Side | 'plain', Saturated>;
    try {
      await waitForWebhook(`${plainRunning.base}${path}`, body, certs.caCert);
      saturated = await saturatingRounds({ baseline: running.baseline!, ours: running.ours!, plain: plainRunning }, path, body);
    } finally {
      await plainRunning.process.stop();
    }
    const plain = saturated.plain;
    const both = running as Record<Side, Running>;
    // Steady state first: the cold-cache burst comes last, because what it leaves behind (a heap
    // grown to hundreds of MiB, a full answer cache) is not the steady state and is reported apart.
    let fixed: Record<Side, Fixed> | undefined;
    if (options.fixed !== false && controlRun) {
      // The control is warmed as the baseline was (a warm-up and a saturating run) before it takes turns.
      const control = await startBaseline(false, true);
      try {
        await waitForWebhook(`${control.base}${path}`, body, certs.caCert);
        await measure(control, path, body);
        const turns = await fixedRateSlices({ ...both, control }, path, body);
        fixed = turns;
        controlFixed = turns.control;
      } finally {
        await control.process.stop();
      }
    } else if (options.fixed !== false) {
      fixed = await fixedRateSlices(both, path, body);
    }
    const warmPeak = { baseline: both.baseline.process.peakRssMiB(), ours: both.ours.process.peakRssMiB() };
    const cold: Partial<Record<Side, LoadResult>> = {};
    if (options.cold !== undefined) {
      for (const side of ['baseline', 'ours'] as const)
        cold[side] = await runLoad({ url: `${both[side].base}${path}`, body: options.cold, connections, durationSeconds });
    }
    for (const side of ['baseline', 'ours'] as const) {
      const coldRun = cold[side];
      results[side] = {
        throughput: saturated[side],
        ...(side === 'baseline' && { plain }),
        ...(coldRun && { cold: coldRun, warmPeakRssMiB: warmPeak[side] }),
        ...(fixed && { fixed: fixed[side] }),
        peakRssMiB: both[side].process.peakRssMiB(),
      };
    }
  } finally {
    for (const side of ['baseline', 'ours'] as const) await running[side]?.process.stop();
  }
  const b = results.baseline!;
  const o = results.ours!;
  const rows: Row[] = [
    { measure: 'throughput (req/s)', baseline: b.throughput.requestsPerSecond, ours: o.throughput.requestsPerSecond, digits: 0 },
    {
      measure: `CPU per request at saturation (µs: the server's user and system time over the requests it answered; ratio's range over the ${o.throughput.roundCpuMicros?.length ?? 0} rounds)`,
      baseline: b.throughput.cpuMicrosPerRequest,
      ours: o.throughput.cpuMicrosPerRequest,
      digits: 0,
      ...roundRange(b.throughput, o.throughput),
    },
    { measure: 'p50 latency (ms)', baseline: b.throughput.p50Ms, ours: o.throughput.p50Ms, digits: 2 },
    { measure: 'p99 latency (ms)', baseline: b.throughput.p99Ms, ours: o.throughput.p99Ms, digits: 2 },
  ];
  if (b.cold && o.cold) {
    rows.push(
      { measure: 'throughput, cold cache (req/s)', baseline: b.cold.requestsPerSecond, ours: o.cold.requestsPerSecond, digits: 0 },
      { measure: 'p99 latency, cold cache (ms)', baseline: b.cold.p99Ms, ours: o.cold.p99Ms, digits: 2 },
    );
  }
  if (b.fixed && o.fixed) {
    rows.push(
      {
        measure: `p50 latency at ${fixedRate} req/s, evenly paced (ms, ${fixedSeconds} s a side in alternating 1 s slices, each after ${leadInSeconds} s uncounted)`,
        baseline: b.fixed.p50Ms,
        ours: o.fixed.p50Ms,
        digits: 2,
      },
      {
        measure: `p99 latency at ${fixedRate} req/s, evenly paced (ms, ${fixedSeconds} s a side in alternating 1 s slices; ratio's 95 % interval over the slices)`,
        baseline: b.fixed.p99Ms,
        ours: o.fixed.p99Ms,
        digits: 2,
        interval: p99Interval(b.fixed, o.fixed),
      },
    );
  }
  if (b.warmPeakRssMiB !== undefined && o.warmPeakRssMiB !== undefined)
    rows.push({ measure: 'peak RSS before the cold-cache runs (MiB)', baseline: b.warmPeakRssMiB, ours: o.warmPeakRssMiB, digits: 0 });
  rows.push({
    measure: o.cold === undefined ? 'peak RSS (MiB)' : 'peak RSS, cold-cache runs included (MiB)',
    baseline: b.peakRssMiB,
    ours: o.peakRssMiB,
    digits: 0,
  });
  if (b.plain) {
    rows.push(
      {
        measure: 'throughput (req/s), baseline column: the same bare handler without express (node:https)',
        baseline: b.plain.requestsPerSecond,
        ours: o.throughput.requestsPerSecond,
        digits: 0,
      },
      {
        measure: 'CPU per request at saturation (µs), baseline column: the same bare handler without express',
        baseline: b.plain.cpuMicrosPerRequest,
        ours: o.throughput.cpuMicrosPerRequest,
        digits: 0,
        ...roundRange(b.plain, o.throughput),
      },
    );
  }
  const failures = { baseline: sumFailures(b), ours: sumFailures(o) };
  rows.push({ measure: 'failed requests (non-2xx, errors, timeouts)', ...failures, digits: 0 });
  const controlNote = controlFixed && b.fixed && o.fixed ? [controlSummary(b.fixed, controlFixed, o.fixed)] : [];
  const controlFailures = controlFixed?.failures ?? 0;
  printTable(
    title,
    [...rows, ...extraRows],
    [
      ...(options.notes ?? []),
      ...controlNote,
      ...(failures.baseline + failures.ours + controlFailures > 0
        ? ['**Some requests failed: the figures above are not trustworthy.**']
        : []),
    ],
  );
}

/**
 * The control's line: a second baseline process that took the same turns, against the baseline;
 * and ours against the control, a second reading of our p99 ratio that no stall of the first
 * baseline's alone can move.
 */
function controlSummary(baseline: Fixed, control: Fixed, ours: Fixed): string {
  const [low, high] = p99Interval(baseline, control);
  const [oursLow, oursHigh] = p99Interval(control, ours);
  return `Control (BENCH_CONTROL=1): a second baseline process took the same fixed-rate turns: p50 ${control.p50Ms.toFixed(2)} ms, p99 ${control.p99Ms.toFixed(2)} ms, p99 ratio to the baseline ${(control.p99Ms / baseline.p99Ms).toFixed(2)} (${low.toFixed(2)}–${high.toFixed(2)})${control.failures > 0 ? `, ${control.failures} failed requests` : ''}. Two identical servers differ this much by this method in this run. Our p99 against the control's: ${(ours.p99Ms / control.p99Ms).toFixed(2)} (${oursLow.toFixed(2)}–${oursHigh.toFixed(2)}).`;
}

function sumFailures(m: Measured): number {
  return [m.throughput, m.plain, m.cold, m.fixed].reduce((sum, r) => sum + (r?.failures ?? 0), 0);
}

/** Total SubjectAccessReviews our webhook has put on the wire, from its own /metrics. */
async function sarCalls(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  return [...text.matchAll(/^admission_chain_delegated_authz_request_total\{[^}]*\} (\S+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

/** A body whose request uid differs each call: SubjectAccessReview specs carry the user's uid, so every one misses the cache. */
function freshUidBodies(template: string, marker: string): () => string {
  const [before, after] = template.split(marker) as [string, string];
  let i = 0;
  return () => `${before}${marker}-${(i++).toString(36)}${after}`;
}

/** SubjectAccessReviews per request: cold (fresh uid each), warm (repeated), 50 concurrent identical. */
async function sarRows(running: Running, path: string, body: () => string, warmBody: string): Promise<Row[]> {
  const metricsUrl = running.metricsUrl!;
  const url = `${running.base}${path}`;
  const count = 50;
  const check = (r: { status: number; text: string }) => {
    if (r.status !== 200) throw new Error(`${url}: ${r.status} ${r.text}`);
  };
  let before = await sarCalls(metricsUrl);
  for (let i = 0; i < count; i++) check(await post(url, body(), certs.caCert));
  const cold = ((await sarCalls(metricsUrl)) - before) / count;
  check(await post(url, warmBody, certs.caCert));
  before = await sarCalls(metricsUrl);
  for (let i = 0; i < count; i++) check(await post(url, warmBody, certs.caCert));
  const warm = ((await sarCalls(metricsUrl)) - before) / count;
  const same = body();
  before = await sarCalls(metricsUrl);
  for (const r of await Promise.all(Array.from({ length: count }, () => post(url, same, certs.caCert)))) check(r);
  const concurrent = (await sarCalls(metricsUrl)) - before;
  return [
    { measure: 'SubjectAccessReviews per request, cold cache', baseline: undefined, ours: cold, digits: 2 },
    { measure: 'SubjectAccessReviews per request, warm cache', baseline: undefined, ours: warm, digits: 2 },
    { measure: `SubjectAccessReviews for ${count} concurrent identical requests (cold)`, baseline: undefined, ours: concurrent, digits: 0 },
  ];
}

process.stdout.write(
  [
    '# admission-chain benchmark',
    '',
    `- machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} CPUs, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM; Node ${process.version}; ${process.platform} ${process.arch}`,
    `- ${memoryLimitNote}`,
    `- ${pinning}; ${connections} connections; ${durationSeconds} s per run after a warm-up; HTTPS on loopback, same certificate and bodies for both`,
    `- baseline: bare express HTTPS handler that parses the review and answers allowed (one extra row per table: the same handler without express); admission-chain: \`${Object.entries(
      imageEnv,
    )
      .map(([k, v]) => `${k}=${v} `)
      .join(
        '',
      )}node ${imageNodeFlags.join(' ')} dist/cli/run.js serve\` (the image's environment and command) with the default plugins (AlwaysPullImages, OwnerReferencesPermissionEnforcement) at --log-level ${process.env.BENCH_LOG_LEVEL ?? 'info'} (info: a line per denial, none per allowed request)`,
    '',
    '',
  ].join('\n'),
);

if (scenarios.has('1')) {
  await sideBySide('Scenario 1: Pod CREATE, 3 containers, /mutate', '/mutate', JSON.stringify(podCreate()));
}
if (scenarios.has('2')) {
  await sideBySide('Scenario 2: Pod CREATE, 3 containers, /validate', '/validate', JSON.stringify(podCreate()), {
    notes: ['AlwaysPullImages rejects these pods (no imagePullPolicy: Always): every answer is a denial, as upstream words it.'],
  });
}
if (scenarios.has('3')) {
  const kubeconfig = join(dir, 'kubeconfig');
  const api = startNode([join(root, 'bench/apiserver.ts'), kubeconfig], { core: loadCore, stdout: 'pipe' });
  await waitForLine(api.child, 'ready');
  try {
    for (const [who, user] of Object.entries(benchUsers)) {
      for (const refs of [1, 10]) {
        const warm = JSON.stringify(deploymentOwnerUpdate(refs, user));
        const cold = freshUidBodies(warm, user.uid);
        await sideBySide(
          `Scenario 3: Deployment UPDATE newly blocking ${refs} owner reference${refs > 1 ? 's' : ''}, ${who} user, /validate`,
          '/validate',
          warm,
          {
            kubeconfig,
            cold,
            extra: (running) => sarRows(running, '/validate', cold, warm),
            notes: [
              'SubjectAccessReviews go over HTTPS to the stand-in API server (test/apiserver, embedded RBAC), which runs on the load generator\'s CPU; "cold" sends a new user uid with every request so no answer is cached.',
            ],
          },
        );
      }
    }
  } finally {
    await api.process.stop();
  }
}
if (scenarios.has('4')) {
  for (const kib of [64, 256, 1024]) {
    await sideBySide(
      `Scenario 4: Pod CREATE with ${kib} KiB of annotations, /mutate`,
      '/mutate',
      JSON.stringify(largePodCreate(kib * 1024)),
      {
        fixed: false,
        notes: ['No fixed-rate run: 1,000 req/s of this size is more than either side can take on one core.'],
      },
    );
  }
}
if (scenarios.has('5')) await runHostileScenario();
// Scenario 3 with --authorizer=sar and --authorizer=rbac-mirror side by side (bench/rbac-mirror.ts).
if (scenarios.has('6')) await runRbacMirrorScenario();
// admission-chain, Gatekeeper and Kyverno behind a real kube-apiserver (bench/peers/scenario.ts); not in
// the default set, since it builds both peers from their Go modules the first time.
if (scenarios.has('peers')) await runPeersScenario();
// The audit command offline over a generated tree of 1,000 and 10,000 pods (bench/audit.ts): the
// command line, not the webhook, so selected by name only.
if (scenarios.has('audit')) await runAuditScenario();
