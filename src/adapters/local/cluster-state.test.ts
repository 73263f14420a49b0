import { describe, expect, it } from 'vitest';
import { ClusterStateError, parseClusterState } from './cluster-state.ts';
import { createLocalLookups } from './lookups.ts';

describe('parseClusterState', () => {
  it('reads multi-document YAML into collections', () => {
    const state = parseClusterState(`
apiVersion: v1
kind: ServiceAccount
metadata: {name: default, namespace: ns}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: view}
rules: []
---
apiVersion: v1
kind: APIResourceList
groupVersion: v1
resources: [{name: pods, namespaced: true, kind: Pod}]
`);
    expect(state.serviceAccounts.map((s) => s.metadata?.name)).toEqual(['default']);
    expect(state.clusterRoles).toHaveLength(1);
    expect(state.apiResourceLists[0]?.groupVersion).toBe('v1');
  });

  it('flattens Lists and reads JSON', () => {
    const state = parseClusterState(
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } },
          { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'gvisor' }, handler: 'runsc' },
        ],
      }),
    );
    expect(state.namespaces).toHaveLength(1);
    expect(state.runtimeClasses[0]?.handler).toBe('runsc');
  });

  it('drops secret data at load', () => {
    const state = parseClusterState(
      'apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: n}\ntype: Opaque\ndata: {password: aHVudGVyMg==}\nstringData: {x: y}\n',
    );
    expect(state.secrets).toEqual([{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'n' }, type: 'Opaque' }]);
  });

  it('reads Nodes, which the lookups find by name alone', () => {
    const state = parseClusterState(
      'apiVersion: v1\nkind: Node\nmetadata: {name: n1, namespace: stray, labels: {topology.kubernetes.io/zone: z1}}\nstatus: {capacity: {cpu: "4"}}\n',
    );
    expect(state.nodes.map((n) => n.metadata?.labels)).toEqual([{ 'topology.kubernetes.io/zone': 'z1' }]);
    const nodes = createLocalLookups(state).nodes;
    expect(nodes.cached('', 'n1')?.metadata?.labels).toEqual({ 'topology.kubernetes.io/zone': 'z1' });
    expect(nodes.cached('', 'n2')).toBeUndefined();
    expect(nodes.synced).toBeUndefined();
  });

  it('accepts an empty file', () => {
    expect(parseClusterState('').roles).toEqual([]);
  });

  it.each([
    [
      'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n',
      'state.yaml: document 1 (Pod "p"): unsupported kind Pod; supported kinds: Role, ClusterRole',
    ],
    ['apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\nkind: [\n', 'state.yaml: document 2: invalid YAML'],
    ['- 1\n- 2\n', 'state.yaml: document 1: expected a Kubernetes object, got an array'],
    ['apiVersion: v1\nmetadata: {name: p}\n', 'state.yaml: document 1: object has no kind'],
    [
      'apiVersion: rbac.authorization.k8s.io/v1beta1\nkind: Role\nmetadata: {name: r}\n',
      'unsupported apiVersion "rbac.authorization.k8s.io/v1beta1" for Role',
    ],
    ['apiVersion: v1\nkind: ServiceAccount\nmetadata: {}\n', 'document 1 (ServiceAccount ""): metadata.name is required'],
    [
      'apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: Pod, metadata: {name: x}}]\n',
      'document 1, item 1 (Pod "x"): unsupported kind Pod',
    ],
    ['apiVersion: v1\nkind: APIResourceList\ngroupVersion: v1\n', 'APIResourceList needs groupVersion and resources'],
  ])('rejects %j naming the document', (text, message) => {
    expect(() => parseClusterState(text, 'state.yaml')).toThrow(ClusterStateError);
    expect(() => parseClusterState(text, 'state.yaml')).toThrow(message);
  });
});

describe('parseClusterState: shapes that answer authorization questions', () => {
  const role = (rules: string) =>
    `apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: r, namespace: n}\nrules:\n${rules}\n`;
  it.each([
    [role('  - {verbs: [update], apiGroups: [""], resources: "*/finalizers"}'), 'rules[0].resources must be a list of strings'],
    [
      role('  - {verbs: [delete], apiGroups: [""], resources: [configmaps], resourceNames: app-config-prod}'),
      'rules[0].resourceNames must be a list of strings',
    ],
    [role('  - {verbs: get, apiGroups: [""], resources: [pods]}'), 'rules[0].verbs must be a list of strings'],
    [role('  - {apiGroups: [""], resources: [pods]}'), 'rules[0].verbs must be a list of strings'],
    [role('  - {verbs: [get], nonResourceURLs: "/healthz"}'), 'rules[0].nonResourceURLs must be a list of strings'],
    [
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: b, namespace: n}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role}\n',
      'roleRef.name must be a non-empty string',
    ],
    [
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: {kind: ClusterRole, name: x}\nsubjects: {kind: User, name: alice}\n',
      'subjects must be a list of objects',
    ],
    [
      'apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: s, namespace: n}\nautomountServiceAccountToken: "false"\n',
      'automountServiceAccountToken must be true or false',
    ],
    ['apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: rc}\n', 'handler must be a non-empty string'],
    [
      'apiVersion: v1\nkind: Node\nmetadata: {name: n, labels: {zone: [a]}}\n',
      'document 1 (Node "n"): metadata.labels must be a map of strings',
    ],
  ])('rejects %j', (text, message) => {
    expect(() => parseClusterState(text, 'state.yaml')).toThrow(message);
  });
});
