// EventRateLimit through the real kubectl against a real kube-apiserver calling our webhook, with the
// chart's own AdmissionConfiguration; and the same file given to a second kube-apiserver that runs
// the in-tree plugin, the referee for what is refused and in which words. A Namespace limit of burst
// 3 at 1 qps: five events written in one `kubectl create` (inside a second) leave three created.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ControlPlane, startControlPlane } from '../../control-plane/control-plane.ts';
import { repoRoot } from '../deploy/tools.ts';
import { type KubectlResult, runKubectl } from '../kubectl/kubectl.ts';
import { describeWithControlPlane, type RealCluster, startRealCluster } from './real-cluster.ts';

const limits = [{ type: 'Namespace', qps: 1, burst: 3 }];
const values = {
  pluginMode: 'enforce',
  plugins: {
    AlwaysPullImages: { enabled: false, mode: '' },
    OwnerReferencesPermissionEnforcement: { enabled: false, mode: '' },
    EventRateLimit: { enabled: true, mode: 'enforce', limits },
  },
};
const storm = 'test/control-plane/fixtures/event-storm.yaml';
const refusal = 'Too many requests: limit reached on type Namespace for key storm';
const webhookRefusal = `admission webhook "validate.admission-chain.io" denied the request: ${refusal}`;

/** kubectl's output with the generated names and its temporary file path made stable. */
const stable = (result: KubectlResult) => ({
  code: result.code,
  stdout: result.stdout.replace(/\/web[.-][a-z0-9]+/g, '/web.*'),
  stderr: result.stderr.replace(/\/web[.-][a-z0-9]+/g, '/web.*'),
});

const created = (n: number, suffix = '') => 'event/web.* created\n'.replace('created', `created${suffix}`).repeat(n);
const refused = (message: string, n: number, file = storm) =>
  `Error from server (TooManyRequests): error when creating "${file}": ${message}\n`.repeat(n);

describeWithControlPlane('EventRateLimit on a real kube-apiserver, and beside the in-tree plugin', () => {
  let cluster: RealCluster;
  let inTree: ControlPlane;
  let scratch: string;
  let inTreeKubectl: (...args: string[]) => Promise<KubectlResult>;
  /** The same storm in namespace calm. */
  let calmStorm: string;
  /** Twenty events in namespace flood (well above the burst), two in trickle (well below). */
  let flood: string;
  let trickle: string;

  beforeAll(async () => {
    cluster = await startRealCluster({ values });
    await cluster.kubectlOk('create', 'namespace', 'storm');
    await cluster.kubectlOk('create', 'namespace', 'calm');
    await cluster.kubectlOk('create', 'namespace', 'updates');
    await cluster.kubectlOk('create', 'namespace', 'flood');
    await cluster.kubectlOk('create', 'namespace', 'trickle');
    // The referee reads the very file the chart mounts for the webhook.
    scratch = await mkdtemp(join(tmpdir(), 'admission-chain-event-rate-limit-'));
    const configMap = cluster.rendered.find((o) => o.kind === 'ConfigMap' && o.metadata.name.endsWith('-admission-configuration')) as
      | { data: Record<string, string> }
      | undefined;
    calmStorm = join(scratch, 'calm-storm.yaml');
    await writeFile(calmStorm, (await readFile(join(repoRoot, storm), 'utf8')).replaceAll('storm', 'calm'));
    const stormText = await readFile(join(repoRoot, storm), 'utf8');
    const eventDocument = stormText.slice(stormText.indexOf('---\n'), stormText.indexOf('---\n', stormText.indexOf('---\n') + 4));
    flood = join(scratch, 'flood.yaml');
    await writeFile(flood, eventDocument.replaceAll('storm', 'flood').repeat(20));
    trickle = join(scratch, 'trickle.yaml');
    await writeFile(trickle, eventDocument.replaceAll('storm', 'trickle').repeat(2));
    const file = join(scratch, 'admission-configuration.yaml');
    await writeFile(file, Object.values(configMap!.data)[0]!);
    inTree = await startControlPlane({
      dir: join(scratch, 'in-tree'),
      apiServerArgs: ['--enable-admission-plugins=EventRateLimit', `--admission-control-config-file=${file}`],
    });
    inTreeKubectl = (...args) =>
      runKubectl(join(scratch, 'home'), inTree.kubeconfigPath, args, { cwd: repoRoot, kubectl: inTree.binaries.kubectl });
    for (const namespace of ['storm', 'calm', 'updates', 'flood', 'trickle'])
      expect((await inTreeKubectl('create', 'namespace', namespace)).code).toBe(0);
  }, 180_000);
  afterAll(async () => {
    await cluster?.close();
    await inTree?.stop();
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  });

  it('a storm of five events: three created, then two 429s in upstream words, as the in-tree plugin answers', async () => {
    const ours = stable(await cluster.kubectl('create', '-f', storm));
    const theirs = stable(await inTreeKubectl('create', '-f', storm));
    expect(theirs).toEqual({ code: 1, stdout: created(3), stderr: refused(refusal, 2) });
    expect(ours).toEqual({ code: 1, stdout: created(3), stderr: refused(webhookRefusal, 2) });
    const metrics = await cluster.webhookMetrics();
    expect(metrics).toContain('admission_chain_event_rate_limit_reached_total{type="Namespace"} 2');
  });

  it('dry runs are not counted, and each namespace has its own bucket', async () => {
    const calmRefusal = refusal.replace('key storm', 'key calm');
    for (const [kubectl, message] of [
      [inTreeKubectl, calmRefusal],
      [cluster.kubectl, `admission webhook "validate.admission-chain.io" denied the request: ${calmRefusal}`],
    ] as const) {
      expect(stable(await kubectl('create', '--dry-run=server', '-f', calmStorm))).toEqual({
        code: 0,
        stdout: created(5, ' (server dry run)'),
        stderr: '',
      });
      expect(stable(await kubectl('create', '-f', calmStorm))).toEqual({
        code: 1,
        stdout: created(3),
        stderr: refused(message, 2, calmStorm),
      });
    }
  });

  it('an update (kubectl apply patching an event, as event recorders patch repeated ones) draws a token as a create does', async () => {
    const updates = 'test/control-plane/fixtures/event-updates.yaml';
    const ours = await cluster.kubectl('apply', '-f', updates);
    const theirs = await inTreeKubectl('apply', '-f', updates);
    expect(theirs.stdout).toBe('event/web.1 created\nevent/web.2 created\nevent/web.3 created\n');
    expect(theirs.stderr).toContain(`Too many requests: limit reached on type Namespace for key updates`);
    expect(ours.stdout).toBe(theirs.stdout);
    expect(ours.stderr).toBe(
      theirs.stderr.replace('Too many requests:', 'admission webhook "validate.admission-chain.io" denied the request: Too many requests:'),
    );
    expect(cluster.webhookCalls.at(-1)?.review.request?.operation).toBe('UPDATE');
  });

  // The count of 429s over a burst well above the limit and one well below, on both servers: all but
  // the burst and what refilled while the burst ran (1 qps: a token a second) are refused.
  it('twenty events at once: the burst and the refill pass, the rest are refused, on both; two events: none refused', async () => {
    for (const kubectl of [inTreeKubectl, cluster.kubectl]) {
      const start = performance.now();
      const result = await kubectl('create', '-f', flood);
      const seconds = (performance.now() - start) / 1000;
      const passed = result.stdout.split('\n').filter((line) => line.endsWith(' created')).length;
      const refusals = result.stderr.split('\n').filter((line) => line.includes('limit reached on type Namespace for key flood')).length;
      expect(passed + refusals).toBe(20);
      expect(passed).toBeGreaterThanOrEqual(3);
      expect(passed).toBeLessThanOrEqual(3 + Math.ceil(seconds));
      expect(stable(await kubectl('create', '-f', trickle))).toEqual({ code: 0, stdout: created(2), stderr: '' });
    }
  });

  it('five events.k8s.io Events at once are all created, and none reaches the webhook', async () => {
    const file = 'test/control-plane/fixtures/events-k8s-io-events.yaml';
    const before = cluster.webhookCalls.length;
    expect(stable(await cluster.kubectl('create', '-f', file))).toEqual({
      code: 0,
      stdout: 'event.events.k8s.io/web.* created\n'.repeat(5),
      stderr: '',
    });
    expect(cluster.webhookCalls.slice(before).map((c) => c.review.request?.resource)).toEqual([]);
    expect(stable(await inTreeKubectl('create', '-f', file))).toEqual({
      code: 0,
      stdout: 'event.events.k8s.io/web.* created\n'.repeat(5),
      stderr: '',
    });
  });
});
