// The audit scenario's input: a GitOps-like tree of pod manifests and a few Deployments, written
// as multi-document YAML spread over teams' directories, and what an audit of it with the default
// plugins (AlwaysPullImages, OwnerReferencesPermissionEnforcement) against examples/cluster-state.yaml
// must count. The count line `audit` ends with is read back, so every timed run is checked against it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { AuditSummary } from '../src/cli/audit-results.ts';

/** What `audit` counts, as its count line on stderr says it: its summary. */
export type AuditCounts = AuditSummary;

export interface Tree {
  files: number;
  pods: number;
  deployments: number;
  /** YAML documents written: the pods and the Deployments. */
  documents: number;
  /** What the audit must count. */
  expected: AuditCounts;
}

/** The pods' shapes, in turn: two of five admitted unchanged, two changed, one denied. */
type Shape = 'clean' | 'no-pull-policy' | 'init-and-sidecar' | 'blocks-owner';
const shapes: readonly Shape[] = ['clean', 'clean', 'no-pull-policy', 'init-and-sidecar', 'blocks-owner'];
const teams = 10;

/**
 * Writes `pods` pods into `files` files under dir (team-NN/app-NNN.yaml), each file also holding
 * one Deployment whose template sets no pull policy; returns what was written and what the audit
 * must count. Every pod differs (its name, labels, a checksum annotation), as a real tree's do.
 */
export function writeTree(dir: string, pods: number, files = 100): Tree {
  if (!Number.isInteger(pods) || pods < 1 || !Number.isInteger(files) || files < 1)
    throw new Error(`bench: a tree needs at least one pod and one file, got ${pods} pods in ${files} files`);
  const fileCount = Math.min(files, pods);
  const expected: AuditCounts = { objects: 0, created: 0, denied: 0, warned: 0, mutated: 0, skipped: 0, errors: 0 };
  let pod = 0;
  for (let file = 0; file < fileCount; file++) {
    const team = `team-${String(file % teams).padStart(2, '0')}`;
    const app = `app-${String(file).padStart(3, '0')}`;
    // The pods spread as evenly as whole numbers allow: the first files take one more.
    const here = Math.floor(pods / fileCount) + (file < pods % fileCount ? 1 : 0);
    const documents: unknown[] = [];
    for (let i = 0; i < here; i++, pod++) {
      const shape = shapes[pod % shapes.length]!;
      documents.push(podManifest(app, pod, shape));
      if (shape === 'no-pull-policy' || shape === 'init-and-sidecar') expected.mutated++;
      if (shape === 'blocks-owner') expected.denied++;
    }
    documents.push(deploymentManifest(app));
    // A Deployment is audited with the ReplicaSet and the pod its controllers would create; its
    // template sets no pull policy, so it is changed.
    expected.created += 2;
    expected.mutated++;
    mkdirSync(join(dir, team), { recursive: true });
    writeFileSync(join(dir, team, `${app}.yaml`), documents.map((d) => stringify(d)).join('---\n'));
  }
  expected.objects = pods + fileCount;
  return { files: fileCount, pods, deployments: fileCount, documents: pods + fileCount, expected };
}

function podManifest(app: string, index: number, shape: Shape): Record<string, unknown> {
  const name = `${app}-worker-${index}`;
  const labels = { 'app.kubernetes.io/name': app, 'app.kubernetes.io/instance': name, 'app.kubernetes.io/part-of': 'bench' };
  const pull: Record<string, string> = shape === 'clean' || shape === 'blocks-owner' ? { imagePullPolicy: 'Always' } : {};
  const containers = [container(app, 'worker', index, shape === 'init-and-sidecar' ? { imagePullPolicy: 'IfNotPresent' } : pull)];
  if (shape === 'init-and-sidecar') containers.push(container('envoyproxy/envoy', 'proxy', index, { imagePullPolicy: 'Never' }));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      labels,
      annotations: { 'checksum/config': checksum(index) },
      // Blocking the deletion of a Deployment the writer may not finalize: OwnerReferencesPermissionEnforcement denies it.
      ...(shape === 'blocks-owner' && {
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: app, uid: uid(index), blockOwnerDeletion: true }],
      }),
    },
    spec: {
      serviceAccountName: 'default',
      ...(shape === 'init-and-sidecar' && { initContainers: [container('busybox', 'migrate', index, {})] }),
      containers,
      volumes: [{ name: 'config', configMap: { name: `${app}-config` } }],
    },
  };
}

function container(image: string, name: string, index: number, pull: Record<string, string>): Record<string, unknown> {
  return {
    name,
    image: `registry.example.com/${image}:1.${index % 40}.0`,
    ...pull,
    args: ['--listen=:8080', `--shard=${index}`],
    env: [
      { name: 'LOG_LEVEL', value: 'info' },
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    ],
    ports: [{ name: 'http', containerPort: 8080 }],
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
    readinessProbe: { httpGet: { path: '/ready', port: 'http' }, periodSeconds: 10 },
    volumeMounts: [{ name: 'config', mountPath: '/etc/app' }],
  };
}

function deploymentManifest(app: string): Record<string, unknown> {
  const labels = { 'app.kubernetes.io/name': app };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: app, namespace: 'default', labels },
    spec: {
      replicas: 3,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: 'web', image: `registry.example.com/${app}:2.0.0`, ports: [{ containerPort: 8080 }] }] },
      },
    },
  };
}

const checksum = (index: number) => (index * 2654435761).toString(16).padStart(16, '0').slice(-16);
const uid = (index: number) => `00000000-0000-4000-8000-${index.toString(16).padStart(12, '0')}`;

const countLinePattern =
  /audited (\d+) objects(?: \(and (\d+) objects their controllers would create\))?: (\d+) denied, (\d+) with warnings, (\d+) changed(?:; (.*))?$/m;

/** The counts of the line `audit` ends with on stderr; undefined when there is none. */
export function parseCountLine(stderr: string): AuditCounts | undefined {
  const match = countLinePattern.exec(stderr);
  if (match === null) return undefined;
  const [, objects, created, denied, warned, mutated, notes = ''] = match;
  const note = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(notes)?.[1] ?? 0);
  return {
    objects: Number(objects),
    created: Number(created ?? 0),
    denied: Number(denied),
    warned: Number(warned),
    mutated: Number(mutated),
    skipped: note('skipped'),
    errors: note('not audited'),
  };
}
