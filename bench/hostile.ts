// `npm run bench` scenario 5 (or `node bench/hostile.ts` alone): the hostile bodies of
// bench/hostile-bodies.ts against the shipped server, in a memory cgroup limited as the chart limits
// the pod. For each shape: one request's time against the bare express handler's for the same body
// (parse and answer: the least any webhook pays), then eight at once while /livez is probed every
// 250 ms with the chart's liveness timeout, reading the slowest probe and the peak RSS against the
// limit; then the same eight against a server in no memory cgroup, where Node sizes its heap from
// the machine's memory, for the peak RSS there; and what one request leaves on the heap against
// the share the in-flight budget holds for it. Not a test: nothing asserts; docs/reliability.md
// carries the table.
//
// Knobs (environment): BENCH_HOSTILE_SHAPES which shapes by their row, e.g. "2,3" (default all),
// BENCH_NODE_OPTIONS more flags for admission-chain's node (e.g. "--trace-gc").
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { bundle } from '../build/bundle.ts';
import { jsonShape, requestWeight } from '../src/server/json-weight.ts';
import { generateCertificates } from '../src/tls/generate.ts';
import { type HostileShape, hostileShapes } from './hostile-bodies.ts';
import { chartMemoryLimitMiB, createMemoryCgroup } from './memory-cgroup.ts';
import { freePort, imageRuntime, pinSelf, post, startNode, waitForLine, waitForWebhook } from './processes.ts';

const root = join(import.meta.dirname, '..');
const plugins = [
  'AlwaysPullImages',
  'OwnerReferencesPermissionEnforcement',
  'PodTolerationRestriction',
  'ExtendedResourceToleration',
  'LimitPodHardAntiAffinityTopology',
];

export async function runHostileScenario(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'admission-chain-hostile-'));
  // Measure what ships from the sources as they are now, whatever an earlier build left in dist/.
  const dist = join(dir, 'dist');
  await bundle(dist);
  const certs = await generateCertificates({ commonName: 'localhost', ipAddresses: ['127.0.0.1'] });
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  writeFileSync(certFile, certs.cert);
  writeFileSync(keyFile, certs.key, { mode: 0o600 });
  const state = join(dir, 'cluster-state.yaml');
  writeFileSync(
    state,
    `${readFileSync(join(root, 'bench/cluster-state.yaml'), 'utf8')}\n---\n${readFileSync(join(root, 'bench/hostile-namespace.yaml'), 'utf8')}`,
  );
  const values = readFileSync(join(root, 'charts/admission-chain/values.yaml'), 'utf8');
  const limitMiB = chartMemoryLimitMiB(values);
  const rows = (process.env.BENCH_HOSTILE_SHAPES ?? '').split(',').filter(Boolean).map(Number);
  const extraNodeOptions = (process.env.BENCH_NODE_OPTIONS ?? '').split(' ').filter(Boolean);
  const probeTimeoutMs =
    1000 * Number((parse(values) as { probes: { liveness: { timeoutSeconds: number } } }).probes.liveness.timeoutSeconds);
  const image = imageRuntime();
  const small = JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'w',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      operation: 'CREATE',
      namespace: 'hostile',
      userInfo: { username: 'u' },
      object: { kind: 'Pod', spec: { containers: [{ name: 'a', image: 'a', imagePullPolicy: 'Always' }] } },
    },
  });

  const start = async (side: 'ours' | 'baseline', name: string, limited = true, nodeOptions: string[] = []) => {
    const made = limited ? createMemoryCgroup(limitMiB, `admission-chain-hostile-${process.pid}-${name}`) : undefined;
    const cgroup = made === undefined || 'unavailable' in made ? undefined : made;
    const [port, metricsPort] = [await freePort(), await freePort()];
    const args =
      side === 'ours'
        ? [
            join(dist, 'cli/run.js'),
            'serve',
            '--cluster-state',
            state,
            '--plugins',
            plugins.join(','),
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
            '--log-level',
            'warn',
          ]
        : [join(root, 'bench/baseline.ts'), String(port), certFile, keyFile];
    // Ours as the image runs it (its node flags and environment); the baseline bare, as in every scenario.
    const runtime = side === 'ours' ? { nodeOptions: [...image.nodeFlags, ...extraNodeOptions, ...nodeOptions], env: image.env } : {};
    const { child, process: server } = startNode(args, {
      ...runtime,
      stdout: side === 'ours' ? 'ignore' : 'pipe',
      ...(cgroup && { cgroup: cgroup.path }),
    });
    if (side === 'baseline') await waitForLine(child, 'ready');
    const base = `https://127.0.0.1:${port}`;
    await waitForWebhook(`${base}/validate`, small, certs.caCert);
    let exitCode: number | null | undefined;
    child.once('exit', (code, signal) => (exitCode = code ?? (signal === null ? null : -1)));
    return {
      base,
      metricsPort,
      server,
      exited: () => exitCode,
      stop: async () => {
        await server.stop();
        cgroup?.remove();
      },
      limited: cgroup !== undefined,
    };
  };

  const timed = async (url: string, body: string) => {
    const started = performance.now();
    const res = await post(url, body, certs.caCert).catch(() => ({ status: 0, text: '' }));
    return { ms: performance.now() - started, status: res.status, allowed: /"allowed":true/.test(res.text.slice(0, 500)) };
  };

  /** The server's V8 heap in use, MiB, from its metrics. */
  const heapUsedMiB = async (metricsPort: number) => {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    return Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(text)?.[1]) / 2 ** 20;
  };

  /**
   * What one request leaves on the heap for a full collection to free, against the share the
   * in-flight budget holds for it: on a server whose old generation is sized so that V8 runs no full
   * collection, the growth of the heap over one request is what the young generation's collections
   * did not free.
   */
  const leftOnHeap = async (shape: HostileShape) => {
    const server = await start('ours', 'ours-held', false, ['--initial-old-space-size=4096']);
    await heapUsedMiB(server.metricsPort);
    const before = await heapUsedMiB(server.metricsPort);
    await timed(`${server.base}${shape.path}`, shape.body);
    const after = await heapUsedMiB(server.metricsPort);
    await server.stop();
    return after - before;
  };

  /** Eight at once, /livez probed throughout; the answers, the probes and the server's peak RSS. */
  const eightAtOnce = async (ours: Awaited<ReturnType<typeof start>>, shape: HostileShape) => {
    let probing = true;
    let failed = 0;
    let slowestProbe = 0;
    const prober = (async () => {
      while (probing) {
        const ms = await livez(ours.metricsPort, probeTimeoutMs);
        if (ms === undefined) failed++;
        else slowestProbe = Math.max(slowestProbe, ms);
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    const eight = await Promise.all(Array.from({ length: 8 }, () => timed(`${ours.base}${shape.path}`, shape.body)));
    probing = false;
    await prober;
    const counts = new Map<string, number>();
    for (const answer of eight) {
      const key = answer.status === 200 ? (answer.allowed ? '200 allowed' : '200 denied') : String(answer.status);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const died = ours.exited() !== undefined;
    const answers = [...counts].map(([key, count]) => `${count}× ${key}`).join(', ') + (died ? ' — server died' : '');
    return { answers, slowestMs: Math.max(...eight.map((a) => a.ms)), peakMiB: ours.server.peakRssMiB(), slowestProbe, failed };
  };

  pinSelf();
  const lines = [
    `| shape | ours, one request (ms) | bare express (ms) | ratio | 8 at once: answers | slowest (ms) | peak RSS in ${limitMiB} MiB (MiB) | slowest /livez (ms) | /livez over ${probeTimeoutMs / 1000} s | peak RSS, no cgroup (MiB) | one leaves on the heap (MiB) | its estimate (MiB) |`,
    '|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  let limitedAll = true;
  for (const [index, shape] of hostileShapes().entries()) {
    if (rows.length > 0 && !rows.includes(index + 1)) continue;
    const baseline = await start('baseline', 'baseline');
    const bare = await timed(`${baseline.base}${shape.path}`, shape.body);
    await baseline.stop();

    const ours = await start('ours', 'ours');
    limitedAll &&= ours.limited;
    const one = await timed(`${ours.base}${shape.path}`, shape.body);
    const limited = await eightAtOnce(ours, shape);
    await ours.stop();

    const unlimited = await start('ours', 'ours-unlimited', false);
    // The same order as in the cgroup: one request, then eight.
    await timed(`${unlimited.base}${shape.path}`, shape.body);
    const free = await eightAtOnce(unlimited, shape);
    await unlimited.stop();

    const left = await leftOnHeap(shape);
    const estimate = requestWeight(jsonShape(Buffer.from(shape.body)), shape.path === '/mutate' ? 'admit' : 'validate') / 2 ** 20;

    const answers = limited.answers === free.answers ? limited.answers : `${limited.answers} (no cgroup: ${free.answers})`;
    lines.push(
      `| ${shape.name} | ${one.ms.toFixed(0)} | ${bare.ms.toFixed(0)} | ${(one.ms / bare.ms).toFixed(2)} | ${answers} | ${limited.slowestMs.toFixed(0)} | ${limited.peakMiB.toFixed(0)} | ${limited.slowestProbe.toFixed(0)} | ${limited.failed} | ${free.peakMiB.toFixed(0)} | ${left.toFixed(0)} | ${estimate.toFixed(0)} |`,
    );
  }
  const note = limitedAll
    ? `Each server but the last column's in its own memory cgroup limited to ${limitMiB} MiB (the chart's container limit).`
    : "Not every server could be put in a memory cgroup on this machine: the cgroup column's RSS is not read under the chart's limit.";
  process.stdout.write(
    `### Scenario 5: hostile bodies (about 3 MiB each)\n\n${lines.join('\n')}\n\n${note} Plugins: ${plugins.join(', ')}; local backend (bench/cluster-state.yaml and bench/hostile-namespace.yaml).\n\n`,
  );
}

/** A kubelet-style probe: GET /livez; its time in ms, or undefined unless 200 within the timeout. */
function livez(port: number, timeoutMs: number): Promise<number | undefined> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/livez', timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200 ? performance.now() - started : undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

if (import.meta.main) await runHostileScenario();
