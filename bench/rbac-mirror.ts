// `npm run bench` scenario 6 (or `node bench/rbac-mirror.ts` alone): scenario 3's owner-reference
// update with both --authorizer modes side by side against the bare baseline, over one stand-in
// API server that serves the RBAC objects and answers SubjectAccessReviews from the same ones
// (bench/rbac-mirror-apiserver.ts). For the wildcard user (group platform-admins) and the narrow
// one (may finalize ReplicaSets in "bench", so every owner is its own question), 10 owners each:
// SubjectAccessReviews per request from identities the server has never seen and from one it has,
// the latency of a never-seen identity's request, saturating throughput (one identity; and a new
// identity per request), p50/p99 at 1,000 req/s, and peak RSS. Then the mirror's memory on a
// cluster-sized RBAC set (bench/rbac-mirror-cluster.ts): time to Ready, peak RSS against the
// chart's limit, and the time to rebuild its evaluator after a RoleBinding changes. Not a test.
//
// Knobs (environment, as run.ts): BENCH_DURATION seconds per saturating run (default 10),
// BENCH_FIXED_SECONDS counted seconds a side at the fixed rate (default 30), BENCH_CONNECTIONS
// (default 10), BENCH_IDENTITIES requests from never-seen identities per side and user (default 100).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { bundle } from '../build/bundle.ts';
import { generateCertificates } from '../src/tls/generate.ts';
import { ratioInterval } from './interval.ts';
import { type LoadResult, runLoad } from './load.ts';
import { loadCore, pinSelf, startNode, waitForLine, waitForWebhook } from './processes.ts';
import { clusterSize } from './rbac-mirror-cluster.ts';
import { type BenchUser, fixedRateTurns, metricSum, newIdentityBodies, oneAtATime, sameIdentityBody } from './rbac-mirror-measures.ts';
import {
  cgroupsAvailable,
  type Mode,
  memoryLimitMiB,
  type Running,
  type ServerFiles,
  startBaseline,
  startOurs,
  waitReady,
} from './rbac-mirror-servers.ts';
import { type ModeRow, printModeTable } from './rbac-mirror-table.ts';

const root = join(import.meta.dirname, '..');
const durationSeconds = Number(process.env.BENCH_DURATION ?? 10);
const fixedSeconds = Number(process.env.BENCH_FIXED_SECONDS ?? 30);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const identities = Number(process.env.BENCH_IDENTITIES ?? 100);
const refs = 10;
const fixedRate = 1000;
const leadInSeconds = 0.2;
const path = '/validate';

type Side = 'baseline' | 'sar' | 'mirror';

async function startApiServer(dir: string, name: string, clusterSized: boolean) {
  const kubeconfig = join(dir, name);
  const api = startNode([join(root, 'bench/rbac-mirror-apiserver.ts'), kubeconfig, ...(clusterSized ? ['--cluster-sized'] : [])], {
    core: loadCore,
    stdout: 'pipe',
  });
  await waitForLine(api.child, 'ready', 120_000);
  return { kubeconfig, stop: () => api.process.stop() };
}

async function startMode(files: ServerFiles, kubeconfig: string, mode: Mode, ca: string): Promise<Running & { readySeconds: number }> {
  const since = performance.now();
  const running = await startOurs(files, kubeconfig, mode);
  const readySeconds = await waitReady(running, since, 120_000);
  await waitForWebhook(`${running.base}${path}`, sameIdentityBody('wildcard', 1), ca);
  return Object.assign(running, { readySeconds });
}

const failuresOf = (...results: Array<{ failures: number } | undefined>) => results.reduce((sum, r) => sum + (r?.failures ?? 0), 0);

/** One user's rows: the three sides already running. */
async function userRows(user: BenchUser, sides: Record<Side, Running>, ca: string): Promise<{ rows: ModeRow[]; failures: number }> {
  const url = (side: Side) => `${sides[side].base}${path}`;
  const same = sameIdentityBody(user, refs);
  const fresh: Partial<Record<Side, Awaited<ReturnType<typeof oneAtATime>>>> = {};
  const repeated: Partial<Record<Side, Awaited<ReturnType<typeof oneAtATime>>>> = {};
  for (const side of ['baseline', 'sar', 'mirror'] as const) {
    fresh[side] = await oneAtATime(url(side), sides[side].metricsUrl, newIdentityBodies(user, refs, `${side}-fresh`), identities, ca);
    await oneAtATime(url(side), undefined, () => same, 1, ca);
    repeated[side] = await oneAtATime(url(side), sides[side].metricsUrl, () => same, identities, ca);
  }
  const saturated: Partial<Record<Side, LoadResult>> = {};
  const saturatedFresh: Partial<Record<Side, LoadResult>> = {};
  for (const side of ['baseline', 'sar', 'mirror'] as const) {
    await runLoad({ url: url(side), body: same, connections, durationSeconds: Math.min(3, durationSeconds) });
    saturated[side] = await runLoad({ url: url(side), body: same, connections, durationSeconds });
    saturatedFresh[side] = await runLoad({
      url: url(side),
      body: newIdentityBodies(user, refs, `${side}-load`),
      connections,
      durationSeconds,
    });
  }
  const fixed = await fixedRateTurns({ baseline: url('baseline'), sar: url('sar'), mirror: url('mirror') }, same, {
    rate: fixedRate,
    seconds: fixedSeconds,
    connections,
    ca,
    leadInSeconds,
  });
  const interval = (side: 'sar' | 'mirror') => ratioInterval(fixed.baseline.slices, fixed[side].slices, { quantile: 0.99 });
  const rows: ModeRow[] = [
    {
      measure: `SubjectAccessReviews per request, ${identities} never-seen identities one after another`,
      sar: fresh.sar!.sarPerRequest,
      mirror: fresh.mirror!.sarPerRequest,
      digits: 2,
    },
    {
      measure: `SubjectAccessReviews per request, one identity ${identities} times (after its first request)`,
      sar: repeated.sar!.sarPerRequest,
      mirror: repeated.mirror!.sarPerRequest,
      digits: 2,
    },
    {
      measure: "p50 latency of a never-seen identity's request, one at a time (ms)",
      baseline: fresh.baseline!.p50Ms,
      sar: fresh.sar!.p50Ms,
      mirror: fresh.mirror!.p50Ms,
      digits: 2,
    },
    {
      measure: "p99 latency of a never-seen identity's request, one at a time (ms)",
      baseline: fresh.baseline!.p99Ms,
      sar: fresh.sar!.p99Ms,
      mirror: fresh.mirror!.p99Ms,
      digits: 2,
    },
    {
      measure: 'throughput, one identity (req/s)',
      baseline: saturated.baseline!.requestsPerSecond,
      sar: saturated.sar!.requestsPerSecond,
      mirror: saturated.mirror!.requestsPerSecond,
      digits: 0,
    },
    {
      measure: 'throughput, a never-seen identity per request (req/s)',
      baseline: saturatedFresh.baseline!.requestsPerSecond,
      sar: saturatedFresh.sar!.requestsPerSecond,
      mirror: saturatedFresh.mirror!.requestsPerSecond,
      digits: 0,
    },
    {
      measure: 'p99 latency, a never-seen identity per request, saturating (ms)',
      baseline: saturatedFresh.baseline!.p99Ms,
      sar: saturatedFresh.sar!.p99Ms,
      mirror: saturatedFresh.mirror!.p99Ms,
      digits: 2,
    },
    {
      measure: `p50 latency at ${fixedRate} req/s, one identity, evenly paced (ms, ${fixedSeconds} s a side in 1 s slices taking turns)`,
      baseline: fixed.baseline.p50Ms,
      sar: fixed.sar.p50Ms,
      mirror: fixed.mirror.p50Ms,
      digits: 2,
    },
    {
      measure: `p99 latency at ${fixedRate} req/s, one identity, evenly paced (ms; ratio's 95 % interval over the slices)`,
      baseline: fixed.baseline.p99Ms,
      sar: fixed.sar.p99Ms,
      mirror: fixed.mirror.p99Ms,
      digits: 2,
      intervals: { sar: interval('sar'), mirror: interval('mirror') },
    },
  ];
  const failures = failuresOf(...Object.values(saturated), ...Object.values(saturatedFresh), ...Object.values(fixed));
  return { rows, failures };
}

async function sideBySide(files: ServerFiles, dir: string, ca: string): Promise<void> {
  const api = await startApiServer(dir, 'kubeconfig', false);
  const sides: Partial<Record<Side, Running>> = {};
  try {
    sides.baseline = await startBaseline(files);
    await waitForWebhook(`${sides.baseline.base}${path}`, sameIdentityBody('wildcard', 1), ca);
    sides.sar = await startMode(files, api.kubeconfig, 'sar', ca);
    sides.mirror = await startMode(files, api.kubeconfig, 'rbac-mirror', ca);
    const all = sides as Record<Side, Running>;
    for (const user of ['wildcard', 'narrow'] as const) {
      const { rows, failures } = await userRows(user, all, ca);
      const who =
        user === 'wildcard'
          ? 'wildcard user (group platform-admins: RBAC allows the probe)'
          : 'narrow user (may finalize ReplicaSets in "bench": RBAC does not allow the probe, allows each owner)';
      printModeTable(`Scenario 6: Deployment UPDATE newly blocking ${refs} owner references, ${who}, /validate`, rows, [
        'SubjectAccessReviews go over HTTPS to the stand-in API server (test/apiserver), which holds the RBAC objects the mirror lists and watches and answers each review with RBAC over the same objects; it runs on the load generator\'s CPU. "Never-seen identities" differ in user name and uid (the wildcard ones share the group platform-admins, the narrow ones the group bench-narrow-team), so no cached answer serves them.',
        ...(failures > 0 ? ['**Some requests failed: the figures above are not trustworthy.**'] : []),
      ]);
    }
    printModeTable(`Scenario 6: peak RSS over both users' runs`, [
      {
        measure: 'peak RSS (MiB)',
        baseline: all.baseline.process.peakRssMiB(),
        sar: all.sar.process.peakRssMiB(),
        mirror: all.mirror.process.peakRssMiB(),
        digits: 0,
      },
    ]);
  } finally {
    for (const side of Object.values(sides)) await side?.stop();
    await api.stop();
  }
}

/** The mirror on a cluster-sized RBAC set, with --authorizer=sar on the same API server beside it. */
async function clusterSized(files: ServerFiles, dir: string, ca: string): Promise<void> {
  const api = await startApiServer(dir, 'kubeconfig-cluster-sized', true);
  const sides: Partial<Record<'sar' | 'mirror', Running & { readySeconds: number }>> = {};
  try {
    sides.sar = await startMode(files, api.kubeconfig, 'sar', ca);
    sides.mirror = await startMode(files, api.kubeconfig, 'rbac-mirror', ca);
    const { sar, mirror } = sides as Record<'sar' | 'mirror', Running & { readySeconds: number }>;
    const readyRss = { sar: sar.process.peakRssMiB(), mirror: mirror.process.peakRssMiB() };
    const objects = await metricSum(mirror.metricsUrl!, 'admission_chain_rbac_mirror_objects');
    const fresh = {
      sar: await oneAtATime(`${sar.base}${path}`, sar.metricsUrl, newIdentityBodies('narrow', refs, 'sized'), identities, ca),
      mirror: await oneAtATime(`${mirror.base}${path}`, mirror.metricsUrl, newIdentityBodies('narrow', refs, 'sized'), identities, ca),
    };
    const same = sameIdentityBody('narrow', refs);
    const fixed = await fixedRateTurns({ sar: `${sar.base}${path}`, mirror: `${mirror.base}${path}` }, same, {
      rate: fixedRate,
      seconds: Math.min(fixedSeconds, 10),
      connections,
      ca,
      leadInSeconds,
    });

    // RoleBindings change while the mirror serves: each change rebuilds its evaluator once.
    const rebuildsBefore = {
      count: await metricSum(mirror.metricsUrl!, 'admission_chain_rbac_mirror_rebuild_duration_seconds_count'),
      sum: await metricSum(mirror.metricsUrl!, 'admission_chain_rbac_mirror_rebuild_duration_seconds_sum'),
    };
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(api.kubeconfig);
    const rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const changes = 20;
    for (let i = 0; i < changes; i++) {
      await rbac.createNamespacedRoleBinding({
        namespace: 'team-0000',
        body: {
          metadata: { name: `churn-${i}` },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'tenant-role-1' },
          subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: `churn-${i}` }],
        },
      });
      await new Promise((r) => setTimeout(r, 100));
      await oneAtATime(`${mirror.base}${path}`, undefined, () => same, 1, ca);
    }
    const rebuilds =
      (await metricSum(mirror.metricsUrl!, 'admission_chain_rbac_mirror_rebuild_duration_seconds_count')) - rebuildsBefore.count;
    const rebuildMs =
      (1000 * ((await metricSum(mirror.metricsUrl!, 'admission_chain_rbac_mirror_rebuild_duration_seconds_sum')) - rebuildsBefore.sum)) /
      Math.max(1, rebuilds);

    printModeTable(
      `Scenario 6: the RBAC mirror on a cluster-sized RBAC set (${clusterSize.namespaces} namespaces, ${clusterSize.namespaces * clusterSize.roleBindingsPerNamespace} RoleBindings, ${clusterSize.clusterRoles} ClusterRoles, ${clusterSize.namespaces} Roles, ${clusterSize.clusterRoleBindings} ClusterRoleBindings)`,
      [
        { measure: 'objects the mirror holds', sar: undefined, mirror: objects, digits: 0 },
        {
          measure: 'start to Ready (s; the mirror: its four caches listed, 500 objects a page)',
          sar: sar.readySeconds,
          mirror: mirror.readySeconds,
          digits: 2,
        },
        { measure: 'peak RSS once Ready (MiB)', sar: readyRss.sar, mirror: readyRss.mirror, digits: 0 },
        {
          measure: `SubjectAccessReviews per request, ${identities} never-seen narrow identities`,
          sar: fresh.sar.sarPerRequest,
          mirror: fresh.mirror.sarPerRequest,
          digits: 2,
        },
        {
          measure: "p99 latency of a never-seen identity's request, one at a time (ms)",
          sar: fresh.sar.p99Ms,
          mirror: fresh.mirror.p99Ms,
          digits: 2,
        },
        {
          measure: `p99 latency at ${fixedRate} req/s, one narrow identity (ms, ${Math.min(fixedSeconds, 10)} s a side in 1 s slices taking turns)`,
          sar: fixed.sar.p99Ms,
          mirror: fixed.mirror.p99Ms,
          digits: 2,
        },
        { measure: `evaluator rebuilds after ${changes} RoleBinding creations, 100 ms apart`, sar: undefined, mirror: rebuilds, digits: 0 },
        { measure: 'mean time to rebuild the evaluator (ms)', sar: undefined, mirror: rebuildMs, digits: 1 },
        {
          measure: `peak RSS, all of the above (MiB; the chart's limit: ${memoryLimitMiB} MiB)`,
          sar: sar.process.peakRssMiB(),
          mirror: mirror.process.peakRssMiB(),
          digits: 0,
        },
      ],
      [
        failuresOf(fixed.sar, fixed.mirror) > 0
          ? '**Some requests failed: the figures above are not trustworthy.**'
          : 'No baseline here: the bare handler holds no RBAC. --authorizer=sar runs beside the mirror against the same API server, for reference.',
      ],
    );
  } finally {
    for (const side of Object.values(sides)) await side?.stop();
    await api.stop();
  }
}

export async function runRbacMirrorScenario(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'admission-chain-rbac-mirror-'));
  const certs = await generateCertificates({ commonName: 'localhost', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  const files = { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') };
  writeFileSync(files.certFile, certs.cert);
  writeFileSync(files.keyFile, certs.key, { mode: 0o600 });
  process.stdout.write(
    `Scenario 6 settings: ${durationSeconds} s per saturating run, ${fixedSeconds} s a side at ${fixedRate} req/s, ${connections} connections, ${identities} never-seen identities per side and user; ${cgroupsAvailable() ? `each server in its own memory cgroup limited to ${memoryLimitMiB} MiB (the chart's limit)` : 'servers not in a memory cgroup (none can be made here)'}.\n\n`,
  );
  await sideBySide(files, dir, certs.caCert);
  await clusterSized(files, dir, certs.caCert);
}

if (import.meta.main) {
  pinSelf();
  await bundle(join(root, 'dist'));
  await runRbacMirrorScenario();
}
