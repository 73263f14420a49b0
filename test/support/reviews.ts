// AdmissionReview bodies for tests.
export function podReview(options: { uid?: string; apiVersion?: string; pullPolicy?: string; name?: string; operation?: string } = {}) {
  const container: Record<string, unknown> = { name: 'app', image: 'nginx:1.27' };
  if (options.pullPolicy) container.imagePullPolicy = options.pullPolicy;
  return {
    apiVersion: options.apiVersion ?? 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: options.uid ?? 'uid-1',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      namespace: 'default',
      name: options.name ?? 'web',
      operation: options.operation ?? 'CREATE',
      userInfo: { username: 'alice', groups: ['system:authenticated'] },
      object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: options.name ?? 'web', namespace: 'default' }, spec: { containers: [container] } },
      dryRun: false,
    },
  };
}
