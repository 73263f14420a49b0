// The worst bodies we know how to send, each about 3 MiB (kube-apiserver's request limit): shapes
// whose cost grows with something a requester controls. docs/reliability.md reads them.
import { deploymentOwnerUpdate } from './bodies.ts';

export interface HostileShape {
  readonly name: string;
  readonly path: '/mutate' | '/validate';
  readonly body: string;
}

const target = 3 * 1024 * 1024;

function podReview(pod: Record<string, unknown>, operation = 'CREATE'): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'hostile-1',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      namespace: 'hostile',
      name: 'p',
      operation,
      userInfo: { username: 'mallory', groups: ['system:authenticated'] },
      object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'hostile' }, ...pod },
    },
  });
}

/** As many copies of `item` as fit in about 3 MiB. */
function fill<T>(item: (i: number) => T): T[] {
  const size = JSON.stringify(item(123_456)).length + 1;
  return Array.from({ length: Math.floor(target / size) }, (_, i) => item(i));
}

const container = { name: 'app', image: 'registry.example.com/app:1' };

const n = (count: number) => count.toLocaleString('en');

/** Built when called: each body is a few MiB. */
export function hostileShapes(): HostileShape[] {
  const containers = fill((i) => ({ name: `c${i}`, image: 'app', imagePullPolicy: 'Never' }));
  const empties = fill(() => ({}));
  const annotations = fill((i) => [`k${i}`, 'v'] as const);
  const tolerations = fill((i) => ({ key: `k${i % 97}`, operator: 'Equal', value: `v${i}`, effect: 'NoSchedule' }));
  const owners = 10_000;
  const depth = 9_990;
  return [
    {
      name: `${n(containers.length)} containers not pulled Always (/validate: every one denied)`,
      path: '/validate',
      body: podReview({ spec: { containers } }),
    },
    {
      name: `${n(empties.length)} empty objects beside the spec (/mutate)`,
      path: '/mutate',
      body: podReview({ spec: { containers: [container] }, status: { conditions: empties } }),
    },
    {
      name: `${n(empties.length)} empty objects inside a container (/mutate shares them: it copies a container's pull policy only)`,
      path: '/mutate',
      body: podReview({ spec: { containers: [{ ...container, env: empties }] } }),
    },
    {
      name: `${n(annotations.length)} annotations (/mutate)`,
      path: '/mutate',
      body: podReview({
        metadata: { name: 'p', namespace: 'hostile', annotations: Object.fromEntries(annotations) },
        spec: { containers: [container] },
      }),
    },
    {
      name: `${n(tolerations.length)} tolerations merged with the namespace's and checked against its whitelist (/mutate)`,
      path: '/mutate',
      body: podReview({ spec: { containers: [container], tolerations } }),
    },
    {
      name: `${n(owners)} newly blocking ownerReferences, each its own owner, narrow user (/validate)`,
      path: '/validate',
      body: JSON.stringify(
        deploymentOwnerUpdate(owners, { username: 'bench-narrow', uid: 'narrow-uid', groups: ['system:authenticated'] }),
      ),
    },
    {
      name: `nesting ${n(depth)} levels deep inside a container (/mutate)`,
      path: '/mutate',
      // Spliced in as text: JSON.stringify itself runs out of stack on a value this deep.
      body: podReview({ spec: { containers: [{ ...container, deep: 0 }] } }).replace(
        '"deep":0',
        `"deep":${'{"a":'.repeat(depth)}{}${'}'.repeat(depth)}`,
      ),
    },
    {
      name: `nesting ${n(depth)} levels deep as a container's pull policy (/mutate copies it)`,
      path: '/mutate',
      body: podReview({ spec: { containers: [{ name: 'c', image: 'app', imagePullPolicy: 0 }] } }).replace(
        '"imagePullPolicy":0',
        `"imagePullPolicy":${'{"a":'.repeat(depth)}{}${'}'.repeat(depth)}`,
      ),
    },
  ];
}
