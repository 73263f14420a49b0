// `review` of workloads: each kind is reviewed together with what its controllers would create,
// as those controllers, so a Deployment gets the answer its pods would get. In-process through
// main(), against the examples' cluster state.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runMain } from '../support/cli.ts';
import { scratchFiles } from '../support/scratch-files.ts';

const state = 'examples/cluster-state.yaml';
const { write } = scratchFiles('review-workloads');

interface Result {
  kind: string;
  name: string;
  namespace?: string;
  user: string;
  allowed: boolean;
  deniedBy?: string;
  deniedIn?: string;
  code?: number;
  message?: string;
  patch?: unknown[];
  creates?: Result[];
}

const template = (pullPolicy: string) => ({
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'web', image: 'nginx:1.27', imagePullPolicy: pullPolicy }] },
});
const deployment = (pullPolicy: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec: { selector: { matchLabels: { app: 'web' } }, template: template(pullPolicy) },
});

async function review(manifest: unknown, ...args: string[]) {
  const file = write('manifest.yaml', stringify(manifest));
  const result = await runMain(['review', file, '--cluster-state', state, '-o', 'json', ...args]);
  const output = result.stdout === '' ? undefined : (JSON.parse(result.stdout) as { results: Result[] });
  return { ...result, results: output?.results ?? [] };
}

/** The object and everything created from it, depth first. */
const flatten = (r: Result): Result[] => [r, ...(r.creates ?? []).flatMap(flatten)];
const sa = (name: string) => `system:serviceaccount:kube-system:${name}`;

describe('a Deployment gets the answer its pods would get', () => {
  it("is allowed with its pod's patch when the mutating phase runs", async () => {
    const { code, results } = await review(deployment('IfNotPresent'));
    expect(code).toBe(0);
    const [dep, rs, pod] = flatten(results[0]!);
    expect(dep).toMatchObject({ kind: 'Deployment', name: 'web', user: 'admin', allowed: true });
    expect(dep).not.toHaveProperty('patch');
    expect(rs).toMatchObject({ kind: 'ReplicaSet', user: sa('deployment-controller'), allowed: true });
    expect(pod).toMatchObject({
      kind: 'Pod',
      namespace: 'default',
      name: `${rs!.name}-`,
      user: sa('replicaset-controller'),
      allowed: true,
      patch: [{ op: 'replace', path: '/spec/containers/0/imagePullPolicy', value: 'Always' }],
    });
  });

  it("is denied with its pod's denial when only validation runs, and --fail-on deny exits 1", async () => {
    const { code, results } = await review(deployment('IfNotPresent'), '--phase', 'validating', '--fail-on', 'deny');
    expect(code).toBe(1);
    const [dep, rs, pod] = flatten(results[0]!);
    const message = `pods "${rs!.name}-" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always"`;
    expect(pod).toMatchObject({ allowed: false, deniedBy: 'AlwaysPullImages', code: 500, message });
    expect(pod).not.toHaveProperty('deniedIn');
    const deniedIn = `Pod default/${rs!.name}-`;
    expect(dep).toMatchObject({ allowed: false, deniedBy: 'AlwaysPullImages', deniedIn, code: 500, message });
    expect(rs).toMatchObject({ allowed: false, deniedIn, message });
  });

  it('exits 0 on the same denial under --fail-on never, the default', async () => {
    expect((await review(deployment('IfNotPresent'), '--phase', 'validating')).code).toBe(0);
    expect((await review(deployment('IfNotPresent'), '--phase', 'validating', '--fail-on', 'never')).code).toBe(0);
  });

  it('is allowed when its pods pull always', async () => {
    const { code, results } = await review(deployment('Always'), '--phase', 'validating', '--fail-on', 'deny');
    expect(code).toBe(0);
    expect(flatten(results[0]!).map((r) => r.allowed)).toEqual([true, true, true]);
  });
});

describe("the controllers' own identity decides OwnerReferencesPermissionEnforcement", () => {
  const orpe = ['--plugins', 'OwnerReferencesPermissionEnforcement'];

  it('allows the controller references every controller sets, by the bootstrap roles every API server has', async () => {
    const { results } = await review(deployment('Always'), ...orpe);
    expect(flatten(results[0]!).map((r) => [r.kind, r.allowed])).toEqual([
      ['Deployment', true],
      ['ReplicaSet', true],
      ['Pod', true],
    ]);
  });

  it("denies the pod when the cluster state's own replicaset-controller role cannot update replicasets/finalizers", async () => {
    const emptyRole = stringify({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'system:controller:replicaset-controller' },
      rules: [],
    });
    const custom = write('state.yaml', `${readFileSync(state, 'utf8')}\n---\n${emptyRole}`);
    const file = write('deployment.yaml', stringify(deployment('Always')));
    const result = await runMain(['review', file, '--cluster-state', custom, '-o', 'json', '--fail-on', 'deny', ...orpe]);
    expect(result.code).toBe(1);
    const [dep, rs, pod] = flatten((JSON.parse(result.stdout) as { results: Result[] }).results[0]!);
    // The ReplicaSet's own answer is yes: the denial is its pod's.
    expect(rs).toMatchObject({ allowed: false, deniedIn: `Pod default/${rs!.name}-` });
    const message = `pods "${rs!.name}-" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>`;
    expect(pod).toMatchObject({ allowed: false, deniedBy: 'OwnerReferencesPermissionEnforcement', code: 403, message });
    expect(dep).toMatchObject({ allowed: false, deniedIn: `Pod default/${rs!.name}-`, message });
  });
});

describe('every workload kind is reviewed with what its controllers create', () => {
  it.each([
    [
      'ReplicaSet',
      { apiVersion: 'apps/v1', spec: { selector: { matchLabels: { app: 'web' } }, template: template('Never') } },
      [['Pod', 'replicaset-controller']],
    ],
    ['ReplicationController', { apiVersion: 'v1', spec: { template: template('Never') } }, [['Pod', 'replication-controller']]],
    [
      'StatefulSet',
      { apiVersion: 'apps/v1', spec: { serviceName: 'web', template: template('Never') } },
      [['Pod', 'statefulset-controller']],
    ],
    ['DaemonSet', { apiVersion: 'apps/v1', spec: { template: template('Never') } }, [['Pod', 'daemon-set-controller']]],
    ['Job', { apiVersion: 'batch/v1', spec: { template: template('Never') } }, [['Pod', 'job-controller']]],
    [
      'CronJob',
      { apiVersion: 'batch/v1', spec: { schedule: '@daily', jobTemplate: { spec: { template: template('Never') } } } },
      [
        ['Job', 'cronjob-controller'],
        ['Pod', 'job-controller'],
      ],
    ],
  ])('%s', async (kind, body, created) => {
    const { code, results } = await review({ ...body, kind, metadata: { name: 'web' } }, '--phase', 'validating', '--fail-on', 'deny');
    expect(code).toBe(1);
    const [workload, ...rest] = flatten(results[0]!);
    expect(rest.map((r) => [r.kind, r.user])).toEqual(created.map(([k, c]) => [k, sa(c!)]));
    const pod = rest.at(-1)!;
    expect(pod).toMatchObject({ namespace: 'default', allowed: false, deniedBy: 'AlwaysPullImages' });
    expect(pod.message).toMatch(/^pods "web-[^"]*" is forbidden: spec\.containers\[0\]\.imagePullPolicy: Unsupported value: "Never"/);
    expect(workload).toMatchObject({ kind, allowed: false, message: pod.message });
  });
});
