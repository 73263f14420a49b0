// The AdmissionReview bodies every scenario sends, identical for the baseline and for us.

interface Review {
  apiVersion: 'admission.k8s.io/v1';
  kind: 'AdmissionReview';
  request: Record<string, unknown>;
}

function review(request: Record<string, unknown>): Review {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: '705ab4f5-6393-11e8-b7cc-42010a800002', dryRun: false, ...request },
  };
}

const podResource = {
  kind: { group: '', version: 'v1', kind: 'Pod' },
  resource: { group: '', version: 'v1', resource: 'pods' },
  requestKind: { group: '', version: 'v1', kind: 'Pod' },
};

/** Scenarios 1 and 2: a Pod CREATE with three containers, none pulling always. */
export function podCreate(annotations: Record<string, string> = {}): Review {
  const containers = ['app', 'sidecar', 'metrics'].map((name, i) => ({
    name,
    image: `registry.example.com/team/${name}:1.${i}.0`,
    ports: [{ containerPort: 8080 + i, protocol: 'TCP' }],
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
    env: [{ name: 'MODE', value: 'production' }],
  }));
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-7d4b9c6f5-x2k8p', namespace: 'bench', labels: { app: 'web', 'pod-template-hash': '7d4b9c6f5' }, annotations },
    spec: { serviceAccountName: 'default', containers, restartPolicy: 'Always' },
  };
  return review({
    ...podResource,
    namespace: 'bench',
    name: pod.metadata.name,
    operation: 'CREATE',
    userInfo: {
      username: 'system:serviceaccount:kube-system:replicaset-controller',
      uid: 'c0ffee',
      groups: ['system:serviceaccounts', 'system:authenticated'],
    },
    object: pod,
    options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
  });
}

/** Scenario 4: the same pod carrying about `bytes` of annotations (ConfigMap-sized data). */
export function largePodCreate(bytes: number): Review {
  const annotations: Record<string, string> = {};
  const chunk = 'x'.repeat(1000);
  for (let i = 0; i * 1000 < bytes; i++) annotations[`bench.example.com/blob-${i}`] = chunk;
  return podCreate(annotations);
}

export const benchUsers = {
  wildcard: { username: 'bench-admin', uid: 'admin-uid', groups: ['platform-admins', 'system:authenticated'] },
  narrow: { username: 'bench-narrow', uid: 'narrow-uid', groups: ['system:authenticated'] },
} as const;

/** Scenario 3: a Deployment UPDATE that newly sets blockOwnerDeletion on `refs` owner references. */
export function deploymentOwnerUpdate(refs: number, user: { username: string; uid: string; groups: readonly string[] }): Review {
  const owners = (block: boolean) =>
    Array.from({ length: refs }, (_, i) => ({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      name: `owner-${i}`,
      uid: `6b1e0d2c-0000-4000-8000-${String(i).padStart(12, '0')}`,
      controller: i === 0,
      blockOwnerDeletion: block,
    }));
  const deployment = (block: boolean) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'bench', uid: '0b6a2a43-0000-4000-8000-000000000001', ownerReferences: owners(block) },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'registry.example.com/web:1.0.0' }] } },
    },
  });
  return review({
    kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
    resource: { group: 'apps', version: 'v1', resource: 'deployments' },
    namespace: 'bench',
    name: 'web',
    operation: 'UPDATE',
    userInfo: { ...user, groups: [...user.groups] },
    object: deployment(true),
    oldObject: deployment(false),
    options: { apiVersion: 'meta.k8s.io/v1', kind: 'UpdateOptions' },
  });
}
