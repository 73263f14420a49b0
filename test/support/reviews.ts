// AdmissionReview bodies for tests: a pod CREATE by alice in "default" unless told otherwise.
export interface PodReviewOptions {
  uid?: string;
  apiVersion?: string;
  /** The one container's imagePullPolicy (none by default). */
  pullPolicy?: string;
  name?: string;
  namespace?: string;
  operation?: string;
  /** The whole pod spec, instead of one nginx container; null for a pod with no spec at all. */
  spec?: Record<string, unknown> | null;
  labels?: Record<string, string>;
  userInfo?: { username?: string; groups?: string[]; uid?: string; extra?: Record<string, string[]> };
}

export function podReview(options: PodReviewOptions = {}) {
  const container: Record<string, unknown> = { name: 'app', image: 'nginx:1.27' };
  if (options.pullPolicy) container.imagePullPolicy = options.pullPolicy;
  const name = options.name ?? 'web';
  const namespace = options.namespace ?? 'default';
  const metadata: Record<string, unknown> = { name, namespace, ...(options.labels ? { labels: options.labels } : {}) };
  return {
    apiVersion: options.apiVersion ?? 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: options.uid ?? 'uid-1',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      namespace,
      name,
      operation: options.operation ?? 'CREATE',
      userInfo: options.userInfo ?? { username: 'alice', groups: ['system:authenticated'] },
      object: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata,
        ...(options.spec === null ? {} : { spec: options.spec ?? { containers: [container] } }),
      },
      dryRun: false,
    },
  };
}

/**
 * A ConfigMap CREATE in "default" whose `refs` owner references (Deployments owner-0…) all set
 * blockOwnerDeletion: what OwnerReferencesPermissionEnforcement asks about. The user carries a uid
 * and an extra, so a test can see the whole identity reach a SubjectAccessReview.
 */
export function configMapWithOwnersReview(user: { username: string; groups: string[] }, refs: number) {
  const ownerReferences = Array.from({ length: refs }, (_, i) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    name: `owner-${i}`,
    uid: `uid-${i}`,
    blockOwnerDeletion: true,
  }));
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `uid-${user.username}`,
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      namespace: 'default',
      name: 'cfg',
      operation: 'CREATE',
      userInfo: { ...user, uid: 'u-1', extra: { 'example.com/team': ['a'] } },
      object: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cfg', namespace: 'default', ownerReferences },
      } as { apiVersion: string; kind: string; metadata: object; data?: Record<string, string> },
    },
  };
}
