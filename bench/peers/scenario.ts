// The peers scenario (BENCH_SCENARIOS=peers): admission-chain, Gatekeeper and Kyverno doing the same
// job — AlwaysPullImages on pods, DenyServiceExternalIPs on Services — behind one real kube-apiserver,
// and the floor: the same API server with no webhook called. Writes are dry-run creates
// (?dryRun=All: admission runs in full, nothing is stored) sent through the API server as its admin,
// so what is measured is what a user's `kubectl apply` waits for.
//
// Each configuration has its own namespace, and each webhook's namespaceSelector matches only its
// own, so one set of registrations serves every slice and a request meets exactly one engine (the
// floor's namespace none). At each fixed rate the configurations take turns in one-second slices,
// every order in turn, each after 0.2 s uncounted, as the other fixed-rate runs do; saturation runs
// come one configuration after the other. The webhooks run on the server core; kube-apiserver, etcd
// and the load generator share the other.
//
// Knobs: BENCH_PEERS_RATES (default 50,200,500), BENCH_PEERS_SECONDS (counted seconds a
// configuration at each rate, default 20), BENCH_DURATION (seconds of each saturating run, default
// 10), BENCH_CONNECTIONS (10), BENCH_PEERS_ENGINES (default admission-chain,gatekeeper,kyverno).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildMissing } from '../../control-plane/binaries.ts';
import { type ControlPlane, startControlPlane } from '../../control-plane/control-plane.ts';
import { podCreate } from '../bodies.ts';
import { chartMemoryLimitMiB } from '../memory-cgroup.ts';
import { PacedLoad } from '../paced.ts';
import { loadCore } from '../processes.ts';
import { buildPeers, moduleSourceDir, peerBuilds } from './binaries.ts';
import { closedLoop } from './closed-loop.ts';
import {
  type Configuration,
  type Engine,
  type EngineContext,
  type EngineName,
  engineLabel,
  engineNames,
  failurePolicy,
  namespaceOf,
  startGatekeeper,
  startKyverno,
  startOurs,
  timeoutSeconds,
} from './engines.ts';
import { api, apiOk, pinProcessesMentioning, until } from './kube.ts';
import { type Measured, printPeersTables, type Workload, type WorkloadResults } from './table.ts';

const root = join(import.meta.dirname, '..', '..');
const log = (line: string) => process.stderr.write(`bench peers: ${line}\n`);

function numbers(name: string, fallback: string): number[] {
  const values = (process.env[name] ?? fallback).split(',').map(Number);
  if (values.some((v) => !Number.isFinite(v) || v <= 0)) {
    process.stderr.write(`bench: ${name} must be positive numbers separated by commas, got ${JSON.stringify(process.env[name])}\n`);
    process.exit(2);
  }
  return values;
}

/** The pod of scenarios 1 and 2 (three containers, none pulling Always), as a user would send it. */
function pod(): Record<string, unknown> {
  const object = structuredClone(podCreate().request.object) as { metadata: Record<string, unknown> };
  delete object.metadata.namespace;
  return object;
}

function service(externalIPs?: string[]): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', labels: { app: 'web' } },
    spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }], ...(externalIPs && { externalIPs }) },
  };
}

const workloads: Array<{ workload: Workload; resource: string; body: () => Record<string, unknown> }> = [
  { workload: 'pods', resource: 'pods', body: pod },
  { workload: 'services', resource: 'services', body: () => service() },
];

const createPath = (configuration: Configuration, resource: string) =>
  `/api/v1/namespaces/${namespaceOf(configuration)}/${resource}?dryRun=All`;

/**
 * The same job, checked through the API server before anything is timed: the dry-run pod comes back
 * with every container pulling Always, and a Service with an external IP is refused — except on the
 * floor, where neither happens. Polled, because Gatekeeper and Kyverno load policies asynchronously.
 */
async function checkSameJob(controlPlane: ControlPlane, configuration: Configuration): Promise<string> {
  let summary = '';
  await until(
    `${configuration} doing the job`,
    async () => {
      const created = await api(controlPlane, 'POST', createPath(configuration, 'pods'), pod());
      if (created.status !== 201) return `pod: ${created.status} ${created.text.slice(0, 300)}`;
      const policies = ((created.body as { spec: { containers: Array<{ imagePullPolicy?: string }> } }).spec.containers ?? []).map(
        (c) => c.imagePullPolicy,
      );
      const pulled = policies.every((p) => p === 'Always');
      const denied = await api(controlPlane, 'POST', createPath(configuration, 'services'), service(['203.0.113.7']));
      // A denial's code is the webhook's choice (ours and Gatekeeper's 403, Kyverno's none, which kube-apiserver answers as 400).
      const refused = denied.status >= 400 && denied.status < 500 && /denied the request/.test(denied.text);
      if (configuration === 'floor') {
        summary = `pods keep ${policies.join(', ')}; a Service with an external IP: ${denied.status}`;
        return !pulled && denied.status === 201;
      }
      if (!pulled) return `pod containers pull ${policies.join(', ')}`;
      if (!refused) return `Service with an external IP: ${denied.status} ${denied.text.slice(0, 300)}`;
      const message = ((denied.body as { message?: string }).message ?? '').replace(/\s+/g, ' ').trim();
      summary = `pods pull Always; a Service with an external IP: ${denied.status} "${message}"`;
      return true;
    },
    180_000,
  );
  return summary;
}

interface Turn {
  load: PacedLoad;
  cpuMs: number;
  requests: number;
}

/** One workload at one rate: every configuration in one-second slices, taking turns in every order. */
async function fixedRate(
  controlPlane: ControlPlane,
  configurations: Configuration[],
  engines: Partial<Record<EngineName, Engine>>,
  resource: string,
  body: string,
  rate: number,
  seconds: number,
  connections: number,
): Promise<Record<Configuration, Measured>> {
  const leadIn = 0.2;
  const turns = Object.fromEntries(
    configurations.map((c) => [
      c,
      {
        load: new PacedLoad({
          url: `${controlPlane.server}${createPath(c, resource)}`,
          body,
          rate,
          connections,
          ca: controlPlane.caCert,
          cert: controlPlane.admin.cert,
          key: controlPlane.admin.key,
        }),
        cpuMs: 0,
        requests: 0,
      },
    ]),
  ) as Record<Configuration, Turn>;
  const orders = permutations(configurations);
  try {
    for (const c of configurations) await turns[c].load.run(1, false);
    for (let slice = 0; slice < seconds; slice++) {
      for (const c of orders[slice % orders.length]!) {
        const turn = turns[c];
        const engine = c === 'floor' ? undefined : engines[c];
        const before = engine?.process.cpuMs() ?? 0;
        await turn.load.run(leadIn, false);
        await turn.load.run(1);
        turn.cpuMs += (engine?.process.cpuMs() ?? 0) - before;
        turn.requests += Math.round(rate * leadIn) + Math.round(rate);
      }
    }
    return Object.fromEntries(
      configurations.map((c) => [
        c,
        {
          result: turns[c].load.result(),
          cpuMsPerRequest: c === 'floor' ? undefined : turns[c].cpuMs / turns[c].requests,
          slices: turns[c].load.slices(),
        },
      ]),
    ) as Record<Configuration, Measured>;
  } finally {
    for (const c of configurations) turns[c].load.close();
  }
}

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((first, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [first, ...rest]));
}

export async function runPeersScenario(): Promise<void> {
  const rates = numbers('BENCH_PEERS_RATES', '50,200,500');
  const [seconds] = numbers('BENCH_PEERS_SECONDS', '20') as [number];
  const saturationSeconds = Number(process.env.BENCH_DURATION ?? 10);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
  const wanted = (process.env.BENCH_PEERS_ENGINES ?? engineNames.join(',')).split(',') as EngineName[];
  for (const name of wanted) {
    if (!engineNames.includes(name)) {
      process.stderr.write(`bench: BENCH_PEERS_ENGINES names ${JSON.stringify(name)}; known: ${engineNames.join(', ')}\n`);
      process.exit(2);
    }
  }

  log('building or reusing kube-apiserver, etcd and both peers (a cold build of each takes minutes)');
  const controlPlaneBinaries = await buildMissing(log);
  const peerBinaries = await buildPeers(log);
  const goModCache = execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
  const builds = peerBuilds();

  const dir = mkdtempSync(join(tmpdir(), 'admission-chain-bench-peers-'));
  const controlPlane = await startControlPlane({ dir: join(dir, 'control-plane') });
  const engines: Partial<Record<EngineName, Engine>> = {};
  const unavailable: string[] = [];
  try {
    const pinned = pinProcessesMentioning(join(dir, 'control-plane'), loadCore);
    log(`control plane up at ${controlPlane.server}; ${pinned.length} of its processes pinned to CPU ${loadCore}`);
    for (const c of ['floor', ...engineNames] as const) {
      await apiOk(controlPlane, 'POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: namespaceOf(c), labels: { [engineLabel]: c } },
      });
    }
    const context: EngineContext = {
      controlPlane,
      dir,
      root,
      oursMemoryLimitMiB: chartMemoryLimitMiB(readFileSync(join(root, 'charts/admission-chain/values.yaml'), 'utf8')),
    };
    const ours = await startOurs(context);
    engines['admission-chain'] = ours.engine;
    if (wanted.includes('gatekeeper')) {
      try {
        engines.gatekeeper = await startGatekeeper(
          context,
          peerBinaries,
          moduleSourceDir(goModCache, builds.gatekeeper),
          ours.rules,
          join(import.meta.dirname, 'policies/gatekeeper.yaml'),
        );
      } catch (error) {
        unavailable.push(`Gatekeeper could not be run: ${(error as Error).message}`);
      }
    }
    if (wanted.includes('kyverno')) {
      try {
        engines.kyverno = await startKyverno(
          context,
          peerBinaries,
          moduleSourceDir(goModCache, builds.kyverno),
          join(import.meta.dirname, 'policies/kyverno.yaml'),
        );
      } catch (error) {
        unavailable.push(`Kyverno could not be run: ${(error as Error).message}`);
      }
    }
    const configurations: Configuration[] = ['floor'];
    const sameJob: string[] = [];
    for (const c of ['floor', ...engineNames] as const) {
      if (c !== 'floor' && engines[c] === undefined) continue;
      try {
        sameJob.push(`${c}: ${await checkSameJob(controlPlane, c)}`);
        if (c !== 'floor') configurations.push(c);
      } catch (error) {
        if (c === 'floor') throw error;
        unavailable.push(`${c} did not do the job: ${(error as Error).message}`);
      }
    }
    // What each process spends with no admission at all (informers, leader election, its own timers), per second.
    const idleSeconds = 10;
    const idleBefore = Object.fromEntries(Object.values(engines).map((e) => [e.name, e.process.cpuMs()]));
    await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
    const idleCpuMsPerSecond = Object.fromEntries(
      Object.values(engines).map((e) => [e.name, (e.process.cpuMs() - (idleBefore[e.name] ?? 0)) / idleSeconds]),
    ) as Partial<Record<EngineName, number>>;
    log(`measuring ${configurations.join(', ')} at ${rates.join(', ')} req/s, ${seconds} s each, and at saturation`);
    const results: WorkloadResults[] = [];
    for (const { workload, resource, body } of workloads) {
      const text = JSON.stringify(body());
      // Warm-up, uncounted: each configuration's first few thousand writes (JIT, connection pools, caches).
      for (const c of configurations) {
        await closedLoop({
          url: `${controlPlane.server}${createPath(c, resource)}`,
          body: text,
          connections,
          seconds: 5,
          ca: controlPlane.caCert,
          cert: controlPlane.admin.cert,
          key: controlPlane.admin.key,
        });
      }
      const byRate: WorkloadResults['byRate'] = [];
      for (const rate of rates) {
        byRate.push({ rate, results: await fixedRate(controlPlane, configurations, engines, resource, text, rate, seconds, connections) });
        log(`${workload} at ${rate} req/s done`);
      }
      const saturation: WorkloadResults['saturation'] = {};
      for (const c of configurations) {
        const options = {
          url: `${controlPlane.server}${createPath(c, resource)}`,
          body: text,
          connections,
          ca: controlPlane.caCert,
          cert: controlPlane.admin.cert,
          key: controlPlane.admin.key,
        };
        await closedLoop({ ...options, seconds: 2 });
        const engine = c === 'floor' ? undefined : engines[c];
        const before = engine?.process.cpuMs() ?? 0;
        const result = await closedLoop({ ...options, seconds: saturationSeconds });
        saturation[c] = { result, cpuMsPerRequest: engine && (engine.process.cpuMs() - before) / result.requests };
      }
      log(`${workload} at saturation done`);
      results.push({ workload, byRate, saturation });
    }
    const peakRssMiB = Object.fromEntries(Object.values(engines).map((engine) => [engine.name, engine.process.peakRssMiB()])) as Partial<
      Record<EngineName, number>
    >;
    printPeersTables({
      kubernetesVersion: controlPlaneBinaries.kubernetesVersion,
      engines: Object.values(engines),
      configurations,
      results,
      peakRssMiB,
      idleCpuMsPerSecond,
      notes: [
        `Every webhook: failurePolicy ${failurePolicy}, timeoutSeconds ${timeoutSeconds}, namespaceSelector ${engineLabel}=<its name>; ours and Gatekeeper with the rules our chart renders for the two plugins, Kyverno with the rules it derives from its policies.`,
        `Same job, checked through the API server before timing: ${sameJob.join('; ')}.`,
        ...unavailable,
      ],
      saturationSeconds,
      seconds,
      connections,
    });
  } finally {
    for (const engine of Object.values(engines)) await engine.stop();
    await controlPlane.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
