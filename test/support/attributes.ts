// Attributes for tests: a pod CREATE by alice unless told otherwise.
import type { Attributes } from '../../src/admission/attributes.ts';

export function podAttributes(overrides: Partial<Attributes> = {}): Attributes {
  return {
    uid: 'test-uid',
    operation: 'CREATE',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    subresource: '',
    namespace: 'default',
    name: 'web',
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    oldObject: undefined,
    userInfo: { username: 'alice', groups: ['system:authenticated'] },
    dryRun: false,
    options: undefined,
    ...overrides,
  };
}
