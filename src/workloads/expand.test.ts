// The objects each workload kind's controllers would create, checked field by field against what
// upstream's controllers set (controller_utils.go GetPodFromTemplate, the deployment controller's
// new ReplicaSet, stateful_set_utils.go, daemonset_util.go, the job and cronjob controllers).
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/types.ts';
import { type Created, expandWorkload, isWorkload } from './expand.ts';
import { podsPrefix, podTemplateHash, stableUid } from './names.ts';

const now = new Date('2026-01-02T03:04:35Z');
const template = {
  metadata: { labels: { app: 'web' }, annotations: { team: 'a' }, finalizers: ['example.com/keep'] },
  spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
};
const workload = (apiVersion: string, kind: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name: 'web', namespace: 'team-a' },
  spec,
});
/** Kind and user of each created object, depth first. */
const chain = (created: Created[]): Array<[string, string]> =>
  created.flatMap((c) => [[c.object.kind!, c.user.username!] as [string, string], ...chain(c.creates)]);
const sa = (name: string) => `system:serviceaccount:kube-system:${name}`;

describe('expandWorkload: who creates what', () => {
  it.each([
    [
      'apps/v1',
      'Deployment',
      { template },
      [
        ['ReplicaSet', sa('deployment-controller')],
        ['Pod', sa('replicaset-controller')],
      ],
    ],
    ['apps/v1', 'ReplicaSet', { template }, [['Pod', sa('replicaset-controller')]]],
    ['v1', 'ReplicationController', { template }, [['Pod', sa('replication-controller')]]],
    ['apps/v1', 'StatefulSet', { template, serviceName: 'web' }, [['Pod', sa('statefulset-controller')]]],
    ['apps/v1', 'DaemonSet', { template }, [['Pod', sa('daemon-set-controller')]]],
    ['batch/v1', 'Job', { template }, [['Pod', sa('job-controller')]]],
    [
      'batch/v1',
      'CronJob',
      { schedule: '@daily', jobTemplate: { spec: { template } } },
      [
        ['Job', sa('cronjob-controller')],
        ['Pod', sa('job-controller')],
      ],
    ],
  ])('%s %s', (apiVersion, kind, spec, expected) => {
    const object = workload(apiVersion, kind, spec);
    expect(isWorkload(object)).toBe(true);
    const created = expandWorkload(object, { now });
    expect(chain(created)).toEqual(expected);
    const groups = created[0]!.user.groups;
    expect(groups).toEqual(['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated']);
  });

  it.each([
    ['a Pod', workload('v1', 'Pod', template.spec)],
    ['a Service', workload('v1', 'Service', {})],
    ['a Deployment of an unserved version', workload('extensions/v1beta1', 'Deployment', { template })],
    ['a Deployment without a template', workload('apps/v1', 'Deployment', {})],
  ])('%s creates nothing', (_name, object) => {
    expect(expandWorkload(object, { now })).toEqual([]);
  });
});

describe('the pod from a template (GetPodFromTemplate)', () => {
  const set = workload('apps/v1', 'ReplicaSet', { template });
  const [pod] = expandWorkload(set, { now });

  it("takes the template's labels, annotations, finalizers and spec, the owner's namespace and a generateName", () => {
    expect(pod!.object).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        generateName: 'web-',
        namespace: 'team-a',
        labels: { app: 'web' },
        annotations: { team: 'a' },
        finalizers: ['example.com/keep'],
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: stableUid(set), controller: true, blockOwnerDeletion: true },
        ],
      },
      spec: template.spec,
    });
  });

  it("copies the spec: the pod's changes never reach the workload", () => {
    (pod!.object.spec as { containers: Array<Record<string, unknown>> }).containers[0]!.imagePullPolicy = 'Always';
    expect(template.spec.containers[0]).not.toHaveProperty('imagePullPolicy');
  });

  it('keeps a uid the workload has', () => {
    const withUid = { ...set, metadata: { ...set.metadata, uid: '1234' } };
    expect(expandWorkload(withUid, { now })[0]!.object.metadata!.ownerReferences![0]!.uid).toBe('1234');
  });

  it.each([
    ['web', 'web-'],
    ['a', 'a-'],
    // apimachinery masks the dash by dropping two characters, so 253 characters still take one.
    ['x'.repeat(253), `${'x'.repeat(253)}-`],
    ['x'.repeat(254), 'x'.repeat(254)],
    ['Web', 'Web'],
  ])('getPodsPrefix(%j) is %j', (name, prefix) => {
    expect(podsPrefix(name)).toBe(prefix);
  });
});

describe('the Deployment controller', () => {
  const deployment = workload('apps/v1', 'Deployment', { replicas: 3, selector: { matchLabels: { app: 'web' } }, template });
  const [replicaSet] = expandWorkload(deployment, { now });
  const hash = podTemplateHash([template, null]);

  it('creates a ReplicaSet named by the pod-template-hash, labelled and selected by it, owned by the Deployment', () => {
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
    expect(replicaSet!.object.metadata).toMatchObject({
      name: `web-${hash}`,
      namespace: 'team-a',
      labels: { app: 'web', 'pod-template-hash': hash },
      ownerReferences: [{ kind: 'Deployment', name: 'web', controller: true, blockOwnerDeletion: true }],
    });
    expect(replicaSet!.object.spec).toMatchObject({
      replicas: 3,
      selector: { matchLabels: { app: 'web', 'pod-template-hash': hash } },
      template: { metadata: { labels: { app: 'web', 'pod-template-hash': hash } } },
    });
  });

  it('whose pod carries the hash label and is owned by the ReplicaSet', () => {
    const pod = replicaSet!.creates[0]!.object;
    expect(pod.metadata).toMatchObject({
      generateName: `web-${hash}-`,
      labels: { app: 'web', 'pod-template-hash': hash },
      ownerReferences: [{ kind: 'ReplicaSet', name: `web-${hash}`, uid: replicaSet!.object.metadata!.uid }],
    });
  });

  it('a changed template is a different hash', () => {
    expect(podTemplateHash([{ ...template, spec: {} }, null])).not.toBe(hash);
    expect(podTemplateHash([template, 1])).not.toBe(hash);
  });

  it('the same template with its keys in another order is the same hash (as kubectl prints what the API server sent)', () => {
    const reordered = { spec: template.spec, metadata: { ...template.metadata } };
    expect(Object.keys(reordered)).not.toEqual(Object.keys(template));
    expect(podTemplateHash([reordered, null])).toBe(hash);
  });
});

describe('the StatefulSet controller', () => {
  const claim = { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'] } };
  const spec = {
    serviceName: 'web-headless',
    ordinals: { start: 2 },
    volumeClaimTemplates: [claim],
    template: {
      ...template,
      spec: {
        ...template.spec,
        volumes: [
          { name: 'data', emptyDir: {} },
          { name: 'tmp', emptyDir: {} },
        ],
      },
    },
  };
  const pod = expandWorkload(workload('apps/v1', 'StatefulSet', spec), { now })[0]!.object;

  it('names the first pod by its ordinal, with its hostname, subdomain and identity labels', () => {
    expect(pod.metadata).not.toHaveProperty('generateName');
    expect(pod.metadata).toMatchObject({
      name: 'web-2',
      labels: { app: 'web', 'statefulset.kubernetes.io/pod-name': 'web-2', 'apps.kubernetes.io/pod-index': '2' },
    });
    expect(pod.spec).toMatchObject({ hostname: 'web-2', subdomain: 'web-headless' });
  });

  it("mounts each claim template's claim in place of a template volume of the same name", () => {
    expect((pod.spec as { volumes: unknown[] }).volumes).toEqual([
      { name: 'data', persistentVolumeClaim: { claimName: 'data-web-2' } },
      { name: 'tmp', emptyDir: {} },
    ]);
  });
});

describe('the DaemonSet controller', () => {
  const tolerations = (spec: Record<string, unknown>) =>
    (
      expandWorkload(workload('apps/v1', 'DaemonSet', { template: { ...template, spec } }), { now })[0]!.object.spec as {
        tolerations: Array<Record<string, string>>;
      }
    ).tolerations;

  it('adds the tolerations of node conditions, in upstream order', () => {
    expect(tolerations({}).map((t) => `${t.key}:${t.effect}`)).toEqual([
      'node.kubernetes.io/not-ready:NoExecute',
      'node.kubernetes.io/unreachable:NoExecute',
      'node.kubernetes.io/disk-pressure:NoSchedule',
      'node.kubernetes.io/memory-pressure:NoSchedule',
      'node.kubernetes.io/pid-pressure:NoSchedule',
      'node.kubernetes.io/unschedulable:NoSchedule',
    ]);
  });

  it('keeps a matching toleration once and in place, and adds network-unavailable for host-network pods', () => {
    const own = { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' };
    const other = { key: 'gpu', operator: 'Exists' };
    const result = tolerations({ hostNetwork: true, tolerations: [other, own] });
    expect(result.slice(0, 2)).toEqual([other, own]);
    expect(result.filter((t) => t.key === own.key)).toHaveLength(1);
    expect(result.at(-1)).toEqual({ key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' });
  });

  it('labels the pod with the revision hash', () => {
    const pod = expandWorkload(workload('apps/v1', 'DaemonSet', { template }), { now })[0]!.object;
    expect(pod.metadata!.labels).toHaveProperty('controller-revision-hash');
  });
});

describe('the Job and CronJob controllers', () => {
  const job = { ...workload('batch/v1', 'Job', { template }), metadata: { name: 'web', namespace: 'team-a', uid: 'u-1' } };

  it("labels the pod with the job's name and uid, and adds the job-tracking finalizer", () => {
    const pod = expandWorkload(job, { now })[0]!.object;
    expect(pod.metadata).toMatchObject({
      generateName: 'web-',
      labels: {
        app: 'web',
        'job-name': 'web',
        'batch.kubernetes.io/job-name': 'web',
        'controller-uid': 'u-1',
        'batch.kubernetes.io/controller-uid': 'u-1',
      },
      finalizers: ['example.com/keep', 'batch.kubernetes.io/job-tracking'],
    });
  });

  it('adds no selector labels when the selector is manual', () => {
    const manual = { ...job, spec: { template, manualSelector: true } };
    expect(expandWorkload(manual, { now })[0]!.object.metadata!.labels).toEqual({ app: 'web' });
  });

  it('gives an Indexed job pod the first completion index', () => {
    const indexed = { ...job, spec: { template, completionMode: 'Indexed' } };
    const pod = expandWorkload(indexed, { now })[0]!.object;
    const key = 'batch.kubernetes.io/job-completion-index';
    expect(pod.metadata).toMatchObject({ generateName: 'web-0-', annotations: { [key]: '0' }, labels: { [key]: '0' } });
    expect(pod.spec).toMatchObject({
      hostname: 'web-0',
      containers: [{ env: [{ name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${key}']` } } }] }],
    });
  });

  it("names the CronJob's Job by the scheduled minute and records the scheduled time", () => {
    const cronJob = workload('batch/v1', 'CronJob', { jobTemplate: { metadata: { labels: { tier: 'batch' } }, spec: { template } } });
    const [created] = expandWorkload(cronJob, { now });
    const minutes = Math.floor(now.getTime() / 60_000);
    expect(created!.object.metadata).toMatchObject({
      name: `web-${minutes}`,
      labels: { tier: 'batch' },
      annotations: { 'batch.kubernetes.io/cronjob-scheduled-timestamp': '2026-01-02T03:04:00Z' },
      ownerReferences: [{ kind: 'CronJob', name: 'web', controller: true, blockOwnerDeletion: true }],
    });
    expect(created!.creates[0]!.object.metadata).toMatchObject({
      generateName: `web-${minutes}-`,
      labels: { 'job-name': `web-${minutes}` },
    });
  });
});
